//! The compare screen: two runs' titles, their turns side by side (the shared ones once), the
//! verdicts of each turn with differences flagged, and the first divergence marked.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::app::chrome::Chrome;
use crate::app::compare::CompareScreen;
use crate::app::compare::{CellLine, Compare, VerdictPair};
use crate::app::transcript::event_text;
use crate::app::view::EpisodeView;
use crate::config::Theme;
use crate::config::keymap::Footer;
use crate::core::episode::Outcome;
use crate::core::sanitize::single_line;
use crate::core::text::truncate_cells as truncate;

use super::text_pane::header;

pub fn draw(frame: &mut Frame, screen: &CompareScreen, chrome: &Chrome, theme: &Theme) {
    let (compare, views) = (&screen.compare, screen.views());
    let layout = &compare.layout;
    for (side, area) in layout.titles.iter().enumerate() {
        let title = &compare.titles[side];
        let name = format!(" {} {} ", ["A", "B"][side], title.name);
        // Each judge's final say first (the views stand at their last event), then the task.
        let mut second = vec![Span::raw(" ")];
        let mut used = 1;
        let rows = &views[side].verdict_rows;
        for row in rows {
            let Some(v) = views[side].row_verdict(row) else { continue };
            // One judge asked twice (a rule and a model): which one says what.
            let twice = rows.iter().filter(|r| r.judge == row.judge).count() > 1;
            let method = match (twice, &v.model) {
                (false, _) => String::new(),
                (true, Some(model))
                    if rows.iter().filter(|r| r.judge == row.judge && r.method == row.method).count() > 1 =>
                {
                    format!("·{}", single_line(model))
                }
                (true, _) => format!("·{}", v.method.as_str()),
            };
            let chip = format!("{}{method} {} ", single_line(&v.judge), v.outcome.as_str().to_uppercase());
            used += chip.width();
            second.push(Span::styled(chip, theme.outcome(v.outcome)));
        }
        let room = (area.width as usize).saturating_sub(used);
        second.push(Span::styled(truncate(&format!("· {}", title.detail), room), theme.dim()));
        let lines = vec![
            Line::from(Span::styled(truncate(&name, area.width as usize), theme.title())),
            Line::from(second),
        ];
        frame.render_widget(Paragraph::new(lines), *area);
    }
    draw_rows(frame, compare, views, theme);
    draw_status(frame, layout.status, screen, chrome, theme);
}

fn draw_rows(frame: &mut Frame, compare: &Compare, views: [&EpisodeView; 2], theme: &Theme) {
    let layout = &compare.layout;
    let body = layout.body;
    // Four paragraphs, not one per screen line: row headers and shared rows across the width,
    // each column, and the separator; a line left empty in one is drawn by another.
    let rows = body.height as usize;
    let mut across: Vec<Line> = Vec::with_capacity(rows);
    let mut columns: [Vec<Line>; 2] = [Vec::with_capacity(rows), Vec::with_capacity(rows)];
    let mut separator: Vec<Line> = Vec::with_capacity(rows);
    let (mut row, mut line) = compare.top();
    while across.len() < rows && row < compare.rows.len() {
        let height = compare.height(row);
        let cells = compare.cells(row);
        let i = line.wrapping_sub(1);
        match cells {
            _ if line == 0 => across.push(row_header(compare, row, body.width as usize, theme)),
            Some(cells) if line + 1 < height && compare.is_shared(row) => {
                across.push(cell_line(compare, row, 0, cells[0].get(i), views[0], theme));
            }
            Some(cells) if line + 1 < height => {
                across.push(Line::default());
                for side in 0..2 {
                    let text = cell_line(compare, row, side, cells[side].get(i), views[side], theme);
                    columns[side].push(text);
                }
                separator.push(Line::from(Span::styled("│", theme.dim())));
            }
            _ => across.push(Line::default()),
        }
        for column in &mut columns {
            column.resize(across.len(), Line::default());
        }
        separator.resize(across.len(), Line::default());
        line += 1;
        if line >= height {
            row += 1;
            line = 0;
        }
    }
    frame.render_widget(Paragraph::new(across), body);
    for (side, lines) in columns.into_iter().enumerate() {
        frame.render_widget(Paragraph::new(lines), layout.columns[side]);
    }
    let bar = Rect { x: layout.columns[0].right(), width: 1, ..body };
    frame.render_widget(Paragraph::new(separator), bar);
}

