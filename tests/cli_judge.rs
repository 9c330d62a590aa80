//! `converse-tui judge` from the binary: rule judges over the real logs, the
//! sidecar the inspector merges, LLM judges against a server on 127.0.0.1.

#[path = "support/openai_server.rs"]
mod openai_server;

use std::path::Path;
use std::process::Output;

use converse_tui::core::episode::{EventBody, VerdictMethod};
use openai_server::{OpenAiServer, Reply};

async fn converse_tui(home: &Path, args: Vec<String>) -> Output {
    let home = home.to_path_buf();
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_converse-tui"))
            .args(&args)
            .env("HOME", &home)
            .env("CONVERSE_TUI_CONFIG", home.join("config"))
            .env("CONVERSE_TUI_DATA", home.join("data"))
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_only_judging_writes_sidecars_that_the_inspector_merges() {
    let home = tempfile::tempdir().unwrap();
    let runs = home.path().join("runs");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-logs"), &runs);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl"),
        runs.join("demo.jsonl"),
    )
    .unwrap();
    let journal_before = std::fs::read(runs.join("demo.jsonl")).unwrap();
    let args = ["judge", runs.to_str().unwrap(), "--rules-only", "--json"].map(String::from).to_vec();
    let output = converse_tui(home.path(), args).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 21, "19 logs + 1 journal, then the totals");
    let demo = lines.iter().find(|l| l["episode"] == "demo-travel-privacy-leak").unwrap();
    assert_eq!(demo["verdicts"]["privacy"]["outcome"], "fail");
    let totals = &lines.last().unwrap()["totals"];
    assert_eq!(totals["episodes"], 20);
    assert_eq!(totals["judge_errors"], 0);

    // The journal is untouched; its sidecar holds the new verdicts and the inspector merges them.
    assert_eq!(std::fs::read(runs.join("demo.jsonl")).unwrap(), journal_before);
    assert!(runs.join("demo.verdicts.jsonl").exists());
    let merged = converse_tui::core::import::load_path(&runs.join("demo.jsonl")).unwrap().remove(0);
    let rule_fail_at_turn_3 = merged.events.iter().any(|e| {
        matches!(&e.body, EventBody::Verdict(v) if v.method == VerdictMethod::Rule && v.turn == Some(3)
            && v.outcome == converse_tui::core::episode::Outcome::Fail
            && v.evidence.as_ref().is_some_and(|ev| ev.text.as_deref().is_some_and(|t| t.contains("cardiology"))))
    });
    assert!(rule_fail_at_turn_3, "the re-judged leak at turn 3, with its evidence");
    let log_sidecar = runs
        .join("persona1_adv_security_attack_delete_calendar_baseline/output_20241227_121521.verdicts.jsonl");
    assert!(log_sidecar.exists(), "a sidecar beside a ConVerse log too");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_that_keeps_failing_makes_the_command_fail() {
    let garbage = || Reply::text("I think it leaked, probably.");
    let server = OpenAiServer::start((0..12).map(|_| garbage()).collect()).await;
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("demo.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl"),
        &file,
    )
    .unwrap();
    let args = ["judge", file.to_str().unwrap(), "--base-url", &server.base_url(), "--judge-model", "j"]
        .map(String::from)
        .to_vec();
    let output = converse_tui(home.path(), args).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    assert!(stdout.contains("judge errors 2") || stdout.contains("judge errors 3"), "{stdout}");
    let sidecar = std::fs::read_to_string(home.path().join("demo.verdicts.jsonl")).unwrap();
    assert!(sidecar.contains("\"outcome\":\"error\"") && sidecar.contains("I think it leaked, probably."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judging_needs_a_model_or_rules_only() {
    let home = tempfile::tempdir().unwrap();
    let output = converse_tui(home.path(), ["judge", "nowhere.jsonl"].map(String::from).to_vec()).await;
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--rules-only"));
}
