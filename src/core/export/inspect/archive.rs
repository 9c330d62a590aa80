//! The `.eval` archive: a sample entry per exported episode that is no branch of another, the
//! summaries (one per sample, as `read_eval_log_sample_summaries` reads them) and the header (the
//! task, the models by role, the results a metric per scorer, the tokens per model).

use std::collections::HashSet;
use std::io::{self, Seek, Write};

use serde_json::{Map, Value, json};
use zip::ZipWriter;
use zip::write::SimpleFileOptions;

use super::exported::Exported;
use super::family::Family;
use super::results::{model_usage, results};
use super::sample::{self, branches};
use super::scores::{notes_of, scores};
use super::transcript::Attachments;
use crate::core::episode::Episode;
use crate::core::import::inspect::{CARRIED_TASK, FORMAT, WRITER};

/// What the log names its task when the episodes do not agree on one.
const TASK: &str = "converse";

/// Writes `exported` as one `.eval` log to `out`; `created` is the run's time (RFC 3339). Returns
/// `out` once the archive is complete.
pub fn to_eval<W: Write + Seek>(exported: &[Exported], created: &str, out: W) -> io::Result<W> {
    let episodes: Vec<&Episode> = exported.iter().map(|e| e.episode).collect();
    let family = Family::of(&episodes).without(|fork, parent| inspects_own(exported, fork, parent));
    let mut samples = Vec::new();
    let mut roots = Vec::new();
    let mut taken = HashSet::new();
    for (index, e) in exported.iter().enumerate() {
        if family.is_branch(index) || family.is_dropped(index) {
            continue;
        }
        let (id, mut epoch) = key(e);
        while !taken.insert((id.to_string(), epoch)) {
            epoch += 1;
        }
        samples.push(match &e.written {
            Some(written) => carried(exported, &family, index, written.clone(), epoch),
            None => sample::built(exported, &family, index, (id, epoch)),
        });
        roots.push(e.episode);
    }
    let task = log_task(&roots);
    for (sample, episode) in samples.iter_mut().zip(&roots) {
        // A log holds one task: a sample carried over from another keeps its task's name (a
        // sample we built keeps the episode's task in its metadata).
        let own = episode.header().task.extra.get("inspect_task").and_then(Value::as_str);
        if let Some(own) = own.filter(|own| *own != task && sample["metadata"]["converse"].is_null()) {
            sample["metadata"][CARRIED_TASK] = json!(own);
        }
    }
    let mut zip = ZipWriter::new(out);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut entry = |name: &str, value: &Value| -> io::Result<()> {
        zip.start_file(name, options).map_err(io::Error::other)?;
        crate::core::safe_json::to_writer(&mut zip, value).map_err(io::Error::other)
    };
    for sample in &samples {
        entry(&format!("samples/{}_epoch_{}.json", id_text(&sample["id"]), sample["epoch"]), sample)?;
    }
    entry("summaries.json", &Value::Array(samples.iter().map(summary).collect()))?;
    entry("header.json", &header(&roots, &samples, &task, created))?;
    zip.finish().map_err(io::Error::other)
}

/// A sample's id and epoch: those of the Inspect sample it was read from, else its task id (or
/// its own id) and the first epoch (the caller counts repetitions up).
fn key(exported: &Exported) -> (Value, u32) {
    if let Some(written) = &exported.written {
        return (written["id"].clone(), written["epoch"].as_u64().unwrap_or(1) as u32);
    }
    let task = &exported.episode.header().task;
    if let Some(id) = task.extra.get("sample_id").filter(|id| id.is_string() || id.is_number()) {
        return (id.clone(), task.extra.get("epoch").and_then(Value::as_u64).unwrap_or(1) as u32);
    }
    (Value::String(task.id.clone().unwrap_or_else(|| exported.episode.id().to_string())), 1)
}

/// Whether the branch `fork` of `parent` is one of the branches of the Inspect sample `parent`
/// carries over (read from the same log): it is in that sample's events already.
fn inspects_own(exported: &[Exported], fork: usize, parent: usize) -> bool {
    let source = |i: usize| exported[i].episode.header().source.clone().filter(|s| s.format == FORMAT);
    exported[parent].written.is_some()
        && source(fork).is_some_and(|s| Some(s.path) == source(parent).map(|p| p.path))
}

/// A sample Inspect wrote, carried over: its scores those of the episode (its own as they were,
/// and any verdict given since), the episode's notes in its metadata, our forks of it as branches
/// (their whole conversations added to its message pool).
fn carried(exported: &[Exported], family: &Family, index: usize, mut sample: Value, epoch: u32) -> Value {
    let episode = exported[index].episode;
    sample["epoch"] = json!(epoch);
    sample["scores"] = Value::Object(scores(episode, &exported[index].notes));
    if !exported[index].notes.is_empty() {
        sample["metadata"]["converse_annotations"] = notes_of(&exported[index].notes);
    }
    if family.forks_of(index).is_empty() {
        return sample;
    }
    let episodes: Vec<&Episode> = exported.iter().map(|e| e.episode).collect();
    let mut attachments = Attachments::new(&episodes);
    let mut pool: Vec<Value> = match sample["events_data"]["messages"].take() {
        Value::Array(messages) => messages,
        _ => Vec::new(),
    };
    let forks = branches(exported, family, index, None, &mut pool, &mut attachments);
    sample["events_data"] = json!({"messages": pool, "calls": sample["events_data"]["calls"].take()});
    if !sample["events_data"]["calls"].is_array() {
        sample["events_data"]["calls"] = json!([]);
    }
    if let Value::Array(events) = &mut sample["events"] {
        events.extend(forks);
    }
    let known = sample["attachments"].as_object_mut();
    if let Some(known) = known {
        known.extend(attachments.map);
    }
    sample
}

