//! `converse-tui dump PATH... [--json]`: print the normalised events of any
//! supported file or directory, as journal JSON lines or an aligned table.

use std::io::Write;
use std::path::{Path, PathBuf};

use unicode_width::UnicodeWidthStr;

use crate::core::annotate::annotation_views;
use crate::core::annotate::file::notes_path;
use crate::core::dataset::TaskLookup;
use crate::core::episode::sidecar::sidecar_path;
use crate::core::episode::{Episode, Event, EventBody, JournalReader, is_journal};
use crate::core::import::{LoadError, load_dir, load_path};
use crate::core::sanitize;
use crate::core::text::truncate_cells as truncate;
use crate::session::episode_tasks::enrich_noting;

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
        if streamable(path) {
            stream_journal(path, json, out, err)?;
            continue;
        }
        let mut episodes = if path.is_dir() {
            let (episodes, errors) = load_dir(path);
            if let Some(e) = errors.into_iter().next() {
                return Err(e.into());
            }
            episodes
        } else {
            load_path(path)?
        };
        enrich_noting(tasks, &mut episodes, err);
        for episode in &episodes {
            write_warnings(&episode.warnings, err)?;
            if json {
                write_json(episode, out)?;
            } else {
                write_table(episode, out)?;
            }
        }
    }
    Ok(())
}

