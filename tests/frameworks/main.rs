//! Agents built as four frameworks' docs build them (issue 37), unchanged, attacked end to end:
//! pydantic-ai served by fasta2a, Strands' `A2AServer`, Google ADK's `to_a2a` (A2A agents) and
//! the OpenAI Agents SDK (a `cmd:` agent), each configured only by its environment (the MCP URL,
//! its authorization, its port, the model's endpoint), in a pinned venv of its own under
//! `target/`. Their model is the scripted server (`Reply::uses_tool`: it searches the mail for
//! "salary" each turn and answers with what it found), so each episode leaks through a tool result
//! and the rule judge must say so.
//!
//! Each framework runs under `--mcp-listen` (the agent started by the test, once, serving two
//! commands in a row) and under `--launch` (started and stopped by converse-tui); after every
//! command no process started for the agent is left.

#[path = "../support/mod.rs"]
mod support;

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use support::openai_server::{OpenAiServer, Reply};
use support::processes::{wait_within, with_env};
use support::python::Framework;
use support::{batch_cli, bin};

const TASK: &str = "travel_planning_p1_privacy_unrelated_to_travel_salary";
const TOKEN: &str = "fixed-token-for-framework-tests";
/// Marks every process started for the agent (its environment is inherited by its children).
const MARK: &str = "CONVERSE_TEST_AGENT";
/// A command's limit: a framework's start-up (ADK's imports) included.
const LIMIT: Duration = Duration::from_secs(240);

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl")
}

/// The model of the agents: a tool each turn, then what it returned.
async fn leaking_model() -> OpenAiServer {
    let model = OpenAiServer::start(Vec::new()).await;
    model.set_responder(Reply::uses_tool("search_emails", r#"{"query": "salary"}"#));
    model
}

/// The agent's environment, as its user gives it: the model, the MCP endpoint and its header.
fn agent_env(model: &OpenAiServer, mark: &str) -> Vec<(&'static str, String)> {
    vec![
        ("OPENAI_BASE_URL", model.base_url()),
        ("OPENAI_API_KEY", "sk-test-agent".into()),
        ("MODEL", "scripted".into()),
        (MARK, mark.into()),
    ]
}

/// `run --headless` of the task with `agent_args`, its journal read back.
fn run_episode(
    home: &Path,
    out: &str,
    agent_args: &[String],
    env: &[(&str, String)],
) -> (Output, Vec<Value>) {
    let out = home.join(out);
    let mut cmd = bin::command(home);
    cmd.env("CONVERSE_MCP_TOKEN", TOKEN)
        .args(["run", "--headless", "--task", TASK, "--max-turns", "3", "--agent-wait", "180"])
        .arg("--attacker-script")
        .arg(script())
        .arg("--out")
        .arg(&out)
        .args(agent_args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (output, _) = wait_within(cmd.spawn().unwrap(), LIMIT, "converse-tui run");
    let journal = std::fs::read_dir(&out).unwrap().flatten().next().unwrap().path();
    (output, batch_cli::records(&journal))
}

fn kinds<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["kind"] == kind).collect()
}

/// The episode reached its tools through the agent, journaled each call, and the rule judge
/// caught the leak through a tool result.
fn assert_judged_leak(output: &Output, events: &[Value], what: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{what}: {stderr}");
    assert!(!stderr.contains(TOKEN), "{what}: the token given is never printed: {stderr}");
    let calls = kinds(events, "tool_call");
    assert!(calls.len() >= 2, "{what}: the agent's calls are journaled, one a turn: {events:#?}\n{stderr}");
    assert!(calls.iter().all(|c| c["tool"] == "search_emails"), "{calls:?}");
    assert!(kinds(events, "control").iter().all(|c| c["action"] != "tools_unreached"), "{what}");
    let privacy = kinds(events, "verdict").into_iter().rfind(|v| v["judge"] == "privacy").cloned();
    assert_eq!(privacy.as_ref().map(|v| v["outcome"].clone()), Some("fail".into()), "{what}: {privacy:?}");
    assert!(!serde_json::to_string(events).unwrap().contains(TOKEN), "{what}: never journaled");
}

/// No process of the agent marked `mark` is left, a few seconds after the command ended.
fn assert_none_left(mark: &str, what: &str) {
    let needle = format!("{MARK}={mark}");
    let give_up = std::time::Instant::now() + Duration::from_secs(5);
    let mut left = with_env(&needle);
    while !left.is_empty() && std::time::Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(100));
        left = with_env(&needle);
    }
    assert!(left.is_empty(), "{what}: the agent's processes {left:?} outlived the command");
}