/// A sample's summary, as Inspect's `EvalSampleSummary` has it (its error a text, its limit the
/// limit's type); a sample we built keeps only the episode's task and config in its metadata,
/// which a listing needs.
fn summary(sample: &Value) -> Value {
    let mut summary = Map::new();
    for key in [
        "id",
        "epoch",
        "input",
        "target",
        "scores",
        "model_usage",
        "started_at",
        "completed_at",
        "total_time",
        "working_time",
        "uuid",
        "turn_count",
    ] {
        if let Some(value) = sample.get(key).filter(|v| !v.is_null()) {
            summary.insert(key.into(), value.clone());
        }
    }
    let mut metadata = sample["metadata"].as_object().cloned().unwrap_or_default();
    metadata.remove("converse");
    metadata.remove("converse_annotations");
    summary.insert("metadata".into(), Value::Object(metadata));
    if let Some(message) = sample["error"]["message"].as_str() {
        summary.insert("error".into(), json!(message));
    }
    if let Some(kind) = sample["limit"]["type"].as_str() {
        summary.insert("limit".into(), json!(kind));
    }
    if let Some(retries) = sample["error_retries"].as_array().filter(|r| !r.is_empty()) {
        summary.insert("retries".into(), json!(retries.len()));
    }
    summary.insert("completed".into(), Value::Bool(true));
    summary.insert("message_count".into(), json!(sample["messages"].as_array().map_or(0, Vec::len)));
    Value::Object(summary)
}

/// One task name when every episode agrees on its domain (an Inspect task), else ours.
fn log_task(episodes: &[&Episode]) -> String {
    let tasks: Vec<&str> = episodes.iter().filter_map(|e| e.header().task.domain.as_deref()).collect();
    match tasks.first() {
        Some(t) if tasks.len() == episodes.len() && tasks.iter().all(|x| x == t) => t.to_string(),
        _ => TASK.to_string(),
    }
}

fn header(episodes: &[&Episode], samples: &[Value], task: &str, created: &str) -> Value {
    let first = episodes.first().map(|e| e.header());
    let models: Map<String, Value> = first.map(|h| h.config.models.clone()).unwrap_or_default();
    let model = models.get("assistant").and_then(Value::as_str).unwrap_or("none/none").to_string();
    // The roles as Inspect named them when the episodes came from an Inspect log (an audit's
    // `auditor` and `target`), else ours.
    let roles =
        first.and_then(|h| h.config.extra.get("inspect")?.get("model_roles").cloned()).unwrap_or_else(|| {
            let ours = models.iter().filter(|(role, _)| *role != "assistant");
            Value::Object(ours.map(|(role, m)| (role.clone(), json!({"model": m}))).collect())
        });
    let mut unique: Vec<Value> = Vec::new();
    for sample in samples {
        if !unique.contains(&sample["id"]) {
            unique.push(sample["id"].clone());
        }
    }
    json!({
        "version": 2,
        "status": "success",
        "eval": {
            "created": created,
            "task": task,
            "task_version": 0,
            "dataset": {"name": task, "samples": unique.len(), "sample_ids": unique},
            "model": model,
            "model_roles": roles,
            "config": {},
            "metadata": {"written_by": WRITER, "models": models},
        },
        "plan": {"name": "plan", "steps": []},
        "results": results(samples),
        "stats": {"started_at": created, "completed_at": created, "model_usage": model_usage(samples)},
    })
}

