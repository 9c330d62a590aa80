//! The status line: mode, source, episode, turn and event position, and hints;
//! or the prompt being typed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::app::state::{AppState, Overlay};
use crate::config::Theme;
use crate::config::keymap::Command;
use crate::core::sanitize::single_line;

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    if let Some(Overlay::Prompt(prompt)) = &state.overlay {
        let text = format!(" {}: {}▏", prompt.kind.label(), single_line(&prompt.input));
        let hint = "  Enter ok · Esc cancel";
        let line = Line::from(vec![Span::styled(text, theme.title()), Span::styled(hint, theme.dim())]);
        frame.render_widget(Paragraph::new(line).style(theme.status()), area);
        return;
    }
    let Some(view) = &state.view else { return };
    let mode = if state.autoplay.playing {
        format!(" ▶ REPLAY {}x ", speed_label(state.autoplay.factor()))
    } else {
        " ⏸ REPLAY ".to_string()
    };
    let turn = view.turn_at(view.cursor);
    let parts = [
        format!("turn {turn}/{}", view.max_turn()),
        single_line(view.episode.id()).into_owned(),
        single_line(&view.episode.origin).into_owned(),
    ];
    let left = format!("{mode}│ {} ", parts.join(" │ "));
    let right = match &state.message {
        Some(message) => format!(" {} ", single_line(message)),
        None => format!(
            " {} help · {} quit ",
            state.keymap.keys_label(Command::Help),
            state.keymap.keys_label(Command::Quit)
        ),
    };
    let width = area.width as usize;
    let left = truncate(&left, width.saturating_sub(right.width()));
    let pad = width.saturating_sub(left.width() + right.width());
    let line = Line::from(vec![Span::raw(left), Span::raw(" ".repeat(pad)), Span::raw(right)]);
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}

fn speed_label(factor: f64) -> String {
    if factor >= 1.0 { format!("{factor:.0}") } else { format!("{factor}") }
}

/// Cuts `text` to `width` columns, marking the cut with `…`.
pub fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}