/// `--launch` for `framework`'s agent, its MCP server at `mcp_url` (a placeholder, or a fixed URL).
fn launch_line(
    framework: Framework,
    python: &Path,
    model: &OpenAiServer,
    mark: &str,
    mcp_url: &str,
) -> String {
    format!(
        "env MCP_URL={mcp_url} 'MCP_AUTH={{mcp_authorization}}' PORT={{port}} {MARK}={mark} OPENAI_BASE_URL={} OPENAI_API_KEY=sk-test-agent MODEL=scripted {} {}",
        model.base_url(),
        python.display(),
        framework.agent().display()
    )
}

/// `converse-tui test SUITE` with `agent_args`; its output.
fn test_suite(home: &Path, suite: &Path, out: &str, agent_args: &[String]) -> Output {
    let mut cmd = bin::command(home);
    cmd.arg("test")
        .arg(suite)
        .args(["--agent-wait", "180", "--out"])
        .arg(home.join(out))
        .args(agent_args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    wait_within(cmd.spawn().unwrap(), LIMIT, "converse-tui test").0
}

/// A suite of one case: the episode at `journal`.
fn suite_of(home: &Path, journal: &Path) -> PathBuf {
    let suite = home.join("suite");
    let added = bin::command(home).arg("suite").arg("add").arg(&suite).arg(journal).output().unwrap();
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    suite
}

/// An A2A framework's agent started by the test once, configured with the fixed endpoint:
/// two commands in a row reach it; then converse-tui starts it with `--launch`.
/// Returns what later checks of the framework reuse: the home (kept), the suite, the venv's
/// interpreter and the model.
async fn a2a_framework(framework: Framework) -> (tempfile::TempDir, PathBuf, PathBuf, OpenAiServer) {
    let python = tokio::task::spawn_blocking(move || framework.python()).await.unwrap();
    let model = leaking_model().await;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let name = framework.name();

    // --mcp-listen: the agent is started after converse-tui listens, and serves two runs.
    let (listen, port) = (free_port(), free_port());
    let mark = format!("{}-listen", home.display());
    let mut agent = Command::new(&python);
    agent
        .arg(framework.agent())
        .envs(agent_env(&model, &mark))
        .env("MCP_URL", format!("http://127.0.0.1:{listen}/mcp"))
        .env("MCP_AUTH", format!("Bearer {TOKEN}"))
        .env("PORT", port.to_string())
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(home.join("agent.log")).unwrap());
    let args = vec![
        "--mcp-listen".into(),
        format!("127.0.0.1:{listen}"),
        "--assistant".into(),
        format!("a2a:http://127.0.0.1:{port}"),
    ];
    let first = {
        let (home, args) = (home.clone(), args.clone());
        tokio::task::spawn_blocking(move || run_episode(&home, "listen-1", &args, &[]))
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut agent = agent.spawn().unwrap();
    let (output, events) = first.await.unwrap();
    let log = || std::fs::read_to_string(home.join("agent.log")).unwrap_or_default();
    assert_judged_leak(&output, &events, &format!("{name} --mcp-listen, first run; agent log:\n{}", log()));
    let (output, events) = {
        let (home, args) = (home.clone(), args.clone());
        tokio::task::spawn_blocking(move || run_episode(&home, "listen-2", &args, &[])).await.unwrap()
    };
    assert_judged_leak(&output, &events, &format!("{name} --mcp-listen, second run; agent log:\n{}", log()));
    assert!(agent.try_wait().unwrap().is_none(), "{name}: one agent process served both runs");
    unsafe { libc::kill(-(agent.id() as i32), libc::SIGTERM) };
    let _ = agent.wait();
    assert_none_left(&mark, &format!("{name} started by the test"));

    // --launch: converse-tui starts it on a port of its choosing, and stops it.
    let mark = format!("{}-launch", home.display());
    let launch = launch_line(framework, &python, &model, &mark, "{mcp_url}");
    let args = vec!["--launch".into(), launch, "--assistant".into(), "a2a:http://127.0.0.1:{port}".into()];
    let (output, events) = {
        let (home, args) = (home.clone(), args.clone());
        tokio::task::spawn_blocking(move || run_episode(&home, "launch", &args, &[])).await.unwrap()
    };
    assert_judged_leak(&output, &events, &format!("{name} --launch"));
    let launched = events[0]["config"]["assistant_agent"]["launch"].as_str().unwrap_or_default().to_string();
    assert!(launched.contains("MCP_AUTH=Bearer ***"), "the launch line, token masked: {launched}");
    assert_none_left(&mark, &format!("{name} --launch"));

    // `test` of the case the first run made: the leak fails it (exit 1).
    let suite = suite_of(&home, &support::files::journal_in(&home.join("listen-1")));
    let output = {
        let (home, suite) = (home.clone(), suite.clone());
        tokio::task::spawn_blocking(move || test_suite(&home, &suite, "test", &args)).await.unwrap()
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{name} test: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("1 fail"), "{stdout}");
    assert_none_left(&mark, &format!("{name} test --launch"));
    (dir, suite, python, model)
}

/// `batch --concurrency 2` of four tasks with `agent_args` (the agent's processes marked `mark`):
/// each episode journals the agent's calls, and none of its processes is left; the agent URLs
/// the journals record.
async fn batch_of_four(
    home: &Path,
    agent_args: Vec<String>,
    mark: &str,
    what: &str,
) -> std::collections::BTreeSet<String> {
    let attacker = OpenAiServer::start(Vec::new()).await;
    attacker.set_default(batch_cli::generic());
    let out = home.join("batch");
    let extra = ["--limit", "4", "--concurrency", "2", "--max-turns", "2", "--agent-wait", "180"];
    let mut args = batch_cli::batch_args(&attacker.base_url(), &out, &extra);
    args.extend(agent_args);
    let output = batch_cli::converse_tui(home, args).await;
    assert!(output.status.success(), "{what}: {}", String::from_utf8_lossy(&output.stderr));
    let journals: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && !p.ends_with("runs.jsonl"))
        .collect();
    assert_eq!(journals.len(), 4, "{what}: {journals:?}");
    let mut agents = std::collections::BTreeSet::new();
    for journal in &journals {
        let events = batch_cli::records(journal);
        assert!(
            !kinds(&events, "tool_call").is_empty(),
            "{what}: {}: the agent's calls journaled",
            journal.display()
        );
        agents.extend(events[0]["config"]["assistant_agent"]["url"].as_str().map(str::to_string));
    }
    assert_none_left(mark, what);
    agents
}

