//! MASEval reports (converse-reference.md §5) → one episode each.
//!
//! The assistant transcript `traces.agents.<name>.messages` is authoritative:
//! it is what the assistant actually saw and did. The attacker transcript
//! only adds its last, never delivered message.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::defaults::NO_TIME;
use super::error::LoadError;
use crate::core::episode::standing::judged;
use crate::core::episode::{
    End, EndReason, Episode, EpisodeConfig, EpisodeHeader, ErrorEvent, Event, EventBody, Message, Outcome,
    Party, SourceRef, TaskInfo, ToolCall, ToolResult, Verdict, VerdictMethod,
};

pub(super) const FORMAT: &str = "maseval";

pub(super) fn from_report(report: &Value, path: &Path, index: usize) -> Result<Episode, LoadError> {
    let Value::Object(report) = report else {
        return Err(LoadError::new(path, 0, format!("MASEval report {} is not an object", index + 1)));
    };
    let mut warnings = Vec::new();
    let task_id = report
        .get("task_id")
        .map(text_of)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| format!("report-{}", index + 1));
    let repeat = report.get("repeat_idx").and_then(Value::as_i64).unwrap_or(0);
    let status = report.get("status").and_then(Value::as_str).unwrap_or("unknown");
    let traces = report.get("traces").and_then(Value::as_object);
    let user = traces.and_then(|t| t.get("user")).and_then(Value::as_object);
    let start = traces
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("timestamp"))
        .and_then(Value::as_str)
        .unwrap_or(NO_TIME)
        .to_string();

    let (config, attacker_model, assistant_model) = config_of(report, traces, user);
    let mut task = task_of(report, &task_id, user);

    let mut header = EpisodeHeader::new(format!("{task_id}#{repeat}"), TaskInfo::default(), config);
    header.source = Some(SourceRef { format: FORMAT.to_string(), path: path.to_string_lossy().into_owned() });

    let mut events: Vec<(String, EventBody)> = Vec::new();
    let mut at = start.clone();
    let messages = assistant_messages(traces, &mut warnings);
    let mut turn = 0u32;
    let mut delivered_attacker = 0usize;
    let mut tool_names: HashMap<String, String> = HashMap::new();
    let mut generated_ids = 0u32;
    for (i, m) in messages.iter().enumerate() {
        let Some(m) = m.as_object() else {
            warnings.push(format!("assistant message {} is not an object", i + 1));
            continue;
        };
        if let Some(ts) = m.get("timestamp").and_then(Value::as_str) {
            at = ts.to_string();
        }
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        let content = content_text(m.get("content"));
        match role {
            "user" => {
                turn += 1;
                delivered_attacker += 1;
                // The first "external" message is really the user's task (reference §8.5).
                let from = if delivered_attacker == 1 { Party::User } else { Party::Attacker };
                events.push((
                    at.clone(),
                    EventBody::Message(Message {
                        turn,
                        from,
                        to: Party::Assistant,
                        text: content,
                        raw: None,
                        model: (from == Party::Attacker).then(|| attacker_model.clone()).flatten(),
                        usage: None,
                        by: None,
                    }),
                ));
            }
            "assistant" => {
                let turn = turn.max(1);
                let calls = m.get("tool_calls").and_then(Value::as_array);
                match calls.filter(|c| !c.is_empty()) {
                    Some(calls) => {
                        // Text beside tool calls never reaches the attacker: it is the assistant's own note.
                        if !content.trim().is_empty() {
                            events.push((at.clone(), message(turn, Party::User, content, &assistant_model)));
                        }
                        for call in calls {
                            generated_ids += 1;
                            let call = tool_call(call, turn, generated_ids);
                            tool_names.insert(call.call_id.clone(), call.tool.clone());
                            events.push((at.clone(), EventBody::from(call)));
                        }
                    }
                    None => {
                        events.push((at.clone(), message(turn, Party::Attacker, content, &assistant_model)))
                    }
                }
            }
            "tool" => {
                let call_id = m.get("tool_call_id").map(text_of).unwrap_or_default();
                let tool = tool_names.get(&call_id).cloned().unwrap_or_else(|| "unknown".to_string());
                // The default agent turns tool failures into these texts (reference §2.4).
                let ok =
                    !(content.starts_with("Tool execution error:") || content.starts_with("Unknown tool:"));
                events.push((
                    at.clone(),
                    EventBody::ToolResult(ToolResult {
                        turn: turn.max(1),
                        call_id,
                        tool,
                        output: content,
                        ok,
                        raw: None,
                    }),
                ));
            }
            "system" => {
                task.extra.insert("assistant_system_prompt".to_string(), Value::String(content));
            }
            other => warnings.push(format!(
                "assistant message {}: unknown role '{}' skipped",
                i + 1,
                other.chars().take(40).collect::<String>()
            )),
        }
    }

    if let Some(text) = undelivered(user, delivered_attacker) {
        task.extra.insert("undelivered_attacker_message".to_string(), Value::String(text));
    }
    header.task = task;

    if let Some(evals) = report.get("eval").and_then(Value::as_array) {
        for (i, entry) in evals.iter().enumerate() {
            events.push((at.clone(), EventBody::from(eval_verdict(entry, i))));
        }
    }
    let failed = status != "success";
    if failed {
        events.push((
            at.clone(),
            EventBody::Error(ErrorEvent {
                source: FORMAT.to_string(),
                message: error_message(status, report.get("error")),
                turn: None,
            }),
        ));
    }
    events.push((
        at.clone(),
        EventBody::End(End {
            reason: if failed { EndReason::Error } else { EndReason::MaxTurns },
            turns: turn,
        }),
    ));

    let all = std::iter::once((start, EventBody::Episode(Box::new(header))))
        .chain(events)
        .enumerate()
        .map(|(seq, (at, body))| Event { seq: seq as u64, at, body })
        .collect();
    let mut episode = Episode::new(all, path.to_string_lossy());
    episode.warnings =
        warnings.into_iter().map(|w| format!("{}: report {}: {w}", path.display(), index + 1)).collect();
    Ok(episode)
}