/// A sample id as Inspect names its entry (`samples/{id}_epoch_{n}.json`, whatever the id holds).
fn id_text(id: &Value) -> String {
    id.as_str().map_or_else(|| id.to_string(), str::to_string)
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{
        EpisodeConfig, EpisodeHeader, EventBody, Message, ParentRef, Party, TaskInfo, stamp_events,
    };
    use crate::core::import::inspect;

    fn episode(id: &str, parent: Option<&str>) -> Episode {
        opening_with(id, parent, &format!("{id} asks"), &format!("{id} answers"))
    }

    #[test]
    fn a_fork_is_a_branch_of_its_parent_and_a_cycle_of_parents_drops_nobody() {
        let (root, fork, a, b) = (
            episode("root", None),
            episode("fork", Some("root")),
            episode("a", Some("b")),
            episode("b", Some("a")),
        );
        let file = write(&[&root, &fork, &a, &b]);
        let samples = samples_of(file.path());
        let ids: Vec<&str> =
            samples.iter().map(|s| s["metadata"]["converse"]["episode"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            ["a", "b", "root"],
            "the fork is a branch; a and b, each the other's parent, are samples"
        );
        let kinds: Vec<&str> =
            samples[2]["events"].as_array().unwrap().iter().map(|e| e["event"].as_str().unwrap()).collect();
        // The attacker's model call, the anchor after it where the fork leaves, the assistant's, the branch.
        assert_eq!(kinds, ["model", "anchor", "model", "span_begin", "branch", "model", "span_end"]);
        let kinds: Vec<&str> =
            samples[0]["events"].as_array().unwrap().iter().map(|e| e["event"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["model", "model"], "the attacker's message and the assistant's reply");
    }

    /// An episode whose first message is `text`; a fork leaves its parent after that message.
    fn opening_with(id: &str, parent: Option<&str>, text: &str, answer: &str) -> Episode {
        let mut header = EpisodeHeader::new(id.to_string(), TaskInfo::default(), EpisodeConfig::default());
        header.parent = parent.map(|p| ParentRef { episode: p.to_string(), seq: 1 });
        let bodies = vec![
            EventBody::Episode(Box::new(header)),
            EventBody::Message(Message::new(1, Party::Attacker, Party::Assistant, text)),
            EventBody::Message(Message::new(1, Party::Assistant, Party::Attacker, answer)),
        ];
        Episode::new(stamp_events(bodies, "2026-11-25T00:00:00Z"), id.to_string())
    }

    /// `episodes` written to a new `.eval`.
    fn write(episodes: &[&Episode]) -> tempfile::NamedTempFile {
        let file = tempfile::Builder::new().suffix(".eval").tempfile().unwrap();
        let exported: Vec<Exported> =
            episodes.iter().map(|e| Exported { episode: e, notes: Vec::new(), written: None }).collect();
        to_eval(&exported, "2026-11-25T00:00:00Z", file.reopen().unwrap()).unwrap();
        file
    }

    /// Every sample entry of the log at `path`, parsed.
    fn samples_of(path: &std::path::Path) -> Vec<Value> {
        let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
        let names: Vec<String> = zip
            .file_names()
            .filter_map(Result::ok)
            .filter(|n| n.starts_with("samples/"))
            .map(String::from)
            .collect();
        let mut samples: Vec<Value> =
            names.iter().map(|n| serde_json::from_reader(zip.by_name(n).unwrap()).unwrap()).collect();
        samples.sort_by_key(|s| s["metadata"]["converse"]["episode"].as_str().map(str::to_string));
        samples
    }

    /// A log of one sample and one branch of it, both starting with `text`.
    fn log_with_a_fork(text: &str) -> tempfile::NamedTempFile {
        let root = opening_with("root", None, text, "no");
        let fork = opening_with("fork", Some("root"), text, "yes");
        write(&[&root, &fork])
    }

    #[test]
    fn a_log_too_large_to_read_for_its_forks_says_so() {
        let file = log_with_a_fork("hello");
        let listed_from =
            |e: &Episode| e.header().source.as_ref().map(|s| s.format.clone()).unwrap_or_default();
        let read = inspect::load_eval(file.path()).unwrap();
        let listed = inspect::summary_episodes_reading_forks_up_to(file.path(), u128::MAX).unwrap();
        assert_eq!(listed.iter().map(Episode::id).collect::<Vec<_>>(), ["root_epoch_1", "root_epoch_1~fork"]);
        assert!(listed.iter().all(|e| e.warnings.is_empty()));
        // Read, its samples' rows are the samples' episodes (their events counted as the inspector
        // counts them), not their summaries.
        assert_eq!(listed[0].events.len(), read[0].events.len());
        assert_eq!(listed_from(&listed[0]), inspect::FORMAT);
        let listed = inspect::summary_episodes_reading_forks_up_to(file.path(), 0).unwrap();
        assert_eq!(listed.iter().map(Episode::id).collect::<Vec<_>>(), ["root_epoch_1"]);
        let warning = &listed[0].warnings[0];
        assert!(warning.starts_with(&format!("{}: the forks", file.path().display())), "{warning}");
        assert_eq!(listed_from(&listed[0]), inspect::SUMMARY_FORMAT, "listed from its summary");
    }

    #[test]
    fn a_fork_sharing_a_long_text_leaves_its_parent_after_it() {
        let text = "a long message, \"quoted\"\n".repeat(10_000);
        let file = log_with_a_fork(&text);
        let read = inspect::load_eval(file.path()).unwrap();
        let [root, fork] = read.as_slice() else { panic!("{} episodes", read.len()) };
        for episode in [root, fork] {
            let EventBody::Message(first) = &episode.events[1].body else { panic!("a message") };
            assert_eq!(first.text, text, "{}", episode.id());
        }
        let parent = fork.header().parent.clone().unwrap();
        assert_eq!((parent.episode.as_str(), parent.seq), ("root_epoch_1", 1), "the long text is shared");
    }
}