/// `▶ turn 3 ── first divergence ──…`
fn row_header<'a>(compare: &Compare, row: usize, width: usize, theme: &Theme) -> Line<'a> {
    let r = &compare.rows[row];
    let at_cursor = row == compare.cursor;
    let mut spans = vec![Span::styled(
        format!("{}{} ", if at_cursor { "▶ " } else { "  " }, r.label()),
        if at_cursor { theme.timeline_current() } else { theme.title() },
    )];
    if compare.first_divergence == Some(row) {
        spans.push(Span::styled("◆ first divergence ", theme.outcome(Outcome::Fail)));
    } else if compare.is_shared(row) {
        spans.push(Span::styled("= the same in both ", theme.dim()));
    } else if !r.same {
        spans.push(Span::styled("≠ differs ", theme.outcome(Outcome::Partial)));
    } else {
        spans.push(Span::styled("= same messages ", theme.dim()));
    }
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    spans.push(Span::styled("─".repeat(width.saturating_sub(used)), theme.dim()));
    Line::from(spans)
}

fn cell_line<'a>(
    compare: &Compare,
    row: usize,
    side: usize,
    line: Option<&CellLine>,
    view: &'a EpisodeView,
    theme: &Theme,
) -> Line<'a> {
    let r = &compare.rows[row];
    match line {
        None => Line::default(),
        Some(CellLine::Verdict(i)) => verdict_line(&r.verdicts[*i], side, theme),
        Some(CellLine::Missing) => {
            Line::from(Span::styled(format!("  (no {} in this episode)", r.label()), theme.dim()))
        }
        Some(CellLine::Header(item)) => {
            let event = &view.events()[r.events[side][*item]];
            header(event, false, false, theme)
        }
        Some(CellLine::Body(item, range)) => {
            let text = event_text(view, r.events[side][*item]).map_or("", |(_, t)| t);
            let slice = text.get(range.clone()).unwrap_or("");
            Line::from(vec![Span::raw("  "), Span::styled(slice, theme.text())])
        }
    }
}

/// `◆ privacy_judge FAIL 0.90 · gpt-5 ≠`
fn verdict_line<'a>(pair: &VerdictPair, side: usize, theme: &Theme) -> Line<'a> {
    let Some(v) = &pair.sides[side] else { return Line::default() };
    let mut spans = vec![
        Span::styled(format!("◆ {} ", pair.judge), theme.title()),
        Span::styled(v.outcome.as_str().to_uppercase(), theme.outcome(v.outcome)),
    ];
    if let Some(score) = v.score {
        spans.push(Span::styled(format!(" {score:.2}"), theme.dim()));
    }
    if let Some(model) = &v.model {
        spans.push(Span::styled(format!(" · {}", single_line(model)), theme.dim()));
    }
    if pair.differs() {
        spans.push(Span::styled(" ≠", theme.outcome(Outcome::Error)));
    }
    Line::from(spans)
}

fn draw_status(frame: &mut Frame, area: Rect, screen: &CompareScreen, chrome: &Chrome, theme: &Theme) {
    let compare = &screen.compare;
    let at = compare.rows.get(compare.cursor).map_or_else(String::new, |r| r.label());
    let divergence = match compare.first_divergence {
        Some(row) => format!("first divergence: {}", compare.rows[row].label()),
        None => "no divergence".into(),
    };
    let masked = if screen.sides[0].view.mask().is_some() { "│ REDACTED " } else { "" };
    let left =
        format!(" COMPARE {masked}│ {at} ({} of {}) │ {divergence} ", compare.cursor + 1, compare.rows.len());
    let right = match &chrome.message {
        Some(message) => format!(" {} ", single_line(message)),
        None => format!(" {} ", chrome.keymap.footer(Footer::Compare, |_| true)),
    };
    let width = area.width as usize;
    let left = truncate(&left, width.saturating_sub(right.width().min(width / 2)));
    let right = truncate(&right, width.saturating_sub(left.width()));
    let pad = width.saturating_sub(left.width() + right.width());
    let line = Line::from(vec![Span::raw(left), Span::raw(" ".repeat(pad)), Span::raw(right)]);
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}
