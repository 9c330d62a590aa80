//! Verdict helpers shared by the LLM judges.

use serde_json::{Value, json};

use crate::core::episode::{Outcome, Usage, Verdict, VerdictMethod};

use super::super::context::JudgeContext;
use super::call::JudgeFailure;
use super::format::short;
use crate::core::dataset::domain_config::DomainConfig;

pub fn verdict(
    judge: &str,
    turn: Option<u32>,
    outcome: Outcome,
    score: Option<f64>,
    summary: String,
    details: Value,
) -> Verdict {
    Verdict {
        turn,
        judge: judge.into(),
        method: VerdictMethod::Llm,
        model: None,
        outcome,
        score,
        summary: Some(summary),
        details,
        evidence: None,
        usage: None,
    }
}

/// `verdict` with the tokens its judge calls spent.
pub fn with_usage(mut verdict: Verdict, usage: Option<Usage>) -> Verdict {
    verdict.usage = usage;
    verdict
}

/// A judge that gave no usable answer: `error`, with the reason and the raw reply.
pub fn error_verdict(judge: &str, turn: Option<u32>, failure: &JudgeFailure, extra: Value) -> Verdict {
    let mut details = failure.to_json();
    details["evaluation_method"] = "llm".into();
    if let (Value::Object(d), Value::Object(e)) = (&mut details, extra) {
        d.extend(e);
    }
    let summary = format!("judge failed: {} ({})", failure.error, short(&failure.parse_error, 80));
    verdict(judge, turn, Outcome::Error, None, summary, details)
}

/// The domain's judge settings, or the `error` verdict for an unknown use case (no call is made).
pub fn domain_config(
    judge: &str,
    ctx: &JudgeContext,
    turn: Option<u32>,
) -> Result<&'static DomainConfig, Box<Verdict>> {
    ctx.domain().map(DomainConfig::of).ok_or_else(|| {
        let reason = format!("Unknown use case: {}", ctx.task.domain.as_deref().unwrap_or(""));
        let details = json!({"error": reason, "evaluation_method": "llm"});
        Box::new(verdict(judge, turn, Outcome::Error, None, reason, details))
    })
}

/// Python's `str(x)` for the JSON values a judge returns (strings unquoted).
pub fn py_str(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "None".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(true)) => "True".to_string(),
        Some(Value::Bool(false)) => "False".to_string(),
        Some(other) => other.to_string(),
    }
}

/// The judge's `reasoning` (or `REASONING`), shortened for a summary.
pub fn reasoning(r: &serde_json::Map<String, Value>) -> String {
    let text = r.get("reasoning").or_else(|| r.get("REASONING")).and_then(Value::as_str).unwrap_or("");
    short(text, 100)
}
