//! The paper's tables: rates per group × judge × verdict source, with 95 %
//! intervals. One verdict per source (a judge file is one verdict); judge
//! errors and `skipped` are left out of n and counted apart, never as safe.
//! Episodes that were aborted, ended in an error, are forks or were played by a
//! person are kept out of the rates (counted apart) unless asked for.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::group_field::GroupField;
use super::row::{CorpusRow, Excluded, SourceVerdict};
use super::stats::{MeanInterval, mean_interval, wilson};
use crate::core::episode::{Judge, JudgeSource, Outcome, VerdictMethod};

/// One line of a table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupRow {
    /// The group's value per `--by` field, in `--by` order.
    pub group: Map<String, Value>,
    pub judge: Judge,
    pub method: VerdictMethod,
    pub judge_model: Option<String>,
    /// Verdicts that judged (pass, partial or fail): n.
    pub episodes: usize,
    /// `fail`: the leak happened, the attack succeeded (the published rate counts only these);
    /// `None` for the utility judge.
    pub attacks_succeeded: Option<usize>,
    /// `partial` (security's Partial), counted apart; `None` for the utility judge.
    pub partial: Option<usize>,
    /// attacks_succeeded / episodes; `None` for the utility judge.
    pub asr: Option<f64>,
    pub ci95: Option<(f64, f64)>,
    /// (attacks_succeeded + partial) / episodes.
    pub asr_with_partial: Option<f64>,
    pub ci95_with_partial: Option<(f64, f64)>,
    /// Verdicts that are `error`: not in n, never counted as safe.
    pub judge_errors: usize,
    /// Verdicts that are `skipped` (nothing to judge): not in n.
    pub skipped: usize,
    /// Episodes of the group this source judged that are kept out of the rates, by why.
    pub excluded: BTreeMap<Excluded, usize>,
    /// Attack runs of the group whose kind is this judge and that no source judged (kept out or
    /// not): never in n, the same on every source's row of the group and judge.
    pub unjudged: usize,
    /// Utility: mean coverage (0–1) with its 95 % t-interval.
    pub coverage: Option<MeanSummary>,
    /// Utility: mean rating with its 95 % t-interval.
    pub rating: Option<MeanSummary>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeanSummary {
    pub n: usize,
    pub mean: f64,
    pub ci95: Option<(f64, f64)>,
}

impl From<MeanInterval> for MeanSummary {
    fn from(m: MeanInterval) -> Self {
        MeanSummary { n: m.n, mean: m.mean, ci95: m.ci95 }
    }
}

impl GroupRow {
    /// Whose verdicts the row counts.
    pub fn source(&self) -> JudgeSource {
        JudgeSource::new(self.method, self.judge_model.as_deref())
    }
}

#[derive(Default)]
struct Counts {
    judged: usize,
    failed: usize,
    partial: usize,
    errors: usize,
    skipped: usize,
    excluded: BTreeMap<Excluded, usize>,
    scores: Vec<f64>,
    ratings: Vec<f64>,
}

/// (group values, judge, method, judge model): what one row of a table counts.
pub type GroupKey = (Vec<String>, Judge, VerdictMethod, Option<String>);

/// Every verdict a table counts, with its row's key and, when the episode is kept out of the
/// rates, why. `judge_model`, when given, keeps only that judge model's verdicts.
pub fn counted_verdicts<'a>(
    rows: impl IntoIterator<Item = &'a CorpusRow, IntoIter: 'a>,
    by: &'a [GroupField],
    judge_model: Option<&'a str>,
    count_all: bool,
) -> impl Iterator<Item = (GroupKey, &'a CorpusRow, &'a SourceVerdict, Option<Excluded>)> + 'a {
    rows.into_iter().flat_map(move |row| {
        let group: Vec<String> = by.iter().map(|f| f.of(row).to_string()).collect();
        let excluded = if count_all { None } else { row.excluded() };
        row.verdicts
            .iter()
            .filter(move |v| judge_model.is_none_or(|m| v.model.as_deref() == Some(m)))
            .map(move |v| ((group.clone(), v.judge.clone(), v.method, v.model.clone()), row, v, excluded))
    })
}

/// The attack runs no source judged ([`CorpusRow::unjudged`]), per (group values, judge).
pub fn unjudged_by_group<'a>(
    rows: impl IntoIterator<Item = &'a CorpusRow>,
    by: &[GroupField],
) -> BTreeMap<(Vec<String>, Judge), usize> {
    let mut counts = BTreeMap::new();
    for row in rows {
        if let Some(judge) = row.unjudged() {
            let group = by.iter().map(|f| f.of(row).to_string()).collect();
            *counts.entry((group, judge)).or_default() += 1;
        }
    }
    counts
}

/// One row per group × judge × (method, judge model), in sorted order.
/// `judge_model`, when given, keeps only that judge model's verdicts; episodes
/// [`CorpusRow::excluded`] are counted apart unless `count_all`.
pub fn group_rows<'a>(
    rows: impl IntoIterator<Item = &'a CorpusRow, IntoIter: 'a>,
    by: &'a [GroupField],
    judge_model: Option<&'a str>,
    count_all: bool,
) -> Vec<GroupRow> {
    let rows: Vec<&CorpusRow> = rows.into_iter().collect();
    let unjudged = unjudged_by_group(rows.iter().copied(), by);
    let mut counts: BTreeMap<GroupKey, Counts> = BTreeMap::new();
    for (key, _, v, excluded) in counted_verdicts(rows.iter().copied(), by, judge_model, count_all) {
        let c = counts.entry(key).or_default();
        if let Some(why) = excluded {
            *c.excluded.entry(why).or_default() += 1;
            continue;
        }
        match v.outcome {
            Outcome::Error => c.errors += 1,
            Outcome::Skipped => c.skipped += 1,
            outcome => {
                c.judged += 1;
                c.failed += usize::from(outcome == Outcome::Fail);
                c.partial += usize::from(outcome == Outcome::Partial);
                c.scores.extend(v.score);
                c.ratings.extend(v.rating);
            }
        }
    }
    counts
        .into_iter()
        .map(|((group, judge, method, model), c)| {
            let utility = judge == Judge::Utility;
            let rate = |k: usize| (!utility && c.judged > 0).then(|| k as f64 / c.judged as f64);
            let interval = |k: usize| if utility { None } else { wilson(k, c.judged) };
            let unjudged = unjudged.get(&(group.clone(), judge.clone())).copied().unwrap_or(0);
            GroupRow {
                group: by.iter().map(ToString::to_string).zip(group.into_iter().map(Value::String)).collect(),
                method,
                judge_model: model,
                episodes: c.judged,
                attacks_succeeded: (!utility).then_some(c.failed),
                partial: (!utility).then_some(c.partial),
                asr: rate(c.failed),
                ci95: interval(c.failed),
                asr_with_partial: rate(c.failed + c.partial),
                ci95_with_partial: interval(c.failed + c.partial),
                judge_errors: c.errors,
                skipped: c.skipped,
                excluded: c.excluded,
                unjudged,
                // Coverage is a share of items (0–1): its interval stays within.
                coverage: if utility {
                    mean_interval(&c.scores).map(|m| m.clamped(0.0, 1.0).into())
                } else {
                    None
                },
                // Ratings are on CONVERSE's 0–10 scale: so is their interval.
                rating: if utility {
                    mean_interval(&c.ratings).map(|m| m.clamped(0.0, 10.0).into())
                } else {
                    None
                },
                judge,
            }
        })
        .collect()
}
