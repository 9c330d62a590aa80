//! Agreement between verdict sources on the same question: two judge models,
//! the rule judge against a judge file, a reviewer's labels against either.
//!
//! Per judge and pair of sources, over the episodes both judged (pass, partial
//! or fail; an `error` or `skipped` on either side is left out and counted):
//! the 3×3 confusion matrix (pass < partial < fail), the share of exact
//! agreement, Cohen's kappa linear-weighted over that order (Failed / Partial
//! / Successful for security; equal to the unweighted kappa when nobody says
//! partial) and unweighted, and for privacy the agreement on the leak turn
//! where both sides name one.

use std::collections::BTreeMap;

use serde::Serialize;

use super::row::{CorpusRow, SourceVerdict};
use super::stats::kappa;
use crate::core::episode::{Outcome, VerdictMethod};

/// The categories of the confusion matrix, in order.
pub const LABELS: [&str; 3] = ["pass", "partial", "fail"];

/// Who gave a verdict.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Source {
    pub method: VerdictMethod,
    pub model: Option<String>,
}

impl Source {
    fn of(v: &SourceVerdict) -> Self {
        Source { method: v.method, model: v.model.clone() }
    }

    /// `imported gpt-5`, `rule`, `human`.
    pub fn label(&self) -> String {
        match &self.model {
            Some(m) => format!("{} {m}", self.method.as_str()),
            None => self.method.as_str().to_string(),
        }
    }
}

/// How two sources agree on one judge's question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairAgreement {
    pub judge: String,
    pub a: Source,
    pub b: Source,
    /// Episodes both judged.
    pub n: usize,
    /// Share of those with the same outcome.
    pub agreement: Option<f64>,
    /// Linear-weighted kappa over pass < partial < fail.
    pub kappa: Option<f64>,
    pub kappa_unweighted: Option<f64>,
    /// Rows: a's outcome, columns: b's, both in [`LABELS`] order.
    pub confusion: Vec<Vec<usize>>,
    /// Episodes both had a verdict on, left out because one side is `error` or `skipped`.
    pub excluded: usize,
    /// Privacy: on the episodes both say leaked and both name a turn, how many name the same
    /// (pairs whose turns were both inferred are counted apart).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leak_turn: Option<TurnAgreement>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TurnAgreement {
    pub n: usize,
    pub same: usize,
    /// Pairs left out because neither side named its turn: both were inferred from the snippets
    /// the judges quote (two judge files on one run), so they agree by construction.
    pub inferred: usize,
}

fn category(outcome: Outcome) -> Option<usize> {
    match outcome {
        Outcome::Pass => Some(0),
        Outcome::Partial => Some(1),
        Outcome::Fail => Some(2),
        Outcome::Error | Outcome::Skipped => None,
    }
}

#[derive(Default)]
struct Tally {
    confusion: [[usize; 3]; 3],
    excluded: usize,
    turn: TurnAgreement,
}

/// Every pair of sources that judged the same question on at least one episode.
pub fn agreement(rows: &[CorpusRow]) -> Vec<PairAgreement> {
    let mut tallies: BTreeMap<(String, Source, Source), Tally> = BTreeMap::new();
    for row in rows {
        let mut by_judge: BTreeMap<&str, Vec<&SourceVerdict>> = BTreeMap::new();
        for v in &row.verdicts {
            by_judge.entry(v.judge.as_str()).or_default().push(v);
        }
        for (judge, mut verdicts) in by_judge {
            verdicts.sort_by_key(|v| Source::of(v));
            for (i, a) in verdicts.iter().enumerate() {
                for b in &verdicts[i + 1..] {
                    let t = tallies.entry((judge.to_string(), Source::of(a), Source::of(b))).or_default();
                    match (category(a.outcome), category(b.outcome)) {
                        (Some(x), Some(y)) => {
                            t.confusion[x][y] += 1;
                            let leaked = x > 0 && y > 0;
                            match (leaked, a.turn, b.turn) {
                                (true, Some(_), Some(_)) if a.turn_inferred && b.turn_inferred => {
                                    t.turn.inferred += 1;
                                }
                                (true, Some(ta), Some(tb)) => {
                                    t.turn.n += 1;
                                    t.turn.same += usize::from(ta == tb);
                                }
                                _ => {}
                            }
                        }
                        _ => t.excluded += 1,
                    }
                }
            }
        }
    }
    tallies
        .into_iter()
        .map(|((judge, a, b), t)| {
            let confusion: Vec<Vec<usize>> = t.confusion.iter().map(|r| r.to_vec()).collect();
            let n: usize = confusion.iter().flatten().sum();
            let same: usize = (0..3).map(|i| confusion[i][i]).sum();
            PairAgreement {
                leak_turn: (judge == "privacy").then_some(t.turn),
                judge,
                a,
                b,
                n,
                agreement: (n > 0).then(|| same as f64 / n as f64),
                kappa: kappa(&confusion, true),
                kappa_unweighted: kappa(&confusion, false),
                confusion,
                excluded: t.excluded,
            }
        })
        .collect()
}

/// One question two verdict sources answered differently on one episode.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    /// Index of the row in the slice given to [`disagreements`].
    pub row: usize,
    pub judge: String,
    pub a: SourceVerdict,
    pub b: SourceVerdict,
}

impl Disagreement {
    /// The turn in dispute: the earliest either side names (the leak's turn), if any.
    pub fn turn(&self) -> Option<u32> {
        match (self.a.turn, self.b.turn) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
}

/// Every pair of sources on the same question of the same episode whose outcomes
/// differ (pass, partial, fail; `error` and `skipped` are left out as in
/// [`agreement`]), in row order, pairs ordered as [`agreement`] orders them.
pub fn disagreements(rows: &[CorpusRow]) -> Vec<Disagreement> {
    let mut found = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let mut by_judge: BTreeMap<&str, Vec<&SourceVerdict>> = BTreeMap::new();
        for v in &row.verdicts {
            if category(v.outcome).is_some() {
                by_judge.entry(v.judge.as_str()).or_default().push(v);
            }
        }
        for (judge, mut verdicts) in by_judge {
            verdicts.sort_by_key(|v| Source::of(v));
            for (k, a) in verdicts.iter().enumerate() {
                for b in &verdicts[k + 1..] {
                    if a.outcome != b.outcome {
                        let (a, b) = ((*a).clone(), (*b).clone());
                        found.push(Disagreement { row: i, judge: judge.to_string(), a, b });
                    }
                }
            }
        }
    }
    found
}
