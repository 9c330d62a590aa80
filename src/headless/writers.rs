//! The one set of writers the headless commands print rows with: a text table sized to its
//! content, Markdown, RFC 4180 CSV, JSON lines. Every cell is made inert on the way out.

use std::io::Write;

use serde::Serialize;

use super::text_table::Table;
use crate::core::sanitize::single_line;

/// How a command prints its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    #[value(alias = "md")]
    Markdown,
    Csv,
    Json,
}

/// Writes `cells` under `header` as a table, Markdown or CSV (JSON rows are written by
/// [`write_json_lines`]).
pub fn write_rows(
    format: Format,
    header: &[String],
    cells: &[Vec<String>],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        Format::Markdown => {
            let line = |cells: &[String]| {
                let cells: Vec<String> = cells.iter().map(|c| single_line(c).replace('|', "\\|")).collect();
                format!("| {} |", cells.join(" | "))
            };
            writeln!(out, "{}", line(header))?;
            writeln!(out, "|{}", "---|".repeat(header.len()))?;
            for row in cells {
                writeln!(out, "{}", line(row))?;
            }
            Ok(())
        }
        Format::Csv => {
            for row in std::iter::once(header).chain(cells.iter().map(Vec::as_slice)) {
                super::csv::write_record(out, row)?;
            }
            Ok(())
        }
        Format::Table | Format::Json => Table::new(header.to_vec(), cells.to_vec()).write(out),
    }
}

/// One JSON object per row, escaped as every JSON output is.
pub fn write_json_lines<T: Serialize>(rows: &[T], out: &mut dyn Write) -> anyhow::Result<()> {
    for row in rows {
        writeln!(out, "{}", crate::core::safe_json::to_string(row)?)?;
    }
    Ok(())
}
