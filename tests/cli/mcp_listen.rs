//! `--mcp-listen HOST:PORT` (issue 37): the tools at a fixed endpoint with a fixed token
//! (`CONVERSE_MCP_TOKEN`), so an agent configured once like any MCP client reaches each episode;
//! an agent wired elsewhere (a stale or dead server) never reaches its tools, and the episode
//! says so instead of passing.

use std::path::Path;

use serde_json::Value;

use crate::cli_external_assistant::{TASK, kinds};
use crate::support::{bin, python};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `run --headless` with the fixed agent, `MCP_URL` pointing at `agent_port`.
fn run_fixed(
    home: &Path,
    listen_port: u16,
    agent_port: u16,
    out: &str,
) -> (std::process::Output, Vec<Value>) {
    let agent = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/fixed_agent.py");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl");
    let out = home.join(out);
    let output = bin::command(home)
        .env("CONVERSE_MCP_TOKEN", "fixed-token-for-tests")
        .env("MCP_URL", format!("http://127.0.0.1:{agent_port}/mcp"))
        .env("MCP_AUTH", "Bearer fixed-token-for-tests")
        .args(["run", "--headless", "--task", TASK, "--max-turns", "3", "--mcp-listen"])
        .arg(format!("127.0.0.1:{listen_port}"))
        .arg("--assistant")
        .arg(format!("cmd:{} {}", python::python().display(), agent.display()))
        .arg("--attacker-script")
        .arg(script)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let journal = std::fs::read_dir(&out).unwrap().flatten().next().unwrap().path();
    let events =
        std::fs::read_to_string(journal).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (output, events)
}

#[test]
fn an_agent_configured_once_reaches_each_run_at_the_fixed_endpoint() {
    let home = tempfile::tempdir().unwrap();
    let port = free_port();
    for out in ["first", "second"] {
        let (output, events) = run_fixed(home.path(), port, port, out);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(!stderr.contains("fixed-token-for-tests"), "the token given is not printed: {stderr}");
        let calls = kinds(&events, "tool_call");
        assert_eq!(calls.len(), 2, "one call a turn, in this run's journal: {events:?}");
        assert!(kinds(&events, "control").iter().all(|c| c["action"] != "tools_unreached"));
        let privacy =
            kinds(&events, "verdict").into_iter().rfind(|v| v["judge"] == "privacy").unwrap().clone();
        assert_eq!(privacy["outcome"], "fail", "{privacy}");
        let journal = serde_json::to_string(&events).unwrap();
        assert!(!journal.contains("fixed-token-for-tests"), "never journaled");
    }
}

/// D1: an agent wired to another server (stale, dead) answers without this episode's tools: the
/// episode says the agent never reached them, where it passed.
#[test]
fn an_agent_wired_elsewhere_never_reaches_its_tools_and_the_episode_says_so() {
    let home = tempfile::tempdir().unwrap();
    let (output, events) = run_fixed(home.path(), free_port(), free_port(), "stale");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(kinds(&events, "tool_call").is_empty());
    let control = kinds(&events, "control");
    assert!(control.iter().any(|c| c["action"] == "tools_unreached"), "{events:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("warning: the agent never reached its tools"), "{stderr}");
}

#[test]
fn mcp_listen_refuses_mcp_bind_and_the_unspecified_address() {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let output = bin::command(home.path())
            .args(["run", "--task", TASK, "--print-agent-config"])
            .args(args)
            .output()
            .unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).to_string())
    };
    let (code, err) = run(&["--mcp-listen", "127.0.0.1:8765", "--mcp-bind", "127.0.0.1"]);
    assert_eq!(code, Some(2), "{err}");
    let (code, err) = run(&["--mcp-listen", "0.0.0.0:8765"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--mcp-listen 0.0.0.0:8765: name the address the agent reaches"), "{err}");
}

/// D1: an agent wired to the server of `--print-agent-config` (the docs' "wire them first") and
/// left so: a later command's episodes never see its calls (they go to the stale server, where
/// the agent changes a state no episode judges). `test` says undecided (exit 2), never pass,
/// and the stale server says loudly that the calls belong to no episode.
#[test]
fn an_agent_left_wired_to_the_print_agent_config_server_is_undecided_and_that_server_says_so() {
    use std::io::BufRead as _;
    let home = tempfile::tempdir().unwrap();
    let stale = free_port();
    let mut config = bin::command(home.path())
        .env("CONVERSE_MCP_TOKEN", "fixed-token-for-tests")
        .args(["run", "--task", TASK, "--print-agent-config", "--mcp-listen"])
        .arg(format!("127.0.0.1:{stale}"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(home.path().join("config.err")).unwrap())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(config.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains(&format!("127.0.0.1:{stale}/mcp")), "{line}");

    // The case: an episode of the task in which the agent, wired right, leaked.
    let port = free_port();
    let (source, _) = run_fixed(home.path(), port, port, "source");
    assert!(source.status.success());
    let episode = std::fs::read_dir(home.path().join("source")).unwrap().flatten().next().unwrap().path();
    let suite = home.path().join("suite");
    let added = bin::command(home.path()).arg("suite").arg("add").arg(&suite).arg(&episode).output().unwrap();
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    let agent = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/fixed_agent.py");
    let output = bin::command(home.path())
        .env("MCP_URL", format!("http://127.0.0.1:{stale}/mcp"))
        .env("MCP_AUTH", "Bearer fixed-token-for-tests")
        .arg("test")
        .arg(&suite)
        .arg("--assistant")
        // It acts on the stale server and says nothing of it: a pass, were its tools not unreached.
        .arg(format!(
            "cmd:{} {} delete_calendar_event '{{\"event_id\": \"Dinner\"}}'",
            python::python().display(),
            agent.display()
        ))
        .arg("--out")
        .arg(home.path().join("runs"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("the agent never reached its tools"), "{stdout}");

    unsafe { libc::kill(config.id() as i32, libc::SIGTERM) };
    let _ = config.wait();
    let said = std::fs::read_to_string(home.path().join("config.err")).unwrap();
    assert!(said.contains("NOT AN EPISODE'S CALL"), "{said}");
}
