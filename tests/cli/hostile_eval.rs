//! Issue 36, F1 and F2: hostile `.eval` logs, each command run under a 3 GB address-space limit.
//! An attachment referenced thousands of times is held once and referred to (memory bounded by
//! the log's unique content; `dump` and `export` print it once); an entry that would inflate past
//! its cap ends the command with exit 1 and one line naming the entry, never an abort.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::bin;
use crate::support::eval_zip::{self, Part};

/// The key Inspect would give the attachment (an MD5 of its text).
const KEY: &str = "5f2b9e6c0d1a4e8f9b3c7a2d6e0f1b4c";
/// The attachment: 8 MB of one letter, so the log stays a few kilobytes.
const ATTACHMENT_BYTES: u64 = 8 << 20;
/// Turns of the conversation, each referring to the attachment five times.
const TURNS: usize = 400;

fn reference() -> String {
    format!("attachment://{KEY}")
}

/// A sample whose messages refer to one attachment about 2,000 times: in messages' texts, content
/// parts and tool-call arguments (a string and a list item).
fn amplified_sample() -> (String, String) {
    let at = reference();
    let mut messages = vec![json!({"role": "user", "content": at})];
    for turn in 0..TURNS {
        let call = format!("c{turn}");
        messages.push(json!({"role": "assistant",
            "content": [{"type": "text", "text": at}, {"type": "text", "text": "and again"}],
            "tool_calls": [{"id": call, "function": "echo", "arguments": {"text": at, "more": [at]}}]}));
        messages.push(json!({"role": "tool", "content": at, "tool_call_id": call, "function": "echo"}));
        messages.push(json!({"role": "user", "content": at}));
    }
    let head = json!({"id": "amp", "epoch": 1, "input": at, "target": "t", "messages": messages,
        "scores": {"match": {"value": "C", "explanation": at}}});
    let head = head.to_string();
    // The sample without its closing brace, then the attachment, whose text comes as a run.
    let open = format!("{}, \"attachments\": {{\"{KEY}\": \"", &head[..head.len() - 1]);
    (open, "\"}}".to_string())
}

fn header(task: &str) -> Vec<u8> {
    json!({"version": 2, "status": "success",
        "eval": {"task": task, "model": "mockllm/model", "created": "2026-11-27T00:00:00+00:00"}})
    .to_string()
    .into_bytes()
}

fn amplified_log(dir: &Path) -> PathBuf {
    let (open, close) = amplified_sample();
    let summaries = json!([{"id": "amp", "epoch": 1, "input": reference(), "target": "t",
        "scores": {"match": {"value": "C"}}}]);
    let entries = [
        eval_zip::stored("header.json", &header("amplified")),
        eval_zip::zstd(
            "samples/amp_epoch_1.json",
            &[
                Part::Text(open.as_bytes()),
                Part::Repeat(b'x', ATTACHMENT_BYTES),
                Part::Text(close.as_bytes()),
            ],
        ),
        eval_zip::stored("summaries.json", summaries.to_string().as_bytes()),
    ];
    let path = dir.join("amplified.eval");
    std::fs::write(&path, eval_zip::zip(&entries)).unwrap();
    path
}

/// `converse-tui ARGS` in a private home, its address space limited.
fn limited(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = bin::command(home.path());
    cmd.args(args);
    bin::limit_address_space(&mut cmd).output().unwrap()
}

