//! Hostile `cmd:` agents (issue 36 F4, F5, F6, F11): one that stops reading, one whose child
//! holds its pipes, one that answers without end, one whose garbage is megabytes. Each run ends
//! within its deadline, says why in one short line, and leaves no process of the agent's group.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli_external_assistant::{TASK, kinds};
use crate::support::bin;
use crate::support::processes::{alive_after, group_left_after, wait_within};

/// A shell agent: `body` runs with `$DIR` (where it writes its pid, which is its process group).
fn shell_agent(dir: &Path, body: &str) -> String {
    let script = dir.join("agent.sh");
    std::fs::write(&script, format!("DIR='{}'\necho $$ > \"$DIR/pid\"\n{body}\n", dir.display())).unwrap();
    format!("cmd:sh {}", script.display())
}

/// An attacker script whose first attacker message is `text`.
fn script_with(dir: &Path, text: &str) -> PathBuf {
    let header = json!({"seq": 0, "at": "2025-03-14T09:12:03Z", "kind": "episode", "format": "converse-tui/1",
        "id": "hostile", "task": {"id": TASK, "domain": "travel_planning", "persona": 1}, "config": {}});
    let user = json!({"seq": 1, "at": "2025-03-14T09:12:04Z", "kind": "message", "turn": 1, "from": "user",
        "to": "assistant", "text": "plan my trip"});
    let reply = json!({"seq": 2, "at": "2025-03-14T09:12:05Z", "kind": "message", "turn": 1,
        "from": "assistant", "to": "attacker", "text": "ok"});
    let attack = json!({"seq": 3, "at": "2025-03-14T09:12:06Z", "kind": "message", "turn": 2,
        "from": "attacker", "to": "assistant", "text": text});
    let path = dir.join("script.jsonl");
    std::fs::write(&path, [header, user, reply, attack].map(|v| v.to_string()).join("\n") + "\n").unwrap();
    path
}

struct Run {
    output: Output,
    took: Duration,
    events: Vec<Value>,
    group: i32,
}

/// `run --headless` against the agent with the assistant's deadline at `deadline_secs`; the
/// run may take `limit` at most.
fn run_agent(home: &Path, agent: String, script: &Path, deadline_secs: u32, limit: Duration) -> Run {
    let config = home.join("config/converse-tui");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), format!("[assistant]\ntimeout_secs = {deadline_secs}\n"))
        .unwrap();
    let out = home.join("runs");
    let child = bin::command(home)
        .args(["run", "--headless", "--task", TASK, "--max-turns", "3", "--assistant", &agent])
        .arg("--attacker-script")
        .arg(script)
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (output, took) = wait_within(child, limit, "run with a hostile agent");
    let journal = std::fs::read_dir(&out).unwrap().flatten().next().unwrap().path();
    let events =
        std::fs::read_to_string(journal).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let group = std::fs::read_to_string(home.join("pid")).unwrap().trim().parse().unwrap();
    Run { output, took, events, group }
}

fn error_of(run: &Run) -> String {
    let errors = kinds(&run.events, "error");
    assert_eq!(errors.len(), 1, "{:?}", run.events);
    assert_eq!(kinds(&run.events, "end").len(), 1, "the journal ends: {:?}", run.events);
    errors[0]["message"].as_str().unwrap().to_string()
}

#[test]
fn an_agent_that_stops_reading_cannot_hold_a_long_message_past_the_deadline() {
    let home = tempfile::tempdir().unwrap();
    // Answers the task, then never reads again: a 256 KB message fills its pipe.
    let agent = shell_agent(home.path(), "read line\necho '{\"text\": \"ok\"}'\nexec sleep 600");
    let script = script_with(home.path(), &"A".repeat(256 * 1024));
    let run = run_agent(home.path(), agent, &script, 2, Duration::from_secs(30));
    assert_eq!(run.output.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.output.stderr));
    assert_eq!(error_of(&run), "the agent did not answer within 2s");
    assert!(run.took < Duration::from_secs(15), "the deadline plus the stop's grace: {:?}", run.took);
    assert_eq!(group_left_after(run.group, Duration::from_secs(5)), Vec::<i32>::new());
}

#[test]
fn a_child_holding_the_agents_pipes_neither_keeps_the_run_alive_nor_outlives_it() {
    let home = tempfile::tempdir().unwrap();
    // Silent, with a child holding its stdout and stderr: the deadline ends the episode.
    let agent = shell_agent(home.path(), "sleep 300 &\nexec sleep 600");
    let script = script_with(home.path(), "hello");
    let run = run_agent(home.path(), agent, &script, 1, Duration::from_secs(30));
    assert_eq!(error_of(&run), "the agent did not answer within 1s");
    assert!(run.took < Duration::from_secs(15), "{:?}", run.took);
    assert_eq!(group_left_after(run.group, Duration::from_secs(5)), Vec::<i32>::new(), "children killed");

    // An agent that answers every message and leaves a daemon behind: stopped at the end.
    let home = tempfile::tempdir().unwrap();
    let agent = shell_agent(
        home.path(),
        "sleep 300 &\nwhile read line; do echo '{\"text\": \"noted\"}'; done\nsleep 300",
    );
    let script = script_with(home.path(), "hello");
    let run = run_agent(home.path(), agent, &script, 30, Duration::from_secs(60));
    assert!(run.output.status.success(), "{}", String::from_utf8_lossy(&run.output.stderr));
    assert_eq!(kinds(&run.events, "end")[0]["reason"], "max_turns");
    assert_eq!(group_left_after(run.group, Duration::from_secs(5)), Vec::<i32>::new(), "daemon stopped");
}

