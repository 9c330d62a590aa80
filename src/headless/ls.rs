//! `converse-tui ls PATH… [--json] [--where EXPR]`: one line per episode of a corpus.

use std::io::Write;
use std::path::{Path, PathBuf};

use unicode_width::UnicodeWidthStr;

use crate::core::corpus::row::judges;
use crate::core::corpus::{Corpus, CorpusRow, Filter, common_dir, index_cached};
use crate::core::episode::Judge;
use crate::core::sanitize::single_line;

use super::text_table::Table;

pub struct LsArgs {
    pub paths: Vec<PathBuf>,
    pub json: bool,
    pub filter: Option<String>,
    /// Columns the table may take (`None`: as wide as the content).
    pub width: Option<usize>,
    /// Where the index cache lives (`None`: every file is read).
    pub cache: Option<PathBuf>,
}

/// Lists the episodes; `Ok(false)` when some file could not be read (each
/// named on `err` as `path:line: problem`; the rest is listed).
pub fn ls(args: &LsArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<bool> {
    let corpus = index_cached(&args.paths, args.cache.as_deref());
    let rows = filtered(&corpus, args.filter.as_deref())?;
    if args.json {
        for row in &rows {
            writeln!(out, "{}", crate::core::safe_json::to_string(&json_row(row))?)?;
        }
    } else {
        write_table(&rows, args.width, out, err)?;
    }
    report_problems(&corpus, err)
}

/// A row as `--json` writes it: its fields, and the judge an attack run lacks (`unjudged`).
#[derive(serde::Serialize)]
struct JsonRow<'a> {
    #[serde(flatten)]
    row: std::borrow::Cow<'a, CorpusRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unjudged: Option<Judge>,
}

/// A file name that is not UTF-8 (which JSON cannot hold) is written with `U+FFFD` in place of
/// its bad bytes, as the table shows it, rather than sinking the whole listing (issue 24).
fn json_row(row: &CorpusRow) -> JsonRow<'_> {
    let unjudged = row.unjudged();
    if row.path.to_str().is_some() {
        return JsonRow { row: std::borrow::Cow::Borrowed(row), unjudged };
    }
    let mut shown = row.clone();
    shown.path = PathBuf::from(row.path.to_string_lossy().into_owned());
    JsonRow { row: std::borrow::Cow::Owned(shown), unjudged }
}

/// The rows that pass `--where` (all without one).
pub fn filtered<'a>(corpus: &'a Corpus, expr: Option<&str>) -> anyhow::Result<Vec<&'a CorpusRow>> {
    let Some(expr) = expr else {
        return Ok(corpus.rows.iter().collect());
    };
    let filter = Filter::parse_for(expr, &corpus.rows).map_err(crate::core::usage_error::UsageError)?;
    Ok(corpus.rows.iter().filter(|r| filter.matches(r)).collect())
}

/// Prints the warnings and the unreadable files; false when there were any of the latter.
pub fn report_problems(corpus: &Corpus, err: &mut dyn Write) -> anyhow::Result<bool> {
    for warning in &corpus.warnings {
        writeln!(err, "warning: {}", single_line(warning))?;
    }
    for e in &corpus.errors {
        writeln!(err, "{e}")?;
    }
    Ok(corpus.errors.is_empty())
}

/// Every judge name the rows have, sorted.
const FIXED: [&str; 9] =
    ["model", "defence", "domain", "persona", "category", "attack", "rep", "turns", "events"];

/// The table on `out`, the count and the folder the paths are under on `err` (a pipe gets rows only).
fn write_table(
    rows: &[&CorpusRow],
    width: Option<usize>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let judges = judges(rows.iter().copied());
    let mut header: Vec<String> = FIXED.iter().map(|s| s.to_string()).collect();
    header.extend(judges.iter().map(ToString::to_string));
    header.push("path".to_string());
    let prefix = common_dir(rows.iter().map(|r| r.path.as_path()));
    let cells: Vec<Vec<String>> = rows.iter().map(|r| row_cells(r, &judges, &prefix)).collect();
    if let Some(width) = width {
        // The file name is what tells runs of one folder apart: the path column keeps it whole.
        let file_names = rows.iter().filter_map(|r| r.path.file_name()).map(|n| n.to_string_lossy().width());
        let path_min = file_names.max().unwrap_or(4).clamp(4, 40) + 1;
        let mut min: Vec<usize> = header.iter().map(|h| h.width().max(6)).collect();
        *min.last_mut().expect("a path column") = path_min;
        let drop_order = [8, 6, 3, 7, 4, 2, 1];
        let mut table = Table::new(header, cells);
        table.fit(width, &min, &drop_order);
        table.write(out)?;
    } else {
        Table::new(header, cells).write(out)?;
    }
    if prefix.as_os_str().is_empty() {
        writeln!(err, "{} episodes", rows.len())?;
    } else {
        writeln!(err, "{} episodes (paths under {})", rows.len(), single_line(&prefix.to_string_lossy()))?;
    }
    Ok(())
}

fn row_cells(row: &CorpusRow, judges: &[Judge], prefix: &Path) -> Vec<String> {
    let or_dash = |v: Option<&str>| v.unwrap_or("-").to_string();
    let rep = match (row.repeat, row.retry) {
        (Some(r), Some(t)) => format!("{r}.{t}"),
        (Some(r), None) => r.to_string(),
        _ => "-".to_string(),
    };
    let mut cells = vec![
        or_dash(row.model.as_deref()),
        or_dash(row.defence.as_deref()),
        or_dash(row.domain.as_deref()),
        or_dash(row.persona.as_deref()),
        or_dash(row.category.as_deref()),
        or_dash(row.attack.as_deref().or(row.task_id.as_deref())),
        rep,
        row.turns.map_or_else(|| "?".into(), |n| n.to_string()),
        row.events.map_or_else(|| "?".into(), |n| n.to_string()),
    ];
    for judge in judges {
        // One outcome per source (two judge models: `fail/pass`).
        let outcomes: Vec<&str> = row.verdicts_of(judge).map(|v| v.outcome.as_str()).collect();
        let none = if row.unjudged().as_ref() == Some(judge) { "unjudged" } else { "-" };
        cells.push(if outcomes.is_empty() { none.to_string() } else { row.verdict_cell(outcomes.join("/")) });
    }
    cells.push(row.path.strip_prefix(prefix).unwrap_or(&row.path).to_string_lossy().into_owned());
    cells.into_iter().map(|c| single_line(&c).into_owned()).collect()
}
