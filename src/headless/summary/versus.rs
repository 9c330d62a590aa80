//! `summary --vs FIELD=VALUE`: every row against the row of the same group and judge source
//! whose FIELD is VALUE (the reference): the difference with its 95 % interval, an exact
//! p-value, and which test gave them.

use std::collections::BTreeSet;
use std::io::Write;

use serde::Serialize;

use super::super::writers::Format;
use super::cells::{percent, signed};
use super::grouping::SummaryArgs;
use crate::core::corpus::CorpusRow;
use crate::core::corpus::contrast::{Contrast, contrast};
use crate::core::corpus::like_for_like::{Groups, Scope, like_for_like};
use crate::core::corpus::table::{GROUP_FIELDS, GroupKey, GroupRow, group_value};
use crate::core::episode::source_label;

/// `defence=baseline` → (`defence`, `baseline`); the field must be one the rows are grouped by.
pub fn parse_vs(text: &str) -> Result<(String, String), String> {
    let (field, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--vs '{text}': expected FIELD=VALUE, e.g. defence=baseline"))?;
    let field = field.trim().to_lowercase();
    if !GROUP_FIELDS.contains(&field.as_str()) {
        return Err(format!(
            "--vs '{text}': unknown field '{field}': known fields are {}",
            GROUP_FIELDS.join(", ")
        ));
    }
    Ok((field, value.trim().to_string()))
}

/// One row of the table with how it compares to its reference.
#[derive(Debug, Serialize)]
pub struct Versus {
    #[serde(flatten)]
    pub row: GroupRow,
    /// `reference`: this row is the reference; `tested`: compared; `no reference of this source`: the
    /// reference group has no row of this judge source; `nothing judged`: a side has no
    /// verdict that judged; `not a rate`: the utility judge's mean.
    pub versus: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contrast: Option<Contrast>,
    /// What a tested row was compared on: the tasks it shares with its reference (its figures
    /// above are counted on them), the same tasks, or all (`--all-tasks`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub like_for_like: Option<Scope>,
}

/// Every row of `rows` against its reference; an error when `field` is not a grouping field or
/// no row has `value`.
pub fn versus(
    args: &SummaryArgs,
    by: &[String],
    (field, value): (&str, &str),
    corpus: &[CorpusRow],
    rows: Vec<GroupRow>,
) -> anyhow::Result<Vec<Versus>> {
    let Some(position) = by.iter().position(|f| f == field) else {
        anyhow::bail!(
            "--vs {field}={value}: the rows are not grouped by {field} (grouped by {}); add it to --by",
            if by.is_empty() { "nothing".to_string() } else { by.join(", ") }
        );
    };
    if !corpus.iter().any(|r| group_value(r, field) == value) {
        let mut values: Vec<String> = corpus.iter().map(|r| group_value(r, field)).collect();
        values.sort();
        values.dedup();
        anyhow::bail!(
            "--vs {field}={value}: no episode has {field} {value} (there are: {})",
            values.join(", ")
        );
    }
    let counting = args.counting(by);
    let groups = Groups::of(corpus, by);
    let keys: BTreeSet<GroupKey> = rows.iter().map(key_of).collect();
    Ok(rows
        .into_iter()
        .map(|row| {
            let key = key_of(&row);
            let mut reference = key.clone();
            reference.0[position] = value.to_string();
            let untested = |versus| Versus { row: row.clone(), versus, contrast: None, like_for_like: None };
            if row.asr.is_none() && row.attacks_succeeded.is_none() {
                return untested("not a rate");
            } else if key.0[position] == value {
                return untested("reference");
            } else if !keys.contains(&reference) {
                return untested("no reference of this source");
            }
            let sides = [groups.side(&reference), groups.side(&key)];
            let compared = like_for_like(counting, sides, args.all_tasks);
            let [_, shown] = compared.rows;
            let contrast = contrast(&compared.samples[0], &compared.samples[1]);
            let versus = match (&contrast, &compared.scope) {
                (Some(_), _) => "tested",
                (None, Scope::SharedTasks { tasks: 0, .. }) => "no task in common",
                (None, _) => "nothing judged",
            };
            Versus { row: shown.unwrap_or(row), versus, contrast, like_for_like: Some(compared.scope) }
        })
        .collect())
}

pub fn key_of(r: &GroupRow) -> GroupKey {
    let group = r.group.values().map(|v| v.as_str().unwrap_or("-").to_string()).collect();
    (group, r.judge.clone(), r.method, r.judge_model.clone())
}

/// Prints the rows against their reference in `format`.
pub fn write(
    format: Format,
    by: &[String],
    (field, value): (&str, &str),
    rows: &[Versus],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if format == Format::Json {
        return super::super::writers::write_json_lines(rows, out);
    }
    let mut header = by.to_vec();
    header.extend(
        [
            "judge",
            "source",
            "n",
            "succeeded",
            "rate",
            "95% CI",
            &format!("Δ vs {field}={value}"),
            "95% CI of Δ",
            "p",
            "test",
            "like for like",
        ]
        .map(String::from),
    );
    let cells: Vec<Vec<String>> = rows.iter().map(cells).collect();
    super::super::writers::write_rows(format, &header, &cells, out)?;
    if format != Format::Csv {
        writeln!(out, "{LEGEND}")?;
        writeln!(out, "{SCOPE_LEGEND}")?;
    }
    Ok(())
}

/// What the `like for like` column says.
pub const SCOPE_LEGEND: &str = "like for like: a tested row and its reference are counted on the tasks both judged \
     (its n, rate and Δ are those), and the column says how many judged verdicts of each side were dropped; \
     --all-tasks compares them as they are";

pub const LEGEND: &str = "Δ: the row's rate minus the reference's, in percentage points; 95% CI of Δ: Newcombe \
     (hybrid score; paired when the test is McNemar); p: exact, two-sided — Fisher's test for \
     independent samples, McNemar's when both rows judged the same tasks (id and repetition), \
     paired by task. What each assumes: docs/statistics.md";

fn cells(v: &Versus) -> Vec<String> {
    let r = &v.row;
    let mut cells: Vec<String> = r.group.values().map(|v| v.as_str().unwrap_or("-").to_string()).collect();
    let count = |k: Option<usize>| k.map_or("-".to_string(), |k| k.to_string());
    let interval = |ci: Option<(f64, f64)>| {
        ci.map_or("-".to_string(), |(lo, hi)| format!("[{:.2}, {:.2}]", 100.0 * lo, 100.0 * hi))
    };
    let (delta, delta_ci, p, test) = match &v.contrast {
        Some(c) => (
            points(c.difference),
            format!("[{}, {}]", points(c.ci95.0), points(c.ci95.1)),
            p_value(c.p_value),
            c.test_label(),
        ),
        None => ("-".to_string(), "-".to_string(), "-".to_string(), v.versus.to_string()),
    };
    cells.extend([
        r.judge.clone(),
        source_label(r.method, r.judge_model.as_deref()),
        r.episodes.to_string(),
        count(r.attacks_succeeded),
        percent(r.asr),
        interval(r.ci95),
        delta,
        delta_ci,
        p,
        test,
        v.like_for_like.as_ref().map_or("-".to_string(), |scope| scope.describe(["ref", "row"])),
    ]);
    cells
}

/// A difference of rates in percentage points with its sign: `+12.50`, `-3.00`, `0.00`.
pub fn points(d: f64) -> String {
    signed(100.0 * d, 2, "")
}

/// A p-value with four decimals, `<0.0001` below.
pub fn p_value(p: f64) -> String {
    if p < 1e-4 { "<0.0001".to_string() } else { format!("{p:.4}") }
}
