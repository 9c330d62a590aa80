//! Our episodes as an Inspect AI `.eval` log (issue 29), for `inspect view` and Inspect's
//! dataframes: one sample per episode, its messages and tool events, its verdicts as scores,
//! its annotations in the sample's metadata, the task and config in the header.
//!
//! Samples: the episode's task id is the sample id and its repetitions are epochs (an episode
//! without a task id is a sample of its own). Messages: what the attacker or user says is the
//! `user` role, the assistant's replies `assistant` with their tool calls, tool results `tool`;
//! every message keeps our `seq`, turn and parties in its metadata. Scores: the last verdict of
//! each source (`judge`, or `judge (source)` when a judge has several), `C` for a pass, `I` for a
//! fail, `P` (or the score) for partial, `N` for a verdict not reached (error, skipped: Inspect
//! counts it as 0, our outcome is in the score's metadata), with the summary as explanation and
//! the evidence and details in metadata. Forks of exported episodes are branches of their parent's
//! sample (see `branch` below). Entries are deflate-compressed, read by every Inspect.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Seek, Write};

use serde_json::{Map, Value, json};
use zip::ZipWriter;
use zip::write::SimpleFileOptions;

use super::annotation::AnnotationView;
use crate::core::episode::standing::worst_labelled;
use crate::core::episode::{Episode, EventBody, Evidence, Judge, JudgeSource, Party, Verdict, VerdictMethod};
use crate::core::import::inspect::{WRITER, value_of};

/// What the log names its task when the episodes do not agree on one.
const TASK: &str = "converse";

/// Writes `episodes` (each with its annotations) as one `.eval` log to `out`; `created` is the
/// run's time (RFC 3339). Returns `out` once the archive is complete.
pub fn to_eval<W: Write + Seek>(
    episodes: &[(&Episode, Vec<AnnotationView>)],
    created: &str,
    out: W,
) -> io::Result<W> {
    let samples = samples(episodes);
    let mut zip = ZipWriter::new(out);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut entry = |name: &str, value: &Value| -> io::Result<()> {
        zip.start_file(name, options).map_err(io::Error::other)?;
        crate::core::safe_json::to_writer(&mut zip, value).map_err(io::Error::other)
    };
    for sample in &samples {
        entry(&format!("samples/{}_epoch_{}.json", file_id(&sample["id"]), sample["epoch"]), sample)?;
    }
    let summaries: Vec<Value> = samples.iter().map(summary).collect();
    entry("summaries.json", &Value::Array(summaries))?;
    let written: Vec<&(&Episode, Vec<AnnotationView>)> =
        episodes.iter().filter(|(e, _)| parent_of(e, episodes).is_none()).collect();
    entry("header.json", &header(&written, &samples, created))?;
    zip.finish().map_err(io::Error::other)
}

/// A sample id as Inspect names its entry: `/` would make a folder of it.
fn file_id(id: &Value) -> String {
    let text = id.as_str().map_or_else(|| id.to_string(), str::to_string);
    text.replace('/', "_")
}

/// The exported episode `episode` forks from, if any: the fork is then a branch of it, not a
/// sample of its own.
fn parent_of<'a>(
    episode: &Episode,
    episodes: &'a [(&Episode, Vec<AnnotationView>)],
) -> Option<&'a (&'a Episode, Vec<AnnotationView>)> {
    let direct = |of: &Episode| {
        let parent = of.header().parent.as_ref()?;
        episodes.iter().find(|(e, _)| e.id() == parent.episode && e.id() != of.id())
    };
    let parent = direct(episode)?;
    // Only a chain of parents that ends in a sample: a cycle (no real fork makes one) leaves every
    // episode of it a sample of its own, never an episode dropped.
    let mut at = parent;
    for _ in 0..episodes.len() {
        match direct(at.0) {
            None => return Some(parent),
            Some(up) if std::ptr::eq(up.0, episode) => return None,
            Some(up) => at = up,
        }
    }
    None
}

