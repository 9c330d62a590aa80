//! No unasked model call (issue 35 item 3). Every command, run as a user runs it, with
//! `OPENAI_BASE_URL` pointing at the scripted server (so a call nobody asked for lands there and
//! is counted), calls exactly the models its flags name. A published run with its `.txt` run log
//! beside it records `judge_llm_name: gpt-5`: a fork or fan of it calls no judge unless asked, and
//! `--judge-model recorded` never sends the recorded model to an endpoint the recording did not
//! name (this one names none: it is refused). Our own journal records its judge's endpoint too,
//! and `recorded` sends the judge there, not to the assistant's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::batch_cli::{command, generic, strings};
use crate::support::files::journal_in;
use crate::support::openai_server::OpenAiServer;
use crate::support::tmux::{Session, tmux_available};

const TASK: &str = "travel_planning_p1_privacy_unrelated_to_travel_salary";
const RUN: &str =
    "logs/travel_planning/gemini_2.5_flash/baseline/persona3/security/email_manipulation_attack_8";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn dataset() -> String {
    fixtures().join("converse-dataset/resources").display().to_string()
}

/// The published run (its judge files and `.txt` run log beside it) copied under `home`.
fn published_run(home: &Path) -> PathBuf {
    let from = fixtures().join("converse-benchmark-logs").join(RUN);
    let to = home.join(RUN);
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap().flatten() {
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    assert!(to.join("output_20250925_235122_rep1.txt").is_file(), "the run log is beside it");
    to.join("output_20250925_235122_rep1.json")
}

/// The binary with `OPENAI_BASE_URL` at `server`: a model call that no flag names lands there.
async fn run(home: &Path, server: &OpenAiServer, args: &[&str]) -> Output {
    let mut cmd = command(home, &strings(args));
    cmd.env("OPENAI_BASE_URL", server.base_url());
    tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap()
}

/// The requests per model `server` received since `before`.
fn since(server: &OpenAiServer, before: &BTreeMap<String, usize>) -> BTreeMap<String, usize> {
    let mut counts = server.requests_per_model();
    for (model, n) in before {
        if let Some(now) = counts.get_mut(model) {
            *now -= n;
        }
    }
    counts.retain(|_, n| *n > 0);
    counts
}

/// What is run, its arguments, the requests each model must get (`None`: some), and whether it
/// succeeds.
type Case<'a> = (&'a str, Vec<&'a str>, Vec<(&'a str, Option<usize>)>, bool);

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(m, n)| (m.to_string(), *n)).collect()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_calls_exactly_the_models_its_flags_name() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic());
    let url = server.base_url();
    let published = published_run(home);
    let published = published.display().to_string();
    let logs = home.join("logs").display().to_string();
    let data = dataset();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl");
    let script = script.display().to_string();
    let dir = |name: &str| home.join(name).display().to_string();

    // Commands that call models: (what, args, the requests each model must get; `None`: some).
    let ours = dir("ours");
    let judged = dir("judged");
    let (out_batch, out_fan, out_rest, out_recorded) =
        (dir("batch"), dir("fan-published"), dir("fan-rest"), dir("fan-recorded"));
    // A fan of the published run from turn 2, two attempts, against the assistant named.
    let fan_published = [
        "fan",
        &published,
        "--turn",
        "2",
        "-n",
        "2",
        "--data-dir",
        &data,
        "--assistant-model",
        "assistant-sim",
    ];
    let run_headless =
        ["run", "--headless", "--task", TASK, "--attacker-script", &script, "--max-turns", "3"];
    let cases: Vec<Case> = vec![
        (
            "run, no judge",
            [&run_headless[..], &["--base-url", &url, "--assistant-model", "assistant-sim", "--out", &ours]]
                .concat(),
            vec![("assistant-sim", Some(2))],
            true,
        ),
        (
            "run --judge-model",
            [
                &run_headless[..],
                &["--base-url", &url, "--assistant-model", "assistant-sim", "--judge-model", "judge-rec"],
                &["--out", &judged],
            ]
            .concat(),
            vec![("assistant-sim", Some(2)), ("judge-rec", None)],
            true,
        ),
        (
            "batch",
            vec![
                "batch",
                "--limit",
                "1",
                "--base-url",
                &url,
                "--assistant-model",
                "assistant-sim",
                "--attacker-model",
                "attacker-sim",
                "--max-turns",
                "3",
                "--out",
                &out_batch,
            ],
            vec![("assistant-sim", Some(2)), ("attacker-sim", Some(1))],
            true,
        ),
        (
            "fan of a published run",
            [&fan_published[..], &["--out", &out_fan]].concat(),
            vec![("assistant-sim", Some(2))],
            true,
        ),
        (
            "fan --rest of a published run",
            [
                &fan_published[..],
                &["--rest", "--max-turns", "4", "--attacker-model", "attacker-sim", "--out", &out_rest],
            ]
            .concat(),
            vec![("assistant-sim", Some(4)), ("attacker-sim", Some(2))],
            true,
        ),
        (
            "fan of a published run, --judge-model recorded (it names no endpoint: refused)",
            [&fan_published[..], &["--judge-model", "recorded", "--out", &out_recorded]].concat(),
            vec![],
            false,
        ),
        (
            "run --judge-model recorded (nothing recorded to take it from: refused)",
            [&run_headless[..], &["--assistant-model", "assistant-sim", "--judge-model", "recorded"]]
                .concat(),
            vec![],
            false,
        ),
        (
            "judge --judge-model",
            vec!["judge", &published, "--data-dir", &data, "--judge-model", "judge-x", "--base-url", &url],
            vec![("judge-x", None)],
            true,
        ),
        ("judge --rules-only", vec!["judge", &published, "--data-dir", &data, "--rules-only"], vec![], true),
    ];
    for (what, args, expected, ok) in &cases {
        let before = server.requests_per_model();
        let output = run(home, &server, args).await;
        assert_eq!(output.status.success(), *ok, "{what}: {}", stderr(&output));
        let got = since(&server, &before);
        let models: Vec<&str> = got.keys().map(String::as_str).collect();
        let wanted: Vec<&str> = expected.iter().map(|(m, _)| *m).collect();
        assert_eq!(models, wanted, "{what}: the models called ({got:?})");
        for (model, n) in expected {
            if let Some(n) = n {
                assert_eq!(got[*model], *n, "{what}: requests to {model} ({got:?})");
            }
        }
    }

    // Our journal recorded its judge (model and endpoint). A fan of it calls no judge unless asked;
    // with `--judge-model recorded` it calls that judge where the recording says, even when the
    // assistant is elsewhere.
    let ours_judged = journal_in(&home.join("judged")).display().to_string();
    let elsewhere = OpenAiServer::start(Vec::new()).await;
    elsewhere.set_default(generic());
    let elsewhere_url = elsewhere.base_url();
    for (recorded, out) in [(false, "fan-ours"), (true, "fan-ours-recorded")] {
        let mut args = vec![
            "fan",
            &ours_judged,
            "--turn",
            "2",
            "-n",
            "2",
            "--base-url",
            &elsewhere_url,
            "--assistant-model",
            "assistant-sim",
        ];
        if recorded {
            args.extend(["--judge-model", "recorded"]);
        }
        let out = dir(out);
        args.extend(["--out", &out]);
        let (before, elsewhere_before) = (server.requests_per_model(), elsewhere.requests_per_model());
        let output = run(home, &server, &args).await;
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(since(&elsewhere, &elsewhere_before), counts(&[("assistant-sim", 2)]));
        let judge: Vec<String> = since(&server, &before).into_keys().collect();
        let want: &[&str] = if recorded { &["judge-rec"] } else { &[] };
        assert_eq!(judge, want, "recorded: {recorded}");
    }

    // Commands that read, list, count or export call no model at all.
    let suite = dir("suite");
    let reading: Vec<Vec<&str>> = vec![
        vec!["ls", &logs],
        vec!["summary", &logs],
        vec!["summary", &logs, "--judge-model", "gpt-5"],
        vec!["agreement", &logs],
        vec!["chart", &logs],
        vec!["search", "email", &logs],
        vec!["dump", &published],
        vec!["export", &published, "--format", "markdown"],
        vec!["suite", "add", &suite, &published, "--data-dir", &data],
        vec!["suite", "ls", &suite],
        vec!["notes", "export", &logs],
        vec!["tasks", "--limit", "1"],
        vec!["config", "show"],
    ];
    for args in &reading {
        let before = server.request_count();
        let output = run(home, &server, args).await;
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        assert_eq!(server.request_count(), before, "{args:?} called a model");
    }
    // `test` runs the suite's case against the assistant named, and nothing else.
    let before = server.requests_per_model();
    let output = run(
        home,
        &server,
        &["test", &suite, "--data-dir", &data, "--assistant-model", "assistant-sim", "--out", &dir("test")],
    )
    .await;
    assert!(output.status.code().is_some(), "{}", stderr(&output));
    let got = since(&server, &before);
    assert_eq!(got.keys().collect::<Vec<_>>(), ["assistant-sim"], "{got:?}");
}

