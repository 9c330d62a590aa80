//! How a sample ran, as Inspect logged it: its error (with its traceback), the errors it was
//! retried after, the limit that stopped it, its store, its times and Inspect's own counts. Kept in
//! the episode's header as `config.inspect_sample` (shown by the detail view and `dump --json`),
//! and read into the episode's end: `error` for an errored sample (kept out of rates, as every
//! errored episode), `limit` for one a limit stopped, `assistant_done` otherwise.

use serde_json::{Map, Value, json};

use super::schema::{Sample, SampleSummary};
use crate::core::episode::{End, EndReason, ErrorEvent, EventBody};

/// What a sample's episode ends with: its error, if any, then its end after `turns` turns.
pub struct Ending {
    pub facts: Map<String, Value>,
    error: Option<String>,
    limited: bool,
}

impl Ending {
    pub fn of_sample(sample: &Sample) -> Self {
        let mut facts = Map::new();
        put(&mut facts, "uuid", sample.uuid.clone().map(Value::from));
        times(
            &mut facts,
            (&sample.started_at, &sample.completed_at),
            (sample.total_time, sample.working_time),
        );
        put(&mut facts, "turn_count", sample.turn_count.map(Value::from));
        if !sample.store.is_empty() {
            facts.insert("store".into(), Value::Object(sample.store.clone()));
        }
        let error = sample.error.as_ref().filter(|e| !e.is_null());
        if let Some(error) = error {
            facts.insert("error".into(), error_of(error));
        }
        if let Some(Value::Array(retries)) = &sample.error_retries
            && !retries.is_empty()
        {
            facts.insert("retries".into(), Value::from(retries.len()));
            facts.insert("retried_after".into(), Value::Array(retries.iter().map(error_of).collect()));
        }
        let limit = sample.limit.as_ref().filter(|l| !l.is_null());
        if let Some(limit) = limit {
            facts.insert("limit".into(), limit.clone());
        }
        Ending { facts, error: error.map(message_of), limited: limit.is_some() }
    }

    pub fn of_summary(summary: &SampleSummary) -> Self {
        let mut facts = Map::new();
        put(&mut facts, "uuid", summary.uuid.clone().map(Value::from));
        times(
            &mut facts,
            (&summary.started_at, &summary.completed_at),
            (summary.total_time, summary.working_time),
        );
        put(&mut facts, "turn_count", summary.turn_count.map(Value::from));
        put(&mut facts, "message_count", summary.message_count.map(Value::from));
        let error = summary.error.as_ref().filter(|e| !e.is_null()).map(message_of);
        if let Some(message) = &error {
            facts.insert("error".into(), json!({"message": message}));
        }
        put(&mut facts, "retries", summary.retries.filter(|r| *r > 0).map(Value::from));
        if let Some(kind) = &summary.limit {
            facts.insert("limit".into(), json!({"type": kind, "reason": summary.limit_reason}));
        }
        Ending { facts, error, limited: summary.limit.is_some() }
    }

    /// The events the sample ends with.
    pub fn events(&self, turns: u32) -> Vec<EventBody> {
        let mut bodies = Vec::new();
        if let Some(message) = &self.error {
            bodies.push(EventBody::Error(ErrorEvent {
                source: "inspect".into(),
                message: message.clone(),
                turn: None,
            }));
        }
        let reason = match (&self.error, self.limited) {
            (Some(_), _) => EndReason::Error,
            (None, true) => EndReason::Limit,
            (None, false) => EndReason::AssistantDone,
        };
        bodies.push(EventBody::End(End { reason, turns }));
        bodies
    }
}

fn put(facts: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        facts.insert(key.into(), value);
    }
}

fn times(
    facts: &mut Map<String, Value>,
    (started, completed): (&Option<String>, &Option<String>),
    (total, working): (Option<f64>, Option<f64>),
) {
    put(facts, "started_at", started.clone().map(Value::from));
    put(facts, "completed_at", completed.clone().map(Value::from));
    put(facts, "total_time", total.map(Value::from));
    put(facts, "working_time", working.map(Value::from));
}

/// An error's message (Inspect's `EvalError` has one; a summary's error is the message itself).
fn message_of(error: &Value) -> String {
    match error {
        Value::String(message) => message.clone(),
        other => {
            other.get("message").and_then(Value::as_str).map_or_else(|| other.to_string(), str::to_string)
        }
    }
}

/// An error as the header keeps it: its message and traceback.
fn error_of(error: &Value) -> Value {
    let mut kept = json!({"message": message_of(error)});
    if let Some(traceback) = error.get("traceback").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        kept["traceback"] = Value::from(traceback);
    }
    kept
}
