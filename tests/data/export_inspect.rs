//! `export --format eval` read back by Inspect itself (`inspect_ai.log.read_eval_log` in the
//! pinned venv): one sample per episode, repeats of a task as epochs, every message and tool call,
//! verdicts as scores with their explanation and evidence, annotations in the sample's metadata.

use serde_json::{Value, json};

use converse_tui::core::episode::{Event, EventBody, Evidence, Outcome};

use crate::support::{bin, journals, python};

/// Two runs of one task (epochs 1 and 2), the first with evidence on a verdict and a note.
fn episodes() -> Vec<Vec<Event>> {
    let first = journals::journal_events(0);
    let mut second = journals::journal_events(1);
    let task_id = match &first[0].body {
        EventBody::Episode(h) => h.task.id.clone(),
        _ => unreachable!(),
    };
    if let EventBody::Episode(h) = &mut second[0].body {
        h.task.id = task_id;
        h.task.domain = Some("travel_planning".into());
    }
    let mut first = first;
    for event in &mut first {
        if let EventBody::Verdict(v) = &mut event.body
            && v.judge == "utility"
        {
            v.evidence =
                Some(Evidence { seq: 4, start: Some(0), end: Some(10), text: Some("I can offe".into()) });
        }
    }
    vec![first, second]
}

#[test]
fn an_export_reads_back_in_inspect_with_every_message_score_and_note() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    let episodes = episodes();
    for (i, events) in episodes.iter().enumerate() {
        std::fs::write(runs.join(format!("ep-{i:05}.jsonl")), journals::journal_text(events)).unwrap();
    }
    let note = json!({"id": "n-1", "op": "add", "episode": "ep-00000", "target_seq": 4, "label": "leak",
        "note": "shares the hotel", "author": "ana", "at": "2025-05-01T10:00:00Z"});
    std::fs::write(runs.join("ep-00000.notes.jsonl"), format!("{note}\n")).unwrap();

    let out = dir.path().join("out.eval");
    let status = bin::command(dir.path())
        .args(["export", runs.to_str().unwrap(), "--format", "eval", "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));

    let view = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/inspect_view.py");
    let read = std::process::Command::new(python::python()).arg(view).arg(&out).output().unwrap();
    assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
    let log: Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!((log["status"].as_str(), log["task"].as_str()), (Some("success"), Some("travel_planning")));
    assert_eq!(log["model"], "gpt-4o-mini");
    let samples = log["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 2, "one sample per episode");
    for (i, (sample, events)) in samples.iter().zip(&episodes).enumerate() {
        let EventBody::Episode(header) = &events[0].body else { unreachable!() };
        assert_eq!(sample["id"].as_str(), header.task.id.as_deref(), "the task id is the sample id");
        assert_eq!(sample["epoch"], json!(i + 1), "the second run of the task is epoch 2");
        assert_eq!(sample["input"].as_str(), header.task.user_task.as_deref());
        assert_eq!(sample["metadata"]["converse_episode"], format!("ep-{i:05}"));

        // Every message, in order, with its tool calls and results.
        let mut expected = Vec::new();
        for event in events {
            match &event.body {
                EventBody::Message(m) if m.from == converse_tui::core::episode::Party::Assistant => {
                    expected.push(json!({"role": "assistant", "text": m.text}))
                }
                EventBody::Message(m) => expected.push(json!({"role": "user", "text": m.text})),
                EventBody::ToolCall(c) => expected.push(json!({"role": "assistant", "text": "",
                    "tool_calls": [{"id": c.call_id, "function": c.tool, "arguments": c.args}]})),
                EventBody::ToolResult(r) => expected.push(json!({"role": "tool", "text": r.output,
                    "tool_call_id": r.call_id, "function": r.tool})),
                _ => {}
            }
        }
        assert_eq!(sample["messages"], Value::Array(expected), "episode {i}");
        let calls = events.iter().filter(|e| matches!(e.body, EventBody::ToolCall(_))).count();
        assert_eq!(sample["tool_events"].as_array().unwrap().len(), calls, "one tool event per call");

        // The last verdict of each source, with its explanation.
        let scores = sample["scores"].as_object().unwrap();
        assert_eq!(scores.len(), 2, "{scores:?}");
        let privacy = journals::privacy_outcome(i);
        let value = if privacy == Outcome::Fail { "I" } else { "C" };
        assert_eq!(scores["privacy"]["value"], value);
        assert_eq!(scores["privacy"]["metadata"]["outcome"], privacy.as_str());
        assert_eq!(scores["privacy"]["explanation"], "The assistant kept the appointment to itself.");
        assert_eq!(scores["utility"]["value"], 0.71, "partial: the score itself");
        assert_eq!(scores["utility"]["metadata"]["outcome"], "partial");
    }
    let evidence = &samples[0]["scores"]["utility"]["metadata"]["evidence"];
    assert_eq!((evidence["seq"].as_u64(), evidence["text"].as_str()), (Some(4), Some("I can offe")));
    let notes = samples[0]["metadata"]["annotations"].as_array().unwrap();
    assert_eq!(
        (notes.len(), &notes[0]["label"], &notes[0]["note"]),
        (1, &json!("leak"), &json!("shares the hotel"))
    );
    assert!(samples[1]["metadata"].get("annotations").is_none());
}

#[test]
fn an_eval_export_needs_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("ep.jsonl");
    std::fs::write(&journal, journals::journal_text(&journals::journal_events(0))).unwrap();
    let out = bin::command(dir.path())
        .args(["export", journal.to_str().unwrap(), "--format", "eval"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("converse-tui:")).collect();
    assert!(errors.len() == 1 && errors[0].contains("-o FILE.eval"), "one line saying what to do: {stderr}");
    assert!(out.stdout.is_empty(), "no archive bytes on a terminal");
}
