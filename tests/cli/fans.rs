//! `converse-tui fan` from the binary (issue 28): an episode re-run many times from one turn
//! against the scripted server, the leak count per judge source checked against the replies the
//! server gave, its Wilson interval against a hand computation, and kill -9 then --resume
//! finishing exactly N attempts.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::batch_cli::{assert_resume_refused, command, converse_tui, records, strings};
use crate::support::fan_source::{LEAK, REFUSAL, leaked_at_turn_2};
use crate::support::openai_server::{OpenAiServer, Reply};

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn fan_args(episode: &Path, server: &OpenAiServer, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&[
        "fan",
        &episode.display().to_string(),
        "--turn",
        "2",
        "--base-url",
        &server.base_url(),
        "--assistant-model",
        "m",
        "--out",
        &out.display().to_string(),
    ]);
    args.extend(strings(extra));
    args
}

/// The 95% Wilson interval, computed here from its formula.
fn wilson(k: f64, n: f64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre - half, centre + half)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fan_of_200_counts_the_leaks_the_server_gave_with_their_interval() {
    let home = tempfile::tempdir().unwrap();
    let episode = leaked_at_turn_2(home.path()).await;
    // 60 of the 200 replies leak (a leak probability of 0.3), spread through the sequence.
    let replies = (0..200).map(|i| Reply::text(if i % 10 < 3 { LEAK } else { REFUSAL })).collect();
    let server = OpenAiServer::start(replies).await;
    let out = home.path().join("fan");
    let output = converse_tui(
        home.path(),
        fan_args(&episode, &server, &out, &["-n", "200", "--concurrency", "8", "--json"]),
    )
    .await;
    // 60 leaks: exit 1, as `test` and `attack` on a leak.
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(server.request_count(), 200, "one assistant reply per attempt, nothing else");
    let lines: Vec<Value> =
        String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let rule = lines.iter().find(|l| l["judge"] == "privacy" && l["source"] == "rule").unwrap();
    assert_eq!((rule["leaked"].as_u64(), rule["decided"].as_u64()), (Some(60), Some(200)), "{rule}");
    assert_eq!(rule["leaked_before"], 0);
    let (lo, hi) = wilson(60.0, 200.0);
    let interval = rule["interval"].as_array().unwrap();
    assert!(
        (interval[0].as_f64().unwrap() - lo).abs() < 1e-12
            && (interval[1].as_f64().unwrap() - hi).abs() < 1e-12
    );
    assert!(lo < 0.3 && 0.3 < hi, "the interval covers the leak probability: [{lo}, {hi}]");
    assert!(rule["first_leak_turns"].as_array().unwrap().iter().all(|t| t == 2));

    let attempts: Vec<&Value> = lines.iter().filter(|l| l.get("attempt").is_some()).collect();
    assert_eq!(attempts.len(), 200);
    // Every attempt is a fork journal of the episode at turn 2's message, with one new reply.
    let journal = PathBuf::from(attempts[0]["journal"].as_str().unwrap());
    let events = records(&journal);
    let source = records(&episode);
    assert_eq!(events[0]["parent"]["episode"], source[0]["id"]);
    let replies: Vec<&Value> =
        events.iter().filter(|e| e["kind"] == "message" && e["from"] == "assistant").collect();
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[0]["text"], REFUSAL, "the copied first reply");

    // The fan's folder lists as 200 episodes: its plan and runs file are not taken for episodes.
    assert!(out.join("fan.json").is_file());
    let listed = converse_tui(home.path(), strings(&["ls", &out.display().to_string(), "--json"])).await;
    assert!(listed.status.success() && stderr(&listed).is_empty(), "{}", stderr(&listed));
    assert_eq!(String::from_utf8_lossy(&listed.stdout).lines().count(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_then_resume_finishes_exactly_n_attempts() {
    let home = tempfile::tempdir().unwrap();
    let episode = leaked_at_turn_2(home.path()).await;
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::text(REFUSAL).delay(Duration::from_millis(150)));
    let out = home.path().join("fan");
    let args = fan_args(&episode, &server, &out, &["-n", "12", "--concurrency", "2"]);
    let mut child = command(home.path(), &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let runs = out.join("runs.jsonl");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&runs).map_or(true, |t| t.lines().count() < 3) {
        assert!(std::time::Instant::now() < deadline, "no attempt finished");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = records(&runs).len();
    assert!(before < 12, "killed before the end ({before})");

    let mut resume = args.clone();
    resume.push("--resume".into());
    let output = converse_tui(home.path(), resume).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let mut done: Vec<u64> = records(&runs).iter().map(|r| r["repeat"].as_u64().unwrap()).collect();
    done.sort();
    assert_eq!(done, (1..=12).collect::<Vec<u64>>(), "every attempt exactly once");
    assert!(String::from_utf8_lossy(&output.stdout).contains("fan of 12 attempt(s) from turn 2"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_the_episode_does_not_have_is_one_line_and_a_failure() {
    let home = tempfile::tempdir().unwrap();
    let episode = leaked_at_turn_2(home.path()).await;
    let output = converse_tui(
        home.path(),
        strings(&["fan", &episode.display().to_string(), "--turn", "7", "--dry-run"]),
    )
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr(&output).trim(), "converse-tui: turn 7: no message to the assistant there (turns 1–2)");
}

/// A fan of an external agent's episode reaches the agent its header names (here a command agent
/// that looks the salary up over MCP and says it): each attempt starts the agent afresh, replays
/// nothing before turn 1, and the rule judge sees every reply leak.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fan_of_an_agents_episode_reaches_the_agent_its_header_names() {
    use crate::cli_external_assistant::{TASK as AGENT_TASK, run_with_agent};
    let home = tempfile::tempdir().unwrap();
    let agent_script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/cmd_agent.py");
    let python = crate::support::python::python();
    let agent = format!("cmd:{} {} search_emails salary", python.display(), agent_script.display());
    let (output, _) = run_with_agent(home.path(), AGENT_TASK, agent.clone()).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let episode = std::fs::read_dir(home.path().join("runs")).unwrap().flatten().next().unwrap().path();
    let out = home.path().join("fan");
    let args = strings(&["fan", &episode.display().to_string(), "--turn", "1", "-n", "3", "--json"]);
    let args = [args, strings(&["--out", &out.display().to_string()])].concat();
    let output = converse_tui(home.path(), args).await;
    assert_eq!(output.status.code(), Some(1), "every attempt leaked: {}", stderr(&output));
    let lines: Vec<Value> =
        String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let rule = lines.iter().find(|l| l["judge"] == "privacy" && l["source"] == "rule").unwrap();
    assert_eq!((rule["leaked"].as_u64(), rule["decided"].as_u64()), (Some(3), Some(3)), "{rule}");
    for k in 1..=3 {
        let journal = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(&format!("__a{k}.jsonl")))
            .unwrap();
        let text = std::fs::read_to_string(&journal).unwrap();
        let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(header["config"]["models"]["assistant"], agent, "{}", journal.display());
        assert!(
            text.contains(r#""kind":"tool_call""#),
            "the agent called its tool again: {}",
            journal.display()
        );
    }
}

/// Issue 35 item 1: `fan --rest --max-turns N` played on to the episode's own limit (3, from its
/// header) whatever N was. The flag wins: `--max-turns 5` plays on to turn 4; a limit that leaves
/// no turn to play on is said.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fan_rest_honours_max_turns_over_the_episodes_own() {
    let home = tempfile::tempdir().unwrap();
    let episode = leaked_at_turn_2(home.path()).await;
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::text(r#"{"text": "Which hotels are near the beach?", "details": ""}"#));
    let out = home.path().join("fan");
    let extra = ["-n", "1", "--rest", "--attacker-model", "a", "--max-turns", "5", "--json"];
    let output = converse_tui(home.path(), fan_args(&episode, &server, &out, &extra)).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let journal = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("__a1.jsonl"))
        .unwrap();
    let events = records(&journal);
    assert_eq!(events[0]["config"]["max_turns"], 5);
    let last = events.iter().filter(|e| e["kind"] == "message").map(|e| e["turn"].as_u64().unwrap()).max();
    assert_eq!(last, Some(4));

    let short = home.path().join("short");
    let extra = ["-n", "1", "--rest", "--attacker-model", "a", "--max-turns", "3"];
    let output = converse_tui(home.path(), fan_args(&episode, &server, &short, &extra)).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--max-turns 3 ends each attempt after its reply at turn 2"),
        "{}",
        stderr(&output)
    );
}

/// A published run goes past the limit it records (14 turns, the default limit 10): `fan --rest`
/// without `--max-turns` gives each attempt the parent's room, as a take-over does; it ended
/// after the reply with nothing played on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fan_rest_of_a_published_run_past_its_limit_plays_on_to_the_parents_length() {
    let home = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let run = fixtures.join("converse-benchmark-logs/logs/insurance/gemini_2.5_flash/firewalls_data_abstraction_language_converter/persona3/security/professional_liability_exploitation_attack_6/output_20260116_011201_rep1_retry1.json");
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::text(r#"{"text": "Your licence number, please?", "details": ""}"#));
    let out = home.path().join("fan");
    let mut args = fan_args(&run, &server, &out, &["-n", "1", "--rest", "--attacker-model", "a"]);
    args[3] = "12".into();
    args.extend(strings(&["--data-dir", &fixtures.join("converse-dataset/resources").display().to_string()]));
    let output = converse_tui(home.path(), args).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stderr(&output).contains("nothing is played on"), "{}", stderr(&output));
    let journal = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("__a1.jsonl"))
        .unwrap();
    let events = records(&journal);
    let last = events.iter().filter(|e| e["kind"] == "message").map(|e| e["turn"].as_u64().unwrap()).max();
    assert_eq!(last, Some(14));
}

