//! MASEval export: the reports re-import through our MASEval importer to the
//! same conversation (ARCHITECTURE.md, "Sources of episodes").

use converse_tui::core::demo::demo_episodes;
use converse_tui::core::episode::{Episode, EventBody, Outcome};
use converse_tui::core::export::{to_maseval, to_maseval_line};
use converse_tui::core::import::load_path;
use pretty_assertions::assert_eq;
use serde_json::Value;

/// What must survive the round trip; timestamps, ids and models may differ.
fn conversation(episode: &Episode) -> Vec<String> {
    episode
        .events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Message(m) => {
                Some(format!("message t{} {}→{} {:?}", m.turn, m.from.as_str(), m.to.as_str(), m.text))
            }
            EventBody::ToolCall(c) => {
                Some(format!("call t{} {} {} {} {:?}", c.turn, c.call_id, c.tool, c.args, c.raw_args))
            }
            EventBody::ToolResult(r) => {
                Some(format!("result t{} {} {} ok={} {:?}", r.turn, r.call_id, r.tool, r.ok, r.output))
            }
            EventBody::End(end) => Some(format!("end {}", end.turns)),
            _ => None,
        })
        .collect()
}

/// The verdicts MASEval's `eval` carries: whole-episode ones, judge and outcome.
/// Each verdict source's (judge, method, model) final say: its whole-episode verdict, else its
/// latest per-turn one.
fn final_verdicts(
    episode: &Episode,
) -> std::collections::BTreeMap<(String, String, Option<String>), Outcome> {
    let mut finals = std::collections::BTreeMap::new();
    let mut whole = std::collections::BTreeSet::new();
    for e in &episode.events {
        if let EventBody::Verdict(v) = &e.body {
            let source = (v.judge.to_string(), v.method.as_str().to_string(), v.model.clone());
            if v.turn.is_none() {
                whole.insert(source.clone());
                finals.insert(source, v.outcome);
            } else if !whole.contains(&source) {
                finals.insert(source, v.outcome);
            }
        }
    }
    finals
}

fn round_trip(episodes: &[Episode]) -> Vec<Episode> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reports.jsonl");
    let text: String = episodes.iter().map(|e| to_maseval_line(e) + "\n").collect();
    std::fs::write(&path, text).unwrap();
    load_path(&path).unwrap()
}

#[test]
fn demos_round_trip_through_the_importer() {
    let demos = demo_episodes();
    let back = round_trip(&demos);
    assert_eq!(back.len(), demos.len());
    for (source, imported) in demos.iter().zip(&back) {
        assert_eq!(conversation(imported), conversation(source), "{}", source.id());
        // Our exporter's `converse_tui` fields carry every source's own verdict, which MASEval's
        // fields alone cannot say ("partial privacy leak", "coverage < 1 yet a pass").
        assert_eq!(final_verdicts(imported), final_verdicts(source), "{}", source.id());
        assert_eq!(imported.header().task.user_task, source.header().task.user_task);
        assert_eq!(imported.header().task.attack_goal, source.header().task.attack_goal);
        assert_eq!(imported.header().task.domain, source.header().task.domain);
        assert_eq!(
            imported.header().config.models.get("attacker"),
            source.header().config.models.get("attacker")
        );
        assert_eq!(
            imported.header().config.models.get("assistant"),
            source.header().config.models.get("assistant")
        );
        assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    }
}

#[test]
fn eval_dicts_carry_our_outcome_and_maseval_fields() {
    for episode in demo_episodes() {
        let report = to_maseval(&episode);
        let eval = report["eval"].as_array().expect("eval list");
        // One dict per verdict source, with that source's final say.
        let exported: std::collections::BTreeMap<(String, String, Option<String>), Outcome> = eval
            .iter()
            .map(|d| {
                let tag = &d["converse_tui"];
                let text = |k: &str| tag[k].as_str().unwrap().to_string();
                let outcome: Outcome = serde_json::from_value(tag["outcome"].clone()).unwrap();
                ((text("judge"), text("method"), tag["model"].as_str().map(str::to_string)), outcome)
            })
            .collect();
        assert_eq!(exported.len(), eval.len(), "no source twice");
        assert_eq!(exported, final_verdicts(&episode), "{}", episode.id());
        for d in eval {
            assert!(
                ["privacy_leak", "security_violation", "coverage"].iter().any(|k| d.get(*k).is_some()),
                "{d}"
            );
        }
    }
}

