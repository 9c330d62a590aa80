//! `converse-tui summary PATH…`: rates per group and per verdict source over a corpus of episodes
//! (batch directories, the benchmark's runs, journals), with 95 % intervals; with two paths and
//! no grouping flags, A against B.
//!
//! What a rate is: one judge source's verdicts (rule, llm:MODEL, imported:MODEL, human), never
//! "any judge says fail"; `error` and `skipped` verdicts are out of n and counted apart; episodes
//! that were aborted, ended in an error, are forks or were played by a person are kept out of
//! the rates and reported apart (`--count-all` counts them). Without `--by` the rows are grouped
//! by every field that varies among the episodes (model, defence, domain) and the summary says
//! which; `--pool` puts them in one group. Rates of different judge sources are never pooled.

mod batch_info;
pub(super) mod cells;
mod compare;
mod grouping;
mod versus;

use std::io::Write;
use std::path::PathBuf;

use crate::core::corpus::CorpusRow;
use crate::core::corpus::index_cached;
use crate::core::corpus::row::{no_such_source, verdict_sources};
use crate::core::corpus::table::group_rows;
use crate::core::usage_error::UsageError;

pub use super::writers::Format;
pub use grouping::SummaryArgs;
use grouping::{grouping, grouping_note, tokens_note};
pub use versus::parse_vs;

/// Prints the summary; `Ok(false)` when some file could not be read (named on `err`; the rest
/// is counted). A corpus with no readable episode is an error.
pub fn summary(args: &SummaryArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<bool> {
    if args.compare {
        return compare::compare(args, out, err);
    }
    let corpus = index_cached(&args.paths, args.cache.as_deref());
    let clean = super::ls::report_problems(&corpus, err)?;
    if corpus.rows.is_empty() {
        anyhow::bail!("{}: no episode could be read", paths_text(&args.paths));
    }
    check_judge_model(args.judge_model.as_deref(), &corpus.rows)?;
    let by = grouping(args, &corpus.rows);
    let rows = group_rows(&corpus.rows, &by, args.judge_model.as_deref(), args.count_all);
    let note = grouping_note(args, &by, &corpus.rows);
    if let Some((field, value)) = &args.vs {
        let compared = versus::versus(args, &by, (*field, value), &corpus.rows, rows)?;
        if args.format == Format::Table {
            writeln!(out, "{note}")?;
        } else {
            writeln!(err, "{note}")?;
        }
        versus::write(args.format, &by, (*field, value), &compared, out)?;
    } else if args.format == Format::Json {
        writeln!(err, "{note}")?;
        super::writers::write_json_lines(&rows, out)?;
    } else {
        if args.format == Format::Table {
            writeln!(out, "{note}")?;
        } else {
            writeln!(err, "{note}")?;
        }
        let (header, cells) = cells::grouped(&by, &rows);
        super::writers::write_rows(args.format, &header, &cells, out)?;
        if args.format != Format::Csv {
            writeln!(out, "{}", cells::LEGEND)?;
        }
    }
    writeln!(err, "{}", tokens_note(args, &corpus.rows))?;
    Ok(clean)
}

/// `--judge-model M` when no verdict here is M's: an empty table would say nothing was judged.
fn check_judge_model(model: Option<&str>, rows: &[CorpusRow]) -> anyhow::Result<()> {
    let known = verdict_sources(rows);
    match model {
        Some(m) if !known.iter().any(|s| s.model() == Some(m)) => {
            Err(UsageError(no_such_source(&format!("--judge-model {m}"), &known)).into())
        }
        _ => Ok(()),
    }
}

fn paths_text(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}