/// Every episode's sample, `(id, epoch)` unique: the epochs of one task id counted in order. A fork
/// of an exported episode is a branch in its parent's sample.
fn samples(episodes: &[(&Episode, Vec<AnnotationView>)]) -> Vec<Value> {
    let mut epochs: HashMap<String, u32> = HashMap::new();
    episodes
        .iter()
        .filter(|(episode, _)| parent_of(episode, episodes).is_none())
        .map(|(episode, notes)| {
            let id = episode.header().task.id.clone().unwrap_or_else(|| episode.id().to_string());
            let epoch = epochs.entry(id.clone()).or_insert(0);
            *epoch += 1;
            sample(episode, notes, Value::String(id), *epoch, episodes)
        })
        .collect()
}

fn sample(
    episode: &Episode,
    notes: &[AnnotationView],
    id: Value,
    epoch: u32,
    all: &[(&Episode, Vec<AnnotationView>)],
) -> Value {
    let header = episode.header();
    let (messages, tools) = conversation(episode);
    let mut events = with_anchors(episode, tools, None, all);
    events.extend(branches(episode, all));
    let mut metadata = Map::new();
    metadata.insert("converse_episode".into(), Value::String(episode.id().to_string()));
    metadata.insert("task".into(), serde_json::to_value(&header.task).unwrap_or_default());
    metadata.insert("config".into(), serde_json::to_value(&header.config).unwrap_or_default());
    if let Some(parent) = &header.parent {
        metadata.insert("parent".into(), json!({"episode": parent.episode, "seq": parent.seq}));
    }
    if !notes.is_empty() {
        metadata.insert("annotations".into(), notes_of(notes));
    }
    let error = episode.events.iter().find_map(|e| match &e.body {
        EventBody::Error(error) => {
            Some(json!({"message": error.message, "traceback": "", "traceback_ansi": ""}))
        }
        _ => None,
    });
    let first = episode.events.first().map(|e| e.at.clone());
    let last = episode.events.last().map(|e| e.at.clone());
    let model = header.config.models.get("assistant").and_then(Value::as_str).unwrap_or("none/none");
    let completion = messages.iter().rev().find(|m| m["role"] == "assistant").map(|m| m["content"].clone());
    let mut sample = json!({
        "id": id,
        "epoch": epoch,
        "input": header.task.user_task.clone().unwrap_or_default(),
        "target": header.task.attack_goal.clone().unwrap_or_default(),
        "messages": messages,
        "output": {"model": model, "choices": [], "completion": completion.unwrap_or(Value::String(String::new()))},
        "scores": scores(episode, notes),
        "metadata": metadata,
        "store": {},
        "events": events,
        "model_usage": {},
        "started_at": first,
        "completed_at": last,
        "attachments": {},
    });
    if let Some(error) = error {
        sample["error"] = error;
    }
    sample
}

fn notes_of(notes: &[AnnotationView]) -> Value {
    notes
        .iter()
        .map(|a| json!({"target_seq": a.target_seq, "label": a.label, "note": a.note, "author": a.author, "quote": a.quote}))
        .collect()
}

/// The direct forks of `episode` among the exported episodes.
fn forks_of<'a>(
    episode: &Episode,
    all: &'a [(&Episode, Vec<AnnotationView>)],
) -> Vec<&'a (&'a Episode, Vec<AnnotationView>)> {
    all.iter().filter(|(e, _)| parent_of(e, all).is_some_and(|(p, _)| std::ptr::eq(*p, episode))).collect()
}

/// An episode's own events (`tools`, by seq) with an anchor where each of its forks leaves it, as
/// `inspect_ai.event.timeline_branch` sets one; `span` is the span they lie in (a fork's branch
/// span; none for a sample's own).
fn with_anchors(
    episode: &Episode,
    tools: Vec<(u64, Value)>,
    span: Option<&str>,
    all: &[(&Episode, Vec<AnnotationView>)],
) -> Vec<Value> {
    let mut events = tools;
    for (fork, _) in forks_of(episode, all) {
        let at = fork.header().parent.as_ref().map_or(0, |p| p.seq);
        let anchor = json!({"event": "anchor", "anchor_id": anchor_id(fork), "span_id": span,
            "timestamp": time_at(episode, at)});
        // After every event up to the fork point (a stable sort keeps the anchors' order).
        events.push((at, anchor));
    }
    events.sort_by_key(|(seq, _)| *seq);
    events.into_iter().map(|(_, e)| e).collect()
}

