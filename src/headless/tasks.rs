//! `converse-tui tasks`: list CONVERSE tasks as a table or JSON lines.

use std::io::Write;

use anyhow::Context;
use unicode_width::UnicodeWidthStr;

use crate::config::Paths;
use crate::core::dataset::{AttackType, LoadedTasks};
use crate::core::sanitize::single_line;
use crate::session::tasks::{TaskSelection, load};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TasksArgs {
    /// Which tasks, from which dataset.
    pub select: TaskSelection,
    /// One JSON object per line instead of a table.
    pub json: bool,
}

/// Writes the listing to `out` and warnings to `err`.
pub fn tasks(
    args: &TasksArgs,
    paths: &Paths,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let loaded = load(&args.select, paths)?;
    for w in &loaded.warnings {
        writeln!(err, "warning: {}", single_line(w))?;
    }
    if args.json {
        for t in &loaded.tasks {
            let line = crate::core::safe_json::to_string(t).context("serialising a task")?;
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    write_table(&loaded, out, err)?;
    Ok(())
}

/// The table on `out`; where the tasks come from and how many there are on `err` (a pipe gets
/// rows only).
fn write_table(loaded: &LoadedTasks, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<()> {
    writeln!(err, "source: {}", loaded.source)?;
    let header = ["ID", "PERSONA", "TYPE", "CATEGORY", "DATA ITEM / ATTACK"];
    let rows: Vec<[String; 5]> = loaded
        .tasks
        .iter()
        .map(|t| {
            [
                single_line(&t.id).into_owned(),
                t.persona.to_string(),
                t.attack_type.as_str().to_string(),
                single_line(&t.category).into_owned(),
                single_line(t.target_label()).into_owned(),
            ]
        })
        .collect();
    let mut widths = header.map(UnicodeWidthStr::width);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut s = String::new();
        for (i, cell) in cells.iter().enumerate() {
            s.push_str(cell);
            if i + 1 < cells.len() {
                // Pad by display width, not bytes or chars.
                s.push_str(&" ".repeat(widths[i] - cell.width() + 2));
            }
        }
        s
    };
    writeln!(out, "{}", line(header))?;
    for row in &rows {
        writeln!(out, "{}", line(row.each_ref().map(String::as_str)))?;
    }
    let privacy = loaded.tasks.iter().filter(|t| t.attack_type == AttackType::Privacy).count();
    let security = loaded.tasks.len() - privacy;
    writeln!(
        err,
        "{} tasks ({privacy} privacy, {security} security) from {}",
        loaded.tasks.len(),
        loaded.source
    )
}
