//! MASEval reports (converse-reference.md §5), one per episode.
//!
//! The transcript is rebuilt in MASEval's two views (§2.5): the assistant's
//! (`traces.agents.default_converse_agent.messages`, what our importer reads)
//! and the attacker's (`traces.user.messages`, roles swapped). What MASEval
//! has no place for (per-turn verdicts, control events, non-fatal errors, raw
//! outputs) goes under `traces.other.converse_tui` so nothing is dropped.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::annotation::AnnotationView;
use crate::core::episode::{
    EndReason, Episode, ErrorEvent, EventBody, Judge, Outcome, Party, ToolCall, Verdict, VerdictMethod,
};

/// MASEval's name for the assistant agent and its model registrations (§2.3, §2.4).
const AGENT: &str = "default_converse_agent";
const AGENT_MODEL: &str = "default_converse_agent_model";
const ATTACKER_MODEL: &str = "converse_external_agent_model";
/// The fields of a MASEval evaluator dict that say which evaluator wrote it (§4).
const EVAL_KEYS: &[&str] = &["privacy_leak", "security_violation", "attack_success", "coverage", "rating"];
const STATUSES: &[&str] = &[
    "success",
    "agent_error",
    "environment_error",
    "user_error",
    "task_timeout",
    "unknown_execution_error",
    "evaluation_failed",
    "setup_failed",
];

/// The episode as one MASEval report line (no trailing newline).
pub fn to_maseval_line(episode: &Episode) -> String {
    to_maseval_line_with(episode, &[])
}

/// [`to_maseval_line`] with reviewers' annotations in an `annotations` list
/// (a key of ours; MASEval readers ignore it).
pub fn to_maseval_line_with(episode: &Episode, annotations: &[AnnotationView]) -> String {
    let mut report = to_maseval(episode);
    if !annotations.is_empty() {
        let notes: Vec<Value> = annotations
            .iter()
            .map(|a| {
                json!({"target_seq": a.target_seq, "label": a.label, "note": a.note,
                            "author": a.author, "quote": a.quote})
            })
            .collect();
        report["annotations"] = Value::Array(notes);
    }
    // A `Value` always serialises.
    crate::core::safe_json::to_string(&report).unwrap_or_default()
}

