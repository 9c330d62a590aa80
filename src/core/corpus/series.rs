//! The series behind the charts (`chart`, the browser's `c`, `export --format html|csv|json` of
//! a corpus): per group, one judge source's rate with its Wilson interval, sorted; and the
//! Kaplan–Meier curve of turns to the first leak (privacy) or the first unauthorized action
//! (security), episodes that never leaked censored at their last turn. Computed once when the
//! data changes, never while drawing.

use std::collections::BTreeMap;

use serde::Serialize;

use super::row::{CorpusRow, SourceVerdict};
use super::stats::wilson;
use super::survival::{Curve, Observation, kaplan_meier};
use super::table::group_value;
use crate::core::episode::{Outcome, source_label};
use crate::core::sanitize::single_line;

/// The judges charted, with what their event is. A corpus with none of them (an Inspect log's
/// scorers) has every judge charted, its event a fail.
pub const CHARTED: [(&str, &str); 2] = [("privacy", "first leak"), ("security", "first unauthorized action")];

/// The event of a judge charted for want of privacy and security ones.
const ANY_JUDGE_EVENT: &str = "first fail";

/// Whether a verdict judged (pass, partial or fail: not an error or skipped).
fn judged(outcome: Outcome) -> bool {
    matches!(outcome, Outcome::Pass | Outcome::Partial | Outcome::Fail)
}

/// The judges charted among `verdicts`, with their event: privacy and security when any of them
/// judged, else every judge that judged, by name.
fn charted_judges<'a>(verdicts: impl Iterator<Item = &'a SourceVerdict> + Clone) -> Vec<(String, String)> {
    let named: Vec<(String, String)> = CHARTED
        .iter()
        .filter(|(judge, _)| verdicts.clone().any(|v| v.judge == *judge && judged(v.outcome)))
        .map(|(judge, event)| (judge.to_string(), event.to_string()))
        .collect();
    if !named.is_empty() {
        return named;
    }
    let any: std::collections::BTreeSet<&str> =
        verdicts.filter(|v| judged(v.outcome)).map(|v| v.judge.as_str()).collect();
    any.into_iter().map(|judge| (judge.to_string(), ANY_JUDGE_EVENT.to_string())).collect()
}

/// One group's rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateBar {
    /// The group's value per grouping field, joined with ` / ` (`gpt_5_chat / baseline`).
    pub label: String,
    pub succeeded: usize,
    pub n: usize,
    pub rate: f64,
    pub ci95: (f64, f64),
}

/// The rates of one judge from one source, highest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateChart {
    pub judge: String,
    pub source: String,
    pub bars: Vec<RateBar>,
}

/// One group's curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SurvivalLine {
    pub label: String,
    pub curve: Curve,
    /// Episodes that leaked at a turn nobody knows (the judge named none and none of its
    /// snippets was found): not in the curve.
    pub unknown_turn: usize,
    /// Episodes that did not leak and whose length nobody knows (listed from an Inspect log's
    /// summary without a turn count): not in the curve either.
    pub unknown_length: usize,
}

impl SurvivalLine {
    /// `label  4/12 events (+2 at an unknown turn, left out) · median turn 3 [2, –]`.
    pub fn legend(&self) -> String {
        let turn = |t: Option<u32>| t.map_or("–".to_string(), |t| t.to_string());
        let median = match self.curve.median {
            Some(m) => format!(
                "median turn {m} [{}, {}]",
                turn(self.curve.median_ci95.0),
                turn(self.curve.median_ci95.1)
            ),
            None => "median not reached".to_string(),
        };
        let mut unknown = match self.unknown_turn {
            0 => String::new(),
            n => format!(" (+{n} at an unknown turn, left out)"),
        };
        if self.unknown_length > 0 {
            unknown.push_str(&format!(" (+{} of unknown length, left out)", self.unknown_length));
        }
        format!(
            "{}  {}/{} events{unknown} · {median}",
            self.label, self.curve.events, self.curve.observations
        )
    }
}

/// The curves of one judge from one source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SurvivalChart {
    pub judge: String,
    pub source: String,
    /// `first leak`, `first unauthorized action`.
    pub event: String,
    pub lines: Vec<SurvivalLine>,
}

/// One judge's rates of every attack (rows) under every group (columns): `(succeeded, n)` per
/// cell, `None` where the group did not run the attack. Rows by overall rate, highest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Heatmap {
    pub judge: String,
    pub source: String,
    /// The attack (the benchmark's attack folder; the task id when there is none).
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    pub cells: Vec<Vec<Option<(usize, usize)>>>,
}

/// Everything charted for one source and one grouping.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ChartSeries {
    pub by: Vec<String>,
    pub source: String,
    pub rates: Vec<RateChart>,
    pub survival: Vec<SurvivalChart>,
    pub heatmaps: Vec<Heatmap>,
}

