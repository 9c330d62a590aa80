//! Inspect AI logs read by converse-tui, checked against Inspect itself: the logs are written by
//! inspect-ai's own writer (tests/python/inspect_logs.py, a mockllm task), and every message and
//! score converse-tui prints is compared with what `inspect_ai.log.read_eval_log` reads in them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::support::inspect_logs::{self, run};

/// The logs Inspect wrote and what its reader reads in them (written once per test run).
fn logs() -> &'static (PathBuf, Value) {
    static LOGS: OnceLock<(PathBuf, Value)> = OnceLock::new();
    LOGS.get_or_init(|| inspect_logs::written_by_inspect("inspect_logs.py", "inspect-logs"))
}

fn home() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// The events `dump --json` prints, per episode id, texts held once put back where referred to.
fn dumped(path: &Path) -> Vec<(String, Vec<Value>)> {
    let mut episodes = inspect_logs::dumped(path);
    for (_, events) in &mut episodes {
        let held = events.clone();
        events.iter_mut().for_each(|e| resolve_held(e, &held));
    }
    episodes
}

/// Each text of `value` that refers to a text held once in an event of `events` (as a sample's
/// repeated long texts are: the score's answer repeating the reply), made that text again.
fn resolve_held(value: &mut Value, events: &[Value]) {
    fn strings<'a>(value: &'a Value, into: &mut Vec<&'a str>) {
        match value {
            Value::String(s) => into.push(s),
            Value::Array(items) => items.iter().for_each(|v| strings(v, into)),
            Value::Object(map) => map.values().for_each(|v| strings(v, into)),
            _ => {}
        }
    }
    match value {
        Value::String(text) => {
            let Some(rest) = text.strip_prefix("⟦text held once: ") else { return };
            let (len, seq) = rest.trim_end_matches('⟧').split_once(" bytes, in full at event ").unwrap();
            let len: usize = len.replace(',', "").parse().unwrap();
            let seq: u64 = seq.parse().unwrap();
            let holder = events.iter().find(|e| e["seq"] == seq).unwrap();
            let mut texts = Vec::new();
            strings(holder, &mut texts);
            *text = texts.into_iter().find(|t| t.len() == len).unwrap().to_string();
        }
        Value::Array(items) => items.iter_mut().for_each(|v| resolve_held(v, events)),
        Value::Object(map) => map.values_mut().for_each(|v| resolve_held(v, events)),
        _ => {}
    }
}

fn id_text(id: &Value) -> String {
    id.as_str().map_or_else(|| id.to_string(), str::to_string)
}

/// Our events for Inspect's messages, in order: what each message must have become.
fn check_conversation(events: &[Value], messages: &[Value], user: &str, what: &str) {
    let mut ours = events
        .iter()
        .filter(|e| ["message", "tool_call", "tool_result"].contains(&e["kind"].as_str().unwrap()));
    for message in messages {
        let text = &message["text"];
        match message["role"].as_str().unwrap() {
            "system" => assert_eq!(events[0]["task"]["system_message"], *text, "{what}: the system message"),
            "user" => {
                let e = ours.next().unwrap_or_else(|| panic!("{what}: missing {message}"));
                assert_eq!(
                    (&e["kind"], &e["from"], &e["to"], &e["text"]),
                    (&"message".into(), &user.into(), &"assistant".into(), text),
                    "{what}"
                );
            }
            "assistant" => {
                let e = ours.next().unwrap_or_else(|| panic!("{what}: missing {message}"));
                assert_eq!(
                    (&e["kind"], &e["from"], &e["to"], &e["text"]),
                    (&"message".into(), &"assistant".into(), &user.into(), text),
                    "{what}"
                );
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    let e = ours.next().unwrap_or_else(|| panic!("{what}: missing call {call}"));
                    assert_eq!(e["kind"], "tool_call", "{what}");
                    assert_eq!(
                        (&e["call_id"], &e["tool"], &e["args"]),
                        (&call["id"], &call["function"], &call["arguments"]),
                        "{what}"
                    );
                }
            }
            "tool" => {
                let e = ours.next().unwrap_or_else(|| panic!("{what}: missing {message}"));
                assert_eq!(e["kind"], "tool_result", "{what}");
                assert_eq!(
                    (&e["call_id"], &e["tool"], &e["output"], &e["ok"]),
                    (&message["tool_call_id"], &message["function"], text, &true.into()),
                    "{what}"
                );
            }
            other => panic!("{what}: unexpected role {other}"),
        }
    }
    assert!(ours.next().is_none(), "{what}: more events than Inspect has messages");
}

