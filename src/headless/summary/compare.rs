//! `summary A B`: the same rows for two corpora side by side, per group and judge source, with
//! the difference B − A.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;
use serde_json::{Map, Value};

use super::super::writers::Format;
use super::batch_info;
use super::cells::{mean, percent};
use super::grouping::{SummaryArgs, grouping, grouping_note};
use crate::core::corpus::table::{GroupRow, group_rows};
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
}

type Key = (Vec<String>, String, VerdictMethod, Option<String>);

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
    let both: Vec<CorpusRow> = a.rows.iter().chain(&b.rows).cloned().collect();
    let by = grouping(args, &both);
    writeln!(err, "A: {}", grouping_note(args, &by, &a.rows))?;
    writeln!(err, "B: {}", grouping_note(args, &by, &b.rows))?;
    let rows = joined(
        group_rows(&a.rows, &by, args.judge_model.as_deref(), args.count_all),
        group_rows(&b.rows, &by, args.judge_model.as_deref(), args.count_all),
    );
    if args.format == Format::Json {
        super::super::writers::write_json_lines(&rows, out)?;
    } else {
        let mut header = by.clone();
        header.extend(
            ["judge", "source", "A n", "A rate / coverage", "B n", "B rate / coverage", "Δ B − A"]
                .map(String::from),
        );
        let cells: Vec<Vec<String>> = rows.iter().map(cells).collect();
        super::super::writers::write_rows(args.format, &header, &cells, out)?;
    }
    Ok(clean)
}

/// A's and B's rows matched on group and judge source, in order.
fn joined(a: Vec<GroupRow>, b: Vec<GroupRow>) -> Vec<Compared> {
    let key = |r: &GroupRow| -> Key {
        let group = r.group.values().map(|v| v.as_str().unwrap_or("-").to_string()).collect();
        (group, r.judge.clone(), r.method, r.judge_model.clone())
    };
    let mut sides: BTreeMap<Key, [Option<GroupRow>; 2]> = BTreeMap::new();
    for (side, rows) in [a, b].into_iter().enumerate() {
        for row in rows {
            let k = key(&row);
            sides.entry(k).or_default()[side] = Some(row);
        }
    }
    sides
        .into_iter()
        .map(|((_, judge, method, judge_model), [a, b])| {
            let group = a.as_ref().or(b.as_ref()).map(|r| r.group.clone()).unwrap_or_default();
            let delta = match (figure(a.as_ref()), figure(b.as_ref())) {
                (Some(x), Some(y)) => Some(y - x),
                _ => None,
            };
            Compared { group, judge, method, judge_model, a, b, delta }
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
    let mut cells: Vec<String> = c.group.values().map(|v| v.as_str().unwrap_or("-").to_string()).collect();
    cells.extend([c.judge.clone(), source_label(c.method, c.judge_model.as_deref()), an, ar, bn, br, delta]);
    cells
}

/// A signed difference with `decimals` places; one that rounds to zero is `0` without a sign (no `-0.000`).
fn signed(d: f64, decimals: usize, unit: &str) -> String {
    let text = format!("{d:+.decimals$}");
    if text[1..].chars().all(|c| c == '0' || c == '.') {
        format!("{}{unit}", &text[1..])
    } else {
        format!("{text}{unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::signed;

    #[test]
    fn a_difference_that_rounds_to_zero_has_no_sign() {
        assert_eq!(signed((0.1 + 0.2) - 0.3 - 1e-9, 3, ""), "0.000");
        assert_eq!(signed(-0.0, 1, "pp"), "0.0pp");
        assert_eq!(signed(-0.0004, 3, ""), "0.000");
        assert_eq!(signed(-0.0006, 3, ""), "-0.001");
        assert_eq!(signed(12.34, 1, "pp"), "+12.3pp");
    }
}