/// The episode as one MASEval report object.
pub fn to_maseval(episode: &Episode) -> Value {
    let header = episode.header();
    let task = &header.task;
    let started = episode.events[0].at.clone();
    let (id_base, id_repeat) = split_repeat(&header.id);
    let task_id = task.id.clone().unwrap_or_else(|| id_base.to_string());
    let repeat_idx =
        id_repeat.or_else(|| header.config.extra.get("repeat_idx").and_then(Value::as_u64)).unwrap_or(0);
    let model_of = |role: &str| header.config.models.get(role).map(super::common::value_text);

    let transcript = Transcript::build(episode);
    let (status, error) = status_of(episode);

    let mut models = Map::new();
    let mut register = |name: String, id: Option<String>, calls: u64| {
        if let Some(id) = id {
            models.insert(
                name.clone(),
                json!({"type": "ModelAdapter", "gathered_at": started, "model_id": id, "total_calls": calls,
                       "successful_calls": calls, "failed_calls": 0, "logs": [], "name": name}),
            );
        }
    };
    register(ATTACKER_MODEL.to_string(), model_of("attacker"), transcript.attacker_calls);
    register(AGENT_MODEL.to_string(), model_of("assistant"), transcript.assistant_calls);
    // Judge models: the imported per-evaluator names when known, else one per LLM judge.
    match header.config.extra.get("judge_models").and_then(Value::as_object) {
        Some(judges) => {
            for (name, id) in judges {
                register(name.clone(), Some(super::common::value_text(id)), 0);
            }
        }
        None => {
            let mut judges: Vec<&str> = super::common::verdicts(episode)
                .filter(|(_, v)| v.method == VerdictMethod::Llm)
                .map(|(_, v)| v.judge.as_str())
                .collect();
            judges.sort_unstable();
            judges.dedup();
            for judge in judges {
                register(format!("{judge}_judge_model"), model_of("judge"), 0);
            }
        }
    }
    for (role, id) in &header.config.models {
        if !matches!(role.as_str(), "attacker" | "assistant" | "judge") {
            register(role.clone(), Some(super::common::value_text(id)), 0);
        }
    }

    let profile = json!({
        "persona": task.extra.get("attacker_persona").cloned().unwrap_or_else(|| json!("Service Provider")),
        "attack_goal": task.attack_goal.clone().unwrap_or_else(|| "None".to_string()),
        "attack_strategy": task.extra.get("attack_strategy").cloned().unwrap_or_else(|| json!("")),
        "attack_rationale": task.extra.get("attack_rationale").cloned().unwrap_or_else(|| json!("")),
    });
    let turns_used = episode.turns();
    let max_turns = header.config.max_turns;
    let user = json!({
        "type": "ConverseExternalAgent", "gathered_at": started, "name": "ExternalAgent",
        "profile": profile, "message_count": transcript.attacker_view.len(),
        "messages": transcript.attacker_view, "logs": [],
        "termination_reason": termination(episode), "stop_reason": null,
        "max_turns": max_turns, "turns_used": turns_used, "stopped_by_user": false,
    });
    let agent = json!({
        "type": "DefaultConverseAgentAdapter", "gathered_at": started, "name": AGENT,
        "agent_type": "DefaultConverseAgent", "message_count": transcript.assistant_view.len(),
        "messages": transcript.assistant_view, "callbacks": [], "logs": [],
    });
    let environment = json!({
        "type": "ConverseEnvironment", "gathered_at": started, "name": "env",
        "tool_count": transcript.tools.len(), "tools": transcript.tools,
    });
    let total_components = models.len() + 3;
    let traces = json!({
        "metadata": {"timestamp": started, "thread_id": 0, "total_components": total_components},
        "agents": {AGENT: agent},
        "models": models,
        "tools": {}, "simulators": {}, "callbacks": {},
        "other": {"converse_tui": transcript.extras(episode)},
        "environment": environment,
        "user": user,
    });

    let config = json!({
        "agents": {AGENT: {"name": AGENT, "max_tool_calls": header.config.max_tool_calls}},
        "user": {"name": "ExternalAgent", "profile": profile_copy(&traces), "scenario": null,
                 "max_turns": max_turns, "stop_tokens": [], "exhausted_response": null},
        "seeding": {"seed_generator": {"type": "SeedGenerator", "global_seed": header.config.seed,
                    "task_id": task_id, "rep_index": repeat_idx, "seeds": {}, "name": "seed_generator"}},
        "benchmark": {"converse_tui": {"version": env!("CARGO_PKG_VERSION"), "episode": header.id}},
    });

    let mut metadata = Map::new();
    for (key, value) in [
        ("domain", task.domain.clone().map(Value::String)),
        ("persona", task.persona.clone()),
        ("attack_type", task.attack_type.clone().map(Value::String)),
        ("category", task.category.clone().map(Value::String)),
        ("data_item", task.data_item.clone().map(Value::String)),
    ] {
        if let Some(v) = value {
            metadata.insert(key.to_string(), v);
        }
    }
    let query = task.user_task.clone().or_else(|| transcript.first_query.clone()).unwrap_or_default();

    json!({
        "task_id": task_id,
        "repeat_idx": repeat_idx,
        "status": status,
        "error": error,
        "traces": traces,
        "config": config,
        "usage": usage(episode, &header.config.models),
        // MASEval gives no evaluation for a failed run (§5).
        "eval": if status == "success" { Value::Array(eval(episode)) } else { Value::Null },
        "task": {
            "query": query,
            "metadata": metadata,
            "protocol": {"timeout_seconds": 600, "timeout_action": "skip", "max_retries": 0, "priority": 0, "tags": {}},
        },
    })
}

fn profile_copy(traces: &Value) -> Value {
    traces.get("user").and_then(|u| u.get("profile")).cloned().unwrap_or(Value::Null)
}

/// `task#3` → (`task`, Some(3)); ids without a numeric `#k` stay whole.
fn split_repeat(id: &str) -> (&str, Option<u64>) {
    match id.rsplit_once('#') {
        Some((base, k)) if !base.is_empty() => match k.parse::<u64>() {
            Ok(k) => (base, Some(k)),
            Err(_) => (id, None),
        },
        _ => (id, None),
    }
}

/// The conversation in MASEval's shapes, built in one pass over the events.
#[derive(Default)]
struct Transcript {
    assistant_view: Vec<Value>,
    attacker_view: Vec<Value>,
    tools: Map<String, Value>,
    first_query: Option<String>,
    attacker_calls: u64,
    assistant_calls: u64,
    /// Index in `assistant_view` of the assistant message still collecting consecutive calls.
    open_calls: Option<usize>,
    /// Assistant text meant for the user, waiting for the tool calls it came with.
    note: Option<(String, String)>,
    /// What MASEval has no field for, by kind.
    dropped: Vec<Value>,
}

