//! Issue 24: hostile servers. Bodies without end (error bodies, whole replies, streams) end
//! the call with an error, the episode with an `error` and an `end` event and the process with
//! exit 1, in bounded memory (a 3 GB address-space limit); a key echoed in a reply never
//! reaches stderr, `runs.jsonl` or the journal, in any form.

use crate::support::batch_cli;
use crate::support::bin;
use crate::support::openai_server;

use std::path::{Path, PathBuf};
use std::process::Output;

use converse_tui::core::llm::{ChatMessage, ChatRequest, Endpoint, LlmErrorKind, Role};
use openai_server::{OpenAiServer, Reply, test_client};

const TASK: &str = "travel_planning_p1_privacy_unrelated_to_travel_salary";
const KEY: &str = "sk-test-7f3a9c1e5b2d4068-never-write-me";

/// The binary in a private home, the key in `OPENAI_API_KEY`, its address space limited.
async fn converse_tui_limited(home: &Path, args: Vec<String>) -> Output {
    let home = home.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut cmd = bin::command(&home);
        cmd.args(&args).env("OPENAI_API_KEY", KEY);
        bin::limit_address_space(&mut cmd).output().unwrap()
    })
    .await
    .unwrap()
}

fn run_args(server: &OpenAiServer, out: &Path, extra: &[&str]) -> Vec<String> {
    let out = out.display().to_string();
    let base_url = server.base_url();
    let mut args = vec![
        "run",
        "--headless",
        "--task",
        TASK,
        "--base-url",
        &base_url,
        "--assistant-model",
        "test-assistant",
        "--attacker-model",
        "test-attacker",
        "--out",
        &out,
    ];
    args.extend_from_slice(extra);
    args.iter().map(|s| s.to_string()).collect()
}

fn only_journal(dir: &Path) -> PathBuf {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
    assert_eq!(files.len(), 1, "{files:?}");
    files.remove(0)
}

/// The last two events of a journal, as `(kind, text)`.
fn last_two_events(journal: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(journal).unwrap();
    let events: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    events[events.len() - 2..].to_vec()
}

/// One endless body against the binary: exit 1 (no abort), an `error` then an `end` event.
async fn endless_case(reply: Reply, extra: &[&str], expected: &str) {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(reply);
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("runs");
    let extra = [&["--max-turns", "2"], extra].concat();
    let output = converse_tui_limited(home.path(), run_args(&server, &out, &extra)).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{:?}: {stderr}", output.status);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
    let last = last_two_events(&only_journal(&out));
    assert_eq!(last[0]["kind"], "error", "{last:?}");
    assert!(last[0]["message"].as_str().unwrap().contains(expected), "{last:?}");
    assert_eq!(last[1]["kind"], "end");
    assert_eq!(last[1]["reason"], "error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_error_body_is_read_for_its_first_kilobyte_only() {
    let reply = Reply::endless(500, "Internal trouble: ", "x");
    endless_case(reply, &[], "HTTP 500: Internal trouble: xxx").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_whole_reply_stops_at_the_cap() {
    let reply = Reply::endless(200, r#"{"choices":[{"message":{"role":"assistant","content":""#, "all work ");
    endless_case(reply, &["--no-stream"], "reply larger than 8 MB").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_stream_stops_at_the_cap() {
    endless_case(Reply::endless_sse("and more text "), &[], "reply larger than 8 MB").await;
}

fn endpoint(server: &OpenAiServer, cap: usize) -> Endpoint {
    Endpoint::new(Role::Judge, server.base_url(), "m").with_max_retries(0).with_max_reply_bytes(cap)
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("hi")])
}

/// The client alone, each way a body can be too big; the cap is small so the test is quick.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_body_is_capped_in_the_client() {
    let cap = 64 << 10;
    let server = OpenAiServer::start(vec![
        Reply::endless(200, r#"{"choices":[{"message":{"content":""#, "y"),
        Reply::endless_sse("z"),
        Reply::text(&"w".repeat(cap + 1)),
        Reply::endless(503, "", "{"),
    ])
    .await;
    let client = test_client();
    let ep = endpoint(&server, cap);
    let whole = client.chat(&ep, request()).await.unwrap_err();
    assert_eq!(whole.kind, LlmErrorKind::TooLarge(cap));
    let mut seen = 0;
    let streamed = client.chat_stream(&ep, request(), |_| seen += 1).await.unwrap_err();
    assert_eq!(streamed.kind, LlmErrorKind::TooLarge(cap));
    assert!(seen > 0, "the stream's start was forwarded before the cap");
    let finite = client.chat(&ep, request()).await.unwrap_err();
    assert_eq!(finite.kind, LlmErrorKind::TooLarge(cap), "one byte over is over");
    let error = client.chat(&ep, request()).await.unwrap_err();
    assert_eq!(error.status(), Some(503));
    assert!(error.to_string().len() < 1200, "{}", error.to_string().len());
    assert!(error.to_string().ends_with("(body cut at 1024 bytes)"), "{error}");
    assert_eq!(
        whole.to_string(),
        format!(
            "judge model `m` at {} failed after 1 attempt: reply larger than 64 KB (the cap is `max_reply_mb` of the role in the config file)",
            server.base_url()
        )
    );
}

/// A judge call is a whole reply too: the cap holds there (`judge` ends with an `error` verdict).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_reply_without_end_gives_an_error_verdict() {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::endless(200, r#"{"choices":[{"message":{"content":""#, "verdict "));
    let home = tempfile::tempdir().unwrap();
    let journal = home.path().join("ep.jsonl");
    std::fs::copy(fixture("assets/episodes/01-travel-privacy-leak.jsonl"), &journal).unwrap();
    let args = vec![
        "judge".to_string(),
        journal.display().to_string(),
        "--base-url".into(),
        server.base_url(),
        "--judge-model".into(),
        "test-judge".into(),
    ];
    let output = converse_tui_limited(home.path(), args).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("judge errors"), "{stdout}");
    let sidecar = std::fs::read_to_string(home.path().join("ep.verdicts.jsonl")).unwrap();
    assert!(
        sidecar.contains("\"outcome\":\"error\"") && sidecar.contains("reply larger than 8 MB"),
        "{sidecar}"
    );
}

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The attacker's reply is not the JSON it must be, and it echoes the key: spelled out, and
/// as the header. Issue 24, defects 2 and 6.
fn echoing_attacker() -> Reply {
    let spaced: String = KEY.chars().flat_map(|c| [c, ' ']).collect();
    Reply::text(&format!("My key is Bearer {KEY}, or {spaced}"))
}

