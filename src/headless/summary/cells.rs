//! A summary's rows as table cells: one line per group × judge × verdict source.

use crate::core::corpus::GroupField;
use crate::core::corpus::row::Excluded;
use crate::core::corpus::table::{GroupRow, MeanSummary};

pub const LEGEND: &str = "n: verdicts of that source that judged (errors and skipped left out); rate: \
     succeeded / n (a leak, a Successful attack; partial counted apart); CI: Wilson score; utility: \
     mean coverage and mean rating with Student-t CI; kept out: episodes not counted (--count-all); \
     unjudged: attack runs of the group that no source judged, never in n";

const COLUMNS: [&str; 14] = [
    "judge",
    "source",
    "n",
    "succeeded",
    "partial",
    "rate",
    "95% CI",
    "rate incl. partial",
    "95% CI incl. partial",
    "errors",
    "skipped",
    "kept out",
    "unjudged",
    "utility: mean coverage / mean rating (95% CI)",
];

/// The header and cells of `rows`, grouped by `by`.
pub fn grouped(by: &[GroupField], rows: &[GroupRow]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header: Vec<String> = by.iter().map(ToString::to_string).collect();
    header.extend(COLUMNS.iter().map(|c| c.to_string()));
    (header, rows.iter().map(row_cells).collect())
}

pub fn percent(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{:.2}%", 100.0 * v))
}

pub fn interval(v: Option<(f64, f64)>) -> String {
    v.map_or("-".to_string(), |(lo, hi)| format!("[{:.2}, {:.2}]", 100.0 * lo, 100.0 * hi))
}

pub fn mean(m: Option<MeanSummary>) -> Option<String> {
    m.map(|m| match m.ci95 {
        Some((lo, hi)) => format!("{:.3} [{lo:.3}, {hi:.3}]", m.mean),
        None => format!("{:.3}", m.mean),
    })
}

/// `2 aborted, 1 forks`, or `-`.
pub fn kept_out(r: &GroupRow) -> String {
    let parts: Vec<String> = Excluded::ALL
        .iter()
        .filter_map(|why| r.excluded.get(why).map(|n| format!("{n} {}", why.as_str())))
        .collect();
    if parts.is_empty() { "-".to_string() } else { parts.join(", ") }
}

fn row_cells(r: &GroupRow) -> Vec<String> {
    let utility = match (mean(r.coverage), mean(r.rating)) {
        (None, None) => "-".to_string(),
        (c, rating) => format!("{} / {}", c.unwrap_or("-".into()), rating.unwrap_or("-".into())),
    };
    let count = |k: Option<usize>| k.map_or("-".to_string(), |k| k.to_string());
    let mut cells: Vec<String> = r.group.values().map(|v| v.as_str().unwrap_or("-").to_string()).collect();
    cells.extend([
        r.judge.to_string(),
        r.source().to_string(),
        r.episodes.to_string(),
        count(r.attacks_succeeded),
        count(r.partial),
        percent(r.asr),
        interval(r.ci95),
        percent(r.asr_with_partial),
        interval(r.ci95_with_partial),
        r.judge_errors.to_string(),
        r.skipped.to_string(),
        kept_out(r),
        r.unjudged.to_string(),
        utility,
    ]);
    cells
}

/// A signed difference with `decimals` places; one that rounds to zero is `0` without a sign (no `-0.000`).
pub fn signed(d: f64, decimals: usize, unit: &str) -> String {
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
