//! An episode's verdicts as Inspect scores: the last verdict of each source (`judge`, or `judge
//! (source)` when a judge has several), the reviewers' labels among them. A verdict read from an
//! Inspect score is written as Inspect wrote it (its value, answer, explanation and metadata); our
//! own verdicts are `C` for a pass, `I` for a fail, `P` (or the score) for partial, `N` for a
//! verdict not reached (error, skipped: Inspect counts it as 0), the outcome, source, turn,
//! evidence and details in the score's metadata, from which a log we wrote reads them back.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::super::annotation::AnnotationView;
use crate::core::episode::standing::worst_labelled;
use crate::core::episode::{Episode, EventBody, Evidence, Judge, JudgeSource, Verdict, VerdictMethod};
use crate::core::import::inspect::value_of;

/// The scores of `episode`, its reviewers' `notes` counted as `human` verdicts.
pub fn scores(episode: &Episode, notes: &[AnnotationView]) -> Map<String, Value> {
    let labelled = human_verdicts(episode, notes);
    let verdicts: Vec<&Verdict> = episode
        .events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Verdict(v) => Some(&**v),
            _ => None,
        })
        .chain(&labelled)
        .collect();
    let mut sources: BTreeMap<&Judge, Vec<JudgeSource>> = BTreeMap::new();
    for v in &verdicts {
        let source = v.source();
        let known = sources.entry(&v.judge).or_default();
        if !known.contains(&source) {
            known.push(source);
        }
    }
    let mut scores = Map::new();
    for v in verdicts {
        let source = v.source();
        let key =
            if sources[&v.judge].len() > 1 { format!("{} ({source})", v.judge) } else { v.judge.to_string() };
        scores.insert(key, as_written(v).unwrap_or_else(|| ours(v, &source)));
    }
    scores
}

/// A verdict read from an Inspect score, as the score was (the importer keeps it in the details).
fn as_written(v: &Verdict) -> Option<Value> {
    let details =
        v.details.as_object().filter(|d| v.method == VerdictMethod::Imported && d.contains_key("value"))?;
    Some(Value::Object(details.clone()))
}

fn ours(v: &Verdict, source: &JudgeSource) -> Value {
    let mut metadata = json!({"outcome": v.outcome.as_str(), "source": source.to_string(), "score": v.score});
    if let Some(turn) = v.turn {
        metadata["turn"] = json!(turn);
    }
    if let Some(evidence) = &v.evidence {
        metadata["evidence"] = serde_json::to_value(evidence).unwrap_or_default();
    }
    if !v.details.is_null() {
        metadata["details"] = v.details.clone();
    }
    json!({"value": value_of(v.outcome, v.score), "explanation": v.summary, "metadata": metadata})
}

/// The reviewers' labels as one `human` verdict per judge: the worst outcome labelled, at the
/// earliest event labelled so, as `summary` folds them.
fn human_verdicts(episode: &Episode, notes: &[AnnotationView]) -> Vec<Verdict> {
    let labels = notes
        .iter()
        .filter_map(|n| n.judged.clone().map(|(judge, outcome)| (judge, outcome, Some(n.target_seq))));
    worst_labelled(labels)
        .into_iter()
        .filter_map(|(judge, (outcome, seq))| {
            let seq = seq?;
            Some(Verdict {
                turn: episode.position_of(seq).and_then(|i| episode.events[i].body.turn()),
                judge,
                method: VerdictMethod::Human,
                model: None,
                outcome,
                score: None,
                summary: None,
                details: Value::Null,
                evidence: Some(Evidence { seq, start: None, end: None, text: None }),
                usage: None,
            })
        })
        .collect()
}

/// The notes of an episode as a sample's metadata keeps them.
pub fn notes_of(notes: &[AnnotationView]) -> Value {
    notes
        .iter()
        .map(|a| json!({"target_seq": a.target_seq, "label": a.label, "note": a.note, "author": a.author, "quote": a.quote}))
        .collect()
}