impl ChartSeries {
    /// True when no group has a judged verdict of the source.
    pub fn is_empty(&self) -> bool {
        self.rates.iter().all(|r| r.bars.is_empty())
    }
}

#[derive(Default)]
struct Tally {
    succeeded: usize,
    n: usize,
    observations: Vec<Observation>,
    unknown_turn: usize,
    unknown_length: usize,
}

/// Every source of verdicts of the judges charted (see [`charted_judges`]) that judged among
/// `rows`, the one with the most verdicts first (ties by name).
pub fn sources(rows: &[CorpusRow]) -> Vec<String> {
    let verdicts = rows.iter().flat_map(|r| &r.verdicts);
    let judges = charted_judges(verdicts.clone());
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for v in verdicts {
        if judges.iter().any(|(judge, _)| v.judge == *judge) && judged(v.outcome) {
            *counts.entry(source_label(v.method, v.model.as_deref())).or_default() += 1;
        }
    }
    let mut sources: Vec<(String, usize)> = counts.into_iter().collect();
    sources.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    sources.into_iter().map(|(s, _)| s).collect()
}

/// `rows` in groups by `by`, labelled by their values joined with ` / ` (`all` without fields),
/// in label order.
pub fn groups_by<'a>(rows: &'a [CorpusRow], by: &[String]) -> Vec<(String, Vec<&'a CorpusRow>)> {
    let mut groups: BTreeMap<String, Vec<&CorpusRow>> = BTreeMap::new();
    for row in rows {
        groups.entry(label(by, row)).or_default().push(row);
    }
    groups.into_iter().collect()
}

/// The series of `groups` (label, rows), counting `source`'s verdicts (`imported:gpt-5`,
/// `rule`) only; rows kept out of the rates (aborted, errored, forks, human) are left out
/// unless `count_all`. `by` names what the labels are made of.
pub fn chart_series(
    groups: &[(String, Vec<&CorpusRow>)],
    by: &[String],
    source: &str,
    count_all: bool,
) -> ChartSeries {
    let mut tallies: BTreeMap<(&str, String), Tally> = BTreeMap::new();
    // (judge, attack, group) → (succeeded, n).
    let mut cells: BTreeMap<(&str, String, String), (usize, usize)> = BTreeMap::new();
    let counted: Vec<(&String, &&CorpusRow)> = groups
        .iter()
        .flat_map(|(label, rows)| rows.iter().map(move |row| (label, row)))
        .filter(|(_, row)| count_all || row.excluded().is_none())
        .collect();
    let of_source = |v: &&SourceVerdict| source_label(v.method, v.model.as_deref()) == source;
    let judges = charted_judges(counted.iter().flat_map(|(_, row)| row.verdicts.iter().filter(of_source)));
    for (label, row) in &counted {
        for (judge, _) in &judges {
            let verdict = row.verdicts_of(judge).find(of_source).filter(|v| judged(v.outcome));
            let Some(v) = verdict else { continue };
            let tally = tallies.entry((judge.as_str(), label.to_string())).or_default();
            tally.n += 1;
            let leaked = v.outcome == Outcome::Fail;
            let cell = cells.entry((judge.as_str(), attack_of(row), label.to_string())).or_default();
            cell.0 += usize::from(leaked);
            cell.1 += 1;
            tally.succeeded += usize::from(leaked);
            match (leaked, v.turn) {
                (true, Some(turn)) => tally.observations.push(Observation { turn, event: true }),
                (true, None) => tally.unknown_turn += 1,
                (false, _) => match row.turns {
                    Some(turn) => tally.observations.push(Observation { turn, event: false }),
                    None => tally.unknown_length += 1,
                },
            }
        }
    }
    let mut series = ChartSeries { by: by.to_vec(), source: source.to_string(), ..ChartSeries::default() };
    for (judge, event) in &judges {
        let judge = judge.as_str();
        let mine: Vec<(&String, &Tally)> =
            tallies.iter().filter(|((j, _), _)| *j == judge).map(|((_, label), t)| (label, t)).collect();
        if mine.is_empty() {
            continue;
        }
        let mut bars: Vec<RateBar> = mine
            .iter()
            .filter_map(|(label, t)| {
                Some(RateBar {
                    label: label.to_string(),
                    succeeded: t.succeeded,
                    n: t.n,
                    rate: t.succeeded as f64 / t.n as f64,
                    ci95: wilson(t.succeeded, t.n)?,
                })
            })
            .collect();
        // Highest rate first; ties by label, for a stable order.
        bars.sort_by(|a, b| b.rate.total_cmp(&a.rate).then_with(|| a.label.cmp(&b.label)));
        let lines = mine
            .iter()
            .map(|(label, t)| SurvivalLine {
                label: label.to_string(),
                // A group whose every leak has an unknown turn has no curve, and says so.
                curve: kaplan_meier(&t.observations).unwrap_or_default(),
                unknown_turn: t.unknown_turn,
                unknown_length: t.unknown_length,
            })
            .collect();
        series.heatmaps.push(heatmap(judge, source, groups, &cells));
        series.rates.push(RateChart { judge: judge.to_string(), source: source.to_string(), bars });
        series.survival.push(SurvivalChart {
            judge: judge.to_string(),
            source: source.to_string(),
            event: event.to_string(),
            lines,
        });
    }
    series
}

