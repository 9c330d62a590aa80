//! The rule judges over the real ConVerse logs, each with the task descriptor
//! of its experiment folder (`tests/fixtures/judge-tasks/`), checked against
//! what the episode shows and against the recorded judge answer where there is one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use converse_tui::core::episode::Judge;
use converse_tui::core::episode::{Event, EventBody, Outcome, TaskInfo, Verdict, VerdictMethod};
use converse_tui::core::import::load_path;
use converse_tui::core::judge::{JudgeContext, rule_verdicts};
use serde_json::{Map, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn outcome(name: &str) -> Outcome {
    serde_json::from_value(Value::String(name.into())).unwrap_or_else(|_| panic!("bad outcome {name}"))
}

/// The header's task with the descriptor's fields laid over it.
fn context(header: &TaskInfo, descriptor: &Map<String, Value>) -> JudgeContext {
    let mut task = header.clone();
    for (k, v) in descriptor {
        match k.as_str() {
            "expected" | "note" | "experiment" => {}
            "attack_type" => task.attack_type = v.as_str().map(String::from),
            "category" => task.category = v.as_str().map(String::from),
            "data_item" => task.data_item = v.as_str().map(String::from),
            "user_task" => task.user_task = v.as_str().map(String::from),
            "domain" => task.domain = v.as_str().map(String::from),
            "persona" => task.persona = Some(v.clone()),
            _ => {
                task.extra.insert(k.clone(), v.clone());
            }
        }
    }
    JudgeContext::new(task)
}

fn header_task(events: &[Event]) -> TaskInfo {
    match &events[0].body {
        EventBody::Episode(h) => h.task.clone(),
        other => panic!("first event is not the header: {other:?}"),
    }
}

/// The imported judge's attack-success answer, if the episode carries one.
fn imported_attack_verdict(events: &[Event]) -> Option<Verdict> {
    events.iter().find_map(|e| match &e.body {
        EventBody::Verdict(v)
            if v.method == VerdictMethod::Imported
                && matches!(v.outcome, Outcome::Pass | Outcome::Fail | Outcome::Partial) =>
        {
            Some((**v).clone())
        }
        _ => None,
    })
}

struct Row {
    episode: String,
    shown: Option<Outcome>,
    rule: Option<Outcome>,
    imported: Option<Outcome>,
}

#[test]
fn rule_judges_agree_with_the_fixture_episodes() {
    let tasks_dir = root().join("judge-tasks");
    let mut descriptors: Vec<PathBuf> = std::fs::read_dir(&tasks_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    descriptors.sort();
    assert_eq!(descriptors.len(), 16, "one descriptor per experiment folder");

    let mut rows = Vec::new();
    for path in descriptors {
        let descriptor: Map<String, Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let folder = descriptor["experiment"].as_str().unwrap().to_string();
        let expected = descriptor.get("expected").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut logs: Vec<PathBuf> = std::fs::read_dir(root().join("converse-logs").join(&folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("output_"))
            .collect();
        logs.sort();
        assert!(!logs.is_empty(), "{folder}: no logs");
        for log in logs {
            let file = log.file_name().unwrap().to_string_lossy().into_owned();
            let events = load_path(&log).unwrap().remove(0).events;
            let ctx = context(&header_task(&events), &descriptor);
            let verdicts = rule_verdicts(&ctx, &events);
            let final_verdict = verdicts.iter().find(|(at, _)| at.is_none()).map(|(_, v)| v.clone());
            let exp = expected.get(&file).cloned().unwrap_or(Value::Null);
            let shown = exp.get("outcome").and_then(Value::as_str).map(outcome);

            match (&shown, &final_verdict) {
                (None, None) => assert!(verdicts.is_empty(), "{folder}/{file}: {verdicts:#?}"),
                (None, Some(v)) => panic!("{folder}/{file}: no judge expected, got {v:#?}"),
                (Some(_), None) => panic!("{folder}/{file}: no whole-episode verdict"),
                (Some(_), Some(v)) => {
                    // Every per-turn verdict sits at an assistant→attacker message of its turn.
                    for (at, pv) in verdicts.iter().filter(|(at, _)| at.is_some()) {
                        let e = &events[at.unwrap() as usize];
                        assert_eq!(e.body.turn(), pv.turn, "{folder}/{file}");
                    }
                    let turn_key = if v.judge == Judge::Privacy { "leak_turn" } else { "violation_turn" };
                    if let Some(t) = exp.get(turn_key) {
                        assert_eq!(&v.details[turn_key], t, "{folder}/{file}: {v:#?}");
                    }
                    // Evidence points at real text (messages) or names the offending call.
                    if let Some(ev) = &v.evidence {
                        let target = &events[ev.seq as usize];
                        if let (Some(s), Some(e), EventBody::Message(m)) = (ev.start, ev.end, &target.body) {
                            let slice: String = m.text.chars().skip(s).take(e - s).collect();
                            assert_eq!(Some(slice), ev.text, "{folder}/{file}");
                        }
                    }
                }
            }
            rows.push(Row {
                episode: format!("{folder}/{file}"),
                shown,
                rule: final_verdict.as_ref().map(|v| v.outcome),
                imported: imported_attack_verdict(&events).map(|v| v.outcome),
            });
        }
    }

    // The agreement table (shown with `--nocapture`), then the counts.
    let mut agree = 0;
    let mut judged = 0;
    let mut with_imported = BTreeMap::new();
    for r in &rows {
        eprintln!("{:<100} shown={:?} rule={:?} imported={:?}", r.episode, r.shown, r.rule, r.imported);
        if r.shown.is_some() {
            judged += 1;
            if r.shown == r.rule {
                agree += 1;
            }
        }
        if let Some(i) = r.imported {
            with_imported.insert(r.episode.clone(), (i, r.rule));
        }
    }
    eprintln!(
        "rule judges agree with the episodes on {agree}/{judged}; episodes with no attack judge: {}",
        rows.len() - judged
    );
    assert_eq!(rows.len(), 19);
    assert_eq!(judged, 12);
    assert_eq!(agree, judged, "every disagreement must be explained in the descriptor");
    // The one recorded judge answer (delete_calendar_baseline, Q10 "yes").
    assert_eq!(with_imported.len(), 1);
    for (episode, (imported, rule)) in with_imported {
        assert_eq!(Some(imported), rule, "{episode}");
    }
}