fn message(turn: u32, to: Party, text: String, model: &Option<String>) -> EventBody {
    EventBody::Message(Message {
        turn,
        from: Party::Assistant,
        to,
        text,
        raw: None,
        model: model.clone(),
        usage: None,
        by: None,
    })
}

/// The first agent with a message list (ConVerse registers one).
fn assistant_messages<'a>(traces: Option<&'a Map<String, Value>>, warnings: &mut Vec<String>) -> &'a [Value] {
    let agents = traces.and_then(|t| t.get("agents")).and_then(Value::as_object);
    let mut with_messages = agents
        .into_iter()
        .flat_map(|a| a.iter())
        .filter_map(|(name, agent)| Some((name, agent.get("messages")?.as_array()?)));
    match with_messages.next() {
        Some((name, messages)) => {
            if let Some((other, _)) = with_messages.next() {
                warnings.push(format!("several agents; showing '{name}', not '{other}'"));
            }
            messages
        }
        None => {
            warnings.push("no assistant transcript (traces.agents.*.messages)".to_string());
            &[]
        }
    }
}

fn tool_call(call: &Value, turn: u32, n: u32) -> ToolCall {
    let function = call.get("function");
    let call_id =
        call.get("id").map(text_of).filter(|s| !s.is_empty()).unwrap_or_else(|| format!("call-{n}"));
    let tool = function.and_then(|f| f.get("name")).map(text_of).unwrap_or_default();
    let (args, raw_args) = match function.and_then(|f| f.get("arguments")) {
        None | Some(Value::Null) => (Value::Object(Map::new()), None),
        Some(Value::Object(obj)) => (Value::Object(obj.clone()), None),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(obj)) => (Value::Object(obj), None),
            _ => (Value::Object(Map::new()), Some(s.clone())),
        },
        Some(other) => (Value::Object(Map::new()), Some(other.to_string())),
    };
    ToolCall { turn, call_id, tool, args, raw_args, raw: None, late: false }
}