/// Every form of the key the tests look for.
fn key_forms() -> Vec<String> {
    let spaced: String = KEY.chars().flat_map(|c| [c, ' ']).collect();
    vec![KEY.to_string(), KEY.trim_start_matches("sk-").to_string(), spaced.trim_end().to_string()]
}

fn assert_no_key(what: &str, text: &str) {
    for form in key_forms() {
        assert!(!text.contains(&form), "{what} holds the key as {form:?}:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_echoed_in_an_error_is_masked_on_stderr_and_in_the_journal() {
    let server = OpenAiServer::start(vec![Reply::text("Which hotels fit a mid budget?")]).await;
    server.set_default(echoing_attacker());
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("runs");
    let output = converse_tui_limited(home.path(), run_args(&server, &out, &["--max-turns", "3"])).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("reply: My key is Bearer ***, or ***"), "{stderr}");
    assert_no_key("stderr", &stderr);
    assert_no_key("stdout", &String::from_utf8_lossy(&output.stdout));
    assert_no_key("the journal", &std::fs::read_to_string(only_journal(&out)).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_echoed_in_an_error_is_masked_in_runs_jsonl() {
    let server = OpenAiServer::start(vec![Reply::text("Which hotels fit a mid budget?")]).await;
    server.set_default(echoing_attacker());
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("batch");
    let mut args = batch_cli::batch_args(&server.base_url(), &out, &["--limit", "1", "--max-turns", "3"]);
    args.retain(|a| !a.is_empty());
    let output = converse_tui_limited(home.path(), args).await;
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let runs = std::fs::read_to_string(out.join("runs.jsonl")).unwrap();
    assert!(runs.contains("reply: My key is Bearer ***, or ***"), "{runs}");
    assert_no_key("runs.jsonl", &runs);
    assert_no_key("stderr", &String::from_utf8_lossy(&output.stderr));
}

/// Issue 24: one reply with 5,000 tool calls ran all of them despite `max_tool_calls = 20`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_call_budget_holds_within_one_reply() {
    let many: Vec<(&str, &str)> = (0..5000).map(|_| ("get_user_info", r#"{"query":"Name"}"#)).collect();
    let server = OpenAiServer::start(vec![Reply::tool_calls(&many)]).await;
    server.set_default(Reply::text(r#"{"text": "Thanks.", "details": ""}"#));
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("runs");
    let output = converse_tui_limited(
        home.path(),
        run_args(&server, &out, &["--max-turns", "2", "--max-tool-calls", "20"]),
    )
    .await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let journal = std::fs::read_to_string(only_journal(&out)).unwrap();
    let calls = journal.lines().filter(|l| l.contains(r#""kind":"tool_call""#)).count();
    let results = journal.lines().filter(|l| l.contains(r#""kind":"tool_result""#)).count();
    assert_eq!((calls, results), (20, 20));
}