impl Transcript {
    fn build(episode: &Episode) -> Transcript {
        let mut t = Transcript::default();
        for event in &episode.events {
            let at = event.at.as_str();
            match &event.body {
                EventBody::Message(m) if m.to == Party::Assistant && !m.is_note() => {
                    t.flush_note();
                    let first = t.first_query.is_none();
                    if first {
                        t.first_query = Some(m.text.clone());
                        // The task query is the attacker view's first line and has no timestamp (§2.5).
                        t.attacker_view.push(json!({"role": "user", "content": m.text}));
                    } else {
                        t.attacker_calls += 1;
                        t.attacker_view.push(json!({"role": "user", "content": m.text, "timestamp": at}));
                    }
                    t.push(json!({"role": "user", "content": m.text, "timestamp": at}));
                }
                EventBody::Message(m) if m.from == Party::Assistant && m.to != Party::Attacker => {
                    // Text beside tool calls: MASEval keeps it as the content of the call message.
                    t.flush_note();
                    t.note = Some((m.text.clone(), at.to_string()));
                }
                EventBody::Message(m) if m.from == Party::Assistant => {
                    t.flush_note();
                    t.assistant_calls += 1;
                    t.attacker_view.push(json!({"role": "assistant", "content": m.text, "timestamp": at}));
                    t.push(json!({"role": "assistant", "content": m.text, "timestamp": at}));
                }
                EventBody::Message(_) => t.dropped.push(json!(event)),
                EventBody::ToolCall(call) => t.call(call, at),
                EventBody::ToolResult(r) => {
                    t.flush_note();
                    t.push(json!({"role": "tool", "tool_call_id": r.call_id, "content": r.output, "timestamp": at}));
                    t.invocation_result(&r.tool, &r.call_id, &r.output, r.ok);
                }
                _ => {}
            }
        }
        t.flush_note();
        if let Some(text) =
            episode.header().task.extra.get("undelivered_attacker_message").and_then(Value::as_str)
        {
            t.attacker_calls += 1;
            t.attacker_view.push(json!({"role": "user", "content": text}));
        }
        t
    }

    fn push(&mut self, message: Value) {
        self.open_calls = None;
        self.assistant_view.push(message);
    }

    fn flush_note(&mut self) {
        if let Some((text, at)) = self.note.take() {
            // No call followed: a plain assistant message is the closest MASEval has.
            self.assistant_calls += 1;
            self.push(json!({"role": "assistant", "content": text, "timestamp": at}));
        }
    }

    fn call(&mut self, call: &ToolCall, at: &str) {
        let arguments = call.raw_args.clone().unwrap_or_else(|| call.args.to_string());
        let entry = json!({"id": call.call_id, "type": "function",
                           "function": {"name": call.tool, "arguments": arguments}});
        let open = self.open_calls.and_then(|i| self.assistant_view.get_mut(i));
        match open.and_then(|m| m.get_mut("tool_calls")).and_then(Value::as_array_mut) {
            Some(calls) => calls.push(entry),
            None => {
                let (content, at) = self.note.take().unwrap_or_else(|| (String::new(), at.to_string()));
                self.assistant_calls += 1;
                self.push(
                    json!({"role": "assistant", "content": content, "timestamp": at, "tool_calls": [entry]}),
                );
                self.open_calls = Some(self.assistant_view.len() - 1);
            }
        }
        let kwargs = if call.args.is_object() { call.args.clone() } else { json!({}) };
        let tool = self.tools.entry(call.tool.clone()).or_insert_with(
            || json!({"type": "ConverseFunctionTool", "name": call.tool, "total_invocations": 0, "invocations": []}),
        );
        if let Some(list) = tool.get_mut("invocations").and_then(Value::as_array_mut) {
            list.push(json!({"id": call.call_id, "inputs": {"args": [], "kwargs": kwargs}, "outputs": null,
                             "status": "pending", "timestamp": at, "meta": {}}));
            let n = list.len();
            tool["total_invocations"] = json!(n);
        }
    }

    fn invocation_result(&mut self, tool: &str, call_id: &str, output: &str, ok: bool) {
        let Some(list) =
            self.tools.get_mut(tool).and_then(|t| t.get_mut("invocations")).and_then(Value::as_array_mut)
        else {
            return;
        };
        if let Some(inv) =
            list.iter_mut().rev().find(|i| i.get("id").and_then(Value::as_str) == Some(call_id))
        {
            inv["outputs"] = json!(output);
            inv["status"] = json!(if ok { "success" } else { "error" });
        }
    }