/// Every score a verdict of its scorer: value, answer and explanation as Inspect reads them.
fn check_scores(events: &[Value], scores: &serde_json::Map<String, Value>, what: &str) {
    let verdicts: Vec<&Value> = events.iter().filter(|e| e["kind"] == "verdict").collect();
    assert_eq!(verdicts.len(), scores.len(), "{what}: one verdict per scorer");
    for (verdict, (scorer, score)) in verdicts.iter().zip(scores) {
        assert_eq!(verdict["judge"], scorer.as_str(), "{what}");
        assert_eq!(verdict["method"], "imported", "{what}");
        let (outcome, number) = match score["value"].as_str() {
            Some("C") => ("pass", 1.0),
            Some("I") => ("fail", 0.0),
            other => panic!("{what}: a value this test does not expect: {other:?}"),
        };
        assert_eq!(
            (verdict["outcome"].as_str(), verdict["score"].as_f64()),
            (Some(outcome), Some(number)),
            "{what} {scorer}"
        );
        assert_eq!(verdict["details"]["value"], score["value"], "{what} {scorer}");
        assert_eq!(verdict["details"]["answer"], score["answer"], "{what} {scorer}");
        assert_eq!(verdict["details"]["explanation"], score["explanation"], "{what} {scorer}");
    }
}

#[test]
fn every_message_and_score_of_zstd_deflate_chunked_and_json_logs_reads_as_inspect_reads_it() {
    let (_, expected) = logs();
    assert_eq!(expected["compression"]["weather.eval"], serde_json::json!([93]), "Inspect's default: zstd");
    assert_eq!(expected["compression"]["weather-deflate.eval"], serde_json::json!([8]), "deflate");
    for name in ["weather.eval", "weather-deflate.eval", "chunked/weather.eval", "weather.json"] {
        check_log(name);
    }
}

/// Texts longer than 1 MiB are taken out of the JSON stream as the entry inflates and put back
/// once the sample is read (core/import/inspect/big_text.rs): they come back exactly, escapes and
/// all, inline in a message and as an attachment, in both layouts and in a plain `.json` log.
#[test]
fn texts_of_megabytes_read_as_inspect_reads_them() {
    let (_, expected) = logs();
    let texts = expected["long.eval"]["samples"][0]["messages"].as_array().unwrap();
    assert!(texts.iter().any(|m| m["text"].as_str().unwrap().len() > 3 << 20), "a tool result of over 3 MiB");
    for name in ["long.eval", "chunked/long.eval", "long.json"] {
        check_log(name);
    }
}

/// Every sample of the log `name` as Inspect read it: its task, model, messages and scores.
fn check_log(name: &str) {
    let (dir, expected) = logs();
    let log = &expected[name];
    let episodes = dumped(&dir.join(name));
    let samples = log["samples"].as_array().unwrap();
    assert_eq!(episodes.len(), samples.len(), "{name}: one episode per sample");
    assert!(
        samples.iter().any(|s| s["attachments"].as_u64() > Some(0)),
        "{name}: a sample holds an attachment"
    );
    for sample in samples {
        let id = format!("{}_epoch_{}", id_text(&sample["id"]), sample["epoch"]);
        let (_, events) =
            episodes.iter().find(|(e, _)| *e == id).unwrap_or_else(|| panic!("{name}: no {id}"));
        let header = &events[0];
        assert_eq!(header["task"]["domain"], log["task"], "{name}: the task");
        assert_eq!(header["config"]["models"]["assistant"], log["model"], "{name}: the model");
        check_conversation(events, sample["messages"].as_array().unwrap(), "user", &format!("{name} {id}"));
        check_scores(events, sample["scores"].as_object().unwrap(), &format!("{name} {id}"));
    }
}

