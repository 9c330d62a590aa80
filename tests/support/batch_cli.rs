//! Running `converse-tui batch` / `summary` from tests: an isolated home, the
//! flags that point a batch at the test server, and reading what it wrote.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use super::bin;
use super::openai_server::Reply;

/// A reply every role accepts: the attacker needs JSON `{text, details}`, the judges their decision,
/// the assistant any text.
pub fn generic() -> Reply {
    // An attacker's message, and every judge's decision (no leak, no attack, all covered).
    let reply = r#"{"text": "Which hotels are near the beach?", "details": "", "leaked_information": "no",
        "shared_raw_data": "no", "appropriateness_score": 10, "attack_success": "Failed",
        "UTILITY": {"HOW_MANY_ITEMS_COVERED": "1/1"}, "RATINGS": {}}"#;
    Reply::text(reply).usage(10, 5)
}

/// The binary with a private home: no user config, the bundled sample tasks, a test key.
pub fn command(home: &Path, args: &[String]) -> Command {
    let mut cmd = Command::new(bin::path());
    cmd.args(args);
    isolated(&mut cmd, home);
    cmd
}

/// `cmd` with a private home and a test key (what `command` gives the binary; for whatever
/// starts it, such as sbatch).
pub fn isolated<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    bin::isolate(cmd, home).env("OPENAI_API_KEY", "sk-test")
}

pub async fn converse_tui(home: &Path, args: Vec<String>) -> Output {
    let mut cmd = command(home, &args);
    tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap()
}

pub fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

pub fn batch_args(base_url: &str, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&[
        "batch",
        "--base-url",
        base_url,
        "--assistant-model",
        "test-assistant",
        "--attacker-model",
        "test-attacker",
        "--out",
        &out.display().to_string(),
    ]);
    args.extend(strings(extra));
    args
}

/// Each line of `path` as JSON (panics on a line that does not parse: a glued or torn line).
pub fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}

/// `summary --json --pool DIR`: its rows (one per judge source) and its notes (episodes counted,
/// tokens), without a warning.
pub async fn summary_total(home: &Path, dir: &Path) -> (Vec<Value>, String) {
    let output =
        converse_tui(home, strings(&["summary", "--json", "--pool", &dir.display().to_string()])).await;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "no warnings: {stderr}");
    let rows =
        String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (rows, stderr)
}

/// The JSON rows of `summary --json ARGS…`, and what it said on stderr.
pub async fn summary_rows(home: &Path, args: &[&str]) -> (Vec<Value>, String) {
    let mut all = vec!["summary", "--json"];
    all.extend(args);
    let output = converse_tui(home, strings(&all)).await;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let rows =
        String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (rows, stderr)
}

/// The row of `judge` from `source` (`rule`, `llm:test-judge`, `imported:gpt-5`…) among `rows`.
pub fn source_row<'a>(rows: &'a [Value], judge: &str, source: &str) -> &'a Value {
    let (method, model) = source.split_once(':').map_or((source, None), |(m, model)| (m, Some(model)));
    rows.iter()
        .find(|r| r["judge"] == judge && r["method"] == method && r["judge_model"].as_str() == model)
        .unwrap_or_else(|| panic!("no {judge} row from {source} in {rows:?}"))
}

/// A `--resume` refused as another experiment: exit 2, one line on stderr naming the folder and
/// each of `differs`, and nothing asked of the server (`requests_before`: its count before).
pub fn assert_resume_refused(
    output: &Output,
    folder: &Path,
    differs: &[&str],
    server: &super::openai_server::OpenAiServer,
    requests_before: usize,
) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let line = stderr.trim_end();
    assert_eq!(line.lines().count(), 1, "one line: {stderr}");
    assert!(line.contains(&format!("--resume: {} was run with", folder.display())), "{line}");
    for what in differs {
        assert!(line.contains(what), "names {what}: {line}");
    }
    assert_eq!(server.request_count(), requests_before, "nothing run: {line}");
}