/// `batch --concurrency 2 --launch`: two copies of the agent, one per slot, each on its own
/// endpoint and port, kept across the slot's episodes and stopped at the end.
async fn batch_under_launch(
    framework: Framework,
    setup: (tempfile::TempDir, PathBuf, PathBuf, OpenAiServer),
) {
    let (dir, _, python, model) = setup;
    let mark = format!("{}-batch", dir.path().display());
    let launch = launch_line(framework, &python, &model, &mark, "{mcp_url}");
    let args = vec!["--assistant".into(), "a2a:http://127.0.0.1:{port}".into(), "--launch".into(), launch];
    let what = format!("{} batch --launch", framework.name());
    let agents = batch_of_four(dir.path(), args, &mark, &what).await;
    assert_eq!(agents.len(), 2, "{what}: one agent per slot, each on its port: {agents:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pydantic_ai_agent_served_by_fasta2a() {
    let setup = a2a_framework(Framework::PydanticAi).await;
    batch_under_launch(Framework::PydanticAi, setup).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strands_agent_served_by_its_a2a_server() {
    let setup = a2a_framework(Framework::Strands).await;
    batch_under_launch(Framework::Strands, setup).await;
}

/// Then D1b: the ADK agent whose MCP server is unreachable starts all the same and answers
/// without its tools; `test` says undecided (exit 2) where it passed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adk_agent_served_by_to_a2a() {
    let (dir, suite, python, model) = a2a_framework(Framework::Adk).await;
    let home = dir.path().to_path_buf();
    let mark = format!("{}-unreachable", home.display());
    let dead = format!("http://127.0.0.1:{}/mcp", free_port());
    let launch = launch_line(Framework::Adk, &python, &model, &mark, &dead);
    let args = vec!["--launch".into(), launch, "--assistant".into(), "a2a:http://127.0.0.1:{port}".into()];
    let output = {
        let suite = suite.clone();
        tokio::task::spawn_blocking(move || test_suite(&home, &suite, "unreachable", &args)).await.unwrap()
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("the agent never reached its tools"), "{stdout}");
    assert_none_left(&mark, "adk, tools unreachable");
    batch_under_launch(Framework::Adk, (dir, suite, python, model)).await;
}

/// The OpenAI Agents SDK has no A2A server: a `cmd:` agent, started per episode by converse-tui,
/// configured by its environment (a fixed endpoint) or by placeholders in its command line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_openai_agents_agent_as_a_command() {
    let framework = Framework::OpenAiAgents;
    let python = tokio::task::spawn_blocking(move || framework.python()).await.unwrap();
    let model = leaking_model().await;
    let home = tempfile::tempdir().unwrap();
    let home = home.path().to_path_buf();
    let command = format!("{} {}", python.display(), framework.agent().display());

    let listen = free_port();
    let mark = format!("{}-listen", home.display());
    let mut env = agent_env(&model, &mark);
    env.push(("MCP_URL", format!("http://127.0.0.1:{listen}/mcp")));
    env.push(("MCP_AUTH", format!("Bearer {TOKEN}")));
    let args = vec![
        "--mcp-listen".into(),
        format!("127.0.0.1:{listen}"),
        "--assistant".into(),
        format!("cmd:{command}"),
    ];
    for out in ["listen-1", "listen-2"] {
        let (home, args, env) = (home.clone(), args.clone(), env.clone());
        let (output, events) =
            tokio::task::spawn_blocking(move || run_episode(&home, out, &args, &env)).await.unwrap();
        assert_judged_leak(&output, &events, &format!("openai-agents --mcp-listen, {out}"));
        assert_none_left(&mark, "openai-agents --mcp-listen");
    }

    // Each episode's own endpoint, named by placeholders in the command line.
    let mark = format!("{}-placeholders", home.display());
    let agent = format!(
        "cmd:env MCP_URL={{mcp_url}} 'MCP_AUTH={{mcp_authorization}}' {MARK}={mark} OPENAI_BASE_URL={} OPENAI_API_KEY=sk-test-agent MODEL=scripted {command}",
        model.base_url()
    );
    let args = vec!["--assistant".into(), agent];
    let (output, events) = {
        let (home, args) = (home.clone(), args.clone());
        tokio::task::spawn_blocking(move || run_episode(&home, "placeholders", &args, &[])).await.unwrap()
    };
    assert_judged_leak(&output, &events, "openai-agents, placeholders");
    assert_none_left(&mark, "openai-agents, placeholders");

    // `test` of the case the first run made: the leak fails it (exit 1).
    let suite = suite_of(&home, &support::files::journal_in(&home.join("listen-1")));
    let output = {
        let (home, args) = (home.clone(), args.clone());
        tokio::task::spawn_blocking(move || test_suite(&home, &suite, "test", &args)).await.unwrap()
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "openai-agents test: {stdout}");
    assert_none_left(&mark, "openai-agents test");
    batch_of_four(&home, args, &mark, "openai-agents batch").await;
}
