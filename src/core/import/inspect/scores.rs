//! Inspect scores as verdicts: each scorer one `imported` verdict source.
//!
//! The value is read as Inspect's own `value_to_float` reads it: `C` (correct) 1, `P` (partial)
//! 0.5, `I` (incorrect) and `N` (no answer) 0, booleans, `yes`/`no`, numbers. 1 is a pass, 0 a fail,
//! anything between partial. A value on no 0–1 scale (a 1–10 rating, a dict of dimensions) says
//! nothing of pass or fail: the verdict is `skipped`, with no score, and the value kept in its
//! details — never counted as a pass.

use serde_json::{Map, Value};

use super::schema::Score;
use super::text::Attachments;
use crate::core::episode::{Outcome, Verdict, VerdictMethod};

/// One verdict per scorer, in the log's order; `ours`: the log is one converse-tui wrote, whose
/// scores keep their verdicts in their metadata.
pub fn verdicts(scores: Option<&Map<String, Value>>, attachments: &Attachments, ours: bool) -> Vec<Verdict> {
    let Some(scores) = scores else { return Vec::new() };
    scores
        .iter()
        .map(|(scorer, raw)| {
            let written = if ours { as_written(scorer, raw) } else { None };
            written.unwrap_or_else(|| verdict(scorer, raw, attachments))
        })
        .collect()
}

/// The verdict a score converse-tui wrote stands for, as it was: the value alone cannot say it (`N`
/// stands for a verdict not reached, error or skipped, which Inspect counts as 0).
fn as_written(scorer: &str, raw: &Value) -> Option<Verdict> {
    let meta = raw.get("metadata")?;
    let outcome: Outcome = serde_json::from_value(meta.get("outcome")?.clone()).ok()?;
    let source = meta.get("source")?.as_str()?;
    let (method, model) = match source.split_once(':') {
        Some((method, model)) => (method, Some(model.to_string())),
        None => (source, None),
    };
    let method: VerdictMethod = serde_json::from_value(Value::String(method.to_string())).ok()?;
    // `judge (source)` when a judge had several sources.
    let judge = scorer.strip_suffix(&format!(" ({source})")).unwrap_or(scorer);
    Some(Verdict {
        turn: meta.get("turn").and_then(Value::as_u64).and_then(|t| u32::try_from(t).ok()),
        judge: judge.into(),
        method,
        model,
        outcome,
        score: meta.get("score").and_then(Value::as_f64),
        summary: raw.get("explanation").and_then(Value::as_str).map(str::to_string),
        details: meta.get("details").cloned().unwrap_or(Value::Null),
        evidence: meta.get("evidence").and_then(|e| serde_json::from_value(e.clone()).ok()),
        usage: None,
    })
}

fn verdict(scorer: &str, raw: &Value, attachments: &Attachments) -> Verdict {
    let base = Verdict {
        turn: None,
        judge: scorer.into(),
        method: VerdictMethod::Imported,
        model: None,
        outcome: Outcome::Skipped,
        score: None,
        summary: None,
        details: Value::Null,
        evidence: None,
        usage: None,
    };
    let Ok(score) = serde_json::from_value::<Score>(raw.clone()) else {
        return Verdict {
            summary: Some("score not readable as an Inspect score".into()),
            details: raw.clone(),
            ..base
        };
    };
    let explanation = score.explanation.as_deref().map(|e| attachments.resolve(e));
    let answer = score.answer.as_deref().map(|a| attachments.resolve(a));
    // The score as Inspect wrote it (its history and any other field included), its texts resolved.
    let mut details = raw.clone();
    if let Some(answer) = &answer {
        details["answer"] = Value::String(answer.clone());
    }
    if let Some(explanation) = &explanation {
        details["explanation"] = Value::String(explanation.clone());
    }
    let (outcome, number) = match value_to_float(&score.value) {
        Some(x) if (0.0..=1.0).contains(&x) => (outcome_of(x), Some(x)),
        _ => (Outcome::Skipped, None),
    };
    let summary = match (number, &explanation) {
        (None, _) => Some(format!(
            "value {} is on no 0–1 scale: no pass or fail read from it{}",
            crate::core::text::truncate_chars(&score.value.to_string(), 120),
            explanation.as_deref().map(|e| format!(" ({e})")).unwrap_or_default()
        )),
        (Some(_), Some(e)) if !e.is_empty() => Some(e.clone()),
        (Some(_), _) => answer.clone(),
    };
    Verdict { outcome, score: number, summary, details, ..base }
}

fn outcome_of(x: f64) -> Outcome {
    if x >= 1.0 {
        Outcome::Pass
    } else if x <= 0.0 {
        Outcome::Fail
    } else {
        Outcome::Partial
    }
}

/// Inspect's `value_to_float` (`inspect_ai.scorer._metric`), `None` where it would fail.
pub fn value_to_float(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::String(s) => match s.as_str() {
            "C" => Some(1.0),
            "I" | "N" => Some(0.0),
            "P" => Some(0.5),
            other => match other.to_lowercase().as_str() {
                "yes" | "true" => Some(1.0),
                "no" | "false" => Some(0.0),
                number => number.parse().ok().filter(|x: &f64| x.is_finite()),
            },
        },
        _ => None,
    }
}

/// Inspect's value of a verdict we write: `C` for a pass, `I` for a fail, `P` for partial, the score
/// when there is one for the rest, `N` otherwise.
pub fn value_of(outcome: Outcome, score: Option<f64>) -> Value {
    match (outcome, score) {
        (Outcome::Pass, _) => Value::from("C"),
        (Outcome::Fail, _) => Value::from("I"),
        (Outcome::Partial, Some(x)) => Value::from(x),
        (Outcome::Partial, None) => Value::from("P"),
        (_, _) => Value::from("N"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_as_inspect_reads_them() {
        assert_eq!(value_to_float(&json!("C")), Some(1.0));
        assert_eq!(value_to_float(&json!("I")), Some(0.0));
        assert_eq!(value_to_float(&json!("P")), Some(0.5));
        assert_eq!(value_to_float(&json!("N")), Some(0.0));
        assert_eq!(value_to_float(&json!(true)), Some(1.0));
        assert_eq!(value_to_float(&json!("Yes")), Some(1.0));
        assert_eq!(value_to_float(&json!("0.25")), Some(0.25));
        assert_eq!(value_to_float(&json!({"a": 1})), None);
        assert_eq!(value_to_float(&json!("maybe")), None);
    }

    #[test]
    fn a_value_on_no_scale_is_skipped_never_a_pass() {
        let empty = Map::new();
        let v = verdict("concern", &json!({"value": 7, "explanation": "worrying"}), &Attachments(&empty));
        assert_eq!((v.outcome, v.score), (Outcome::Skipped, None));
        assert_eq!(v.details["value"], 7);
        let v = verdict("dims", &json!({"value": {"a": 1}}), &Attachments(&empty));
        assert_eq!(v.outcome, Outcome::Skipped);
        let v = verdict("acc", &json!({"value": 0.5}), &Attachments(&empty));
        assert_eq!((v.outcome, v.score), (Outcome::Partial, Some(0.5)));
    }
}
