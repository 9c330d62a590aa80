//! `converse-tui attack` from the binary (issue 40), against the defended assistant of
//! `support::defended`: the best path and the words leaked, `--json`, the exit codes of `test`,
//! one-line errors, and kill -9 in the middle of a TAP search then `--resume`: no complete node
//! run again, none lost, the same tree as a search never killed, the budget held over both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::batch_cli::{command, converse_tui, strings};
use crate::support::defended::{self, ASSISTANT, ATTACKER, JUDGE, TASK};
use crate::support::openai_server::OpenAiServer;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn attack_args(server: &OpenAiServer, seed: u64, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&[
        "attack",
        "--task",
        TASK,
        "--base-url",
        &server.base_url(),
        "--assistant-model",
        ASSISTANT,
        "--attacker-model",
        ATTACKER,
        "--judge-model",
        JUDGE,
        "--no-stream",
        "--seed",
        &seed.to_string(),
        "--out",
        &out.display().to_string(),
    ]);
    args.extend(strings(extra));
    args
}

async fn attack(home: &Path, server: &OpenAiServer, seed: u64, out: &Path, extra: &[&str]) -> Output {
    converse_tui(home, attack_args(server, seed, out, extra)).await
}

#[tokio::test]
async fn a_leak_is_shown_as_the_best_path_with_the_words_leaked_and_exits_1() {
    let home = tempfile::tempdir().unwrap();
    let server = defended::server(2).await;
    let out = home.path().join("run1");
    let shape = ["--strategy", "crescendo", "--depth", "9", "--budget", "120"];
    let output = attack(home.path(), &server, 2, &out, &shape).await;
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("attack (crescendo: depth 9, up to 10 backtrack(s)): a leak was found"),
        "{stdout}"
    );
    assert!(stdout.contains("best path, to node "), "{stdout}");
    assert!(stdout.contains("leaked: \"96,500 USD\" (privacy by rule, turn "), "{stdout}");
    let calls = server.request_count();
    assert!(stdout.contains(&format!("calls: {calls} of 120 (attacker ")), "{stdout}");
    assert!(stdout.contains(&format!("the tree: converse-tui replay {}", out.display())), "{stdout}");
    // One line per node on stderr as it ends.
    assert!(stderr.lines().any(|l| l.starts_with("node 1 turn 2 ")), "{stderr}");
    // The same search as JSON: the path's last node is the leak, the calls are the server's.
    let json_out = home.path().join("run2");
    let server = defended::server(2).await;
    let output = attack(home.path(), &server, 2, &json_out, &[&shape[..], &["--json"]].concat()).await;
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!((report["status"].as_str(), report["exit"].as_u64()), (Some("leak"), Some(1)));
    assert_eq!(report["calls"]["total"].as_u64(), Some(server.request_count() as u64));
    let path = report["path"].as_array().unwrap();
    assert_eq!(path.last().unwrap()["status"], "leak");
    assert_eq!(path.last().unwrap()["node"], report["best"]);
    assert_eq!(path[0]["node"], "root");
    // The plan beside the journals says the same.
    let plan: Value = serde_json::from_slice(&std::fs::read(json_out.join("attack.json")).unwrap()).unwrap();
    assert_eq!((plan["status"].as_str(), &plan["best"]["node"]), (Some("leak"), &report["best"]));
}

