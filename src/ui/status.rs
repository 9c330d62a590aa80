//! The status line: mode, source, episode, turn and event position, and hints;
//! or the prompt being typed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::app::chrome::Chrome;
use crate::app::inspector_screen::InspectorScreen;
use crate::app::live::{LiveState, Tokens, short_count};
use crate::app::overlay::{Overlay, Prompt};
use crate::app::wrap::wrap;
use crate::config::Theme;
use crate::config::keymap::{Command, Footer};
use crate::core::episode::EndReason;
use crate::core::llm::Role;
use crate::core::sanitize::single_line;
use crate::core::sim::emitter::Phase;
use crate::core::sim::gate::GateMode;
use crate::core::sim::runner::assistant_turns;
use crate::core::text::truncate_cells as truncate;

/// The prompt of a search across episodes, with its keys (the browser's and the results' status line).
pub(super) fn search_prompt(chrome: &Chrome, prompt: &Prompt) -> Line<'static> {
    Line::from(format!(
        " {}: {}▏  {} search · /regex/ · {} cancel",
        prompt.label(),
        single_line(&prompt.input),
        chrome.keymap.key_hint(Command::Submit),
        chrome.keymap.key_hint(Command::Close),
    ))
}

/// A prompt as the status line shows it: its label, what is typed, and the keys.
pub(super) fn prompt_line(chrome: &Chrome, prompt: &Prompt, theme: &Theme) -> Line<'static> {
    let label = format!(" {}: ", prompt.label());
    let input = format!("{}▏", single_line(&prompt.input));
    // An offered input is dim: typing replaces it.
    let input_style = if prompt.offered { theme.dim() } else { theme.title() };
    let hint = format!("  {}", chrome.keymap.hints(&[(Command::Submit, "ok"), (Command::Close, "cancel")]));
    Line::from(vec![
        Span::styled(label, theme.title()),
        Span::styled(input, input_style),
        Span::styled(hint, theme.dim()),
    ])
}

/// The quit question while an episode or a fan runs, as the status line asks it.
pub fn quit_line(chrome: &Chrome, question: &str) -> String {
    format!(
        " {question} {} = abort and quit, any other key = keep running",
        chrome.keymap.key_hint(Command::Confirm)
    )
}

pub fn draw(frame: &mut Frame, area: Rect, screen: &InspectorScreen, chrome: &Chrome, theme: &Theme) {
    let k = |c| chrome.keymap.key_hint(c);
    if let Some(Overlay::Prompt(prompt)) = chrome.overlay() {
        frame.render_widget(Paragraph::new(prompt_line(chrome, prompt, theme)).style(theme.status()), area);
        return;
    }
    if let Some(Overlay::ConfirmQuit { question }) = chrome.overlay() {
        let line = quit_line(chrome, question);
        frame.render_widget(Paragraph::new(line).style(theme.status()), area);
        return;
    }
    if let Some(Overlay::TakeOver { turn, aborts }) = chrome.overlay() {
        let aborts = if *aborts { " (this aborts the running episode)" } else { "" };
        let line = format!(
            " Take over after turn {turn}{aborts}: {} = you play the attacker · {} = the attacker model plays · any other key cancels",
            k(Command::TakeOverHuman),
            k(Command::TakeOverModel)
        );
        frame.render_widget(Paragraph::new(line).style(theme.status()), area);
        return;
    }
    let Some(inspector) = &screen.inspector else { return };
    let view = &inspector.view;
    let mode = match &screen.live {
        Some(live) => live_mode(live),
        None if screen.autoplay.playing => format!(" ▶ REPLAY {}x ", speed_label(screen.autoplay.factor())),
        None => " ⏸ REPLAY ".to_string(),
    };
    let turn = view.turn_at(view.cursor);
    let mut parts = vec![
        format!("turn {turn}/{}", turn_count(screen.live.as_ref(), view)),
        single_line(view.episode.id()).into_owned(),
        single_line(&view.episode.origin).into_owned(),
    ];
    // A journal still being read, or cut short by a bad line: not the whole episode (issue 14).
    if let Some(loading) = &inspector.loading {
        parts.insert(0, loading.label());
    } else if inspector.partial {
        parts.insert(0, "⚠ partial: a bad line stopped loading".into());
    }
    let masked = if inspector.view.mask().is_some() { "│ REDACTED " } else { "" };
    let left = format!("{mode}{masked}│ {} ", parts.join(" │ "));
    let right = match message(chrome, screen.live.as_ref()) {
        // Too long for the line: drawn in full above it (see `draw_long_message`).
        Some(message) if message.width() + 2 > area.width as usize => String::new(),
        Some(message) => format!(" {} ", single_line(&message)),
        None => format!(" {} ", chrome.keymap.footer(Footer::Inspector, |_| true)),
    };
    let width = area.width as usize;
    let left = truncate(&left, width.saturating_sub(right.width()));
    let pad = width.saturating_sub(left.width() + right.width());
    let line = Line::from(vec![Span::raw(left), Span::raw(" ".repeat(pad)), Span::raw(right)]);
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}