    /// Our events MASEval has no field for, kept so an export loses nothing.
    fn extras(&self, episode: &Episode) -> Value {
        let mut turn_verdicts = Vec::new();
        let mut controls = Vec::new();
        let mut errors = Vec::new();
        let mut raw = Vec::new();
        let mut end = Value::Null;
        for event in &episode.events {
            match &event.body {
                EventBody::Verdict(v) if v.turn.is_some() => turn_verdicts.push(json!(event)),
                EventBody::Control(_) => controls.push(json!(event)),
                EventBody::Error(_) => errors.push(json!(event)),
                EventBody::End(_) => end = json!(event),
                EventBody::Message(m) if m.raw.is_some() => {
                    raw.push(json!({"seq": event.seq, "turn": m.turn, "from": m.from, "raw": m.raw}))
                }
                _ => {}
            }
        }
        json!({"episode": episode.header(), "turn_verdicts": turn_verdicts, "controls": controls,
               "errors": errors, "raw_outputs": raw, "end": end, "other_messages": self.dropped})
    }
}

/// MASEval status and error object: success unless the episode ended in an error.
fn status_of(episode: &Episode) -> (&'static str, Value) {
    let mut last_error: Option<&ErrorEvent> = None;
    let mut end = None;
    for event in &episode.events {
        match &event.body {
            EventBody::Error(e) => last_error = Some(e),
            EventBody::End(e) => end = Some(e.reason),
            _ => {}
        }
    }
    // A recovered error (end not `error`) did not stop the run; a missing end with an error did.
    let failed = end == Some(EndReason::Error) || (end.is_none() && last_error.is_some());
    if !failed {
        return ("success", Value::Null);
    }
    let Some(error) = last_error else {
        return (
            "unknown_execution_error",
            json!({"error_type": "Error", "error_message": "episode ended in error", "traceback": null}),
        );
    };
    let status = status_for(error);
    let (component, kind) = match status {
        "agent_error" => (Some("agent"), "AgentError"),
        "environment_error" => (Some("environment"), "EnvironmentError"),
        "user_error" => (Some("user"), "UserError"),
        _ => (None, "Exception"),
    };
    let mut obj = json!({"error_type": kind, "error_message": error.message, "traceback": null});
    if let Some(component) = component {
        obj["component"] = json!(component);
        obj["details"] = json!({"source": error.source});
    }
    (status, obj)
}

/// The MASEval status for an error, from its source (§2.6).
fn status_for(error: &ErrorEvent) -> &'static str {
    // Imported reports keep their status as the message prefix (`user_error: …`).
    if let Some(known) = STATUSES.iter().find(|s| {
        error.message.strip_prefix(**s).is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
    }) && *known != "success"
    {
        return known;
    }
    match error.source.to_ascii_lowercase().as_str() {
        "assistant" | "agent" => "agent_error",
        "environment" | "tool" | "tools" => "environment_error",
        "attacker" | "user" | "external_agent" => "user_error",
        "judge" | "evaluator" => "evaluation_failed",
        _ => "unknown_execution_error",
    }
}

fn termination(episode: &Episode) -> &'static str {
    let reason = episode.events.iter().rev().find_map(|e| match &e.body {
        EventBody::End(end) => Some(end.reason),
        _ => None,
    });
    match reason {
        Some(EndReason::MaxTurns) => "max_turns",
        Some(EndReason::AttackerDone) => "user_terminated",
        _ => "not_terminated",
    }
}

/// Token sums per role from message usage, in MASEval's usage layout.
fn usage(episode: &Episode, models: &Map<String, Value>) -> Value {
    let mut sums: BTreeMap<&'static str, (u64, u64)> = BTreeMap::new();
    for event in &episode.events {
        if let EventBody::Message(m) = &event.body {
            let Some(u) = m.usage else { continue };
            let name = match m.from {
                Party::Assistant => AGENT_MODEL,
                Party::Attacker => ATTACKER_MODEL,
                _ => continue,
            };
            let entry = sums.entry(name).or_default();
            entry.0 += u.input_tokens;
            entry.1 += u.output_tokens;
        }
    }
    let mut out = Map::new();
    for (name, (input, output)) in sums {
        let role = if name == AGENT_MODEL { "assistant" } else { "attacker" };
        let provider = models.get(role).map(super::common::value_text);
        out.insert(
            name.to_string(),
            json!({"cost": 0.0, "units": {}, "provider": provider, "category": "models", "component_name": name,
                   "kind": "llm", "input_tokens": input, "output_tokens": output, "total_tokens": input + output,
                   "cached_input_tokens": 0, "cache_creation_input_tokens": 0, "reasoning_tokens": 0,
                   "audio_tokens": 0}),
        );
    }
    json!({"models": out, "user": null, "environment": null})
}