/// The branch spans of every fork of `episode` and of their forks in turn, one after another (Inspect's
/// timeline reads branches as siblings; a branch of a branch has its anchor in that branch's span).
fn branches(episode: &Episode, all: &[(&Episode, Vec<AnnotationView>)]) -> Vec<Value> {
    let mut events = Vec::new();
    for (fork, notes) in forks_of(episode, all) {
        events.extend(branch(fork, notes, all));
        events.extend(branches(fork, all));
    }
    events
}

fn anchor_id(fork: &Episode) -> String {
    format!("fork:{}", fork.id())
}

/// When the event `seq` of `episode` happened (its header's time when there is none).
fn time_at(episode: &Episode, seq: u64) -> String {
    let event = episode.events.iter().rev().find(|e| e.seq <= seq).or(episode.events.first());
    event.map(|e| e.at.clone()).unwrap_or_default()
}

/// A fork as an Inspect branch: a `branch` span named by the fork's episode id, its BranchEvent,
/// one model call per reply of the fork's own (its input the whole conversation before it, the
/// shared prefix included, as a replayed branch's calls are), its tool calls, its verdicts as
/// scores. Its notes and config are in the span's metadata.
fn branch(fork: &Episode, notes: &[AnnotationView], all: &[(&Episode, Vec<AnnotationView>)]) -> Vec<Value> {
    let id = format!("branch:{}", fork.id());
    let point = fork.header().parent.as_ref().map_or(0, |p| p.seq);
    let (messages, tools) = conversation(fork);
    let start = time_at(fork, point + 1);
    let mut metadata = json!({"converse_episode": fork.id(), "parent_seq": point,
        "config": serde_json::to_value(&fork.header().config).unwrap_or_default()});
    if !notes.is_empty() {
        metadata["annotations"] = notes_of(notes);
    }
    let mut events = vec![
        json!({"event": "span_begin", "id": id, "type": "branch",
            "name": fork.id(), "timestamp": start, "metadata": metadata}),
        json!({"event": "branch", "from_anchor": anchor_id(fork), "span_id": id, "timestamp": start}),
    ];
    let mut own: Vec<(u64, Value)> = tools.into_iter().filter(|(seq, _)| *seq > point).collect();
    for (i, message) in messages.iter().enumerate() {
        let seq = message["metadata"]["converse"]["seq"].as_u64().unwrap_or(0);
        if message["role"] == "assistant" && seq > point {
            own.push((seq, model_event(&messages[..i], message, &id, &time_at(fork, seq))));
        }
    }
    own.sort_by_key(|(seq, _)| *seq);
    let own: Vec<(u64, Value)> = own.into_iter().map(|(seq, mut e)| (seq, with_span(&mut e, &id))).collect();
    events.extend(with_anchors(fork, own, Some(&id), all));
    for (scorer, score) in scores(fork, notes) {
        events.push(json!({"event": "score", "span_id": id, "scorer": scorer, "score": score,
            "intermediate": false, "timestamp": time_at(fork, u64::MAX)}));
    }
    events.push(json!({"event": "span_end", "id": id, "span_id": id, "timestamp": time_at(fork, u64::MAX)}));
    events
}

fn with_span(event: &mut Value, span: &str) -> Value {
    event["span_id"] = json!(span);
    event.take()
}

/// A model call that said `message` after `input`.
fn model_event(input: &[Value], message: &Value, span: &str, at: &str) -> Value {
    let model = message["model"].as_str().unwrap_or("none/none");
    json!({
        "event": "model", "span_id": span, "timestamp": at, "model": model, "input": input,
        "tools": [], "tool_choice": "auto", "config": {},
        "output": {"model": model, "choices": [{"message": message, "stop_reason": "stop"}],
            "completion": message["content"]},
    })
}

