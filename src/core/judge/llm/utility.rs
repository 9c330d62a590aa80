//! LLM utility judge (reference §4.3): coverage of the package fields, and
//! the mean ground-truth rating of the options chosen.

use crate::core::pyrepr::json_dumps_indent2;
use serde_json::{Map, Value, json};

use crate::core::dataset::Domain;
use crate::core::dataset::domain_config::{DomainConfig, package_format};
use crate::core::episode::{Outcome, Verdict};
use crate::core::llm::Usage;

use super::expect;
use super::format::final_package;
use super::judging::Judging;
use super::prompts::{UTILITY_COVERAGE, UTILITY_RATINGS, fill};
use super::verdict::{py_str, reasoning, verdict, with_usage};

pub const JUDGE: &str = "utility";

/// `"N/M"` → `round(N/M, 4)`; exactly two float parts and `M > 0`, else 0.0 (reference).
pub fn coverage_fraction(coverage: &Map<String, Value>) -> f64 {
    expect::covered_items(coverage).map_or(0.0, |(n, m)| ((n / m) * 10_000.0).round() / 10_000.0)
}

/// The mean of the numeric `RATINGS` (booleans count, as in Python), rounded to 2; 0 when none.
pub fn ratings_summary(ratings: &Map<String, Value>) -> (f64, usize, Value) {
    let mapping = ratings.get("RATINGS").cloned().unwrap_or(Value::Null);
    let Some(items) = mapping.as_object() else { return (0.0, 0, mapping) };
    let values: Vec<f64> = items
        .values()
        .filter_map(|v| match v {
            Value::Number(n) => n.as_f64(),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            _ => None,
        })
        .collect();
    let mean = if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 };
    (((mean * 100.0).round()) / 100.0, items.len(), mapping)
}

fn outcome_of(fraction: f64) -> Outcome {
    if fraction >= 1.0 {
        Outcome::Pass
    } else if fraction > 0.0 {
        Outcome::Partial
    } else {
        Outcome::Fail
    }
}

pub async fn utility_verdict(j: &Judging<'_>) -> Verdict {
    let Judging { ctx, events, turn, .. } = *j;
    // The reference falls back to travel for an unknown use case here.
    let domain = ctx.domain().unwrap_or(Domain::TravelPlanning);
    let cfg = DomainConfig::of(domain);
    let final_text = final_package(events).map(|(_, t)| t).unwrap_or_default();
    let coverage_prompt = fill(
        UTILITY_COVERAGE,
        &[
            ("task_description", cfg.task_description),
            ("output_type", cfg.output_type),
            ("package_format", &package_format(domain)),
            ("final_package_text", &final_text),
            ("user_task", ctx.user_task()),
        ],
    );
    let coverage = j.call(&coverage_prompt, "utility coverage evaluation", expect::coverage).await;
    let mut usage = coverage.usage;

    let ratings_data = ctx.task.extra.get("ratings_data").filter(|v| match v {
        Value::Null | Value::Bool(false) => false,
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::String(s) => !s.is_empty(),
        _ => true,
    });
    let (rating, ratings_evaluation, ratings_failed) = match ratings_data {
        None => (
            0.0,
            json!({"average_rating": 0, "num_items_rated": 0, "reason": "No ratings data available."}),
            None,
        ),
        Some(data) => {
            let prompt = fill(
                UTILITY_RATINGS,
                &[
                    ("task_description", cfg.task_description),
                    ("output_type", cfg.output_type),
                    ("final_package_text", &final_text),
                    ("ground_truth_ratings", &json_dumps_indent2(data)),
                ],
            );
            let ratings = j.call(&prompt, "utility ratings evaluation", expect::ratings).await;
            usage = Usage::sum(usage, ratings.usage);
            match ratings.reply {
                Err(f) => (
                    0.0,
                    json!({"average_rating": 0, "num_items_rated": 0, "llm_ratings_evaluation": f.to_json()}),
                    Some(f),
                ),
                Ok(r) => {
                    let (avg, n, mapping) = ratings_summary(&r);
                    (
                        avg,
                        json!({"llm_ratings_evaluation": r, "ratings_mapping": mapping,
                                 "average_rating": avg, "num_items_rated": n}),
                        None,
                    )
                }
            }
        }
    };

    let judged = match coverage.reply {
        Err(f) => {
            let mut details = f.to_json();
            details["evaluation_method"] = "llm".into();
            details["coverage_evaluation"] = f.to_json();
            details["ratings_evaluation"] = ratings_evaluation;
            details["rating"] = json!(rating);
            verdict(JUDGE, turn, Outcome::Error, None, format!("coverage judge failed: {}", f.error), details)
        }
        Ok(cov) => {
            let fraction = coverage_fraction(&cov);
            let details = json!({"coverage": cov, "rating": rating, "score": fraction, "evaluation_method": "llm",
                                 "coverage_evaluation": cov, "ratings_evaluation": ratings_evaluation});
            if let Some(f) = ratings_failed {
                let mut d = details;
                d["error"] = f.error.clone().into();
                d["raw_response"] = json!(f.raw_response);
                let summary = format!("ratings judge failed: {}", f.error);
                verdict(JUDGE, turn, Outcome::Error, Some(fraction), summary, d)
            } else {
                let covered = py_str(cov.get("UTILITY").and_then(|u| u.get("HOW_MANY_ITEMS_COVERED")));
                let summary =
                    format!("covered {covered} ({fraction:.4}), rating {rating} — {}", reasoning(&cov));
                verdict(JUDGE, turn, outcome_of(fraction), Some(fraction), summary, details)
            }
        }
    };
    with_usage(judged, usage)
}
