//! The status line: mode, source, episode, turn and event position, and hints;
//! or the prompt being typed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::app::live::{LiveState, Tokens, short_count};
use crate::app::state::{AppState, Overlay};
use crate::config::Theme;
use crate::config::keymap::Command;
use crate::core::llm::Role;
use crate::core::sanitize::single_line;
use crate::core::sim::emitter::Phase;
use crate::core::sim::gate::GateMode;

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    if let Some(Overlay::Prompt(prompt)) = &state.overlay {
        let text = format!(" {}: {}▏", prompt.kind.label(), single_line(&prompt.input));
        let hint = "  Enter ok · Esc cancel";
        let line = Line::from(vec![Span::styled(text, theme.title()), Span::styled(hint, theme.dim())]);
        frame.render_widget(Paragraph::new(line).style(theme.status()), area);
        return;
    }
    if let Some(live) = &state.live
        && live.confirm_quit
    {
        let line = " The episode is still running. Abort it and quit? y = abort and quit, any other key = keep running";
        frame.render_widget(Paragraph::new(line).style(theme.status()), area);
        return;
    }
    if let Some(Overlay::TakeOver { turn }) = &state.overlay {
        let line = format!(
            " Take over after turn {turn}: h = you play the attacker · l = the attacker model plays · any other key cancels"
        );
        frame.render_widget(Paragraph::new(line).style(theme.status()), area);
        return;
    }
    let Some(view) = &state.view else { return };
    let mode = match &state.live {
        Some(live) => live_mode(live),
        None if state.autoplay.playing => format!(" ▶ REPLAY {}x ", speed_label(state.autoplay.factor())),
        None => " ⏸ REPLAY ".to_string(),
    };
    let turn = view.turn_at(view.cursor);
    let parts = [
        format!("turn {turn}/{}", view.max_turn()),
        single_line(view.episode.id()).into_owned(),
        single_line(&view.episode.origin).into_owned(),
    ];
    let masked = if state.redaction.is_some() { "│ REDACTED " } else { "" };
    let left = format!("{mode}{masked}│ {} ", parts.join(" │ "));
    let notice = state.live.as_ref().and_then(|l| l.notice.as_deref());
    let right = match state.message.as_deref().or(notice) {
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

/// `● LIVE waiting for assistant │ 01:23 │ att 1.2k/0.3k asst 5.1k/0.8k`
fn live_mode(live: &LiveState) -> String {
    let what = match (live.finished, live.gate, live.phase) {
        (true, ..) => "✓ LIVE finished".to_string(),
        (_, GateMode::Aborted, _) => "■ LIVE aborting".to_string(),
        (_, GateMode::Paused, Some(Phase::Paused(role))) => format!("⏸ LIVE paused before the {role} call"),
        (_, GateMode::Paused, Some(Phase::Waiting(role))) => format!("⏸ LIVE pausing after the {role} call"),
        (_, GateMode::Paused, _) => "⏸ LIVE paused".to_string(),
        (_, _, Some(Phase::Waiting(role))) => format!("● LIVE waiting for the {role} model"),
        (_, _, Some(Phase::AwaitingHuman)) => "● LIVE your move (attacker)".to_string(),
        (_, _, Some(Phase::PendingAttacker)) => "⏸ LIVE attacker message held (e edits)".to_string(),
        _ => "● LIVE running".to_string(),
    };
    let secs = live.elapsed.as_secs();
    let tokens = [(Role::Attacker, "att"), (Role::Assistant, "asst"), (Role::Judge, "judge")]
        .iter()
        .filter(|(role, _)| live.tokens(*role) != Tokens::default())
        .map(|(role, label)| {
            let t = live.tokens(*role);
            format!("{label} {}/{}", short_count(t.input), short_count(t.output))
        })
        .collect::<Vec<_>>()
        .join(" ");
    let tokens = if tokens.is_empty() { String::new() } else { format!("│ {tokens} ") };
    format!(" {what} │ {:02}:{:02} {tokens}", secs / 60, secs % 60)
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