/// The messages and tool events (by seq) of an episode.
fn conversation(episode: &Episode) -> (Vec<Value>, Vec<(u64, Value)>) {
    let mut messages: Vec<Value> = Vec::new();
    let mut events = Vec::new();
    let mut results: HashMap<&str, (&str, bool)> = HashMap::new();
    for event in &episode.events {
        if let EventBody::ToolResult(r) = &event.body {
            results.insert(r.call_id.as_str(), (r.output.as_str(), r.ok));
        }
    }
    for event in &episode.events {
        let ours = |turn: u32, extra: Value| {
            let mut meta = json!({"seq": event.seq, "turn": turn});
            if let Value::Object(extra) = extra {
                meta.as_object_mut().into_iter().for_each(|m| m.extend(extra.clone()));
            }
            json!({"converse": meta})
        };
        match &event.body {
            EventBody::Message(m) => {
                let role = if m.from == Party::Assistant { "assistant" } else { "user" };
                let mut message = json!({
                    "id": format!("m{}", event.seq),
                    "role": role,
                    "content": m.text,
                    "metadata": ours(m.turn, json!({"from": m.from.as_str(), "to": m.to.as_str(), "note": m.is_note()})),
                });
                if role == "assistant" {
                    message["model"] = json!(m.model);
                    message["tool_calls"] = json!([]);
                }
                messages.push(message);
            }
            EventBody::ToolCall(c) => {
                let call =
                    json!({"id": c.call_id, "function": c.tool, "arguments": c.args, "type": "function"});
                // A call belongs to the assistant message before it; a call with none gets its own.
                match messages.last_mut().filter(|m| m["role"] == "assistant") {
                    Some(last) => {
                        if let Some(calls) = last["tool_calls"].as_array_mut() {
                            calls.push(call);
                        }
                    }
                    None => messages.push(json!({
                        "id": format!("m{}", event.seq),
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [call],
                        "metadata": ours(c.turn, json!({"from": "assistant"})),
                    })),
                }
                let (result, ok) = results.get(c.call_id.as_str()).copied().unwrap_or(("", true));
                let mut tool = json!({
                    "event": "tool", "type": "function", "id": c.call_id, "function": c.tool,
                    "arguments": c.args, "result": result, "timestamp": event.at,
                });
                if !ok {
                    tool["error"] = json!({"type": "unknown", "message": result});
                }
                events.push((event.seq, tool));
            }
            EventBody::ToolResult(r) => {
                let mut message = json!({
                    "id": format!("m{}", event.seq),
                    "role": "tool",
                    "content": r.output,
                    "tool_call_id": r.call_id,
                    "function": r.tool,
                    "metadata": ours(r.turn, json!({"ok": r.ok})),
                });
                if !r.ok {
                    message["error"] = json!({"type": "unknown", "message": r.output});
                }
                messages.push(message);
            }
            _ => {}
        }
    }
    // Inspect leaves `tool_calls` out of an assistant message that made none.
    for message in &mut messages {
        if message["tool_calls"].as_array().is_some_and(Vec::is_empty)
            && let Some(m) = message.as_object_mut()
        {
            m.remove("tool_calls");
        }
    }
    (messages, events)
}

/// The last verdict of each source, the reviewers' labels among them, as scores.
fn scores(episode: &Episode, notes: &[AnnotationView]) -> Map<String, Value> {
    let labelled = human_verdicts(episode, notes);
    let verdicts: Vec<&Verdict> = episode
        .events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Verdict(v) => Some(&**v),
            _ => None,
        })
        .chain(&labelled)
        .collect();
    let mut sources: BTreeMap<&Judge, Vec<JudgeSource>> = BTreeMap::new();
    for v in &verdicts {
        let source = v.source();
        let known = sources.entry(&v.judge).or_default();
        if !known.contains(&source) {
            known.push(source);
        }
    }
    let mut scores = Map::new();
    for v in verdicts {
        let source = v.source();
        let key =
            if sources[&v.judge].len() > 1 { format!("{} ({source})", v.judge) } else { v.judge.to_string() };
        let mut metadata = json!({"outcome": v.outcome.as_str(), "source": source, "score": v.score});
        if let Some(turn) = v.turn {
            metadata["turn"] = json!(turn);
        }
        if let Some(evidence) = &v.evidence {
            metadata["evidence"] = serde_json::to_value(evidence).unwrap_or_default();
        }
        if !v.details.is_null() {
            metadata["details"] = v.details.clone();
        }
        scores.insert(
            key,
            json!({"value": value_of(v.outcome, v.score), "explanation": v.summary, "metadata": metadata}),
        );
    }
    scores
}