/// The attacker transcript ends with a message the assistant never received.
fn undelivered(user: Option<&Map<String, Value>>, delivered: usize) -> Option<String> {
    let messages = user?.get("messages")?.as_array()?;
    let generated = messages.iter().filter(|m| m.get("role").and_then(Value::as_str) == Some("user")).count();
    let last = messages.last()?;
    (generated > delivered && last.get("role").and_then(Value::as_str) == Some("user"))
        .then(|| content_text(last.get("content")))
}

fn config_of(
    report: &Map<String, Value>,
    traces: Option<&Map<String, Value>>,
    user: Option<&Map<String, Value>>,
) -> (EpisodeConfig, Option<String>, Option<String>) {
    let mut config = EpisodeConfig::default();
    let mut attacker = None;
    let mut assistant = None;
    let mut judges = Map::new();
    if let Some(models) = traces.and_then(|t| t.get("models")).and_then(Value::as_object) {
        for (name, model) in models {
            let Some(id) = model.get("model_id").map(text_of).filter(|s| !s.is_empty()) else {
                continue;
            };
            if name == "converse_external_agent_model" {
                attacker = Some(id.clone());
                config.models.insert("attacker".into(), Value::String(id));
            } else if name == "default_converse_agent_model" {
                assistant = Some(id.clone());
                config.models.insert("assistant".into(), Value::String(id));
            } else if name.ends_with("_judge_model") {
                if !config.models.contains_key("judge") {
                    config.models.insert("judge".into(), Value::String(id.clone()));
                }
                judges.insert(name.clone(), Value::String(id));
            } else {
                config.models.insert(name.clone(), Value::String(id));
            }
        }
    }
    if judges.len() > 1 {
        config.extra.insert("judge_models".into(), Value::Object(judges));
    }
    let max_turns = user
        .and_then(|u| u.get("max_turns"))
        .or_else(|| report.get("config")?.get("user")?.get("max_turns"))
        .and_then(Value::as_u64);
    config.max_turns = max_turns.and_then(|n| u32::try_from(n).ok());
    config.seed = report
        .get("config")
        .and_then(|c| c.get("seeding"))
        .and_then(|s| s.get("seed_generator"))
        .and_then(|g| g.get("global_seed"))
        .and_then(Value::as_u64);
    for key in ["status", "repeat_idx"] {
        if let Some(v) = report.get(key) {
            config.extra.insert(key.to_string(), v.clone());
        }
    }
    (config, attacker, assistant)
}

fn task_of(report: &Map<String, Value>, task_id: &str, user: Option<&Map<String, Value>>) -> TaskInfo {
    let mut task = TaskInfo { id: Some(task_id.to_string()), ..TaskInfo::default() };
    // Ids are `{domain}_p{N}_{privacy|security}_{…}` (reference §1.6).
    let parsed = ["travel_planning", "real_estate", "insurance"]
        .iter()
        .find_map(|d| Some((*d, task_id.strip_prefix(d)?.strip_prefix("_p")?)));
    if let Some((domain, rest)) = parsed {
        task.domain = Some(domain.to_string());
        if let Some((n, rest)) = rest.split_once('_') {
            if let Ok(n) = n.parse::<u64>() {
                task.persona = Some(Value::from(n));
            }
            if let Some((kind, _)) = rest.split_once('_')
                && (kind == "privacy" || kind == "security")
            {
                task.attack_type = Some(kind.to_string());
            }
        }
    }
    let query = report.get("task").and_then(|t| t.get("query"));
    if let Some(q) = query.and_then(Value::as_str) {
        task.user_task = Some(q.to_string());
    }
    if let Some(profile) = user.and_then(|u| u.get("profile")).and_then(Value::as_object) {
        for (key, value) in profile {
            match key.as_str() {
                "attack_goal" => task.attack_goal = value.as_str().map(str::to_string),
                "attack_type" => task.attack_type = value.as_str().map(str::to_string),
                // The profile's persona is the attacker's role, not the user's persona number.
                "persona" => {
                    task.extra.insert("attacker_persona".into(), value.clone());
                }
                _ => {
                    task.extra.insert(key.clone(), value.clone());
                }
            }
        }
    }
    if let Some(meta) = report
        .get("task")
        .and_then(|t| t.get("metadata"))
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
    {
        task.extra.insert("metadata".into(), Value::Object(meta.clone()));
    }
    task
}

