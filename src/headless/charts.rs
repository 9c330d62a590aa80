//! A corpus charted: indexed, grouped (`--by`, else the fields that vary) and counted for one
//! verdict source (`--judge`, else the one with the most privacy and security verdicts), for
//! the `chart` command and for `export --by … --format html|json|csv`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::core::atomic_file::write_atomic;
use crate::core::corpus::GroupField;
use crate::core::corpus::index_cached;
use crate::core::corpus::row::no_such_source;
use crate::core::corpus::series::{ChartSeries, chart_series, groups_by, sources};
use crate::core::episode::JudgeSource;
use crate::core::export::Format;
use crate::core::report::page::{CSV_HEADER, corpus_html, csv_rows};
use crate::core::usage_error::UsageError;

pub struct ChartArgs {
    pub paths: Vec<PathBuf>,
    /// `None`: the fields among model, defence and domain that vary.
    pub by: Option<Vec<GroupField>>,
    /// A source label (`imported:gpt-5`, `rule`); `None`: the busiest.
    pub judge: Option<String>,
    pub count_all: bool,
    pub cache: Option<PathBuf>,
}

/// The series, what they count in one line, and whether every file could be read.
pub struct Charted {
    pub series: ChartSeries,
    pub note: String,
    pub clean: bool,
}

/// Indexes, groups and counts; unreadable files are named on `err`.
pub fn chart_data(args: &ChartArgs, err: &mut dyn Write) -> anyhow::Result<Charted> {
    let corpus = index_cached(&args.paths, args.cache.as_deref());
    let clean = super::ls::report_problems(&corpus, err)?;
    if corpus.rows.is_empty() {
        let names: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        bail!("{}: no episode could be read", names.join(", "));
    }
    let by = match &args.by {
        Some(by) => by.clone(),
        None => GroupField::varying(corpus.rows.iter().filter(|r| args.count_all || r.excluded().is_none())),
    };
    let known = sources(&corpus.rows);
    let named =
        |sources: Vec<&JudgeSource>| sources.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
    let wanted = args.judge.as_deref().map(|text| (text, text.parse::<JudgeSource>()));
    let source = match wanted {
        Some((_, Ok(wanted))) if known.contains(&wanted) => wanted,
        Some((text, _)) => {
            return Err(UsageError(no_such_source(&format!("--judge {text}"), &known)).into());
        }
        None => known.first().cloned().context("no judged verdict to chart (a pass, partial or fail)")?,
    };
    let series = chart_series(&groups_by(&corpus.rows, &by), &by, &source, args.count_all);
    let grouped =
        if by.is_empty() { "one group".to_string() } else { format!("grouped by {}", GroupField::list(&by)) };
    let others = named(known.iter().filter(|s| **s != source).collect());
    let choice =
        if others.is_empty() { String::new() } else { format!("; other sources (--judge): {others}") };
    let note = format!("{} episodes, {grouped}; verdicts of {source}{choice}", corpus.rows.len());
    Ok(Charted { series, note, clean })
}

/// Writes the charts of `args` in `format` to `out` (atomically), or to `stdout`; the note goes
/// to `err`. `Ok(false)` when some file could not be read.
pub fn export_charts(
    args: &ChartArgs,
    format: Format,
    out: Option<&Path>,
    stdout: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<bool> {
    if !matches!(format, Format::Html | Format::Json | Format::Csv) {
        anyhow::bail!("--format {format}: a corpus's charts (--by, --judge) export as html, json or csv");
    }
    let charted = chart_data(args, err)?;
    writeln!(err, "{}", charted.note)?;
    let text = match format {
        Format::Html => corpus_html(&charted.series, "converse-tui: charts of a corpus", &charted.note),
        Format::Json => crate::core::safe_json::to_string(&charted.series)? + "\n",
        // csv (the other formats were refused above).
        _ => {
            let mut bytes = Vec::new();
            super::csv::write_record(&mut bytes, &CSV_HEADER)?;
            for row in csv_rows(&charted.series) {
                super::csv::write_record(&mut bytes, &row)?;
            }
            String::from_utf8(bytes).context("CSV is text")?
        }
    };
    match out {
        Some(path) => {
            write_atomic(path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?
        }
        None => stdout.write_all(text.as_bytes())?,
    }
    Ok(charted.clean)
}
