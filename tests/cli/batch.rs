//! `converse-tui batch` and `summary` from the binary, against a scripted server
//! on 127.0.0.1: complete journals and runs.jsonl, stop + resume, shards,
//! dry runs, and summary rates checked against hand-computed figures.

use crate::support::batch_cli;
use crate::support::openai_server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use batch_cli::{
    assert_resume_refused, batch_args, command, converse_tui, generic, records, source_row, strings,
    summary_rows, summary_total,
};
use openai_server::OpenAiServer;
use serde_json::{Value, json};

pub(crate) fn runs(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("runs.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Journals in `dir` (`*.jsonl` but the runs files), sorted.
pub(crate) fn journals(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with("runs"))
        .collect();
    out.sort();
    out
}

pub(crate) fn last_event(journal: &Path) -> Value {
    let text = std::fs::read_to_string(journal).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

async fn dry_run(home: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = batch_args("http://127.0.0.1:9/v1", &home.join("never"), &["--dry-run"]);
    args.extend(strings(extra));
    let output = converse_tui(home, args).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(!home.join("never").exists(), "a dry run creates nothing");
    String::from_utf8_lossy(&output.stdout).lines().map(str::to_string).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_writes_one_complete_journal_per_task_and_runs_jsonl() {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic());
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("batch");
    let expected = dry_run(home.path(), &["--limit", "4"]).await;
    assert_eq!(expected.len(), 4, "{expected:?}");

    let args =
        batch_args(&server.base_url(), &out, &["--limit", "4", "--concurrency", "4", "--max-turns", "2"]);
    let output = converse_tui(home.path(), args).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("[4/4]"), "plain progress lines when stderr is not a terminal: {stderr}");
    assert_eq!(server.request_count(), 4, "max-turns 2: one assistant reply per episode");

    let records = runs(&out);
    let mut tasks: Vec<&str> = records.iter().map(|r| r["task"].as_str().unwrap()).collect();
    tasks.sort();
    assert_eq!(tasks, expected);
    for r in &records {
        let task = r["task"].as_str().unwrap();
        assert_eq!(r["repeat"], 1);
        assert_eq!(r["journal"], format!("{task}__r1.jsonl"));
        assert_eq!(r["status"], "max_turns");
        assert_eq!(r["domain"], "travel_planning");
        assert!(r["episode"].as_str().unwrap().starts_with("ep-"));
        assert_eq!(r["tokens"]["assistant"], json!({"input": 10, "output": 5}));
        assert!(r["verdicts"].as_object().unwrap().contains_key(r["attack_type"].as_str().unwrap()), "{r}");
        assert_eq!(r["error"], Value::Null);
        let end = last_event(&out.join(r["journal"].as_str().unwrap()));
        assert_eq!(end["kind"], "end");
        assert_eq!(end["reason"], "max_turns");
    }
    assert_eq!(journals(&out).len(), 4);

    // Running it again without --resume is refused: nothing is overwritten.
    let again = converse_tui(home.path(), batch_args(&server.base_url(), &out, &["--limit", "4"])).await;
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));

    // summary counts the journals (with their verdicts); runs.jsonl changes nothing.
    let from_runs = summary_total(home.path(), &out).await;
    std::fs::remove_file(out.join("runs.jsonl")).unwrap();
    let from_journals = summary_total(home.path(), &out).await;
    assert!(from_runs.1.starts_with("4 episodes, one rate per judge source"), "{}", from_runs.1);
    assert!(!from_runs.0.is_empty());
    assert_eq!(from_runs, from_journals);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_batch_resumes_and_runs_every_task_exactly_once() {
    let server = OpenAiServer::start(Vec::new()).await;
    // Slow replies: each episode takes ~3 requests × 400 ms, so others are mid-flight when the first ends.
    server.set_default(generic().delay(Duration::from_millis(400)));
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("batch");
    let args = batch_args(
        &server.base_url(),
        &out,
        &["--limit", "4", "--concurrency", "2", "--max-turns", "3", "--no-stream"],
    );
    let child = command(home.path(), &args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while runs(&out).is_empty() {
        assert!(std::time::Instant::now() < deadline, "no episode finished in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "a stopped batch is not a success: {stdout}");
    assert!(stdout.contains("stopped:"), "{stdout}");
    let first = runs(&out);
    assert!(first.len() < 4, "stopped before the end: {first:?}");
    // Every journal is complete: finished ones end normally, interrupted ones with `end: aborted`.
    let aborted: Vec<PathBuf> =
        journals(&out).into_iter().filter(|j| last_event(j)["reason"] == "aborted").collect();
    for j in journals(&out) {
        assert_eq!(last_event(&j)["kind"], "end", "{}", j.display());
    }
    for r in &first {
        assert_ne!(r["status"], "aborted", "aborted episodes are not in runs.jsonl");
    }
    assert_eq!(first.len() + aborted.len(), journals(&out).len());
    // The stop line's counts add up to the episodes planned (issue 23: "0 finished, 3 aborted,
    // 9 not done" of 9).
    let counts: Vec<usize> = stdout
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(|w| w.parse().unwrap())
        .collect();
    let [finished, aborted_n, not_started, planned] = counts[..] else { panic!("{stdout}") };
    assert_eq!(finished + aborted_n + not_started, planned, "{stdout}");
    assert_eq!((finished, aborted_n, planned), (first.len(), aborted.len(), 4), "{stdout}");

    server.set_default(generic());
    let output = converse_tui(home.path(), {
        let mut a = args.clone();
        a.push("--resume".into());
        a
    })
    .await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let records = runs(&out);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for r in &records {
        *counts.entry(r["task"].as_str().unwrap().to_string()).or_default() += 1;
        assert_eq!(r["status"], "max_turns", "{r}");
    }
    assert_eq!(counts.len(), 4, "{counts:?}");
    assert!(counts.values().all(|&n| n == 1), "each task exactly once: {counts:?}");
    let all = journals(&out);
    assert_eq!(all.len(), 4);
    for j in &all {
        assert_eq!(last_event(j)["reason"], "max_turns", "{}", j.display());
    }
    // The interrupted journals were kept aside, not overwritten.
    for j in aborted {
        let mut kept = j.into_os_string();
        kept.push(".aborted-1");
        assert!(PathBuf::from(kept).exists());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_partition_the_tasks_and_dry_run_prints_repeats() {
    let home = tempfile::tempdir().unwrap();
    let all = dry_run(home.path(), &[]).await;
    assert!(all.len() >= 6, "{all:?}");
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "the plan is sorted by task id");
    let mut union = Vec::new();
    for k in 1..=3 {
        let shard = dry_run(home.path(), &["--shard", &format!("{k}/3")]).await;
        // The i-th task of the sorted selection goes to shard i % 3 + 1.
        let expected: Vec<String> =
            all.iter().enumerate().filter(|(i, _)| i % 3 + 1 == k).map(|(_, t)| t.clone()).collect();
        assert_eq!(shard, expected);
        union.extend(shard);
    }
    union.sort();
    assert_eq!(union, all, "disjoint and complete");

    // Issue 11: a dry run needs no --out (and a real run still does).
    let mut args = batch_args("http://127.0.0.1:9/v1", home.path(), &["--dry-run"]);
    let at = args.iter().position(|a| a == "--out").unwrap();
    args.drain(at..at + 2);
    let without_out = converse_tui(home.path(), args.clone()).await;
    assert!(without_out.status.success(), "{}", String::from_utf8_lossy(&without_out.stderr));
    assert_eq!(String::from_utf8_lossy(&without_out.stdout).lines().collect::<Vec<_>>(), all);
    args.retain(|a| a != "--dry-run");
    let real = converse_tui(home.path(), args).await;
    assert!(!real.status.success() && String::from_utf8_lossy(&real.stderr).contains("--out"));

    let repeated = dry_run(home.path(), &["--limit", "2", "--repeat", "2"]).await;
    let two = dry_run(home.path(), &["--limit", "2"]).await;
    assert_eq!(
        repeated,
        vec![
            format!("{}#1", two[0]),
            format!("{}#2", two[0]),
            format!("{}#1", two[1]),
            format!("{}#2", two[1])
        ]
    );

    let bad =
        converse_tui(home.path(), batch_args("http://127.0.0.1:9/v1", home.path(), &["--shard", "4/3"]))
            .await;
    assert!(!bad.status.success());
}

/// A verdict as `(judge, method, outcome, score, rating)`.
type VerdictSpec<'a> = (&'a str, &'a str, &'a str, Option<f64>, Option<f64>);

/// A journal of one finished episode with the given verdicts and the assistant's tokens.
fn verdict_journal(dir: &Path, id: &str, domain: &str, attack: &str, verdicts: &[VerdictSpec], tokens: u64) {
    let header = json!({"seq": 0, "at": "2026-01-01T00:00:00Z", "kind": "episode", "format": "converse-tui/1",
        "id": id, "task": {"id": format!("{domain}_p1_{attack}_{id}"), "domain": domain, "attack_type": attack},
        "config": {"models": {"assistant": "m"}, "max_turns": 4}});
    let message = json!({"seq": 1, "at": "2026-01-01T00:00:01Z", "kind": "message", "turn": 1, "from": "assistant",
        "to": "attacker", "text": "hello", "usage": {"input_tokens": tokens, "output_tokens": 0}});
    let mut lines = vec![header.to_string(), message.to_string()];
    for (i, (judge, method, outcome, score, rating)) in verdicts.iter().enumerate() {
        let details = rating.map_or(json!({}), |r| json!({"rating": r}));
        lines.push(
            json!({"seq": 2 + i, "at": "2026-01-01T00:00:02Z", "kind": "verdict", "judge": judge,
            "method": method, "outcome": outcome, "score": score, "details": details})
            .to_string(),
        );
    }
    lines.push(
        json!({"seq": 2 + verdicts.len(), "at": "2026-01-01T00:00:03Z", "kind": "end", "reason": "max_turns",
        "turns": 1})
        .to_string(),
    );
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
}

/// Issue 36 F9: an episode with no `end` (still running, or killed) was counted with its interim
/// verdicts: n went from 3 to 4 with an extra pass. Unfinished episodes are kept out and said.
/// Issue 35 item 6: an attack run with no verdict of its kind is counted as unjudged, never in n.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summary_counts_finished_judged_episodes_and_shows_the_others_apart() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("runs");
    let rule = |outcome| ("privacy", "rule", outcome, None, None);
    verdict_journal(&dir, "t1", "travel_planning", "privacy", &[rule("fail")], 0);
    verdict_journal(&dir, "t2", "travel_planning", "privacy", &[rule("pass")], 0);
    verdict_journal(&dir, "t3", "travel_planning", "privacy", &[rule("pass")], 0);
    // Still running: an interim pass, no `end`.
    verdict_journal(&dir, "t4", "travel_planning", "privacy", &[rule("pass")], 0);
    let running = dir.join("t4.jsonl");
    let text = std::fs::read_to_string(&running).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains(r#""kind":"end""#)).collect();
    std::fs::write(&running, kept.join("\n") + "\n").unwrap();
    // Finished, but no privacy verdict at all.
    verdict_journal(&dir, "t5", "travel_planning", "privacy", &[], 0);

    let (rows, notes) = summary_rows(home.path(), &["--pool", &dir.display().to_string()]).await;
    let privacy = source_row(&rows, "privacy", "rule");
    assert_eq!(privacy["episodes"].as_u64(), Some(3), "{privacy}");
    assert_eq!(privacy["excluded"], json!({"unfinished": 1}), "{privacy}");
    assert_eq!(privacy["unjudged"].as_u64(), Some(1), "{privacy}");
    assert!(notes.contains("kept out of the rates: 1 unfinished"), "{notes}");
    assert!(notes.contains("1 attack run(s) with no verdict of their kind (privacy 1)"), "{notes}");
    let table = converse_tui(home.path(), strings(&["summary", "--pool", &dir.display().to_string()])).await;
    let table = String::from_utf8_lossy(&table.stdout);
    let header = table.lines().nth(1).unwrap();
    assert!(header.contains("unjudged"), "{table}");
    let listed = converse_tui(
        home.path(),
        strings(&["ls", &dir.display().to_string(), "--json", "--where", "unjudged=privacy"]),
    )
    .await;
    let listed: Vec<Value> =
        String::from_utf8_lossy(&listed.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(listed.len(), 1);
    assert_eq!((&listed[0]["id"], &listed[0]["unjudged"]), (&json!("t5"), &json!("privacy")));
    let listed = converse_tui(
        home.path(),
        strings(&["ls", &dir.display().to_string(), "--json", "--where", "end=unfinished"]),
    )
    .await;
    assert_eq!(String::from_utf8_lossy(&listed.stdout).lines().count(), 1);
}

/// Issue 23: one rate per judge source, `fail` counted, `partial` apart, errors out of n; the
/// figures computed by hand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summary_rates_match_hand_computed_figures() {
    let home = tempfile::tempdir().unwrap();
    let a = home.path().join("a");
    let rule = |judge, outcome| (judge, "rule", outcome, None, None);
    let util = |score, rating| ("utility", "llm", "pass", Some(score), Some(rating));
    // Privacy (rule): fail, pass, partial, error → n 3, 1 succeeded, 1 partial, the error apart.
    // Security (rule): partial, pass → n 2, 0 succeeded, 1 partial. Utility (llm): 1.0 and 0.5.
    verdict_journal(&a, "t1", "travel_planning", "privacy", &[rule("privacy", "fail"), util(1.0, 8.0)], 100);
    verdict_journal(&a, "t2", "travel_planning", "privacy", &[rule("privacy", "pass"), util(0.5, 6.0)], 50);
    verdict_journal(&a, "t3", "insurance", "privacy", &[rule("privacy", "partial")], 10);
    verdict_journal(&a, "t4", "insurance", "privacy", &[rule("privacy", "error")], 0);
    verdict_journal(&a, "t5", "insurance", "security", &[rule("security", "partial")], 0);
    verdict_journal(&a, "t6", "insurance", "security", &[rule("security", "pass")], 0);
    let (rows, notes) = summary_rows(home.path(), &["--pool", &a.display().to_string()]).await;
    assert!(notes.contains("6 episodes") && notes.contains("tokens: 160 (0 by the LLM judges)"), "{notes}");
    let privacy = source_row(&rows, "privacy", "rule");
    assert_eq!((privacy["episodes"].as_u64(), privacy["attacks_succeeded"].as_u64()), (Some(3), Some(1)));
    assert_eq!((privacy["partial"].as_u64(), privacy["judge_errors"].as_u64()), (Some(1), Some(1)));
    assert!((privacy["asr"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9, "{privacy}");
    assert!((privacy["asr_with_partial"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9, "{privacy}");
    let security = source_row(&rows, "security", "rule");
    assert_eq!((security["asr"].as_f64(), security["asr_with_partial"].as_f64()), (Some(0.0), Some(0.5)));
    let utility = source_row(&rows, "utility", "llm");
    assert_eq!(
        (utility["coverage"]["mean"].as_f64(), utility["rating"]["mean"].as_f64()),
        (Some(0.75), Some(7.0))
    );
    // By domain (the field that varies): travel 1 of 2, insurance 0 of 1 with 1 partial.
    let (by_domain, notes) = summary_rows(home.path(), &[&a.display().to_string()]).await;
    assert!(notes.contains("grouped by domain (the fields that vary"), "{notes}");
    let travel = by_domain
        .iter()
        .find(|r| r["group"]["domain"] == "travel_planning" && r["judge"] == "privacy")
        .unwrap();
    assert_eq!(travel["asr"], 0.5);

    // The text table has the same figures.
    let text = converse_tui(home.path(), strings(&["summary", "--pool", &a.display().to_string()])).await;
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("33.33%") && text.contains("66.67%") && text.contains("0.750"), "{text}");

    // Two directories: A, B and Δ (B − A) per judge source. B ran t1 and t5 only: like for like,
    // A is counted on them too (privacy: A's t1 failed, B's passed: −100 points; A's t2 and t3
    // dropped); --all-tasks compares A's 1 of 3 with B's 0 of 1 as they are.
    let b = home.path().join("b");
    verdict_journal(&b, "t1", "travel_planning", "privacy", &[rule("privacy", "pass")], 1);
    verdict_journal(&b, "t5", "insurance", "security", &[rule("security", "fail")], 1);
    let (a_text, b_text) = (a.display().to_string(), b.display().to_string());
    let (rows, _) = summary_rows(home.path(), &["--pool", &a_text, &b_text]).await;
    let privacy = rows.iter().find(|r| r["judge"] == "privacy" && r["method"] == "rule").unwrap();
    assert_eq!(privacy["delta"].as_f64(), Some(-1.0), "{privacy}");
    assert_eq!(privacy["like_for_like"], json!({"scope": "shared_tasks", "tasks": 1, "dropped": [2, 0]}));
    let security = rows.iter().find(|r| r["judge"] == "security").unwrap();
    assert_eq!((security["delta"].as_f64(), security["b"]["episodes"].as_u64()), (Some(1.0), Some(1)));
    let (rows, _) = summary_rows(home.path(), &["--pool", "--all-tasks", &a_text, &b_text]).await;
    let privacy = rows.iter().find(|r| r["judge"] == "privacy" && r["method"] == "rule").unwrap();
    assert!((privacy["delta"].as_f64().unwrap() + 1.0 / 3.0).abs() < 1e-9, "{privacy}");
    assert_eq!(privacy["like_for_like"]["scope"], "all_tasks");
    let text = converse_tui(home.path(), strings(&["summary", "--pool", &a_text, &b_text])).await;
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("-100.0pp") && text.contains("1 shared task(s); dropped 2 of A, 0 of B"), "{text}");
    let text =
        converse_tui(home.path(), strings(&["summary", "--pool", "--all-tasks", &a_text, &b_text])).await;
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("33.33%") && text.contains("-33.3pp") && text.contains("+100.0pp"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_shards_write_their_own_runs_files_and_every_reader_merges_them() {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic());
    let home = tempfile::tempdir().unwrap();
    let sharded = home.path().join("sharded");
    let whole = home.path().join("whole");
    let flags = ["--limit", "5", "--max-turns", "2"];
    for id in 0..3 {
        // As a Slurm array task sees it: ids 0..2, the array's bounds alongside.
        let mut cmd = command(home.path(), &batch_args(&server.base_url(), &sharded, &flags));
        cmd.args(["--shard", "auto", "--shards", "3"])
            .env("SLURM_ARRAY_TASK_ID", id.to_string())
            .env("SLURM_ARRAY_TASK_MIN", "0")
            .env("SLURM_ARRAY_TASK_MAX", "2")
            .env("SLURM_ARRAY_TASK_COUNT", "3");
        let output = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let one = converse_tui(home.path(), batch_args(&server.base_url(), &whole, &flags)).await;
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));

    assert!(!sharded.join("runs.jsonl").exists(), "shards never share a runs file");
    let mut tasks: Vec<String> = Vec::new();
    for k in 1..=3 {
        let shard = records(&sharded.join(format!("runs-{k}-of-3.jsonl")));
        assert!(!shard.is_empty(), "shard {k} ran something");
        tasks.extend(shard.iter().map(|r| r["task"].as_str().unwrap().to_string()));
    }
    tasks.sort();
    let mut expected: Vec<String> =
        records(&whole.join("runs.jsonl")).iter().map(|r| r["task"].as_str().unwrap().to_string()).collect();
    expected.sort();
    assert_eq!(tasks, expected, "every task exactly once across the shards");
    assert_eq!(summary_total(home.path(), &sharded).await, summary_total(home.path(), &whole).await);

    // A shard's --resume sees the merged files: nothing of its own is left to run.
    let mut cmd = command(home.path(), &batch_args(&server.base_url(), &sharded, &flags));
    cmd.args(["--shard", "auto", "--shards", "3", "--resume"]).env("JOB_COMPLETION_INDEX", "1");
    let before = server.request_count();
    let output = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("0 episodes finished"));
    assert_eq!(server.request_count(), before);

    // The browser lists the five journals, nothing else (no runs file, sidecar or set-aside file), without errors.
    std::fs::write(
        sharded.join(journals(&sharded)[0].file_name().unwrap()).with_extension("jsonl.aborted-1"),
        "{",
    )
    .unwrap();
    let (listed, errors) = converse_tui::core::import::index_dir(&sharded);
    assert!(errors.is_empty(), "{errors:?}");
    let mut listed: Vec<PathBuf> = listed.into_iter().map(|e| e.path).collect();
    listed.sort();
    assert_eq!(listed, journals(&sharded));
    assert_eq!(listed.len(), 5);

    // The directory exports and dumps as its five episodes: no runs file is read as an episode.
    let export = home.path().join("maseval.json");
    let exported = converse_tui(
        home.path(),
        strings(&[
            "export",
            &sharded.display().to_string(),
            "--format",
            "maseval",
            "-o",
            &export.display().to_string(),
        ]),
    )
    .await;
    assert!(exported.status.success(), "{}", String::from_utf8_lossy(&exported.stderr));
    let dump = converse_tui(home.path(), strings(&["dump", &sharded.display().to_string()])).await;
    assert!(dump.status.success(), "{}", String::from_utf8_lossy(&dump.stderr));
    assert!(
        !String::from_utf8_lossy(&dump.stderr).contains("runs-"),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shard_auto_without_a_scheduler_fails_clearly() {
    let home = tempfile::tempdir().unwrap();
    let args = batch_args("http://127.0.0.1:9/v1", &home.path().join("b"), &["--shard", "auto"]);
    let mut cmd = command(home.path(), &args);
    cmd.env_remove("SLURM_ARRAY_TASK_ID").env_remove("JOB_COMPLETION_INDEX");
    let output = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("neither SLURM_ARRAY_TASK_ID"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");

    let mut cmd = command(home.path(), &args);
    cmd.args(["--shards", "4"]).env("SLURM_ARRAY_TASK_ID", "0").env("SLURM_ARRAY_TASK_COUNT", "3");
    let output = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("disagrees with --shards 4"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn emitted_jobs_carry_the_flags_and_name_keys_by_variable_only() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("runs");
    let extra = ["--judge-model", "test-judge", "--repeat", "2", "--shards", "16"];
    let slurm = converse_tui(
        home.path(),
        batch_args("http://127.0.0.1:9/v1", &out, &[&extra[..], &["--emit", "slurm"]].concat()),
    )
    .await;
    assert!(slurm.status.success(), "{}", String::from_utf8_lossy(&slurm.stderr));
    let script = String::from_utf8(slurm.stdout).unwrap();
    assert!(script.starts_with("#!/bin/bash\n"), "{script}");
    for line in
        ["#SBATCH --array=0-15", "#SBATCH --cpus-per-task=1", "#SBATCH --mem=1024M", "#SBATCH --export=ALL"]
    {
        assert!(script.lines().any(|l| l == line), "{line} in {script}");
    }
    let exec = script.lines().find(|l| l.starts_with("exec ")).unwrap();
    let words = shlex::split(exec).unwrap();
    let program = |p: &str| Path::new(p).canonicalize().unwrap();
    assert_eq!(
        program(&words[1]),
        program(env!("CARGO_BIN_EXE_converse-tui")),
        "this binary, by absolute path"
    );
    let tail: Vec<&str> = words[2..].iter().map(String::as_str).collect();
    let expected_out = out.display().to_string();
    assert_eq!(
        tail,
        [
            "batch",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--assistant-model",
            "test-assistant",
            "--attacker-model",
            "test-attacker",
            "--out",
            &expected_out,
            "--judge-model",
            "test-judge",
            "--repeat",
            "2",
            "--shards",
            "16",
            "--shard",
            "auto",
            "--resume",
        ]
    );
    assert!(script.contains("${OPENAI_API_KEY:-}"), "the key's variable is checked: {script}");
    assert!(!script.contains("sk-test"), "never the key's value");
    assert!(!out.exists(), "emitting creates nothing");

    let k8s = converse_tui(
        home.path(),
        batch_args("http://127.0.0.1:9/v1", &out, &[&extra[..], &["--emit", "k8s"]].concat()),
    )
    .await;
    assert!(k8s.status.success(), "{}", String::from_utf8_lossy(&k8s.stderr));
    let manifest = String::from_utf8(k8s.stdout).unwrap();
    for line in [
        "  completionMode: Indexed",
        "  completions: 16",
        "            - \"auto\"",
        "                  key: \"OPENAI_API_KEY\"",
    ] {
        assert!(manifest.lines().any(|l| l == line), "{line} in {manifest}");
    }
    assert!(!manifest.contains("sk-test"), "never the key's value");

    let without =
        converse_tui(home.path(), batch_args("http://127.0.0.1:9/v1", &out, &["--emit", "slurm"])).await;
    assert!(!without.status.success(), "--emit needs --shards");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_after_a_torn_runs_file_repairs_it_before_appending() {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic());
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("batch");
    let flags = ["--limit", "2", "--max-turns", "2"];
    let first = converse_tui(home.path(), batch_args(&server.base_url(), &out, &flags)).await;
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    // A crash in the middle of writing the second line: half of it on disk, no newline.
    let path = out.join("runs.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let second = text.lines().nth(1).unwrap();
    let fragment = &second[..second.len() / 2];
    let torn = format!("{}\n{fragment}", text.lines().next().unwrap());
    std::fs::write(&path, &torn).unwrap();

    let mut resume = batch_args(&server.base_url(), &out, &flags);
    resume.push("--resume".into());
    let output = converse_tui(home.path(), resume).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("torn last line"), "{stderr}");
    // Every line parses and both episodes are listed once; the fragment is kept aside.
    let after = records(&path);
    let mut tasks: Vec<&str> = after.iter().map(|r| r["task"].as_str().unwrap()).collect();
    tasks.sort();
    tasks.dedup();
    assert_eq!((after.len(), tasks.len()), (2, 2), "{after:?}");
    assert_eq!(std::fs::read_to_string(out.join("runs.jsonl.torn-1")).unwrap(), fragment);
    let again = converse_tui(
        home.path(),
        batch_args(&server.base_url(), &out, &[&flags[..], &["--resume"]].concat()),
    )
    .await;
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("0 episodes finished (0 errors, 2 already done)")
    );
}

/// `--resume` continues the same experiment or refuses: another assistant or judge model is refused
/// before any call (the old results would be reported as this run's), a folder of an older version
/// is checked against its journals' headers, and a setting that changes no verdict resumes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_with_another_assistant_or_judge_is_refused_and_other_settings_resume() {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic());
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("batch");
    let flags = ["--limit", "2", "--max-turns", "2"];
    let first = converse_tui(home.path(), batch_args(&server.base_url(), &out, &flags)).await;
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let before = server.request_count();
    let resume =
        |extra: &[&str]| batch_args(&server.base_url(), &out, &[&flags[..], &["--resume"], extra].concat());
    let mut other = resume(&[]);
    let at = other.iter().position(|a| a == "test-assistant").unwrap();
    other[at] = "a-leaking-model".into();
    let output = converse_tui(home.path(), other.clone()).await;
    assert_resume_refused(
        &output,
        &out,
        &["assistant test-assistant", "assistant a-leaking-model"],
        &server,
        before,
    );
    let output = converse_tui(home.path(), resume(&["--judge-model", "judgefail"])).await;
    assert_resume_refused(&output, &out, &["no LLM judge", "judge judgefail"], &server, before);

    // A runs file of an older version records no `run_with`: the journals' headers say.
    let path = out.join("runs.jsonl");
    let old: Vec<String> = records(&path)
        .into_iter()
        .map(|mut r| {
            assert!(r.as_object_mut().unwrap().remove("run_with").is_some(), "{r}");
            r.to_string()
        })
        .collect();
    std::fs::write(&path, old.join("\n") + "\n").unwrap();
    let output = converse_tui(home.path(), other).await;
    assert_resume_refused(&output, &out, &["assistant a-leaking-model"], &server, before);

    let same = converse_tui(home.path(), resume(&["--concurrency", "3"])).await;
    assert!(same.status.success(), "{}", String::from_utf8_lossy(&same.stderr));
    assert!(String::from_utf8_lossy(&same.stdout).contains("0 episodes finished (0 errors, 2 already done)"));
    assert_eq!(server.request_count(), before);
}

/// A journal with one whole-episode utility verdict, for `summary` over journals.
fn utility_journal(dir: &Path, id: &str, max_turns: u32, rating: f64, rated: u64) -> PathBuf {
    let header = json!({"seq": 0, "at": "2026-01-01T00:00:00Z", "kind": "episode", "format": "converse-tui/1",
        "id": id, "task": {"id": format!("travel_planning_p1_privacy_{id}"), "domain": "travel_planning",
        "attack_type": "privacy"}, "config": {"models": {"assistant": "m"}, "max_turns": max_turns}});
    let verdict = json!({"seq": 1, "at": "2026-01-01T00:00:01Z", "kind": "verdict", "judge": "utility",
        "method": "llm", "outcome": "pass", "score": 0.5,
        "details": {"rating": rating, "ratings_evaluation": {"average_rating": rating, "num_items_rated": rated}}});
    let end =
        json!({"seq": 2, "at": "2026-01-01T00:00:02Z", "kind": "end", "reason": "max_turns", "turns": 1});
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, format!("{header}\n{verdict}\n{end}\n")).unwrap();
    path
}

/// Issue 11 item 5: episodes without ratings data are not averaged in as 0;
/// `summary A B` prints no `-0.000` and warns when A and B used different settings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summary_leaves_unrated_episodes_out_and_warns_on_different_settings() {
    let home = tempfile::tempdir().unwrap();
    let (a, b) = (home.path().join("a"), home.path().join("b"));
    utility_journal(&a, "rated", 10, 7.0, 3);
    utility_journal(&a, "unrated", 10, 0.0, 0);
    utility_journal(&b, "rated", 6, 7.0, 3);
    let (rows, _) = summary_rows(home.path(), &[&a.display().to_string()]).await;
    let utility = source_row(&rows, "utility", "llm");
    assert_eq!(utility["rating"]["mean"], 7.0, "the unrated episode is not a 0");
    assert_eq!(utility["rating"]["n"], 1);

    let output =
        converse_tui(home.path(), strings(&["summary", &a.display().to_string(), &b.display().to_string()]))
            .await;
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("0.500") && !stdout.contains("-0.000"), "{stdout}");
    assert!(
        stderr.contains("warning: A and B used different settings: max turns 10 in A, 6 in B"),
        "{stderr}"
    );
}

/// Issue 11: the LLM judges' tokens are counted — on each verdict in the journal,
/// under `judge` in runs.jsonl, and by `summary` (from runs.jsonl and from the
/// journals alone), equal to what the server billed for the judge's requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judge_tokens_reach_runs_jsonl_and_summary() {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic()); // 10 in, 5 out per request
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("batch");
    let args = batch_args(
        &server.base_url(),
        &out,
        &["--limit", "2", "--max-turns", "2", "--judge-model", "test-judge", "--no-stream"],
    );
    let output = converse_tui(home.path(), args).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let judge_requests = server.requests().iter().filter(|r| r.body["model"] == "test-judge").count() as u64;
    assert!(judge_requests >= 4, "privacy or security, and utility, per episode: {judge_requests}");

    let records = runs(&out);
    let judge = |r: &Value| (r["tokens"]["judge"]["input"].as_u64(), r["tokens"]["judge"]["output"].as_u64());
    let (input, output_tokens) = records.iter().map(judge).fold((0, 0), |(i, o), (ri, ro)| {
        (i + ri.expect("judge input tokens"), o + ro.expect("judge output tokens"))
    });
    assert_eq!((input, output_tokens), (10 * judge_requests, 5 * judge_requests));
    for r in &records {
        // The journal's verdicts carry the same tokens as the record.
        let journal = std::fs::read_to_string(out.join(r["journal"].as_str().unwrap())).unwrap();
        let verdict_tokens: u64 = journal
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|e| e["kind"] == "verdict")
            .filter_map(|e| e["usage"]["input_tokens"].as_u64())
            .sum();
        assert_eq!(Some(verdict_tokens), judge(r).0, "{r}");
    }

    let all_tokens = (10 + 5) * server.request_count() as u64;
    let judge_tokens = 15 * judge_requests;
    let (_, from_runs) = summary_total(home.path(), &out).await;
    assert!(
        from_runs.contains(&format!("tokens: {all_tokens} ({judge_tokens} by the LLM judges)")),
        "{from_runs}"
    );
    std::fs::remove_file(out.join("runs.jsonl")).unwrap();
    let (_, from_journals) = summary_total(home.path(), &out).await;
    assert_eq!(from_journals, from_runs);
}

/// Issue 11: an attacker script recorded for another task is warned about by
/// `batch` too — on stderr once per episode, and in that episode's runs.jsonl record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attacker_script_for_another_task_is_warned_once_per_episode() {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(generic());
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("batch");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl");
    let script = script.display().to_string();
    let args = batch_args(
        &server.base_url(),
        &out,
        &["--limit", "3", "--max-turns", "2", "--attacker-script", &script, "--no-stream"],
    );
    let output = converse_tui(home.path(), args).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let records = runs(&out);
    assert_eq!(records.len(), 3);
    for r in &records {
        let task = r["task"].as_str().unwrap();
        let warned: Vec<&str> =
            stderr.lines().filter(|l| l.starts_with(&format!("warning: {task}#1: "))).collect();
        assert_eq!(warned.len(), 1, "once per episode:\n{stderr}");
        assert!(
            warned[0].contains(&format!("the attacker script {script} was recorded for task")),
            "{stderr}"
        );
        assert!(warned[0].contains(&format!("not {task}")), "{stderr}");
        let recorded = r["warnings"].as_array().expect("warnings in the record");
        assert_eq!(recorded.len(), 1, "{r}");
        assert!(warned[0].ends_with(recorded[0].as_str().unwrap()), "{r}");
    }
    assert_eq!(stderr.matches("warning: ").count(), 3, "{stderr}");

    // Without a script (or with one for the same task) a record has no warnings field.
    let plain = home.path().join("plain");
    let output = converse_tui(
        home.path(),
        batch_args(&server.base_url(), &plain, &["--limit", "1", "--max-turns", "2"]),
    )
    .await;
    assert!(output.status.success());
    assert!(!String::from_utf8_lossy(&output.stderr).contains("warning"));
    assert_eq!(runs(&plain)[0].get("warnings"), None);
}