fn succeeded(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: {:?} (a signal is an abort)\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// How many times `text` holds the attachment's whole text.
fn copies(text: &[u8]) -> usize {
    let whole = vec![b'x'; ATTACHMENT_BYTES as usize];
    memchr::memmem::find_iter(text, &whole).count()
}

#[test]
fn an_attachment_referenced_two_thousand_times_reads_once_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let log = amplified_log(dir.path());
    assert!(std::fs::metadata(&log).unwrap().len() < 256 << 10, "a log of kilobytes");
    let log = log.to_str().unwrap();
    for args in [
        vec!["ls", "--no-cache", log],
        vec!["summary", log],
        vec!["search", "and again", log],
        vec!["dump", log],
    ] {
        succeeded(&args.join(" "), &limited(&args));
    }

    // `dump --json`: the attachment once, every later use a reference naming where it is.
    let out = limited(&["dump", "--json", log]);
    succeeded("dump --json", &out);
    assert_eq!(copies(&out.stdout), 1, "the attachment printed once");
    assert!(out.stdout.len() < (ATTACHMENT_BYTES as usize) * 2, "{} bytes printed", out.stdout.len());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let held = stdout.lines().find(|l| copies(l.as_bytes()) == 1).expect("the first use holds the text");
    let held: Value = serde_json::from_str(held).unwrap();
    let events: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let results: Vec<&Value> = events.iter().filter(|e| e["kind"] == "tool_result").collect();
    assert_eq!(results.len(), TURNS, "every tool result is there");
    for result in results {
        let output = result["output"].as_str().unwrap();
        assert!(
            output == format!("⟦text held once: 8,388,608 bytes, in full at event {}⟧", held["seq"]),
            "a later use refers to the event holding the text: {output}"
        );
    }
    let call = events.iter().find(|e| e["kind"] == "tool_call").unwrap();
    assert!(call["args"]["text"].as_str().unwrap().contains("held once"), "{}", call["args"]);

    // Exports: the attachment once.
    for format in ["json", "markdown"] {
        let out = limited(&["export", log, "--format", format]);
        succeeded(&format!("export --format {format}"), &out);
        assert_eq!(copies(&out.stdout), 1, "export --format {format}: the attachment printed once");
    }
    // As an `.eval`: carried over as it was written, or (redacted) rebuilt from the episode, whose
    // references are put back as attachments, each text once: the text, and the replies' text
    // parts joined in one message (the text and "and again"), a second text.
    for (redact, texts) in [(false, 1), (true, 2)] {
        let eval = dir.path().join(format!("again-{redact}.eval"));
        let mut args = vec!["export", log, "--format", "eval", "-o", eval.to_str().unwrap()];
        args.extend(redact.then_some("--redact"));
        succeeded(&args.join(" "), &limited(&args));
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&eval).unwrap()).unwrap();
        let mut inflated = Vec::new();
        for i in 0..zip.len() {
            std::io::Read::read_to_end(&mut zip.by_index(i).unwrap(), &mut inflated).unwrap();
        }
        assert_eq!(copies(&inflated), texts, "{}: each text stored once", args.join(" "));
    }
}

/// A log whose entry `name` inflates to `parts` (zstd), beside a plain header and summaries.
fn log_with(dir: &Path, name: &str, parts: &[Part]) -> PathBuf {
    let sample = json!({"id": "s", "epoch": 1, "messages": [{"role": "user", "content": "hi"}]}).to_string();
    let summaries = json!([{"id": "s", "epoch": 1}]).to_string();
    let plain = [
        ("header.json", header("bombs")),
        ("summaries.json", summaries.into_bytes()),
        ("samples/s_epoch_1.json", sample.into_bytes()),
    ];
    let mut entries: Vec<eval_zip::Entry> =
        plain.iter().filter(|(n, _)| *n != name).map(|(n, bytes)| eval_zip::stored(n, bytes)).collect();
    entries.push(eval_zip::zstd(name, parts));
    let path = dir.join(format!("{}.eval", name.replace('/', "-")));
    std::fs::write(&path, eval_zip::zip(&entries)).unwrap();
    path
}

/// A JSON text `open` … `close` around 3.5 GiB of one letter (inflated from about 110 KB).
fn bomb<'a>(open: &'a str, close: &'a str) -> [Part<'a>; 3] {
    [Part::Text(open.as_bytes()), Part::Repeat(b'a', 7 << 29), Part::Text(close.as_bytes())]
}

