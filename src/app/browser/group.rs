//! The grouped view's groups (model → defence → domain): their keys, and per judge the rate of
//! one verdict source's verdicts; the charts drawn of them.

use std::collections::BTreeMap;

use crate::core::corpus::series::{CHARTED, ChartSeries, Heatmap};
use crate::core::corpus::{CorpusRow, SourceVerdict};
use crate::core::episode::{Judge, JudgeSource, Outcome};

use super::entry::{BrowserEntry, Column};

/// The fields of the grouped view, outermost first.
pub const GROUP_BY: [Column; 3] = [Column::Model, Column::Defence, Column::Domain];

/// A group of the grouped view.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The values of [`GROUP_BY`] down to this level (its depth is `key.len() - 1`).
    pub key: Vec<String>,
    pub episodes: usize,
    /// Per judge (as `Browser::judges`), from the selected verdict source only.
    pub rates: Vec<GroupRate>,
    /// Per judge: its attack runs that no source judged (never in a rate).
    pub unjudged: Vec<usize>,
    /// Episodes of the group kept out of the rates (aborted, errored, forks, human-played).
    pub kept_out: usize,
    /// What its rates pool: how many values of each deeper field of [`GROUP_BY`] its episodes
    /// have, where more than one (a model's row pools its defences and domains).
    pub pools: Vec<(Column, usize)>,
}

/// What one verdict source says of a group on one judge's question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GroupRate {
    /// The source judged none of the group's episodes.
    None,
    /// `failed` of `judged` (a leak, a successful attack): the rate the benchmark publishes.
    Rate { failed: usize, judged: usize },
    /// The utility judge: the mean coverage of the `judged` episodes.
    Coverage { mean: f64, judged: usize },
}

/// The grouped view drawn as charts: which judge's page, and the series of the groups listed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartView {
    /// An index into [`CHARTED`] (privacy, security).
    pub judge: usize,
    /// The attacks × groups heatmap rather than the rates and curves.
    pub heatmap: bool,
    /// The heatmap's selected cell (row, column).
    pub cursor: (usize, usize),
    pub series: ChartSeries,
}

impl ChartView {
    /// The heatmap shown, if the page is one.
    pub fn shown_heatmap(&self) -> Option<&Heatmap> {
        let judge = &CHARTED.get(self.judge)?.0;
        self.heatmap.then(|| self.series.heatmaps.iter().find(|h| h.judge == *judge)).flatten()
    }
}

impl Group {
    pub fn depth(&self) -> usize {
        self.key.len() - 1
    }

    /// `4 defences, 3 domains`: what its rates pool, if anything.
    pub fn pooled(&self) -> Option<String> {
        let parts: Vec<String> = self
            .pools
            .iter()
            .map(|(column, n)| {
                let plural = match column {
                    Column::Model => "models",
                    Column::Defence => "defences",
                    _ => "domains",
                };
                format!("{n} {plural}")
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// [`Group::pooled`] where room is short: `4 def, 3 dom`, or tighter `4def,3dom`.
    pub fn pooled_short(&self, tight: bool) -> Option<String> {
        let name = |column| match column {
            Column::Model => "mod",
            Column::Defence => "def",
            _ => "dom",
        };
        let (gap, join) = if tight { ("", ",") } else { (" ", ", ") };
        let parts: Vec<String> =
            self.pools.iter().map(|&(column, n)| format!("{n}{gap}{}", name(column))).collect();
        (!parts.is_empty()).then(|| parts.join(join))
    }

    /// Its name in a chart: its key, and what it pools (`gpt_5_chat (4 defences, 3 domains)`).
    pub fn label(&self) -> String {
        let key = self.key.join(" / ");
        match self.pooled() {
            Some(pooled) => format!("{key} ({pooled})"),
            None => key,
        }
    }
}

/// How many values each deeper field of [`GROUP_BY`] has among `members`, where more than one.
pub(super) fn pools(members: &[&BrowserEntry], depth: usize, judges: &[Judge]) -> Vec<(Column, usize)> {
    GROUP_BY[depth + 1..]
        .iter()
        .map(|&column| {
            let values: std::collections::BTreeSet<String> =
                members.iter().map(|e| e.cell(column, judges)).collect();
            (column, values.len())
        })
        .filter(|(_, n)| *n > 1)
        .collect()
}

/// Every verdict source of the entries, the one with the most verdicts first (then by name).
pub(super) fn verdict_sources(entries: &[BrowserEntry]) -> Vec<JudgeSource> {
    let mut counts: BTreeMap<JudgeSource, usize> = BTreeMap::new();
    for v in entries.iter().flat_map(|e| &e.row.verdicts) {
        *counts.entry(v.source()).or_default() += 1;
    }
    let mut sources: Vec<(JudgeSource, usize)> = counts.into_iter().collect();
    // Ties: by method (rule, llm, human, imported), then model.
    let method = |s: &JudgeSource| (s.method(), s.model().map(str::to_owned));
    sources.sort_by(|(a, n), (b, m)| m.cmp(n).then_with(|| method(a).cmp(&method(b))));
    sources.into_iter().map(|(source, _)| source).collect()
}

/// One judge's figure for a group's counted episodes, from one verdict source's verdicts only
/// (`error` and `skipped` are not judged): a rate of `fail`, or for utility the mean coverage.
pub(super) fn group_rate(rows: &[&CorpusRow], judge: &Judge, source: Option<&JudgeSource>) -> GroupRate {
    let Some(source) = source else { return GroupRate::None };
    let judged: Vec<&SourceVerdict> = rows
        .iter()
        .flat_map(|r| r.verdicts_of(judge))
        .filter(|v| source.gave(v.method, v.model.as_deref()) && v.outcome.severity() > 0)
        .collect();
    if judged.is_empty() {
        return GroupRate::None;
    }
    if *judge == Judge::Utility {
        let scores: Vec<f64> = judged.iter().filter_map(|v| v.score).collect();
        if scores.is_empty() {
            return GroupRate::None;
        }
        return GroupRate::Coverage {
            mean: scores.iter().sum::<f64>() / scores.len() as f64,
            judged: scores.len(),
        };
    }
    let failed = judged.iter().filter(|v| v.outcome == Outcome::Fail).count();
    GroupRate::Rate { failed, judged: judged.len() }
}

/// The values of the first `depth` fields of [`GROUP_BY`].
pub(super) fn group_key(entry: &BrowserEntry, depth: usize, judges: &[Judge]) -> Vec<String> {
    GROUP_BY[..depth].iter().map(|&c| entry.cell(c, judges)).collect()
}
