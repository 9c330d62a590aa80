//! One row's rate against a reference row's (`summary --vs`, `summary A B`): the difference
//! with its 95 % interval and an exact p-value, paired by task when both sides judged the same
//! tasks (McNemar, Newcombe's paired interval), else as independent samples (Fisher, Newcombe's
//! hybrid score interval). The rate is the published one: `fail` verdicts over those that
//! judged; `error` and `skipped` are not samples.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::row::CorpusRow;
use super::table::{GroupKey, counted_verdicts};
use super::two_sample::{PairedTable, fisher_exact, mcnemar_exact, newcombe, newcombe_paired};
use crate::core::episode::Outcome;

/// One judged verdict of a row: the task it was on (id and repetition) and whether the attack
/// succeeded.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub task: Option<(String, Option<u64>)>,
    pub succeeded: bool,
}

/// The samples of every row of a table (as `group_rows` counts them); utility rows have none.
pub fn group_samples<'a>(
    rows: impl IntoIterator<Item = &'a CorpusRow, IntoIter: 'a>,
    by: &'a [String],
    judge_model: Option<&'a str>,
    count_all: bool,
) -> BTreeMap<GroupKey, Vec<Sample>> {
    let mut samples: BTreeMap<GroupKey, Vec<Sample>> = BTreeMap::new();
    for (key, row, verdict, excluded) in counted_verdicts(rows, by, judge_model, count_all) {
        let judged = matches!(verdict.outcome, Outcome::Pass | Outcome::Partial | Outcome::Fail);
        if excluded.is_some() || !judged || verdict.judge == "utility" {
            continue;
        }
        samples.entry(key).or_default().push(Sample {
            task: row.task_id.clone().map(|id| (id, row.repeat)),
            succeeded: verdict.outcome == Outcome::Fail,
        });
    }
    samples
}

/// Which test compared the two rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Independent samples: Fisher's exact test, Newcombe's hybrid score interval.
    Fisher,
    /// The same tasks on both sides: McNemar's exact test, Newcombe's paired interval.
    Mcnemar,
}

/// A row against its reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contrast {
    pub test: Test,
    /// The row's rate minus the reference's.
    pub difference: f64,
    pub ci95: (f64, f64),
    /// Exact, two-sided.
    pub p_value: f64,
    /// Paired: the pairs, and the discordant ones (succeeded only in the reference, only in the
    /// row).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pairs: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discordant: Option<(usize, usize)>,
}

impl Contrast {
    /// `fisher`, or `mcnemar, 40 pairs`: what the table's test column says.
    pub fn test_label(&self) -> String {
        match (self.test, self.pairs) {
            (Test::Mcnemar, Some(n)) => format!("McNemar, {n} pairs"),
            (Test::Mcnemar, None) => "McNemar".to_string(),
            (Test::Fisher, _) => "Fisher".to_string(),
        }
    }
}

/// `other` against `reference`; `None` when a side has no sample.
pub fn contrast(reference: &[Sample], other: &[Sample]) -> Option<Contrast> {
    if reference.is_empty() || other.is_empty() {
        return None;
    }
    if let Some(table) = paired(reference, other) {
        let n = table.pairs() as f64;
        return Some(Contrast {
            test: Test::Mcnemar,
            difference: (table.only_second as f64 - table.only_first as f64) / n,
            ci95: newcombe_paired(table)?,
            p_value: mcnemar_exact(table),
            pairs: Some(table.pairs()),
            discordant: Some((table.only_first, table.only_second)),
        });
    }
    let count = |s: &[Sample]| s.iter().filter(|s| s.succeeded).count();
    let (k1, n1, k2, n2) = (count(reference), reference.len(), count(other), other.len());
    Some(Contrast {
        test: Test::Fisher,
        difference: k2 as f64 / n2 as f64 - k1 as f64 / n1 as f64,
        ci95: newcombe(k1, n1, k2, n2)?,
        p_value: fisher_exact(k1, n1, k2, n2),
        pairs: None,
        discordant: None,
    })
}

/// The paired table when both sides judged exactly the same tasks, each once (task id and
/// repetition); else `None` and the samples are independent.
fn paired(first: &[Sample], second: &[Sample]) -> Option<PairedTable> {
    let by_task = |samples: &[Sample]| -> Option<BTreeMap<(String, Option<u64>), bool>> {
        let map: BTreeMap<_, _> =
            samples.iter().map(|s| Some((s.task.clone()?, s.succeeded))).collect::<Option<_>>()?;
        (map.len() == samples.len()).then_some(map)
    };
    let (a, b) = (by_task(first)?, by_task(second)?);
    if a.keys().collect::<BTreeSet<_>>() != b.keys().collect::<BTreeSet<_>>() {
        return None;
    }
    let mut table = PairedTable::default();
    for (task, &x) in &a {
        match (x, b[task]) {
            (true, true) => table.both += 1,
            (true, false) => table.only_first += 1,
            (false, true) => table.only_second += 1,
            (false, false) => table.neither += 1,
        }
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(task: &str, succeeded: bool) -> Sample {
        Sample { task: Some((task.to_string(), None)), succeeded }
    }

    #[test]
    fn the_same_tasks_on_both_sides_are_paired() {
        let reference = [sample("a", true), sample("b", false), sample("c", false)];
        let other = [sample("c", true), sample("a", true), sample("b", true)];
        let c = contrast(&reference, &other).unwrap();
        assert_eq!(c.test, Test::Mcnemar);
        assert_eq!(c.discordant, Some((0, 2)));
        assert!((c.difference - 2.0 / 3.0).abs() < 1e-12);
        // 2 discordant, both one way: 2 × ½² = 0.5.
        assert!((c.p_value - 0.5).abs() < 1e-12);
    }

    #[test]
    fn different_tasks_a_repeated_task_or_an_unknown_one_are_independent() {
        let reference = [sample("a", true), sample("b", false)];
        for other in [
            vec![sample("a", true), sample("c", false)],
            vec![sample("a", true), sample("a", false)],
            vec![sample("a", true), Sample { task: None, succeeded: false }],
        ] {
            assert_eq!(contrast(&reference, &other).unwrap().test, Test::Fisher);
        }
        assert_eq!(contrast(&reference, &[]), None);
    }
}