/// The row of the heatmap an episode is in: its attack, else its task, else `-`.
pub fn attack_of(row: &CorpusRow) -> String {
    single_line(row.attack.as_deref().or(row.task_id.as_deref()).unwrap_or("-")).into_owned()
}

/// The heatmap of one judge: the attacks it judged, under the groups in their order.
fn heatmap(
    judge: &str,
    source: &str,
    groups: &[(String, Vec<&CorpusRow>)],
    cells: &BTreeMap<(&str, String, String), (usize, usize)>,
) -> Heatmap {
    // The groups this judge's source judged something of, in their order.
    let columns: Vec<String> = groups
        .iter()
        .map(|(label, _)| label.clone())
        .filter(|label| cells.keys().any(|(j, _, column)| *j == judge && column == label))
        .collect();
    let mut overall: BTreeMap<&String, (usize, usize)> = BTreeMap::new();
    for ((j, attack, _), (k, n)) in cells.iter().filter(|((j, ..), _)| *j == judge) {
        debug_assert_eq!(*j, judge);
        let total = overall.entry(attack).or_default();
        total.0 += k;
        total.1 += n;
    }
    let mut rows: Vec<(&String, (usize, usize))> = overall.into_iter().collect();
    // Highest overall rate first (k/n compared exactly), ties by name.
    rows.sort_by(|(a, (ka, na)), (b, (kb, nb))| (kb * na).cmp(&(ka * nb)).then_with(|| a.cmp(b)));
    let cells = rows
        .iter()
        .map(|(attack, _)| {
            columns
                .iter()
                .map(|column| cells.get(&(judge, attack.to_string(), column.clone())).copied())
                .collect()
        })
        .collect();
    Heatmap {
        judge: judge.to_string(),
        source: source.to_string(),
        rows: rows.into_iter().map(|(attack, _)| attack.clone()).collect(),
        columns,
        cells,
    }
}

/// The group of a row as one label; `all` without grouping fields.
fn label(by: &[String], row: &CorpusRow) -> String {
    if by.is_empty() {
        return "all".to_string();
    }
    by.iter().map(|f| single_line(&group_value(row, f)).into_owned()).collect::<Vec<_>>().join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{
        EpisodeConfig, EpisodeHeader, EventBody, SourceRef, TaskInfo, Verdict, VerdictMethod, stamp_events,
    };

    /// A sample that did not leak (a rule verdict `pass`), read from `format`, of `turns` turns as
    /// Inspect's summary counts them.
    fn row(format: &str, turns: Option<u32>) -> CorpusRow {
        let mut config = EpisodeConfig::default();
        config.extra.extend(turns.map(|t| ("inspect_turns".to_string(), serde_json::Value::from(t))));
        let mut header = EpisodeHeader::new("s", TaskInfo::default(), config);
        header.source = Some(SourceRef { format: format.into(), path: "log.eval".into() });
        let verdict = Verdict {
            turn: None,
            judge: "privacy".into(),
            method: VerdictMethod::Rule,
            model: None,
            outcome: Outcome::Pass,
            score: None,
            summary: None,
            details: serde_json::Value::Null,
            evidence: None,
            usage: None,
        };
        let bodies = vec![EventBody::Episode(Box::new(header)), EventBody::from(verdict)];
        let episode = crate::core::episode::Episode::new(stamp_events(bodies, "t"), "log.eval".to_string());
        CorpusRow::of(&episode, "log.eval".into(), &[])
    }

    #[test]
    fn an_episode_of_unknown_length_is_left_out_of_the_curve_and_counted() {
        let summary = crate::core::import::inspect::SUMMARY_FORMAT;
        let rows = [row(summary, Some(3)), row(summary, None), row(summary, None)];
        let group = vec![("all".to_string(), rows.iter().collect())];
        let series = chart_series(&group, &[], "rule", false);
        let privacy = series.survival.iter().find(|s| s.judge == "privacy").unwrap();
        let line = &privacy.lines[0];
        // All three count in the rate; only the one of known length is censored in the curve.
        assert_eq!(series.rates[0].bars[0].n, 3);
        assert_eq!((line.curve.observations, line.curve.events, line.unknown_length), (1, 0, 2));
        assert!(line.legend().contains("0/1 events (+2 of unknown length, left out)"), "{}", line.legend());
    }
}
