//! Inspect logs of every shape (issue 38), written by Inspect's own `eval()` and `eval_set()`
//! (tests/python/inspect_shapes.py, mockllm) and read by converse-tui, checked against what
//! Inspect's own reader reads: a sample id holding `/`, a store, an errored, a retried and a
//! message-limited sample, scorers of every value shape, an eval set's folder.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;

use crate::support::inspect_logs::{dumped, run, written_by_inspect};

/// The logs Inspect wrote and what its reader reads in them (written once per test run).
pub fn shapes() -> &'static (PathBuf, Value) {
    static LOGS: OnceLock<(PathBuf, Value)> = OnceLock::new();
    LOGS.get_or_init(|| written_by_inspect("inspect_shapes.py", "inspect-shapes"))
}

fn key(sample: &Value) -> String {
    let id = sample["id"].as_str().map_or_else(|| sample["id"].to_string(), str::to_string);
    format!("{id}_epoch_{}", sample["epoch"])
}

fn tokens(usage: &Value) -> u64 {
    usage
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
        .map(|u| u["input_tokens"].as_u64().unwrap() + u["output_tokens"].as_u64().unwrap())
        .sum()
}

#[test]
fn every_sample_reads_with_its_store_error_retries_limit_and_tokens() {
    let (dir, expected) = shapes();
    let path = dir.join("shapes.eval");
    let samples = expected["shapes.eval"]["samples"].as_array().unwrap();
    let episodes = dumped(&path);
    assert_eq!(episodes.len(), samples.len(), "every sample, the one whose id holds '/' included");
    for sample in samples {
        let id = key(sample);
        let (_, events) = episodes.iter().find(|(e, _)| *e == id).unwrap_or_else(|| panic!("no {id}"));
        let facts = &events[0]["config"]["inspect_sample"];
        assert_eq!(events[0]["task"]["sample_id"], sample["id"], "{id}");
        assert_eq!(events[0]["task"]["target"], sample["target"], "{id}");
        assert_eq!(
            facts["store"],
            if sample["store"].as_object().unwrap().is_empty() {
                Value::Null
            } else {
                sample["store"].clone()
            },
            "{id}"
        );
        assert_eq!(facts["error"]["message"], sample["error"], "{id}");
        if !sample["error"].is_null() {
            assert!(
                facts["error"]["traceback"].as_str().unwrap().contains("Traceback"),
                "{id}: the traceback"
            );
        }
        assert_eq!(facts["retries"].as_u64().unwrap_or(0), sample["retries"].as_u64().unwrap(), "{id}");
        assert_eq!(facts["limit"]["type"], sample["limit"], "{id}");
        assert_eq!(facts["turn_count"], sample["turn_count"], "{id}");
        assert_eq!(
            events[0]["config"]["model_usage"].as_object().map(|u| u.len()).unwrap_or(0),
            sample["model_usage"].as_object().unwrap().len(),
            "{id}"
        );
        let end = events.last().unwrap();
        let reason = if !sample["error"].is_null() {
            "error"
        } else if !sample["limit"].is_null() {
            "limit"
        } else {
            "assistant_done"
        };
        assert_eq!((end["kind"].as_str(), end["reason"].as_str()), (Some("end"), Some(reason)), "{id}");
    }

    // Errored samples are found as such and kept out of the rates; tokens are Inspect's.
    let (ok, stdout, stderr) =
        run(&["ls", "--no-cache", "--json", "--where", "end=error", path.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let errored: Vec<&Value> = samples.iter().filter(|s| !s.get("error").unwrap().is_null()).collect();
    assert_eq!(stdout.lines().count(), errored.len(), "{stdout}");
    let (ok, stdout, stderr) = run(&["summary", "--no-cache", path.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let counted: u64 =
        samples.iter().filter(|s| s["error"].is_null()).map(|s| tokens(&s["model_usage"])).sum();
    assert!(counted > 0);
    assert!(format!("{stdout}{stderr}").contains(&format!("tokens: {counted} ")), "{stdout}{stderr}");
}

#[test]
fn an_eval_set_folder_reads_as_its_logs() {
    let (dir, expected) = shapes();
    let set = dir.join("set");
    assert!(set.join("eval-set.json").is_file() && set.join("logs.json").is_file());
    let samples: usize = expected
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.starts_with("set/"))
        .map(|(_, v)| v["samples"].as_array().unwrap().len())
        .sum();
    let set = set.to_str().unwrap();
    let (ok, stdout, stderr) = run(&["ls", "--no-cache", "--json", set]);
    assert!(ok, "ls: {stderr}");
    assert_eq!(stdout.lines().count(), samples);
    for args in [
        vec!["summary", set],
        vec!["chart", set],
        vec!["search", "Paris", set],
        vec!["export", set, "--format", "json"],
    ] {
        let (ok, stdout, stderr) = run(&args);
        assert!(ok && !stdout.is_empty(), "{}: {stderr}", args.join(" "));
    }
}

#[test]
fn any_scorer_is_charted_with_the_counts_inspect_gives() {
    let (dir, expected) = shapes();
    let path = dir.join("shapes.eval");
    let (ok, stdout, stderr) = run(&["export", path.to_str().unwrap(), "--by", "domain", "--format", "json"]);
    assert!(ok, "{stderr}");
    let series: Value = serde_json::from_str(&stdout).unwrap();
    let samples: Vec<&Value> = expected["shapes.eval"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["error"].is_null())
        .collect();
    for rates in series["rates"].as_array().unwrap() {
        let scorer = rates["judge"].as_str().unwrap();
        // A fail: Inspect's value read as 0 (`I`, `N`, false, 0).
        let fails = samples
            .iter()
            .filter(|s| matches!(&s["scores"][scorer]["value"], Value::String(v) if v == "I" || v == "N"))
            .count();
        let bar = &rates["bars"][0];
        assert_eq!(
            (bar["succeeded"].as_u64(), bar["n"].as_u64()),
            (Some(fails as u64), Some(samples.len() as u64)),
            "{scorer}"
        );
    }
    let charted: Vec<&str> =
        series["rates"].as_array().unwrap().iter().map(|r| r["judge"].as_str().unwrap()).collect();
    assert_eq!(
        charted,
        ["boolean", "match", "number", "partial", "unanswered"],
        "every scorer with a 0–1 value (a dict is not)"
    );
}
