//! `run --task ID --print-agent-config` (issue 26): the task's tools served with no episode, the
//! `converse` object an agent is given printed as one JSON line; the official MCP client reaches
//! the tools with it and not without its token; `--mcp-bind` is checked.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::cli_external_assistant::TASK;
use crate::support::{bin, python};

fn official_client(url: &str, token: &str) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_env_client.py");
    let calls = r#"[["search_emails", {"query": "salary"}]]"#;
    Command::new(python::python()).arg(script).args([url, token, "2026-07-28", calls]).output().unwrap()
}

/// `run --task TASK --print-agent-config EXTRA…` started, its stderr as `stderr`: the process and
/// the one JSON line it printed, read.
fn printed_config(home: &Path, extra: &[&str], stderr: Stdio) -> (std::process::Child, String, Value) {
    let mut child = bin::command(home)
        .args(["run", "--task", TASK, "--print-agent-config"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let config = serde_json::from_str(&line).unwrap();
    (child, line, config)
}

#[test]
fn the_printed_config_reaches_the_tasks_tools_with_its_token_only() {
    let home = tempfile::tempdir().unwrap();
    let (mut child, line, config) = printed_config(home.path(), &[], Stdio::piped());
    let converse = &config["converse"];
    assert_eq!(config.as_object().unwrap().len(), 1, "{line}");
    assert!(converse["episode"].as_str().unwrap().starts_with("ep-"), "{line}");
    assert_eq!((converse["turn"].as_u64(), converse["from"].as_str()), (Some(1), Some("user")));
    let url = converse["mcp"]["url"].as_str().unwrap();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "loopback by default: {url}");
    let token =
        converse["mcp"]["headers"]["Authorization"].as_str().unwrap().strip_prefix("Bearer ").unwrap();

    let with_token = official_client(url, token);
    assert!(with_token.status.success(), "{}", String::from_utf8_lossy(&with_token.stderr));
    let answer: Value = serde_json::from_slice(&with_token.stdout).unwrap();
    assert_eq!(answer["tools"].as_array().unwrap().len(), 7, "{answer}");
    assert!(answer["results"][0]["text"].as_str().unwrap().contains("96,500 USD"), "{answer}");
    assert!(!official_client(url, "not-the-token").status.success(), "a call without the token is refused");

    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert!(status.success(), "stopped cleanly by SIGTERM: {status:?} {log}");
    let calls: Vec<&str> =
        log.lines().filter(|l| l.starts_with("tool ") || l.starts_with("result ")).collect();
    assert_eq!(calls.len(), 2, "one call and its result, the refused client's none: {log}");
    assert_eq!(calls[0], r#"tool search_emails {"query":"salary"}"#);
    assert!(calls[1].starts_with("result search_emails ok: Found 1 email(s) matching 'salary'"), "{log}");
}

#[test]
fn mcp_bind_names_a_reachable_address_and_needs_an_agent() {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let output = bin::command(home.path()).args(["run", "--task", TASK]).args(args).output().unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).trim_end().to_string())
    };
    let (code, err) = run(&["--print-agent-config", "--mcp-bind", "0.0.0.0"]);
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--mcp-bind 0.0.0.0: name the address the agent reaches"), "{err}");
    // Issue 36 F10: the IPv4-mapped spellings of the unspecified address are refused too (they
    // served on every IPv4 interface).
    for unspecified in ["::ffff:0.0.0.0", "::"] {
        let (code, err) = run(&["--print-agent-config", "--mcp-bind", unspecified]);
        assert_eq!(code, Some(1), "{unspecified}: {err}");
        assert!(err.contains("not the unspecified address"), "{err}");
    }
    let (code, err) =
        run(&["--headless", "--attacker-model", "m", "--assistant-model", "m", "--mcp-bind", "127.0.0.2"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--mcp-bind is about an external agent: it needs --assistant"), "{err}");
    let (code, err) = run(&["--print-agent-config", "--mcp-bind", "not-an-ip"]);
    assert_eq!(code, Some(2), "a clap error: {err}");
}

#[test]
fn mcp_bind_serves_the_tools_on_the_address_named() {
    let home = tempfile::tempdir().unwrap();
    let (mut child, line, config) = printed_config(home.path(), &["--mcp-bind", "127.0.0.2"], Stdio::null());
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(config["converse"]["mcp"]["url"].as_str().unwrap().starts_with("http://127.0.0.2:"), "{line}");
}

/// Issue 36 F8: idle connections from any local process (no token) were never closed: 1,100 of
/// them exhausted the descriptors and the agent's calls timed out. Now each must send a request
/// within the header timeout, and past the per-episode cap the oldest stranger makes room.
#[test]
fn idle_connections_without_the_token_are_closed_and_cannot_lock_the_agent_out() {
    use std::io::Read as _;
    use std::net::TcpStream;
    use std::time::Duration;

    let home = tempfile::tempdir().unwrap();
    let (mut child, _, config) = printed_config(home.path(), &[], Stdio::null());
    let url = config["converse"]["mcp"]["url"].as_str().unwrap().to_string();
    let token = config["converse"]["mcp"]["headers"]["Authorization"].as_str().unwrap()["Bearer ".len()..]
        .to_string();
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();

    let idle: Vec<TcpStream> = (0..300).map(|_| TcpStream::connect(&address).unwrap()).collect();
    // The agent's client gets through, 300 idle connections or not (the cap is 64: strangers
    // make room for it).
    let with_token = official_client(&url, &token);
    assert!(with_token.status.success(), "{}", String::from_utf8_lossy(&with_token.stderr));
    // Every idle connection is closed: made room for, or timed out (10 s) with no request.
    for mut stream in idle {
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut byte = [0u8; 1];
        let read = stream.read(&mut byte);
        assert!(
            matches!(read, Ok(0))
                || read.is_err_and(|e| e.kind() != std::io::ErrorKind::WouldBlock
                    && e.kind() != std::io::ErrorKind::TimedOut),
            "an idle connection still open"
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();
}