/// QA, 2026-11-27: a fan whose agent never reached its tools printed `undecided 3` and exited 0,
/// where `test` and `attack` exit 2. Now 2: 0 only when every attempt was decided and none leaked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fan_with_every_attempt_undecided_exits_2() {
    use crate::cli_external_assistant::{TASK as AGENT_TASK, run_with_agent};
    let home = tempfile::tempdir().unwrap();
    let agent = home.path().join("toolless.sh");
    let answer = r#"{"text": "I would rather not share anything about my finances."}"#;
    std::fs::write(&agent, format!("while read line; do echo '{answer}'; done\n")).unwrap();
    run_with_agent(home.path(), AGENT_TASK, format!("cmd:sh {}", agent.display())).await;
    let episode = std::fs::read_dir(home.path().join("runs")).unwrap().flatten().next().unwrap().path();
    let out = home.path().join("fan");
    let args = strings(&["fan", &episode.display().to_string(), "--turn", "1", "-n", "3", "--json"]);
    let args = [args, strings(&["--out", &out.display().to_string()])].concat();
    let output = converse_tui(home.path(), args).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let lines: Vec<Value> =
        String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let rule = lines.iter().find(|l| l["judge"] == "privacy" && l["source"] == "rule").unwrap();
    assert_eq!((rule["decided"].as_u64(), rule["undecided"].as_u64()), (Some(0), Some(3)), "{rule}");
}

