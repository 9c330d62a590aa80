//! What a summary is asked for, how it groups its rows when not told, and the notes that say
//! what was counted.

use std::path::PathBuf;

use super::super::writers::Format;
use crate::core::corpus::CorpusRow;
use crate::core::corpus::like_for_like::Counting;
use crate::core::corpus::row::Excluded;
use crate::core::corpus::table::varying_fields;

pub struct SummaryArgs {
    pub paths: Vec<PathBuf>,
    /// Group fields, in order; `None`: the fields that vary among the episodes.
    pub by: Option<Vec<String>>,
    /// One group for every episode (the judge sources stay apart).
    pub pool: bool,
    /// Count aborted, errored, forked and human-played episodes too.
    pub count_all: bool,
    pub judge_model: Option<String>,
    pub format: Format,
    /// Two paths compared (A, B, Δ) rather than counted as one corpus.
    pub compare: bool,
    /// Where the index cache lives (`None`: every file is read).
    pub cache: Option<PathBuf>,
    /// `--vs FIELD=VALUE`: every row against the row whose FIELD is VALUE.
    pub vs: Option<(String, String)>,
    /// Compare rows as they are, whatever tasks each judged (else like for like).
    pub all_tasks: bool,
}

impl SummaryArgs {
    /// How its tables count, for rows grouped by `by`.
    pub(super) fn counting<'a>(&'a self, by: &'a [String]) -> Counting<'a> {
        Counting { by, judge_model: self.judge_model.as_deref(), count_all: self.count_all }
    }
}

/// The tokens the counted episodes spent, the judges' share apart.
pub(super) fn tokens_note(args: &SummaryArgs, rows: &[CorpusRow]) -> String {
    let counted = rows.iter().filter(|r| args.count_all || r.excluded().is_none());
    let (tokens, judges) = counted.fold((0u64, 0u64), |(t, j), r| (t + r.tokens, j + r.judge_tokens));
    format!("tokens: {tokens} ({judges} by the LLM judges)")
}

/// The fields to group by: `--by`, none with `--pool`, else those that vary.
pub(super) fn grouping(args: &SummaryArgs, rows: &[CorpusRow]) -> Vec<String> {
    match (&args.by, args.pool) {
        (Some(by), _) => by.clone(),
        (None, true) => Vec::new(),
        (None, false) => {
            let counted: Vec<&CorpusRow> =
                rows.iter().filter(|r| args.count_all || r.excluded().is_none()).collect();
            varying_fields(counted.iter().copied())
        }
    }
}

/// What the rows are grouped by and what is kept out, in one line.
pub(super) fn grouping_note(args: &SummaryArgs, by: &[String], rows: &[CorpusRow]) -> String {
    let grouped = if by.is_empty() && args.pool {
        "pooled over every configuration (--pool)".to_string()
    } else if by.is_empty() {
        "one group: model, defence and domain are the same for every episode".to_string()
    } else if args.by.is_some() {
        format!("grouped by {}", by.join(", "))
    } else {
        format!(
            "grouped by {} (the fields that vary among the episodes; --by to choose, --pool for one group)",
            by.join(", ")
        )
    };
    let mut kept_out = [0usize; Excluded::ALL.len()];
    for row in rows {
        if let Some(why) = row.excluded() {
            kept_out[Excluded::ALL.iter().position(|w| *w == why).unwrap_or(0)] += 1;
        }
    }
    let total: usize = kept_out.iter().sum();
    let counted = rows.len() - if args.count_all { 0 } else { total };
    let apart = if total == 0 {
        String::new()
    } else if args.count_all {
        format!("; counted too (--count-all): {}", excluded_text(&kept_out))
    } else {
        format!("; kept out of the rates: {} (--count-all counts them)", excluded_text(&kept_out))
    };
    format!("{counted} episodes, one rate per judge source, {grouped}{apart}{}", unjudged_text(rows))
}

/// `; 8 attack run(s) with no verdict of their kind (privacy 5, security 3): ...`, or nothing.
fn unjudged_text(rows: &[CorpusRow]) -> String {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for judge in rows.iter().filter_map(CorpusRow::unjudged) {
        *counts.entry(judge).or_default() += 1;
    }
    if counts.is_empty() {
        return String::new();
    }
    let total: usize = counts.values().sum();
    let parts: Vec<String> = counts.iter().map(|(judge, n)| format!("{judge} {n}")).collect();
    format!(
        "; {total} attack run(s) with no verdict of their kind ({}): unjudged, never in n",
        parts.join(", ")
    )
}

fn excluded_text(counts: &[usize]) -> String {
    let parts: Vec<String> = Excluded::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| **n > 0)
        .map(|(why, n)| format!("{n} {}", why.as_str()))
        .collect();
    parts.join(", ")
}
