//! `converse-tui dump PATH... [--json]`: print the normalised events of any
//! supported file or directory, as journal JSON lines or an aligned table.

use std::io::Write;
use std::path::PathBuf;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::core::annotate::annotation_views;
use crate::core::dataset::TaskLookup;
use crate::core::episode::{Episode, Event, EventBody};
use crate::core::import::{load_dir, load_path};
use crate::core::sanitize;
use crate::headless::episode_tasks::enrich_noting;

/// Widest summary column in the text table, in terminal cells.
const SUMMARY_WIDTH: usize = 100;

/// Loads each path (a file, or every episode under a directory) and prints its events,
/// and in the table the annotations of its notes file. What the reader forgave
/// (a truncated last line…) goes to `err` as `warning: path:line: problem`.
///
/// The first load error stops the dump and is returned as `path:line: problem`.
/// Imported episodes get their task from `tasks`.
pub fn dump(
    paths: &[PathBuf],
    json: bool,
    tasks: &TaskLookup,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    for path in paths {
        let mut episodes = if path.is_dir() {
            let (episodes, errors) = load_dir(path);
            if let Some(e) = errors.into_iter().next() {
                return Err(e.into());
            }
            episodes
        } else {
            load_path(path)?
        };
        enrich_noting(tasks, &mut episodes, &mut std::io::stderr());
        for episode in &episodes {
            for warning in &episode.warnings {
                writeln!(err, "warning: {}", sanitize::single_line(warning))?;
            }
            if json {
                write_json(episode, out)?;
            } else {
                write_table(episode, out)?;
            }
        }
    }
    Ok(())
}

fn write_json(episode: &Episode, out: &mut dyn Write) -> anyhow::Result<()> {
    for event in &episode.events {
        crate::core::safe_json::to_writer(&mut *out, event)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn write_table(episode: &Episode, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(
        out,
        "episode {} ({})",
        sanitize::single_line(episode.id()),
        sanitize::single_line(&episode.origin)
    )?;
    let rows: Vec<[String; 5]> = episode.events.iter().map(row).collect();
    let mut widths = [0usize; 4];
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r.iter()) {
            *w = (*w).max(cell.width());
        }
    }
    for r in &rows {
        let mut line = String::new();
        for (i, (w, cell)) in widths.iter().zip(r.iter()).enumerate() {
            // Numbers right-aligned, words left-aligned.
            let pad = " ".repeat(w.saturating_sub(cell.width()));
            if i < 2 {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
            line.push_str("  ");
        }
        line.push_str(&truncate(&r[4], SUMMARY_WIDTH));
        writeln!(out, "{}", line.trim_end())?;
    }
    for a in annotation_views(episode) {
        let quote = a.quote.map(|q| format!(" «{q}»")).unwrap_or_default();
        let text = format!("note #{} {}{quote} {}", a.target_seq, a.label, a.note);
        writeln!(out, "  {}", truncate(sanitize::single_line(&text).trim_end(), SUMMARY_WIDTH))?;
    }
    writeln!(out)?;
    Ok(())
}

/// seq, turn, kind, who (from→to or the tool), summary.
fn row(event: &Event) -> [String; 5] {
    let turn = event.body.turn().map(|t| t.to_string()).unwrap_or_default();
    let (who, summary) = match &event.body {
        EventBody::Episode(h) => {
            let source = h.source.as_ref().map(|s| format!(" from {}", s.format)).unwrap_or_default();
            (String::new(), format!("{}{source}", h.id))
        }
        EventBody::Message(m) if m.is_note() => (format!("{} note", m.from.as_str()), m.text.clone()),
        EventBody::Message(m) => (format!("{}→{}", m.from.as_str(), m.to.as_str()), m.text.clone()),
        EventBody::ToolCall(c) => (
            c.tool.clone(),
            format!("{} {}", c.call_id, c.raw_args.clone().unwrap_or_else(|| c.args.to_string())),
        ),
        EventBody::ToolResult(r) => {
            (r.tool.clone(), format!("{} {}{}", r.call_id, if r.ok { "" } else { "[failed] " }, r.output))
        }
        EventBody::Verdict(v) => (
            v.judge.clone(),
            format!(
                "{} ({}){}",
                v.outcome.as_str(),
                v.method.as_str(),
                v.summary.as_deref().map(|s| format!(" {s}")).unwrap_or_default()
            ),
        ),
        EventBody::Control(c) => (c.by.clone().unwrap_or_default(), format!("{:?}", c.action).to_lowercase()),
        EventBody::Error(e) => (e.source.clone(), e.message.clone()),
        EventBody::End(e) => (String::new(), format!("{} after {} turns", e.reason.as_str(), e.turns)),
    };
    [
        event.seq.to_string(),
        turn,
        event.body.kind().to_string(),
        sanitize::single_line(&who).into_owned(),
        sanitize::single_line(&summary).into_owned(),
    ]
}

/// Cuts `text` to at most `width` terminal cells, marking the cut with `…`.
fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}
