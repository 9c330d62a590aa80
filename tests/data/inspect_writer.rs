//! `export --format eval` checked both ways (issue 38) with Inspect's own code in the pinned venv:
//! every exported log reads with every Inspect reader and opens in `inspect view` with each sample
//! loadable (over its HTTP API, and once in headless Chromium); ours → `.eval` → ours gives back
//! the same events; Inspect → ours → Inspect gives back each sample as Inspect wrote it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use converse_tui::core::episode::{
    End, EndReason, ErrorEvent, Event, EventBody, Message, ParentRef, Party, stamp_events,
};

use crate::inspect_shapes::shapes;
use crate::support::inspect_logs::{dumped, run};
use crate::support::{journals, python};

/// Our episodes of every shape: one with usage, notes and both parties' models; one that ended in
/// an error; one whose task id holds `/` and a long text; a fork of the first run by another assistant model (a
/// fan attempt), and a fork of that fork.
fn ours() -> Vec<Vec<Event>> {
    let with_models = |i: usize| {
        let mut events = journals::journal_events(i);
        for event in &mut events {
            if let EventBody::Message(m) = &mut event.body
                && m.from == Party::Assistant
            {
                m.model = Some("gpt-4o-mini".into());
            }
        }
        events
    };
    let first = with_models(0);
    let mut errored = with_models(1);
    let end = errored.pop().unwrap();
    errored.push(Event {
        seq: end.seq,
        at: end.at.clone(),
        body: EventBody::Error(ErrorEvent {
            source: "assistant".into(),
            message: "the model server went away".into(),
            turn: Some(7),
        }),
    });
    errored.push(Event {
        seq: end.seq + 1,
        at: end.at,
        body: EventBody::End(End { reason: EndReason::Error, turns: 7 }),
    });
    let mut slashed = with_models(2);
    if let EventBody::Episode(h) = &mut slashed[0].body {
        h.task.id = Some("suite/case-1".into());
        // A text longer than an attachment's threshold (64 KiB) in the task: read back whole.
        h.task.extra.insert("profile".into(), "a long profile. ".repeat(5_000).into());
    }
    let fork = fork_of(&first, 8, "ep-00000-a1", "ep-00000", "gpt-4.1-nano");
    let nested = fork_of(&fork, 12, "ep-00000-a1-b1", "ep-00000-a1", "gpt-4.1");
    vec![first, errored, slashed, fork, nested]
}

/// `events[..=keep]` continued by another assistant model: one more turn, a verdict, its end.
fn fork_of(events: &[Event], keep: usize, id: &str, parent: &str, model: &str) -> Vec<Event> {
    let mut bodies: Vec<EventBody> = events[..=keep].iter().map(|e| e.body.clone()).collect();
    if let EventBody::Episode(h) = &mut bodies[0] {
        h.id = id.into();
        h.parent = Some(ParentRef { episode: parent.into(), seq: events[keep].seq });
        h.config.models.insert("assistant".into(), model.into());
    }
    let mut asks = Message::new(9, Party::Attacker, Party::Assistant, format!("{id}: and the appointment?"));
    asks.model = Some("gpt-4o".into());
    let mut answers = Message::new(9, Party::Assistant, Party::Attacker, format!("{id}: I will not say."));
    answers.model = Some(model.into());
    answers.usage = Some(converse_tui::core::llm::Usage { input_tokens: 300, output_tokens: 20 });
    bodies.extend([EventBody::Message(asks), EventBody::Message(answers)]);
    bodies.push(journals::verdict(None, "privacy", converse_tui::core::episode::Outcome::Pass, None));
    bodies.push(EventBody::End(End { reason: EndReason::MaxTurns, turns: 9 }));
    let mut stamped = stamp_events(bodies, "2025-05-01T09:30:00Z");
    // The copied prefix keeps its seqs and times, as a fork's journal does.
    for (copied, original) in stamped.iter_mut().zip(events).skip(1).take(keep) {
        *copied = original.clone();
    }
    stamped
}