/// The verdicts MASEval's `eval` list holds: every whole-episode verdict, and for a verdict
/// source (judge, method, model) that has none, its latest per-turn verdict — so a rule judge's
/// verdicts travel beside an LLM judge's (issue 23). (Per-turn verdicts would skew robustness,
/// which counts eval dicts; they are kept in `traces.other`.)
fn eval(episode: &Episode) -> Vec<Value> {
    let all: Vec<&Verdict> = super::common::verdicts(episode).map(|(_, v)| v).collect();
    let source = |v: &Verdict| (v.judge.clone(), v.method, v.model.clone());
    let mut chosen: Vec<&Verdict> = all.iter().copied().filter(|v| v.turn.is_none()).collect();
    let mut sources_done: Vec<_> = chosen.iter().map(|v| source(v)).collect();
    for v in all.iter().rev() {
        if !sources_done.contains(&source(v)) {
            sources_done.push(source(v));
            chosen.push(v);
        }
    }
    chosen.into_iter().map(eval_dict).collect()
}

/// One verdict as a MASEval evaluator dict, with our own fields beside it.
fn eval_dict(v: &Verdict) -> Value {
    let mut dict = match &v.details {
        Value::Object(d) if EVAL_KEYS.iter().any(|k| d.contains_key(*k)) => d.clone(),
        _ => built(v),
    };
    dict.insert(
        "converse_tui".to_string(),
        json!({"judge": v.judge, "method": v.method, "model": v.model, "outcome": v.outcome, "turn": v.turn,
               "score": v.score, "summary": v.summary, "evidence": v.evidence, "details": v.details}),
    );
    Value::Object(dict)
}

/// MASEval fields for a verdict whose details do not carry them (§4.1–4.3).
fn built(v: &Verdict) -> Map<String, Value> {
    let method = match v.method {
        VerdictMethod::Llm => "llm",
        _ => v.method.as_str(),
    };
    let harmed = matches!(v.outcome, Outcome::Fail | Outcome::Partial);
    let default_score = match v.outcome {
        Outcome::Pass => 1.0,
        Outcome::Partial => 0.5,
        _ => 0.0,
    };
    let score = v.score.unwrap_or(default_score);
    let mut d = match (v.outcome, &v.judge) {
        (Outcome::Error, _) => {
            json!({"error": v.summary.clone().unwrap_or_else(|| "judge error".to_string())})
        }
        (_, Judge::Privacy) => json!({"privacy_leak": harmed, "score": score}),
        (_, Judge::Security) => {
            let success = match v.outcome {
                Outcome::Fail => "Successful",
                Outcome::Partial => "Partial",
                _ => "Failed",
            };
            json!({"security_violation": harmed, "attack_success": success, "score": score})
        }
        (_, Judge::Utility) => json!({"coverage": {}, "rating": 0, "score": score}),
        (_, Judge::Other(judge)) => json!({"judge": judge, "outcome": v.outcome, "score": score}),
    };
    d["evaluation_method"] = json!(if v.outcome == Outcome::Skipped { "skipped" } else { method });
    if let Some(summary) = &v.summary {
        d["reason"] = json!(summary);
    }
    match d {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_index_comes_from_the_id() {
        assert_eq!(split_repeat("task_x#2"), ("task_x", Some(2)));
        assert_eq!(split_repeat("task_x"), ("task_x", None));
        assert_eq!(split_repeat("a#b"), ("a#b", None));
        assert_eq!(split_repeat("#3"), ("#3", None));
    }

    #[test]
    fn error_sources_map_to_statuses() {
        let e = |source: &str, message: &str| ErrorEvent {
            source: source.into(),
            message: message.into(),
            turn: None,
        };
        assert_eq!(status_for(&e("attacker", "bad json")), "user_error");
        assert_eq!(status_for(&e("assistant", "boom")), "agent_error");
        assert_eq!(status_for(&e("maseval", "task_timeout: slow")), "task_timeout");
        assert_eq!(status_for(&e("runner", "success story")), "unknown_execution_error");
    }

    #[test]
    fn verdicts_without_maseval_fields_are_built() {
        let v = Verdict {
            turn: None,
            judge: "security".into(),
            method: VerdictMethod::Human,
            model: None,
            outcome: Outcome::Partial,
            score: None,
            summary: Some("half".into()),
            details: Value::Null,
            evidence: None,
            usage: None,
        };
        let d = eval_dict(&v);
        assert_eq!(d["security_violation"], json!(true));
        assert_eq!(d["attack_success"], json!("Partial"));
        assert_eq!(d["converse_tui"]["outcome"], json!("partial"));
    }
}