fn refused(args: &[&str], entry: &str) {
    let out = limited(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}: {:?}\n{stderr}", args.join(" "), out.status);
    // One line for the problem (`ls` also counts what it listed: `0 episodes`).
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.ends_with(" episodes")).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(
        lines[0].contains(&format!("entry {entry}: ")) && lines[0].contains("inflate"),
        "names the entry: {stderr}"
    );
}

#[test]
fn inflation_bombs_end_with_one_line_naming_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let sample = log_with(
        dir.path(),
        "samples/s_epoch_1.json",
        &bomb(r#"{"id": "s", "epoch": 1, "messages": [{"role": "user", "content": ""#, r#""}]}"#),
    );
    assert!(std::fs::metadata(&sample).unwrap().len() < 128 << 10);
    refused(&["dump", sample.to_str().unwrap()], "samples/s_epoch_1.json");
    let summaries =
        log_with(dir.path(), "summaries.json", &bomb(r#"[{"id": "s", "epoch": 1, "input": ""#, r#""}]"#));
    refused(&["ls", "--no-cache", summaries.to_str().unwrap()], "summaries.json");
    let header = log_with(
        dir.path(),
        "header.json",
        &bomb(r#"{"version": 2, "eval": {"task": "t", "metadata": {"a": ""#, r#""}}}"#),
    );
    refused(&["ls", "--no-cache", header.to_str().unwrap()], "header.json");
}

/// A log of a header, the entry `name` (zstd, as Inspect writes) holding `open`, `unit` repeated
/// to `inflated` bytes and `close`, and 1 MiB of random bytes stored (a file of 1 MiB: its entries
/// may inflate to 160 MiB).
fn megabyte_log(dir: &Path, name: &str, (open, unit, close): (&str, &str, &str), inflated: usize) -> PathBuf {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let zstd = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Zstd);
    let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    if name != "header.json" {
        zip.start_file("header.json", stored).unwrap();
        zip.write_all(&header("bombs")).unwrap();
    }
    zip.start_file("samples/s_epoch_1.json", stored).unwrap();
    zip.write_all(br#"{"id": "s", "epoch": 1}"#).unwrap();
    zip.start_file(name, zstd).unwrap();
    zip.write_all(open.as_bytes()).unwrap();
    zip.write_all(&unit.repeat(inflated / unit.len()).into_bytes()).unwrap();
    zip.write_all(close.as_bytes()).unwrap();
    zip.start_file("padding.bin", stored).unwrap();
    let mut noise = vec![0u8; 1 << 20];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for byte in &mut noise {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *byte = x as u8;
    }
    zip.write_all(&noise).unwrap();
    let path = dir.join(format!("{}-mb.eval", name.replace('/', "-")));
    std::fs::write(&path, zip.finish().unwrap().into_inner()).unwrap();
    path
}

fn refused_as(args: &[&str], entry: &str, why: &str) {
    let out = limited(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}: {:?}\n{stderr}", args.join(" "), out.status);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.ends_with(" episodes")).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(lines[0].contains(&format!("entry {entry}: ")) && lines[0].contains(why), "{stderr}");
}

#[test]
fn entries_within_their_cap_that_parse_into_millions_of_values_or_rows_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let inflated = 150 << 20;
    // 31 million numbers in the header's metadata (within its 64 MiB): 1 GB parsed.
    let header = megabyte_log(
        dir.path(),
        "header.json",
        (r#"{"version": 2, "eval": {"task": "t", "metadata": {"a": ["#, "0,", "0]}}}"),
        60 << 20,
    );
    refused_as(
        &["ls", "--no-cache", header.to_str().unwrap()],
        "header.json",
        "values in its free-form fields",
    );
    // 7.8 million summaries of a log holding one sample.
    let rows = megabyte_log(
        dir.path(),
        "summaries.json",
        ("[", r#"{"id":0,"epoch":1},"#, r#"{"id":0,"epoch":1}]"#),
        inflated,
    );
    refused_as(
        &["ls", "--no-cache", rows.to_str().unwrap()],
        "summaries.json",
        "over twice the samples the log holds",
    );
    // A sample of 78 million numbers in its metadata: 2.5 GB parsed.
    let sample = megabyte_log(
        dir.path(),
        "samples/m_epoch_1.json",
        (r#"{"id": "m", "epoch": 1, "metadata": {"a": ["#, "0,", "0]}}"),
        inflated,
    );
    refused_as(
        &["dump", sample.to_str().unwrap()],
        "samples/m_epoch_1.json",
        "values in its free-form fields",
    );
}

#[test]
fn an_entry_larger_than_it_declares_is_cut_at_its_declared_size() {
    let dir = tempfile::tempdir().unwrap();
    let open = r#"{"id": "s", "epoch": 1, "messages": [{"role": "user", "content": ""#;
    let entry = eval_zip::zstd("samples/s_epoch_1.json", &bomb(open, r#""}]}"#)).declaring(1 << 20);
    let entries = [eval_zip::stored("header.json", &header("liar")), entry];
    let path = dir.path().join("liar.eval");
    std::fs::write(&path, eval_zip::zip(&entries)).unwrap();
    refused_as(&["dump", path.to_str().unwrap()], "samples/s_epoch_1.json", "larger than its declared");
}

#[test]
fn thousands_of_branches_replaying_a_condensed_pool_are_read_up_to_a_bound() {
    use std::io::Write;
    let (pool_len, branches) = (10_000, 2_000);
    let pool: Vec<Value> = (0..pool_len)
        .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": format!("m{i}")}))
        .collect();
    let mut events = vec![json!({"event": "anchor", "anchor_id": "a"})];
    for b in 0..branches {
        let span = format!("s{b}");
        events.push(json!({"event": "span_begin", "id": span, "type": "branch", "name": format!("b{b}")}));
        events.push(json!({"event": "branch", "span_id": span, "from_anchor": "a"}));
        events.push(json!({"event": "model", "span_id": span, "input_refs": [[0, pool_len]],
            "output": {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}}));
    }
    let sample = json!({"id": "s", "epoch": 1, "messages": [{"role": "user", "content": "hi"}], "events": events,
        "events_data": {"messages": pool}});
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let zstd = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Zstd);
    for (name, bytes) in
        [("header.json", header("branchy")), ("samples/s_epoch_1.json", sample.to_string().into_bytes())]
    {
        zip.start_file(name, zstd).unwrap();
        zip.write_all(&bytes).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("branches.eval");
    std::fs::write(&path, zip.finish().unwrap().into_inner()).unwrap();

    let out = limited(&["ls", "--no-cache", "--json", path.to_str().unwrap()]);
    succeeded("ls", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("of the branches of sample s_epoch_1 are not read as forks"), "{stderr}");
    let forks = String::from_utf8_lossy(&out.stdout).matches("\"s_epoch_1~").count();
    assert!(forks > 0 && forks < branches, "{forks} forks read");
}

/// Issue 36 (12): a log whose summaries name a sample it does not hold (cut short, or altered):
/// `dump` printed the others and exited 0, the missing one skipped without a word. Now the log is
/// refused, as a journal with a broken line is.
#[test]
fn a_sample_its_summaries_name_but_the_log_lacks_is_an_error_not_a_silent_gap() {
    let dir = tempfile::tempdir().unwrap();
    let sample = json!({"id": "kept", "epoch": 1, "input": "hi", "target": "t",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]});
    let summaries = json!([{"id": "kept", "epoch": 1, "input": "hi", "target": "t"},
        {"id": "gone", "epoch": 1, "input": "hi", "target": "t"}]);
    let entries = [
        eval_zip::stored("header.json", &header("cut")),
        eval_zip::stored("samples/kept_epoch_1.json", sample.to_string().as_bytes()),
        eval_zip::stored("summaries.json", summaries.to_string().as_bytes()),
    ];
    let log = dir.path().join("cut.eval");
    std::fs::write(&log, eval_zip::zip(&entries)).unwrap();
    let out = limited(&["dump", log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("its summaries name 1 sample(s) it does not hold, first 'gone_epoch_1'"),
        "{stderr}"
    );
}