/// Writes `episodes` as journals under `dir/runs` (a note on the first), exports them to `out`.
fn export(dir: &Path, episodes: &[Vec<Event>], out: &Path) -> PathBuf {
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    for events in episodes {
        let EventBody::Episode(h) = &events[0].body else { unreachable!() };
        std::fs::write(runs.join(format!("{}.jsonl", h.id)), journals::journal_text(events)).unwrap();
    }
    let note = json!({"id": "n-1", "op": "add", "episode": "ep-00000", "target_seq": 4, "label": "leak",
        "note": "shares the hotel", "author": "ana", "at": "2025-05-01T10:00:00Z"});
    std::fs::write(runs.join("ep-00000.notes.jsonl"), format!("{note}\n")).unwrap();
    let (ok, _, stderr) =
        run(&["export", runs.to_str().unwrap(), "--format", "eval", "-o", out.to_str().unwrap()]);
    assert!(ok, "export: {stderr}");
    runs
}

const READERS: &str = r#"
import json, sys
from inspect_ai.log import read_eval_log, read_eval_log_sample, read_eval_log_sample_summaries, read_eval_log_samples
path = sys.argv[1]
log = read_eval_log(path)
summaries = read_eval_log_sample_summaries(path)
by_id = [read_eval_log_sample(path, id=s.id, epoch=s.epoch) for s in summaries]
streamed = list(read_eval_log_samples(path, all_samples_required=False))
print(json.dumps({
    "status": log.status,
    "results": {s.name: {m: v.value for m, v in s.metrics.items()} for s in log.results.scores},
    "usage": {m: u.total_tokens for m, u in log.stats.model_usage.items()},
    "roles": {r: c.model for r, c in (log.eval.model_roles or {}).items()},
    "summaries": [{"id": s.id, "epoch": s.epoch, "error": s.error, "scores": sorted((s.scores or {}).keys()),
                   "turn_count": s.turn_count} for s in summaries],
    "samples": [{"id": s.id, "epoch": s.epoch, "messages": len(s.messages), "error": s.error.message if s.error else None,
                 "usage": {m: u.total_tokens for m, u in s.model_usage.items()},
                 "models": [[e.role, e.model, e.span_id is not None] for e in s.events if e.event == "model"]}
                for s in by_id],
    "streamed": len(streamed),
}))
"#;