/// What the status line has to say: a transient message, else why a live
/// episode ended in error, else what the runner warned of, else the latest retry notice.
pub fn message(chrome: &Chrome, live: Option<&LiveState>) -> Option<String> {
    if let Some(message) = &chrome.message {
        return Some(message.clone());
    }
    let live = live?;
    match live.ended_in_error() {
        Some(why) => Some(format!("ended in error: {why}")),
        None => live.warning.clone().or_else(|| live.notice.clone()),
    }
}

/// A message too long for the status line, wrapped over as many rows as it
/// needs at the bottom of `area`, so the action it names is never cut off.
pub fn draw_long_message(frame: &mut Frame, area: Rect, message: Option<String>, theme: &Theme) {
    let Some(message) = message else { return };
    let width = area.width.saturating_sub(2) as usize;
    if message.width() + 2 <= area.width as usize || width == 0 {
        return;
    }
    let text = single_line(&message);
    let lines: Vec<Line> =
        wrap(&text, width).into_iter().map(|range| Line::from(format!(" {}", &text[range]))).collect();
    let height = (lines.len() as u16).min(area.height);
    let rows = Rect::new(area.x, area.y + area.height - height, area.width, height);
    frame.render_widget(Clear, rows);
    frame.render_widget(Paragraph::new(lines).style(theme.status()), rows);
}

/// `n` of `turn k/n`: live, the last turn `--max-turns` allows; replayed, the turns there are.
fn turn_count(live: Option<&LiveState>, view: &crate::app::view::EpisodeView) -> u32 {
    let configured = view.episode.header().config.max_turns;
    match (live, configured) {
        (Some(_), Some(max_turns)) => assistant_turns(max_turns).max(view.max_turn()),
        _ => view.max_turn(),
    }
}

/// `● LIVE waiting for assistant │ 01:23 │ att 1.2k/0.3k asst 5.1k/0.8k`
fn live_mode(live: &LiveState) -> String {
    let what = match (live.finished, live.gate, live.phase) {
        (true, ..) => match live.end_reason {
            Some(EndReason::Error) => "✗ LIVE ended in error".to_string(),
            Some(EndReason::Aborted) => "■ LIVE aborted".to_string(),
            _ => "✓ LIVE finished".to_string(),
        },
        (_, GateMode::Aborted, _) => "■ LIVE aborting".to_string(),
        (_, GateMode::Paused, Some(Phase::Paused(role))) => format!("⏸ LIVE paused before the {role} call"),
        (_, GateMode::Paused, Some(Phase::Waiting(role))) => format!("⏸ LIVE pausing after the {role} call"),
        (_, GateMode::Paused, _) => "⏸ LIVE paused".to_string(),
        (_, _, Some(Phase::Waiting(role))) => format!("● LIVE waiting for the {role} model"),
        (_, _, Some(Phase::AwaitingHuman)) => "● LIVE your move (attacker)".to_string(),
        (_, _, Some(Phase::PendingAttacker)) => {
            "⏸ LIVE attacker message held: e edits, c continues".to_string()
        }
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
