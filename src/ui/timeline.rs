//! The turn timeline: one cell per turn, a marker where a verdict changed,
//! the current turn highlighted, and the event position on the right.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::app::view::EpisodeView;
use crate::config::Theme;

pub fn draw(frame: &mut Frame, area: Rect, view: &EpisodeView, theme: &Theme) {
    let current = view.turn_at(view.cursor) as usize;
    let position = format!(" event {}/{} ", view.cursor, view.last());
    let mut spans = vec![Span::styled(" turns ", theme.dim())];
    let budget = (area.width as usize).saturating_sub(position.width() + 14);
    let turns = view.max_turn() as usize;
    let cell_width = 4 + turns.to_string().len();
    let fit = (budget / cell_width).max(1);
    // Show a window of turns around the current one when they do not all fit.
    let first = current.saturating_sub(fit / 2).min(turns.saturating_sub(fit)).max(1);
    let last = (first + fit - 1).min(turns);
    if first > 1 {
        spans.push(Span::styled("… ", theme.dim()));
    }
    for t in first..=last {
        let mark = view.turn_mark(t as u32).changed;
        let style = if t == current {
            theme.timeline_current()
        } else if t > current {
            theme.dim()
        } else {
            theme.text()
        };
        spans.push(Span::styled(format!(" {t}"), style));
        match mark {
            Some(outcome) => spans.push(Span::styled("●", theme.outcome(outcome))),
            None => spans.push(Span::styled(" ", style)),
        }
        spans.push(Span::raw(" "));
    }
    if last < turns {
        spans.push(Span::styled("… ", theme.dim()));
    }
    if view.has_end_verdicts {
        spans.push(Span::styled(" end", theme.dim()));
        match view.end_mark {
            Some(outcome) => spans.push(Span::styled("●", theme.outcome(outcome))),
            None => spans.push(Span::raw(" ")),
        }
    }
    let used: usize = spans.iter().map(|s| s.content.width()).sum();
    let pad = (area.width as usize).saturating_sub(used + position.width());
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(position, theme.dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