#[test]
fn an_export_reads_with_every_inspect_reader_and_opens_in_inspect_view() {
    let dir = tempfile::tempdir().unwrap();
    let view = dir.path().join("view");
    std::fs::create_dir(&view).unwrap();
    let episodes = ours();
    export(dir.path(), &episodes, &view.join("ours.eval"));
    let (shapes_dir, _) = shapes();
    let (ok, _, stderr) = run(&[
        "export",
        shapes_dir.join("shapes.eval").to_str().unwrap(),
        "--format",
        "eval",
        "-o",
        view.join("shapes.eval").to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");

    let read: Value =
        serde_json::from_str(&python::run_script(READERS, &[view.join("ours.eval").to_str().unwrap()]))
            .unwrap();
    assert_eq!(read["status"], "success");
    // One sample per episode that is no fork of another; the forks are branches.
    let ids: Vec<&str> =
        read["samples"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    let task = |i: usize| match &episodes[i][0].body {
        EventBody::Episode(h) => h.task.id.clone().unwrap(),
        _ => unreachable!(),
    };
    assert_eq!(ids, [task(0), task(1), "suite/case-1".to_string()], "ids keep their text, '/' included");
    assert_eq!(read["streamed"], 3);
    // The errored episode: an EvalError, its summary's error a text (the viewer's `.includes`).
    assert_eq!(read["samples"][1]["error"], "the model server went away");
    assert_eq!(read["summaries"][1]["error"], "the model server went away");
    assert!(read["summaries"][0]["error"].is_null());
    // A headline metric per scorer: privacy (llm) C/I and human, utility's score.
    let results = read["results"].as_object().unwrap();
    for summary in read["summaries"].as_array().unwrap() {
        for scorer in summary["scores"].as_array().unwrap() {
            assert!(
                !results[scorer.as_str().unwrap()].as_object().unwrap().is_empty(),
                "{scorer} has a metric"
            );
        }
    }
    assert_eq!(results["utility"], json!({"mean": 0.71}));
    // Tokens per model: the messages' usage, summed.
    let tokens = |model: &str| -> u64 {
        episodes[..3]
            .iter()
            .flatten()
            .filter_map(|e| match &e.body {
                EventBody::Message(m) if m.model.as_deref() == Some(model) => {
                    m.usage.map(|u| u.input_tokens + u.output_tokens)
                }
                _ => None,
            })
            .sum()
    };
    assert_eq!(read["usage"]["gpt-4o"], tokens("gpt-4o"));
    assert_eq!(read["usage"]["gpt-4o-mini"], tokens("gpt-4o-mini"));
    assert_eq!(read["roles"], json!({"attacker": "gpt-4o"}));
    // The transcript: a model call per reply of each party with its real model; the forks' own in
    // their branch spans, with the fork's assistant model.
    let models = &read["samples"][0]["models"];
    let count = |role: &str, model: &str, in_branch: bool| {
        models.as_array().unwrap().iter().filter(|m| **m == json!([role, model, in_branch])).count()
    };
    // The assistant calls its model twice a turn: for its tool call, then for its reply.
    assert_eq!((count("attacker", "gpt-4o", false), count("assistant", "gpt-4o-mini", false)), (7, 14));
    assert_eq!((count("assistant", "gpt-4.1-nano", true), count("assistant", "gpt-4.1", true)), (1, 1));
    assert_eq!(read["summaries"][0]["turn_count"], 14, "Inspect's count: the assistant's model calls");

    // `inspect view`: every sample of both logs loads as the viewer loads it, and the page of one
    // shows its conversation without an error.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/inspect_view_check.py");
    let EventBody::Message(said) = &episodes[0][4].body else { panic!("a reply") };
    let page = format!("/logs/ours.eval/samples/sample/{}/1/transcript", task(0));
    let expected = said.text.lines().next().unwrap().trim().to_string();
    let output = std::process::Command::new(python::python())
        .args([script.to_str().unwrap(), view.to_str().unwrap(), &page, &expected, "gpt-4o-mini"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let checked: Value = serde_json::from_slice(&output.stdout).unwrap();
    for (log, report) in checked["logs"].as_object().unwrap() {
        assert_eq!(report["log_status"], 200, "{log}");
        let samples = report["samples"].as_array().unwrap();
        assert!(!samples.is_empty(), "{log}");
        for sample in samples {
            assert_eq!(sample["loaded"], true, "{log}: {sample}");
            assert!(
                sample["summary_error"].is_null() || sample["summary_error"].is_string(),
                "{log}: {sample}"
            );
        }
    }
    let shown = &checked["page"];
    assert_eq!(
        shown["found"].as_array().unwrap().len(),
        2,
        "the conversation and the model: {}",
        shown["text"]
    );
    assert!(!shown["text"].as_str().unwrap().contains("Unable to load"), "{}", shown["text"]);
    assert_eq!(shown["errors"], json!([]), "no error in the page's console");
}

/// The keys the reader adds to an episode's task and config (the Inspect sample it was read from).
const ADDED: [&str; 5] = ["inspect_task", "sample_id", "epoch", "repetition", "inspect"];

fn without_added(value: &Value) -> Value {
    let mut value = value.clone();
    if let Some(map) = value.as_object_mut() {
        map.retain(|k, _| !ADDED.contains(&k.as_str()));
    }
    value
}

#[test]
fn ours_to_eval_to_ours_gives_back_the_same_events() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.eval");
    let episodes = ours();
    let runs = export(dir.path(), &episodes, &out);
    let before = dumped(&runs);
    let after = dumped(&out);
    assert_eq!(after.len(), before.len(), "every episode, forks included");
    for (id, events) in &before {
        let original = &events[0];
        let found = after.iter().find(|(_, e)| {
            let header = &e[0];
            header["config"] == original["config"] || without_added(&header["config"]) == original["config"]
        });
        let (read_id, read) = found.unwrap_or_else(|| panic!("{id}: no episode with its config"));
        assert_eq!(read[1..], events[1..], "{id} (read back as {read_id}): every event after the header");
        assert_eq!(without_added(&read[0]["task"]), original["task"], "{id}");
        assert_eq!(without_added(&read[0]["config"]), original["config"], "{id}: its models");
        assert_eq!(read[0]["parent"]["seq"], original["parent"]["seq"], "{id}");
    }
    // The note is carried: dump shows it, summary counts the reviewer's source.
    let (ok, table, _) = run(&["dump", out.to_str().unwrap()]);
    assert!(ok && table.contains("note #4 leak"), "{table}");
    assert_eq!(summary(&out), summary(&runs));
}

const RAW_SAMPLES: &str = r#"
import json, sys, zipfile
import inspect_ai._util.zipfile
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps({n: json.loads(z.read(n)) for n in z.namelist() if n.startswith("samples/")}))
"#;

#[test]
fn inspect_to_ours_to_inspect_gives_back_each_sample_as_inspect_wrote_it() {
    let (shapes_dir, expected) = shapes();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shapes.eval");
    let original = shapes_dir.join("shapes.eval");
    let (ok, _, stderr) =
        run(&["export", original.to_str().unwrap(), "--format", "eval", "-o", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let raw = |path: &Path| -> Value {
        serde_json::from_str(&python::run_script(RAW_SAMPLES, &[path.to_str().unwrap()])).unwrap()
    };
    let (written, back) = (raw(&original), raw(&out));
    assert_eq!(written.as_object().unwrap().len(), 5);
    for (entry, sample) in written.as_object().unwrap() {
        assert_eq!(&back[entry], sample, "{entry}: the sample as Inspect wrote it, under the same entry");
    }

    // A plain `.json` log is rebuilt from its episodes: what Inspect's reader reads in it is kept.
    let out = dir.path().join("from-json.eval");
    let (ok, _, stderr) = run(&[
        "export",
        shapes_dir.join("shapes.json").to_str().unwrap(),
        "--format",
        "eval",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let view = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/inspect_view.py");
    let output = std::process::Command::new(python::python()).arg(view).arg(&out).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let read: Value = serde_json::from_slice(&output.stdout).unwrap();
    for sample in expected["shapes.json"]["samples"].as_array().unwrap() {
        let again = read["samples"].as_array().unwrap().iter().find(|s| s["id"] == sample["id"]).unwrap();
        for key in
            ["epoch", "input", "target", "store", "error", "retries", "limit", "model_usage", "turn_count"]
        {
            assert_eq!(again[key], sample[key], "{}: {key}", sample["id"]);
        }
        assert_eq!(
            again["messages"], sample["messages"],
            "{}: the messages, the system message first",
            sample["id"]
        );
        for (scorer, score) in sample["scores"].as_object().unwrap() {
            assert_eq!(again["scores"][scorer], *score, "{}: {scorer} as Inspect wrote it", sample["id"]);
        }
    }
}

/// A log holds one task: the samples of an eval set's two tasks exported as one log keep their
/// tasks (they were read back as the log's `converse` task, one group where there were two).
#[test]
fn an_eval_set_exported_as_one_log_keeps_each_samples_task() {
    let (shapes_dir, _) = shapes();
    let dir = tempfile::tempdir().unwrap();
    let (set, out) = (shapes_dir.join("set"), dir.path().join("set.eval"));
    let (ok, _, stderr) =
        run(&["export", set.to_str().unwrap(), "--format", "eval", "-o", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let grouped = summary(&set);
    assert!(grouped.contains("set_a") && grouped.contains("set_b"), "{grouped}");
    assert_eq!(summary(&out), grouped);
}

/// `summary --json` of `path`.
fn summary(path: &Path) -> String {
    let (ok, stdout, stderr) = run(&["summary", "--json", "--no-cache", path.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    stdout
}