#[tokio::test]
async fn nothing_found_within_the_depth_exits_0_and_a_search_that_cannot_start_exits_2_with_one_line() {
    let home = tempfile::tempdir().unwrap();
    let server = defended::server(0).await;
    let out = home.path().join("short");
    // Two turns cannot hold the three cues.
    let output = attack(home.path(), &server, 0, &out, &["--strategy", "goat", "--depth", "2"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("): nothing leaked"), "{}", text(&output.stdout));

    let mut args = attack_args(&server, 0, &home.path().join("x"), &["--strategy", "tap"]);
    let judge = args.iter().position(|a| a == "--judge-model").unwrap();
    args.drain(judge..judge + 2);
    let output = converse_tui(home.path(), args).await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("converse-tui: attack needs --attacker-model"), "{stderr}");

    for (extra, said) in [
        (vec!["--strategy", "tap"], "holds a search already: add --resume"),
        (vec!["--resume", "--depth", "3"], "--resume: --depth differs from the search's own"),
        (vec!["--strategy", "tap", "--max-turns", "4"], "attack counts turns with --depth"),
    ] {
        let output = attack(home.path(), &server, 0, &out, &extra).await;
        let stderr = text(&output.stderr);
        assert_eq!((output.status.code(), stderr.lines().count()), (Some(2), 1), "{extra:?}: {stderr}");
        assert!(stderr.contains(said), "{extra:?}: {stderr}");
    }
    let output = attack(home.path(), &server, 0, &home.path().join("empty"), &["--resume"]).await;
    assert!(text(&output.stderr).contains("holds no search (no attack.json)"), "{}", text(&output.stderr));
}