#[test]
fn report_has_the_maseval_shape() {
    let demos = demo_episodes();
    let r = to_maseval(&demos[0]);
    for key in ["task_id", "repeat_idx", "status", "error", "traces", "config", "usage", "eval", "task"] {
        assert!(r.get(key).is_some(), "missing {key}");
    }
    assert_eq!(r["task_id"], "travel_planning_p2_privacy_unrelated_to_travel_medical_appointment");
    assert_eq!(r["repeat_idx"], 0);
    assert_eq!(r["status"], "success");
    assert_eq!(r["error"], Value::Null);
    let agent = &r["traces"]["agents"]["default_converse_agent"]["messages"];
    assert_eq!(agent[0]["role"], "user");
    assert_eq!(agent[0]["content"], r["task"]["query"]);
    assert_eq!(agent[1]["role"], "assistant");
    let call = &agent[1]["tool_calls"][0];
    assert_eq!(call["type"], "function");
    assert_eq!(call["function"]["name"], "get_user_info");
    assert_eq!(call["function"]["arguments"], "{\"query\":\"travel\"}");
    assert_eq!(agent[2]["role"], "tool");
    assert_eq!(agent[2]["tool_call_id"], call["id"]);
    // Attacker view: roles swapped, the task query first and without a timestamp.
    let user = &r["traces"]["user"]["messages"];
    assert_eq!(user[0]["role"], "user");
    assert!(user[0].get("timestamp").is_none());
    assert_eq!(user[1]["role"], "assistant");
    assert_eq!(user[2]["role"], "user");
    assert_eq!(
        r["traces"]["models"]["converse_external_agent_model"]["model_id"],
        demos[0].header().config.models["attacker"]
    );
    let tools = &r["traces"]["environment"]["tools"]["get_user_info"];
    assert_eq!(tools["total_invocations"], tools["invocations"].as_array().unwrap().len());
    assert_eq!(tools["invocations"][0]["inputs"]["kwargs"]["query"], "travel");
    let usage = &r["usage"]["models"]["default_converse_agent_model"];
    assert!(usage["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(r["task"]["protocol"]["timeout_seconds"], 600);
    // Per-turn verdicts are kept, outside `eval`.
    assert!(!r["traces"]["other"]["converse_tui"]["turn_verdicts"].as_array().unwrap().is_empty());
}

#[test]
fn failed_episodes_get_an_error_status_and_no_eval() {
    use converse_tui::core::episode::{End, EndReason, ErrorEvent, Event};
    let mut episode = demo_episodes().remove(1);
    let last = episode.events.len() - 1;
    let at = episode.events[last].at.clone();
    episode.events[last] = Event {
        seq: last as u64,
        at: at.clone(),
        body: EventBody::Error(ErrorEvent {
            source: "attacker".into(),
            message: "no JSON in reply".into(),
            turn: Some(5),
        }),
    };
    episode.events.push(Event {
        seq: last as u64 + 1,
        at,
        body: EventBody::End(End { reason: EndReason::Error, turns: 5 }),
    });
    let r = to_maseval(&episode);
    assert_eq!(r["status"], "user_error");
    assert_eq!(r["error"]["error_message"], "no JSON in reply");
    assert_eq!(r["eval"], Value::Null);
    let back = round_trip(&[episode.clone()]);
    assert_eq!(conversation(&back[0]), conversation(&episode));
    assert!(
        back[0]
            .events
            .iter()
            .any(|e| matches!(&e.body, EventBody::Error(err) if err.message.contains("no JSON in reply")))
    );
}

#[test]
fn repeat_index_comes_from_the_id() {
    let mut episode = demo_episodes().remove(2);
    if let EventBody::Episode(h) = &mut episode.events[0].body {
        h.id = "real_estate_x#4".into();
    }
    assert_eq!(to_maseval(&episode)["repeat_idx"], 4);
    let back = round_trip(&[episode]);
    assert!(back[0].id().ends_with("#4"), "{}", back[0].id());
}