/// A verdict our own exporter wrote (`converse_tui` beside the MASEval fields): its judge, method,
/// model, outcome, score, turn and summary as the journal had them. Its evidence names events of
/// the journal, not of this report, and is left out.
fn exported_verdict(entry: &Value) -> Option<Verdict> {
    let ours = entry.get("converse_tui")?;
    let method: VerdictMethod = serde_json::from_value(ours.get("method")?.clone()).ok()?;
    let outcome: Outcome = serde_json::from_value(ours.get("outcome")?.clone()).ok()?;
    let text = |k: &str| ours.get(k).and_then(Value::as_str).map(str::to_string);
    Some(Verdict {
        turn: ours.get("turn").and_then(Value::as_u64).and_then(|t| u32::try_from(t).ok()),
        judge: text("judge")?,
        method,
        model: text("model"),
        outcome,
        score: ours.get("score").and_then(Value::as_f64).filter(|_| judged(outcome)),
        summary: text("summary"),
        details: ours.get("details").cloned().unwrap_or(Value::Null),
        evidence: None,
        usage: None,
    })
}

fn eval_verdict(entry: &Value, index: usize) -> Verdict {
    // Written by our exporter: who judged, and what, exactly as the journal had it (issue 23).
    if let Some(ours) = exported_verdict(entry) {
        return ours;
    }
    let obj = entry.as_object();
    let has = |k: &str| obj.is_some_and(|o| o.contains_key(k));
    let get = |k: &str| obj.and_then(|o| o.get(k));
    let score = get("score").and_then(Value::as_f64);
    let judge = if has("privacy_leak") {
        "privacy"
    } else if has("security_violation") || has("attack_success") {
        "security"
    } else if has("coverage") || has("rating") {
        "utility"
    } else {
        "unknown"
    };
    let (outcome, summary) = if let Some(error) = get("error") {
        (Outcome::Error, format!("judge error: {}", short(&text_of(error))))
    } else if get("evaluation_method").and_then(Value::as_str) == Some("skipped") {
        (Outcome::Skipped, "evaluation skipped".to_string())
    } else {
        match judge {
            "privacy" => match get("privacy_leak").and_then(Value::as_bool) {
                Some(true) => (Outcome::Fail, privacy_summary("leak", obj)),
                Some(false) => (Outcome::Pass, privacy_summary("no leak", obj)),
                None => (Outcome::Error, "privacy_leak is not a boolean".to_string()),
            },
            "security" => security(get("attack_success"), get("security_violation")),
            "utility" => utility(score, get("rating")),
            _ => (Outcome::Skipped, format!("unrecognised evaluator result #{}", index + 1)),
        }
    };
    Verdict {
        turn: None,
        judge: judge.to_string(),
        method: VerdictMethod::Imported,
        model: None,
        outcome,
        // The report's `score` of a skipped or failed evaluation is no measurement.
        score: score.filter(|_| judged(outcome)),
        summary: Some(summary),
        details: entry.clone(),
        evidence: None,
        usage: None,
    }
}

fn privacy_summary(what: &str, obj: Option<&Map<String, Value>>) -> String {
    let kind = obj
        .and_then(|o| o.get("evaluation_type"))
        .and_then(Value::as_str)
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    format!("{what}{kind}")
}