/// The reviewers' labels as one `human` verdict per judge: the worst outcome labelled, at the
/// earliest event labelled so, as `summary` folds them.
fn human_verdicts(episode: &Episode, notes: &[AnnotationView]) -> Vec<Verdict> {
    let labels = notes
        .iter()
        .filter_map(|n| n.judged.clone().map(|(judge, outcome)| (judge, outcome, Some(n.target_seq))));
    worst_labelled(labels)
        .into_iter()
        .filter_map(|(judge, (outcome, seq))| {
            let seq = seq?;
            Some(Verdict {
                turn: episode.position_of(seq).and_then(|i| episode.events[i].body.turn()),
                judge,
                method: VerdictMethod::Human,
                model: None,
                outcome,
                score: None,
                summary: None,
                details: Value::Null,
                evidence: Some(Evidence { seq, start: None, end: None, text: None }),
                usage: None,
            })
        })
        .collect()
}

fn summary(sample: &Value) -> Value {
    let mut summary = Map::new();
    for key in ["id", "epoch", "input", "target", "scores", "metadata", "started_at", "completed_at", "error"]
    {
        if let Some(value) = sample.get(key) {
            summary.insert(key.into(), value.clone());
        }
    }
    summary.insert("completed".into(), Value::Bool(true));
    summary.insert("message_count".into(), json!(sample["messages"].as_array().map_or(0, Vec::len)));
    // Our turns (an attacker's message and what it set off), which a browser row of the log shows.
    let turns = sample["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["metadata"]["converse"]["turn"].as_u64())
        .max()
        .unwrap_or(0);
    summary.insert("turn_count".into(), json!(turns));
    Value::Object(summary)
}

fn header(episodes: &[&(&Episode, Vec<AnnotationView>)], samples: &[Value], created: &str) -> Value {
    let first = episodes.first().map(|(e, _)| e.header());
    let tasks: Vec<&str> = episodes.iter().filter_map(|(e, _)| e.header().task.domain.as_deref()).collect();
    // One task name when every episode agrees on its domain (an Inspect task), else ours.
    let task = match tasks.first() {
        Some(t) if tasks.len() == episodes.len() && tasks.iter().all(|x| x == t) => t.to_string(),
        _ => TASK.to_string(),
    };
    let model = first
        .and_then(|h| h.config.models.get("assistant"))
        .and_then(Value::as_str)
        .unwrap_or("none/none")
        .to_string();
    let mut unique: Vec<Value> = Vec::new();
    for sample in samples {
        if !unique.contains(&sample["id"]) {
            unique.push(sample["id"].clone());
        }
    }
    let models: Map<String, Value> = first.map(|h| h.config.models.clone()).unwrap_or_default();
    json!({
        "version": 2,
        "status": "success",
        "eval": {
            "created": created,
            "task": task,
            "task_version": 0,
            "dataset": {"name": task, "samples": unique.len(), "sample_ids": unique},
            "model": model,
            "config": {},
            "metadata": {"written_by": WRITER, "models": models},
        },
        "plan": {"name": "plan", "steps": []},
        "results": {"total_samples": samples.len(), "completed_samples": samples.len()},
        "stats": {"started_at": created, "completed_at": created},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, EpisodeHeader, Message, ParentRef, TaskInfo, stamp_events};
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
        let all: Vec<(&Episode, Vec<AnnotationView>)> =
            [&root, &fork, &a, &b].into_iter().map(|e| (e, Vec::new())).collect();
        let samples = samples(&all);
        let ids: Vec<&str> =
            samples.iter().map(|s| s["metadata"]["converse_episode"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            ["root", "a", "b"],
            "the fork is a branch; a and b, each the other's parent, are samples"
        );
        let kinds: Vec<&str> =
            samples[0]["events"].as_array().unwrap().iter().map(|e| e["event"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["anchor", "span_begin", "branch", "model", "span_end"]);
        assert!(samples[1]["events"].as_array().unwrap().is_empty());
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

    /// A log of one sample and one branch of it, both starting with `text`.
    fn log_with_a_fork(text: &str) -> tempfile::NamedTempFile {
        let root = opening_with("root", None, text, "no");
        let fork = opening_with("fork", Some("root"), text, "yes");
        let file = tempfile::Builder::new().suffix(".eval").tempfile().unwrap();
        let episodes = [(&root, Vec::new()), (&fork, Vec::new())];
        to_eval(&episodes, "2026-11-25T00:00:00Z", file.reopen().unwrap()).unwrap();
        file
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