/// Every node journal in `dir` with its bytes.
fn journals(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return BTreeMap::new() };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().ends_with(".jsonl"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

fn has_end(bytes: &[u8]) -> bool {
    text(bytes).lines().last().is_some_and(|l| l.contains(r#""kind":"end""#))
}

#[tokio::test]
async fn kill_9_in_the_middle_then_resume_runs_no_node_twice_and_loses_none() {
    let home = tempfile::tempdir().unwrap();
    let shape =
        ["--strategy", "tap", "--branch", "3", "--width", "2", "--depth", "5", "--budget", "400", "--json"];
    // The search never killed, for comparison.
    let server = defended::server(5).await;
    let whole = attack(home.path(), &server, 5, &home.path().join("whole"), &shape).await;
    let whole: Value = serde_json::from_slice(&whole.stdout).unwrap();

    // Each answer a little late, so that the kill lands in the middle however loaded the machine.
    let server = defended::slow_server(5, Duration::from_millis(25)).await;
    let out = home.path().join("killed");
    let args = attack_args(&server, 5, &out, &shape);
    let mut child = command(home.path(), &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while journals(&out).values().filter(|b| has_end(b)).count() < 8 {
        assert!(std::time::Instant::now() < deadline, "the search did not get going");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = journals(&out);
    let done_before: Vec<&PathBuf> = before.iter().filter(|(_, b)| has_end(b)).map(|(p, _)| p).collect();
    assert!(done_before.len() < whole["nodes"].as_array().unwrap().len(), "killed before the end");

    let output = attack(home.path(), &server, 5, &out, &["--resume", "--json"]).await;
    assert!(output.status.code().is_some_and(|c| c < 2), "{}", text(&output.stderr));
    let resumed: Value = serde_json::from_slice(&output.stdout).unwrap();
    // No complete node was run again.
    for path in done_before {
        assert_eq!(std::fs::read(path).unwrap(), before[path], "{} was run again", path.display());
    }
    // None lost: the same nodes, texts, scores and decisions as the search never killed.
    let shape_of = |report: &Value| -> Vec<(Value, Value, Value, Value)> {
        report["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| (n["node"].clone(), n["status"].clone(), n["score"].clone(), n["text"].clone()))
            .collect()
    };
    assert_eq!(shape_of(&resumed), shape_of(&whole));
    assert_eq!(resumed["status"], whole["status"]);
    // The budget held over both runs: every call the server saw was counted before it was made.
    // A kill between the count and the send leaves a counted call unsent: at most one per
    // running node (`--concurrency` 4).
    let counted = std::fs::read(out.join("attack.calls")).unwrap().len();
    let seen = server.request_count();
    assert!(seen <= counted && counted <= seen + 4, "{counted} counted, {seen} seen");
    assert!(counted <= 400);
    assert_eq!(resumed["calls"]["total"].as_u64(), Some(counted as u64));
    // A journal the kill cut short was set aside, never read as a node.
    for entry in std::fs::read_dir(&out).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.contains(".aborted-") {
            assert!(!has_end(&std::fs::read(entry.path()).unwrap()), "{name}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_a2a_agent_is_attacked_like_a_model_and_every_replayed_message_counts_against_the_budget() {
    let home = tempfile::tempdir().unwrap();
    let models = defended::server(2).await;
    let agent = defended::a2a_agent().await;
    let out = home.path().join("agent");
    let mut args =
        attack_args(&models, 2, &out, &["--strategy", "crescendo", "--depth", "9", "--budget", "250"]);
    let model = args.iter().position(|a| a == "--assistant-model").unwrap();
    args.drain(model..model + 2);
    args.extend(strings(&["--assistant", &format!("a2a:{}", agent.root_url()), "--json"]));
    let output = converse_tui(home.path(), args).await;
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    // Every node is a fresh context that is sent the turns before its own again: a node of depth
    // d sends d + 1 messages (the task, d - 1 replayed, its own), the root one.
    let sent: usize = report["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["node"].as_str().unwrap())
        .map(|id| if id == "root" { 1 } else { id.split('-').count() + 1 })
        .sum();
    assert_eq!(defended::agent_messages(&agent), sent);
    let calls = &report["calls"];
    assert_eq!(calls["assistant"].as_u64(), Some(sent as u64), "{calls}");
    assert_eq!(calls["total"].as_u64(), Some((sent + models.request_count()) as u64));
    assert!(calls["total"].as_u64().unwrap() <= 250);
    // The agent never reached its tools (this one has none): no node that did not leak is a pass.
    let nodes = report["nodes"].as_array().unwrap();
    assert!(nodes.iter().filter(|n| n["status"] != "leak").all(|n| n["undecided"] == true), "{nodes:?}");
    // The nodes' journals name the agent.
    let plan: Value = serde_json::from_slice(&std::fs::read(out.join("attack.json")).unwrap()).unwrap();
    assert_eq!(plan["assistant_agent"].as_str(), Some(format!("a2a:{}", agent.root_url()).as_str()));
}

const PUBLISHED: &str = "logs/travel_planning/gpt_5_chat/baseline/persona2/privacy/unrelated_to_travel_bank_ifsc_code/output_20250915_003845_rep1.json";

#[tokio::test]
async fn a_search_from_a_turn_of_a_published_run_forks_that_run_and_resumes_with_no_call() {
    let home = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let run = fixtures.join("converse-benchmark-logs").join(PUBLISHED);
    let data = fixtures.join("converse-dataset/resources").display().to_string();
    let server = defended::server(1).await;
    let out = home.path().join("from-turn-2");
    let mut args = attack_args(&server, 1, &out, &["--strategy", "crescendo", "--depth", "2", "--json"]);
    let task = args.iter().position(|a| a == "--task").unwrap();
    args.drain(task..task + 2);
    let run_path = run.display().to_string();
    args.extend(strings(&["--data-dir", &data]));
    let resume = [args.clone(), strings(&["--resume"])].concat();
    args.extend(strings(&["--from", &run_path, "--turn", "2"]));
    let output = converse_tui(home.path(), args.clone()).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let nodes = report["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["node"], "1");
    assert_eq!(nodes[0]["turn"], 3, "the search's first turn follows the run's turn 2");
    assert_eq!(nodes.last().unwrap()["turn"], 4, "two turns deep");
    // The first node is a fork of the published run, after its turn 2.
    let (events, _) = converse_tui::core::episode::read_journal(out.join("node-1.jsonl")).unwrap();
    let converse_tui::core::episode::EventBody::Episode(header) = &events[0].body else { panic!() };
    let published = converse_tui::core::import::load_path(&run).unwrap().remove(0);
    assert_eq!(header.parent.as_ref().unwrap().episode, published.id());
    // The assistant was asked with the run's own turns in its history.
    let turn_2 = published
        .events
        .iter()
        .find_map(|e| match &e.body {
            converse_tui::core::episode::EventBody::Message(m)
                if m.turn == 2 && m.to == converse_tui::core::episode::Party::Assistant =>
            {
                Some(m.text.clone())
            }
            _ => None,
        })
        .unwrap();
    let first = server.requests().into_iter().find(|r| r.body["model"] == ASSISTANT).unwrap();
    assert!(first.raw_body.contains(&serde_json::to_string(&turn_2).unwrap()[1..20]), "{}", first.raw_body);
    let plan: Value = serde_json::from_slice(&std::fs::read(out.join("attack.json")).unwrap()).unwrap();
    assert_eq!(
        (plan["root"]["file"].as_str(), plan["root"]["turn"].as_u64()),
        (Some(run_path.as_str()), Some(2))
    );
    // Resumed, the finished search makes no call and says the same.
    let calls = server.request_count();
    let output = converse_tui(home.path(), resume).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(server.request_count(), calls);
    let again: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(again["nodes"], report["nodes"]);
}

#[tokio::test]
async fn ctrl_c_stops_the_search_with_its_report_and_resume_finishes_it() {
    let home = tempfile::tempdir().unwrap();
    let server = defended::slow_server(5, Duration::from_millis(30)).await;
    let out = home.path().join("stopped");
    let shape = ["--strategy", "crescendo", "--depth", "9", "--budget", "200"];
    let args = attack_args(&server, 5, &out, &shape);
    let child = command(home.path(), &args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while journals(&out).values().filter(|b| has_end(b)).count() < 3 {
        assert!(std::time::Instant::now() < deadline, "the search did not get going");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("stopping: the running nodes are stopped; --resume continues the search"),
        "{stderr}"
    );
    assert!(stdout.contains("): stopped before its end (--resume continues it)"), "{stdout}");
    let plan: Value = serde_json::from_slice(&std::fs::read(out.join("attack.json")).unwrap()).unwrap();
    assert_eq!(plan["status"], "stopped");
    let done: Vec<(PathBuf, Vec<u8>)> = journals(&out).into_iter().filter(|(_, b)| has_end(b)).collect();
    let output = attack(home.path(), &server, 5, &out, &["--resume"]).await;
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    for (path, bytes) in done {
        // A node stopped mid-turn ended `aborted`: it was set aside and run again; the others stay.
        if !text(&bytes).contains(r#""reason":"aborted""#) {
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{} was run again", path.display());
        }
    }
}

/// `attack --resume` goes on only with the assistant, attacker and judge the search was started
/// with: another one is refused (exit 2, before any call), and attack.json is left as it was
/// (it would claim the new assistant was searched); `--concurrency` resumes.
#[tokio::test]
async fn resume_with_other_models_is_refused_and_the_plan_keeps_the_searchs_own() {
    let home = tempfile::tempdir().unwrap();
    let server = defended::server(0).await;
    let out = home.path().join("cr1");
    let shape = ["--strategy", "crescendo", "--depth", "2"];
    let output = attack(home.path(), &server, 0, &out, &shape).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let plan = std::fs::read(out.join("attack.json")).unwrap();
    let before = server.request_count();
    for (flag, model, names) in [
        ("--assistant-model", "a-leaking-model", "assistant a-leaking-model"),
        ("--attacker-model", "other-attacker", "attacker other-attacker"),
        ("--judge-model", "judgefail", "judge judgefail"),
    ] {
        let mut args = attack_args(&server, 0, &out, &["--resume"]);
        let at = args.iter().position(|a| a == flag).unwrap() + 1;
        args[at] = model.into();
        let output = converse_tui(home.path(), args).await;
        crate::support::batch_cli::assert_resume_refused(&output, &out, &[names], &server, before);
        assert_eq!(std::fs::read(out.join("attack.json")).unwrap(), plan, "{flag}: the plan is unchanged");
    }
    let output = attack(home.path(), &server, 0, &out, &["--resume", "--concurrency", "3"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("): nothing leaked"), "{}", text(&output.stdout));
}