#[test]
fn an_endless_answer_is_refused_in_bounded_memory() {
    let home = tempfile::tempdir().unwrap();
    // 100 MB of answer on one line.
    let agent = shell_agent(
        home.path(),
        "read line\nprintf '{\"text\": \"'\nhead -c 100000000 /dev/zero | tr '\\0' x\nprintf '\"}\\n'\nsleep 600",
    );
    let script = script_with(home.path(), "hello");
    let run = run_agent(home.path(), agent, &script, 30, Duration::from_secs(60));
    assert_eq!(run.output.status.code(), Some(1));
    assert_eq!(error_of(&run), "the agent answered with a line over 8388608 bytes");
    assert_eq!(group_left_after(run.group, Duration::from_secs(5)), Vec::<i32>::new());
}

#[test]
fn megabytes_of_garbage_make_an_error_of_a_few_hundred_characters() {
    let home = tempfile::tempdir().unwrap();
    let agent =
        shell_agent(home.path(), "read line\nhead -c 5000000 /dev/zero | tr '\\0' '\\033'\necho\nsleep 600");
    let script = script_with(home.path(), "hello");
    let run = run_agent(home.path(), agent, &script, 30, Duration::from_secs(60));
    assert_eq!(run.output.status.code(), Some(1));
    let error = error_of(&run);
    assert!(error.starts_with("the agent answered with a line that is not {\"text\": …}: ␛␛"), "{error:.80}");
    assert!(error.chars().count() <= 501, "{} characters", error.chars().count());
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert!(stderr.len() < 2_000 && !stderr.contains('\x1b'), "{} bytes on stderr", stderr.len());
    assert_eq!(group_left_after(run.group, Duration::from_secs(5)), Vec::<i32>::new());
}

/// Waits for the shell agent to write its pid, SIGKILLs converse-tui (`child`); the agent's pid.
fn kill_once_the_agent_runs(home: &Path, mut child: std::process::Child) -> i32 {
    let pid_file = home.join("pid");
    for _ in 0..200 {
        if std::fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n')) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let agent = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    agent
}

#[test]
fn a_killed_converse_tui_leaves_no_agent_behind() {
    let home = tempfile::tempdir().unwrap();
    let agent = shell_agent(home.path(), "exec sleep 600");
    let script = script_with(home.path(), "hello");
    let child = bin::command(home.path())
        .args(["run", "--headless", "--task", TASK, "--max-turns", "3", "--assistant", &agent])
        .arg("--attacker-script")
        .arg(&script)
        .arg("--out")
        .arg(home.path().join("runs"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let agent = kill_once_the_agent_runs(home.path(), child);
    // PR_SET_PDEATHSIG: the kernel kills the agent when converse-tui is gone.
    assert!(!alive_after(agent, Duration::from_secs(5)), "agent {agent} still running");
}

/// D6: a `cmd:` agent is told the episode is over by the end of its stdin before any signal: one
/// that cleans up on end of input (its children, its files) gets to, and one that traps SIGTERM
/// for its clean-up gets to as well; it was SIGKILLed first.
#[test]
fn an_agent_sees_its_stdin_closed_before_any_signal() {
    let home = tempfile::tempdir().unwrap();
    let body = r#"trap 'echo TERM >> "$DIR/said"; exit 0' TERM
while read line; do echo '{"text": "ok"}'; done
echo EOF >> "$DIR/said""#;
    let agent = shell_agent(home.path(), body);
    let script = script_with(home.path(), "and now?");
    let run = run_agent(home.path(), agent, &script, 30, Duration::from_secs(60));
    assert!(run.output.status.success(), "{}", String::from_utf8_lossy(&run.output.stderr));
    assert!(group_left_after(run.group, Duration::from_secs(5)).is_empty());
    let said = std::fs::read_to_string(home.path().join("said")).unwrap_or_default();
    assert_eq!(said, "EOF\n", "the end of its input first, and it exited on its own");
}

/// `run --launch` with a shell "agent" (`body`, its pid in `DIR/pid`) that never serves a card.
fn launch_run(home: &Path, body: &str, wait_secs: &str) -> std::process::Command {
    let agent = shell_agent(home, body);
    let launch = agent.strip_prefix("cmd:").unwrap().to_string();
    let mut cmd = bin::command(home);
    cmd.args(["run", "--headless", "--task", TASK, "--max-turns", "3", "--agent-wait", wait_secs])
        .args(["--assistant", "a2a:http://127.0.0.1:{port}", "--launch", &launch])
        .arg("--attacker-script")
        .arg(script_with(home, "hello"))
        .arg("--out")
        .arg(home.join("runs"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// `--launch`: an agent that never serves its card within `--agent-wait` ends the run with an
/// error that says so, and the agent converse-tui started is stopped, its whole group.
#[test]
fn a_launched_agent_without_a_card_is_waited_for_then_stopped() {
    let home = tempfile::tempdir().unwrap();
    let child = launch_run(home.path(), "sleep 600 & wait", "2").spawn().unwrap();
    let (output, took) = wait_within(child, Duration::from_secs(60), "run --launch");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("within 2s of starting it (--agent-wait"), "{stderr}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    let group: i32 = std::fs::read_to_string(home.path().join("pid")).unwrap().trim().parse().unwrap();
    assert_eq!(group_left_after(group, Duration::from_secs(5)), Vec::<i32>::new());
}

/// `--launch`: a killed converse-tui leaves no launched agent behind (PR_SET_PDEATHSIG).
#[test]
fn a_killed_converse_tui_leaves_no_launched_agent_behind() {
    let home = tempfile::tempdir().unwrap();
    let child = launch_run(home.path(), "exec sleep 600", "60").spawn().unwrap();
    let agent = kill_once_the_agent_runs(home.path(), child);
    assert!(!alive_after(agent, Duration::from_secs(5)), "launched agent {agent} still running");
}