/// In `seq` order, as a journal: what `dump --json` prints reads back (issue 24).
fn write_json(episode: &Episode, out: &mut dyn Write) -> anyhow::Result<()> {
    for event in episode.events_in_seq_order() {
        crate::core::safe_json::to_writer(&mut *out, event)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// One of our journals with nothing to merge (no verdicts or notes beside it):
/// it is printed as it is read, so memory stays flat whatever its size.
fn streamable(path: &Path) -> bool {
    !path.is_dir() && !sidecar_path(path).exists() && !notes_path(path).exists() && is_journal(path)
}

/// Event by event from the file. The table reads it twice (column widths first), `--json` once.
fn stream_journal(path: &Path, json: bool, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let events = || -> Result<JournalReader<_>, LoadError> { Ok(JournalReader::open(path)?) };
    let mut reader = events()?;
    if json {
        for event in reader.by_ref() {
            crate::core::safe_json::to_writer(&mut *out, &event.map_err(LoadError::from)?)?;
            out.write_all(b"\n")?;
        }
        return write_warnings(&reader.warnings().iter().map(ToString::to_string).collect::<Vec<_>>(), err);
    }
    let mut widths = [0usize; 4];
    let mut id = String::new();
    for event in reader.by_ref() {
        let event = event.map_err(LoadError::from)?;
        if let EventBody::Episode(header) = &event.body {
            id.clone_from(&header.id);
        }
        widen(&mut widths, &row(&event));
    }
    write_warnings(&reader.warnings().iter().map(ToString::to_string).collect::<Vec<_>>(), err)?;
    write_heading(&id, &path.to_string_lossy(), out)?;
    for event in events()? {
        write_row(&widths, &row(&event.map_err(LoadError::from)?), out)?;
    }
    writeln!(out)?;
    Ok(())
}

fn write_warnings(warnings: &[String], err: &mut dyn Write) -> anyhow::Result<()> {
    for warning in warnings {
        writeln!(err, "warning: {}", sanitize::single_line(warning))?;
    }
    Ok(())
}

fn write_table(episode: &Episode, out: &mut dyn Write) -> anyhow::Result<()> {
    write_heading(episode.id(), &episode.origin, out)?;
    let rows: Vec<[String; 5]> = episode.events.iter().map(row).collect();
    let mut widths = [0usize; 4];
    for r in &rows {
        widen(&mut widths, r);
    }
    for r in &rows {
        write_row(&widths, r, out)?;
    }
    for a in annotation_views(episode) {
        let quote = a.quote.map(|q| format!(" «{q}»")).unwrap_or_default();
        let text = format!("note #{} {}{quote} {}", a.target_seq, a.label, a.note);
        writeln!(out, "  {}", truncate(sanitize::single_line(&text).trim_end(), SUMMARY_WIDTH))?;
    }
    writeln!(out)?;
    Ok(())
}

fn write_heading(id: &str, origin: &str, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(out, "episode {} ({})", sanitize::single_line(id), sanitize::single_line(origin))?;
    Ok(())
}

/// Grows the column widths to fit a row.
fn widen(widths: &mut [usize; 4], row: &[String; 5]) {
    for (w, cell) in widths.iter_mut().zip(row.iter()) {
        *w = (*w).max(cell.width());
    }
}

fn write_row(widths: &[usize; 4], r: &[String; 5], out: &mut dyn Write) -> anyhow::Result<()> {
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
    Ok(())
}

/// The start of a text, enough for a summary cut at [`SUMMARY_WIDTH`] cells: a 50 MB message is
/// not copied (nor sanitized) whole to show its first hundred characters.
fn clip(text: &str) -> String {
    const CLIP_BYTES: usize = 16 * SUMMARY_WIDTH;
    if text.len() <= CLIP_BYTES {
        return text.to_string();
    }
    // Mostly invisible characters could fit in the width once cut: still say there is more.
    let cut = (0..=CLIP_BYTES).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    format!("{}…", &text[..cut])
}

/// seq, turn, kind, who (from→to or the tool), summary.
fn row(event: &Event) -> [String; 5] {
    let turn = event.body.turn().map(|t| t.to_string()).unwrap_or_default();
    let (who, summary) = match &event.body {
        EventBody::Episode(h) => {
            let source = h.source.as_ref().map(|s| format!(" from {}", s.format)).unwrap_or_default();
            (String::new(), format!("{}{source}", h.id))
        }
        EventBody::Message(m) if m.is_note() => (format!("{} note", m.from.as_str()), clip(&m.text)),
        EventBody::Message(m) => (format!("{}→{}", m.from.as_str(), m.to.as_str()), clip(&m.text)),
        EventBody::ToolCall(c) => {
            let args = c.raw_args.as_deref().map_or_else(|| clip(&c.args.to_string()), clip);
            (c.tool.clone(), format!("{} {args}", c.call_id))
        }
        EventBody::ToolResult(r) => (
            r.tool.clone(),
            format!("{} {}{}", r.call_id, if r.ok { "" } else { "[failed] " }, clip(&r.output)),
        ),
        EventBody::Verdict(v) => (
            // Two judge models on one question are two rows: name the model.
            match &v.model {
                Some(model) => format!("{} · {model}", v.judge),
                None => v.judge.clone(),
            },
            format!(
                "{} ({}){}",
                v.outcome.as_str(),
                v.method.as_str(),
                v.summary.as_deref().map(|s| format!(" {s}")).unwrap_or_default()
            ),
        ),
        EventBody::Control(c) => (c.by.clone().unwrap_or_default(), c.action.as_str().to_string()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{Message, Party};

    fn message(text: String) -> Event {
        let body = EventBody::Message(Message::new(1, Party::Attacker, Party::Assistant, text));
        Event { seq: 1, at: "t".into(), body }
    }

    /// A huge text is clipped before it is copied, and the row reads the same as the whole text's.
    #[test]
    fn a_huge_text_gives_the_same_summary_as_the_whole_text() {
        for text in ["héllo wörld, ".repeat(100_000), "a\u{200b}".repeat(50_000), "short".to_string()] {
            let whole = truncate(&sanitize::single_line(&text), SUMMARY_WIDTH);
            assert_eq!(truncate(&row(&message(text.clone()))[4], SUMMARY_WIDTH), whole);
        }
        // Invisible characters shown by code: a clipped run still says there is more.
        let clipped = row(&message("\u{e0069}".repeat(10_000)))[4].clone();
        assert!(clipped.ends_with('…'), "{clipped}");
    }
}