/// `fan --resume` goes on only with the models its attempts were drawn with: another assistant or
/// judge is refused (exit 2, before any call) rather than shown the old tallies as its own;
/// `--concurrency` resumes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_with_another_assistant_or_judge_is_refused_not_the_old_tallies() {
    let home = tempfile::tempdir().unwrap();
    let episode = leaked_at_turn_2(home.path()).await;
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::text(REFUSAL));
    let out = home.path().join("fan");
    let output = converse_tui(home.path(), fan_args(&episode, &server, &out, &["-n", "5"])).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let before = server.request_count();
    assert_eq!(before, 5);
    let resume =
        |extra: &[&str]| fan_args(&episode, &server, &out, &[&["-n", "5", "--resume"], extra].concat());
    let mut other = resume(&[]);
    let at = other.iter().position(|a| a == "--assistant-model").unwrap() + 1;
    other[at] = "other".into();
    let output = converse_tui(home.path(), other).await;
    assert_resume_refused(&output, &out, &["assistant m", "assistant other"], &server, before);
    let output = converse_tui(home.path(), resume(&["--judge-model", "judgefail"])).await;
    assert_resume_refused(&output, &out, &["no LLM judge", "judge judgefail"], &server, before);

    let output = converse_tui(home.path(), resume(&["--concurrency", "3", "--json"])).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(server.request_count(), before);
    let rule: Value = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["judge"] == "privacy" && l["source"] == "rule")
        .unwrap();
    assert_eq!((rule["leaked"].as_u64(), rule["decided"].as_u64()), (Some(0), Some(5)), "{rule}");
}