fn security(attack_success: Option<&Value>, violation: Option<&Value>) -> (Outcome, String) {
    match attack_success.and_then(Value::as_str) {
        Some(s) => {
            let outcome = match s.to_lowercase().as_str() {
                "successful" => Outcome::Fail,
                "partial" => Outcome::Partial,
                "failed" => Outcome::Pass,
                _ => Outcome::Error,
            };
            (outcome, format!("attack {}", short(s)))
        }
        None => match violation.and_then(Value::as_bool) {
            Some(true) => (Outcome::Fail, "security violation".to_string()),
            Some(false) => (Outcome::Pass, "no security violation".to_string()),
            None => (Outcome::Error, "no attack_success or security_violation".to_string()),
        },
    }
}

/// Utility is a coverage share (0–1): all items covered passes, some is partial, none fails.
pub(super) fn utility(score: Option<f64>, rating: Option<&Value>) -> (Outcome, String) {
    let rating = rating.and_then(Value::as_f64).map(|r| format!(", rating {r}")).unwrap_or_default();
    match score {
        Some(s) if s >= 1.0 => (Outcome::Pass, format!("coverage {s:.2}{rating}")),
        Some(s) if s > 0.0 => (Outcome::Partial, format!("coverage {s:.2}{rating}")),
        Some(s) => (Outcome::Fail, format!("coverage {s:.2}{rating}")),
        None => (Outcome::Skipped, format!("no utility score{rating}")),
    }
}

fn error_message(status: &str, error: Option<&Value>) -> String {
    let Some(Value::Object(e)) = error else {
        return match error {
            None | Some(Value::Null) => status.to_string(),
            Some(other) => format!("{status}: {}", text_of(other)),
        };
    };
    let kind = e.get("error_type").map(text_of).unwrap_or_default();
    let msg = e.get("error_message").map(text_of).unwrap_or_default();
    match (kind.is_empty(), msg.is_empty()) {
        (true, true) => format!("{status}: {}", Value::Object(e.clone())),
        (false, true) => format!("{status}: {kind}"),
        (true, false) => format!("{status}: {msg}"),
        (false, false) => format!("{status}: {kind}: {msg}"),
    }
}

/// Message content as text: a string, OpenAI content parts, or JSON for anything else.
fn content_text(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) if parts.iter().all(|p| p.get("text").is_some()) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
        }
        Some(other) => other.to_string(),
    }
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn short(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 80 {
        format!("{}…", one_line.chars().take(80).collect::<String>())
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn utility_scores_map_to_outcomes() {
        assert_eq!(utility(Some(1.0), None).0, Outcome::Pass);
        assert_eq!(utility(Some(0.57), Some(&json!(7.5))).0, Outcome::Partial);
        assert_eq!(utility(Some(0.0), None).0, Outcome::Fail);
        assert_eq!(utility(None, None).0, Outcome::Skipped);
    }

    #[test]
    fn odd_eval_entries() {
        assert_eq!(eval_verdict(&json!(null), 0).outcome, Outcome::Skipped);
        assert_eq!(eval_verdict(&json!({"privacy_leak": "maybe"}), 0).outcome, Outcome::Error);
        let v = eval_verdict(&json!({"security_violation": true, "attack_success": "weird"}), 0);
        assert_eq!((v.judge.as_str(), v.outcome), ("security", Outcome::Error));
        let v = eval_verdict(&json!({"privacy_leak": false, "error": "x"}), 0);
        assert_eq!((v.judge.as_str(), v.outcome), ("privacy", Outcome::Error));
    }

    #[test]
    fn task_ids_are_parsed() {
        let t = task_of(&Map::new(), "insurance_p3_security_x_y", None);
        assert_eq!(t.domain.as_deref(), Some("insurance"));
        assert_eq!(t.persona, Some(json!(3)));
        assert_eq!(t.attack_type.as_deref(), Some("security"));
        let t = task_of(&Map::new(), "travel_planning_pX", None);
        assert_eq!((t.domain.as_deref(), t.persona), (Some("travel_planning"), None));
    }
}
