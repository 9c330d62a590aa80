//! `summary A B`: the same rows for two corpora side by side, per group and judge source, with
//! the difference B − A.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;
use serde_json::{Map, Value};

use super::super::writers::Format;
use super::batch_info;
use super::cells::{mean, percent, signed};
use super::grouping::{SummaryArgs, grouping, grouping_note};
use super::versus;
use crate::core::corpus::contrast::{Contrast, contrast};
use crate::core::corpus::like_for_like::{Counting, Groups, Scope, like_for_like};
use crate::core::corpus::table::{GroupKey, GroupRow, group_rows};
use crate::core::corpus::{CorpusRow, index_cached};
use crate::core::episode::VerdictMethod;
use crate::core::episode::source_label;
use crate::core::sanitize::single_line;

/// One line of the comparison: a group and judge source, and its row in A and in B.
#[derive(Debug, Serialize)]
pub struct Compared {
    pub group: Map<String, Value>,
    pub judge: String,
    pub method: VerdictMethod,
    pub judge_model: Option<String>,
    pub a: Option<GroupRow>,
    pub b: Option<GroupRow>,
    /// B − A of the rate (privacy, security) or of the mean coverage (utility).
    pub delta: Option<f64>,
    /// B's rate against A's: its 95 % interval, p-value and test (rates only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<Contrast>,
    /// What A and B were compared on (both rows counted on the tasks both judged, by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub like_for_like: Option<Scope>,
}

pub fn compare(args: &SummaryArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<bool> {
    let [a, b] = [&args.paths[0], &args.paths[1]]
        .map(|p| index_cached(std::slice::from_ref(p), args.cache.as_deref()));
    let mut clean = super::super::ls::report_problems(&a, err)?;
    clean &= super::super::ls::report_problems(&b, err)?;
    for (corpus, path) in [(&a, &args.paths[0]), (&b, &args.paths[1])] {
        if corpus.rows.is_empty() {
            anyhow::bail!("{}: no episode could be read", path.display());
        }
    }
    for difference in
        batch_info::differences(&batch_info::settings(&args.paths[0]), &batch_info::settings(&args.paths[1]))
    {
        writeln!(err, "warning: A and B used different settings: {}", single_line(&difference))?;
    }
    // The fields that vary within A or within B: one that only tells A from B (A is the
    // baseline, B the firewall) would put their rows in different groups, with nothing compared.
    let (by_a, by_b) = (grouping(args, &a.rows), grouping(args, &b.rows));
    let by: Vec<String> = by_a.iter().chain(&by_b).fold(Vec::new(), |mut by, field| {
        if !by.contains(field) {
            by.push(field.clone());
        }
        by
    });
    writeln!(err, "A: {}", grouping_note(args, &by, &a.rows))?;
    writeln!(err, "B: {}", grouping_note(args, &by, &b.rows))?;
    let rows = joined(args.counting(&by), [&a.rows, &b.rows], args.all_tasks);
    if args.format == Format::Json {
        super::super::writers::write_json_lines(&rows, out)?;
    } else {
        let mut header = by.clone();
        header.extend(
            [
                "judge",
                "source",
                "A n",
                "A rate / coverage",
                "B n",
                "B rate / coverage",
                "Δ B − A",
                "95% CI of Δ",
                "p",
                "test",
                "like for like",
            ]
            .map(String::from),
        );
        let cells: Vec<Vec<String>> = rows.iter().map(cells).collect();
        super::super::writers::write_rows(args.format, &header, &cells, out)?;
        if args.format != Format::Csv {
            writeln!(
                out,
                "{}",
                versus::LEGEND.replace("the row's rate minus the reference's", "B's rate minus A's")
            )?;
            writeln!(
                out,
                "{}",
                versus::SCOPE_LEGEND.replace("a tested row and its reference are", "A's and B's rows are")
            )?;
        }
    }
    Ok(clean)
}

/// A's and B's rows matched on group and judge source, in order; where both have the row, each
/// counted on the tasks both judged (unless `all_tasks`) and B's rate tested against A's.
fn joined(counting: Counting, corpora: [&[CorpusRow]; 2], all_tasks: bool) -> Vec<Compared> {
    let Counting { by, judge_model, count_all } = counting;
    let groups = corpora.map(|rows| Groups::of(rows, by));
    let mut sides: BTreeMap<GroupKey, [Option<GroupRow>; 2]> = BTreeMap::new();
    for (side, rows) in corpora.iter().enumerate() {
        for row in group_rows(rows.iter(), by, judge_model, count_all) {
            let key = versus::key_of(&row);
            sides.entry(key).or_default()[side] = Some(row);
        }
    }
    sides
        .into_iter()
        .map(|(key, rows)| {
            let group = rows.iter().flatten().next().map(|r| r.group.clone()).unwrap_or_default();
            let ([a, b], test, like_for_like) = match rows {
                [Some(_), Some(_)] => {
                    let sides = [groups[0].side(&key), groups[1].side(&key)];
                    let compared = like_for_like(counting, sides, all_tasks);
                    let test = contrast(&compared.samples[0], &compared.samples[1]);
                    (compared.rows, test, Some(compared.scope))
                }
                rows => (rows, None, None),
            };
            let delta = match (figure(a.as_ref()), figure(b.as_ref())) {
                (Some(x), Some(y)) => Some(y - x),
                _ => None,
            };
            let (_, judge, method, judge_model) = key;
            Compared { group, judge, method, judge_model, a, b, delta, test, like_for_like }
        })
        .collect()
}

/// The figure compared: the rate, or the utility judge's mean coverage.
fn figure(row: Option<&GroupRow>) -> Option<f64> {
    let row = row?;
    row.asr.or(row.coverage.map(|c| c.mean))
}

fn cells(c: &Compared) -> Vec<String> {
    let side = |r: &Option<GroupRow>| match r {
        None => ("-".to_string(), "-".to_string()),
        Some(r) if r.asr.is_some() => (r.episodes.to_string(), percent(r.asr)),
        Some(r) => (r.episodes.to_string(), mean(r.coverage).unwrap_or("-".into())),
    };
    let (an, ar) = side(&c.a);
    let (bn, br) = side(&c.b);
    let utility = c.a.as_ref().or(c.b.as_ref()).is_some_and(|r| r.asr.is_none());
    let delta = c
        .delta
        .map_or("-".to_string(), |d| if utility { signed(d, 3, "") } else { signed(100.0 * d, 1, "pp") });
    let (delta_ci, p, test) = match &c.test {
        Some(t) => (
            format!("[{}, {}]", versus::points(t.ci95.0), versus::points(t.ci95.1)),
            versus::p_value(t.p_value),
            t.test_label(),
        ),
        None => ("-".to_string(), "-".to_string(), "-".to_string()),
    };
    let mut cells: Vec<String> = c.group.values().map(|v| v.as_str().unwrap_or("-").to_string()).collect();
    cells.extend([
        c.judge.clone(),
        source_label(c.method, c.judge_model.as_deref()),
        an,
        ar,
        bn,
        br,
        delta,
        delta_ci,
        p,
        test,
        c.like_for_like.as_ref().map_or("-".to_string(), |scope| scope.describe(["A", "B"])),
    ]);
    cells
}