/// The screen's fans and forks (`replay`, then `f` or `T`) of a published run call the models
/// named on `replay`'s command line, and no judge unless one is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fan_and_a_fork_on_screen_call_no_judge_nobody_named() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let published = published_run(home.path());
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic());
    let s = Session::start_with(
        &[&format!("OPENAI_BASE_URL={}", server.base_url()), "OPENAI_API_KEY=sk-test"],
        &format!(
            "replay '{}' --data-dir '{}' --assistant-model assistant-sim --attacker-model attacker-sim",
            published.display(),
            dataset()
        ),
        home.path(),
    );
    s.wait_for("REPLAY");
    s.keys(&[":", "2", "Enter", "f"]);
    s.wait_for("re-run from here how many times?");
    s.keys(&["2", "Enter"]);
    s.wait_for("2/2 ended");
    assert_eq!(server.requests_per_model(), counts(&[("assistant-sim", 2)]));
    s.keys(&["Escape"]);
    s.wait_for("REPLAY");
    s.keys(&["T"]);
    s.wait_for("Take over after turn");
    s.keys(&["l"]);
    s.wait_for("LIVE finished");
    let models: Vec<String> = server.requests_per_model().into_keys().collect();
    assert_eq!(models, ["assistant-sim", "attacker-sim"], "the fork called no judge");
    s.keys(&["q"]);
}