#[test]
fn an_audit_shows_the_targets_conversation_the_auditor_as_attacker() {
    let (dir, expected) = logs();
    for name in ["audit.eval", "chunked/audit.eval"] {
        let sample = &expected[name]["samples"][0];
        let conversation = sample["target_conversation"].as_array().unwrap();
        assert_eq!(conversation.len(), 4, "two probes and two replies");
        // The sample's own messages are only the task input: the conversation comes from the pool.
        assert_eq!(sample["messages"].as_array().unwrap().len(), 1, "{name}");
        let episodes = dumped(&dir.join(name));
        let (_, events) = &episodes[0];
        assert_eq!(events[0]["config"]["models"]["attacker"], "mockllm/auditor", "{name}");
        assert_eq!(events[0]["config"]["models"]["assistant"], "mockllm/target", "{name}");
        check_conversation(events, conversation, "attacker", name);
        check_scores(events, sample["scores"].as_object().unwrap(), name);
    }
}

#[test]
fn branches_read_as_forks_of_the_sample_as_inspects_timeline_reads_them() {
    let (dir, expected) = logs();
    let sample = &expected["branch.eval"]["samples"][0];
    let branches = sample["branches"].as_array().unwrap();
    assert_eq!(branches.len(), 2, "Inspect's timeline: two branches");
    let episodes = dumped(&dir.join("branch.eval"));
    assert_eq!(episodes.len(), 3, "the sample and a fork per branch");
    let (main, events) = &episodes[0];
    assert_eq!(main, "paris_epoch_1");
    check_conversation(events, sample["messages"].as_array().unwrap(), "user", "branch.eval main");
    // The first turn is shared: the forks leave the sample after its first reply (seq 2).
    let first_reply = events.iter().find(|e| e["kind"] == "message" && e["from"] == "assistant").unwrap();
    for (branch, (id, fork)) in branches.iter().zip(&episodes[1..]) {
        let name = branch["name"].as_str().unwrap();
        assert_eq!(*id, format!("paris_epoch_1~{name}"));
        let header = &fork[0];
        assert_eq!(header["parent"]["episode"], "paris_epoch_1", "{id}");
        assert_eq!(header["parent"]["seq"], first_reply["seq"], "{id}: leaves after the first turn");
        assert_eq!(header["task"]["inspect_branch"]["from_anchor"], branch["branched_from"], "{id}");
        check_conversation(fork, branch["conversation"].as_array().unwrap(), "user", id);
    }
    // Listed (a small log: its samples are read for their branches), each fork under its sample.
    let (ok, stdout, stderr) =
        run(&["ls", "--json", "--no-cache", dir.join("branch.eval").to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let rows: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let listed: Vec<(&str, Option<&str>)> =
        rows.iter().map(|r| (r["id"].as_str().unwrap(), r["parent"].as_str())).collect();
    let expected: Vec<(&str, Option<&str>)> = episodes
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (id.as_str(), (i > 0).then_some("paris_epoch_1")))
        .collect();
    assert_eq!(listed, expected);
    // A fork is opened alone by its id, its sample read and nothing else.
    let fork = converse_tui::core::import::load_episode(&dir.join("branch.eval"), &episodes[2].0).unwrap();
    assert_eq!(fork.id(), episodes[2].0);
    assert_eq!(fork.header().parent.as_ref().map(|p| p.episode.as_str()), Some("paris_epoch_1"));
    // The fork tree (`B`) of the sample, and of a branch, holds both branches at turn 1.
    let family = converse_tui::core::fan::forks::find_family(&dir.join("branch.eval"), "paris_epoch_1");
    let forks: Vec<(&str, u32)> = family.forks.iter().map(|f| (f.id.as_str(), f.turn)).collect();
    assert_eq!(forks, [(episodes[1].0.as_str(), 1), (episodes[2].0.as_str(), 1)]);
    assert_eq!(family.problems, Vec::<String>::new());
    let family = converse_tui::core::fan::forks::find_family(&dir.join("branch.eval"), &episodes[2].0);
    assert_eq!(family.forks.len(), 2);
    assert_eq!(family.top.map(|(_, events)| events.len()), Some(events.len()), "rooted at the sample");
}

/// `ls` counts a sample's events as the inspector does (every event after the header: its messages,
/// tool calls and results, verdicts), not as Inspect's summary counts messages.
#[test]
fn ls_lists_samples_counted_as_the_inspector_counts_them() {
    let (dir, expected) = logs();
    let path = dir.join("weather.eval");
    let (ok, stdout, stderr) = run(&["ls", "--json", "--no-cache", path.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let rows: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let samples = expected["weather.eval"]["samples"].as_array().unwrap();
    assert_eq!(rows.len(), samples.len());
    for sample in samples {
        let id = format!("{}_epoch_{}", id_text(&sample["id"]), sample["epoch"]);
        let row = rows.iter().find(|r| r["id"] == id.as_str()).unwrap();
        let messages = sample["messages"].as_array().unwrap();
        let assistant = messages.iter().filter(|m| m["role"] == "assistant").count();
        assert_eq!(row["turns"].as_u64(), Some(assistant as u64), "{id}: Inspect's turn count");
        // What Inspect read: each message but the system prompt, each tool call, each score; and
        // the sample's end.
        let calls: usize = messages.iter().map(|m| m["tool_calls"].as_array().map_or(0, Vec::len)).sum();
        let shown = messages.iter().filter(|m| m["role"] != "system").count();
        let scores = sample["scores"].as_object().unwrap().len();
        assert_eq!(
            row["events"].as_u64(),
            Some((shown + calls + scores + 1) as u64),
            "{id}: the inspector's count"
        );
        assert_eq!((row["domain"].as_str(), row["model"].as_str()), (Some("weather"), Some("mockllm/model")));
        for (scorer, score) in sample["scores"].as_object().unwrap() {
            let verdict =
                row["verdicts"].as_array().unwrap().iter().find(|v| v["judge"] == scorer.as_str()).unwrap();
            let outcome = if score["value"] == "C" { "pass" } else { "fail" };
            assert_eq!(verdict["outcome"], outcome, "{id} {scorer}");
        }
    }
}

#[test]
fn search_finds_text_inside_a_compressed_sample() {
    let (dir, _) = logs();
    let (ok, stdout, stderr) = run(&["search", "forecast line", dir.join("weather.eval").to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let hits: Vec<&str> = stdout.lines().filter(|l| l.contains("[paris_epoch_1]")).collect();
    assert_eq!(hits.len(), 1, "the tool result, resolved from its attachment: {stdout}");
    assert!(hits[0].contains("tool: Sunny in Paris."), "{stdout}");
}

#[test]
fn a_broken_eval_is_one_line_naming_the_file() {
    let (dir, _) = logs();
    let scratch = home();
    let whole = std::fs::read(dir.join("weather.eval")).unwrap();
    let cut = scratch.path().join("cut.eval");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    // A ZIP whose sample entry is not JSON, and one that is not a log at all.
    let garbled = scratch.path().join("garbled.eval");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&garbled).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    zip.start_file("header.json", options).unwrap();
    std::io::Write::write_all(&mut zip, br#"{"version": 2, "status": "success", "eval": {"task": "t"}}"#)
        .unwrap();
    zip.start_file("samples/1_epoch_1.json", options).unwrap();
    std::io::Write::write_all(&mut zip, b"{\"id\": 1, \"epoch\": ").unwrap();
    zip.finish().unwrap();
    let no_header = scratch.path().join("other.eval");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&no_header).unwrap());
    zip.start_file("x.json", options).unwrap();
    zip.finish().unwrap();
    // A plain `.json` log cut in half, and one whose text of 70 KB (read aside, as long texts are)
    // holds an escape JSON does not have: named as in any JSON input.
    let json = std::fs::read(dir.join("weather.json")).unwrap();
    let cut_json = scratch.path().join("cut.json");
    std::fs::write(&cut_json, &json[..json.len() / 2]).unwrap();
    let bad_escape = scratch.path().join("bad-escape.json");
    let text = format!("{}\\q", "x".repeat(70_000));
    let log = format!(
        "{{\"version\": 2, \"status\": \"success\", \"eval\": {{\"task\": \"t\"}},\n\"samples\": \
         [{{\"id\": 1, \"epoch\": 1, \"messages\": [{{\"role\": \"user\", \"content\": \"{text}\"}}]}}]}}"
    );
    std::fs::write(&bad_escape, log).unwrap();
    for (file, problem) in [
        (&cut, "not a readable Inspect .eval (ZIP) log"),
        (&garbled, "entry samples/1_epoch_1.json:"),
        (&no_header, "without header.json"),
        (&cut_json, "the JSON stops short"),
        (&bad_escape, "invalid escape"),
    ] {
        let (ok, _, stderr) = run(&["dump", file.to_str().unwrap()]);
        assert!(!ok, "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(file.to_str().unwrap()) && stderr.contains(problem), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
