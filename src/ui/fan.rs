//! The attempt fan as it fills: per judge source `k/n` leaks with the 95 % Wilson interval (as a
//! bar and a whisker), the turns of first leaks, partial and undecided apart; below, the attempts
//! as children of the turn, each with its own verdicts and first-leak turn.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};

use crate::app::chrome::Chrome;
use crate::app::fan::{FanAttempt, FanView};
use crate::app::overlay::Overlay;
use crate::config::Theme;
use crate::config::keymap::{Command, Footer};
use crate::core::episode::Outcome;
use crate::core::fan::tally::first_leak_counts;
use crate::core::fan::{Attempt, FanMode, SourceTally};
use crate::core::sanitize::single_line;

pub fn draw(frame: &mut Frame, area: Rect, fan: &FanView, chrome: &Chrome, theme: &Theme) {
    let tally_height = (fan.tallies.len().max(1) * 2 + 2).min(area.height as usize / 2) as u16;
    let [tallies, attempts, status] =
        Layout::vertical([Constraint::Length(tally_height), Constraint::Min(3), Constraint::Length(1)])
            .areas(area);
    draw_tallies(frame, tallies, fan, theme);
    draw_attempts(frame, attempts, fan, theme);
    draw_status(frame, status, fan, chrome, theme);
}

/// `12/20 ended · 4 running · paused`
fn progress(fan: &FanView) -> String {
    let mut parts = vec![format!("{}/{} ended", fan.ended(), fan.planned)];
    if fan.running() > 0 {
        parts.push(format!("{} running", fan.running()));
    }
    if fan.paused && !fan.done {
        parts.push("PAUSED".into());
    }
    if fan.done {
        parts.push("done".into());
    }
    parts.join(" · ")
}

fn draw_tallies(frame: &mut Frame, area: Rect, fan: &FanView, theme: &Theme) {
    let what = match fan.mode {
        FanMode::Reply => "the reply drawn again",
        FanMode::Rest => "the rest played on",
    };
    // The progress first: a long episode id is cut at the border.
    let title = Line::from(vec![
        Span::styled(format!(" Fan · {} ", progress(fan)), theme.title()),
        Span::styled(
            format!("· from turn {} · {what} · of {} ", fan.turn, single_line(&fan.episode_id)),
            theme.dim(),
        ),
    ]);
    let block = Block::bordered().border_style(theme.border(false)).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines = Vec::new();
    if fan.tallies.is_empty() {
        let why = if fan.ended() == 0 {
            "no attempt has ended yet"
        } else {
            "no privacy or security verdict in the ended attempts"
        };
        lines.push(Line::from(Span::styled(format!(" {why}"), theme.dim())));
    }
    for t in &fan.tallies {
        lines.extend(tally_lines(t, fan.turn, inner.width as usize, theme));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Two lines per source: `privacy rule  3/12  25.0%  [8.9%, 53.2%]  ███├▓●──┤`, then the turns of
/// first leaks, partial, undecided and leaks in the copied part.
pub fn tally_lines(t: &SourceTally, turn: u32, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let name =
        format!(" {:<8} {:<14}", t.judge, crate::core::text::truncate_cells(&single_line(&t.source), 14));
    let mut first = vec![
        Span::styled(name, theme.text()),
        Span::styled(
            format!(" leaked {:>7}", format!("{}/{}", t.leaked, t.decided)),
            theme.outcome(Outcome::Fail),
        ),
    ];
    match (t.decided, t.interval) {
        (n, Some((lo, hi))) if n > 0 => {
            let rate = t.leaked as f64 / n as f64;
            first.push(Span::styled(
                format!("  {:>5.1}%  [{:.1}%, {:.1}%]  ", rate * 100.0, lo * 100.0, hi * 100.0),
                theme.text(),
            ));
            let used: usize = first.iter().map(|s| s.content.chars().count()).sum();
            let track = width.saturating_sub(used + 1).min(40);
            if track >= 8 {
                first.extend(crate::ui::chart::track_spans(track, rate, (lo, hi), theme));
            }
        }
        _ => first.push(Span::styled("  no attempt decided", theme.dim())),
    }
    let second = format!(
        "   first leak at turn {} · partial {} · undecided {} · leaked before turn {turn}: {}",
        first_leak_counts(&t.first_leak_turns),
        t.partial,
        t.undecided,
        t.leaked_before
    );
    vec![Line::from(first), Line::from(Span::styled(second, theme.dim()))]
}

fn draw_attempts(frame: &mut Frame, area: Rect, fan: &FanView, theme: &Theme) {
    let title = Line::from(vec![
        Span::styled(format!(" Attempts from turn {} ", fan.turn), theme.title()),
        Span::styled(format!("in {} ", single_line(&fan.dir.display().to_string())), theme.dim()),
    ]);
    let block = Block::bordered().border_style(theme.border(true)).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if fan.attempts.is_empty() {
        let why = match &fan.problem {
            Some(problem) => single_line(problem).into_owned(),
            None => "starting…".into(),
        };
        frame.render_widget(Paragraph::new(Span::styled(format!(" {why}"), theme.dim())), inner);
        return;
    }
    let height = inner.height as usize;
    let start = (fan.selected + 1).saturating_sub(height);
    let items: Vec<ListItem> = fan.attempts[start..(start + height).min(fan.attempts.len())]
        .iter()
        .map(|a| ListItem::new(attempt_line(a, theme)))
        .collect();
    let mut list_state = ListState::default();
    list_state.select(Some(fan.selected - start));
    let list = List::new(items).highlight_symbol("▶ ").highlight_style(theme.selection());
    frame.render_stateful_widget(list, inner, &mut list_state);
}

/// `#3  attacker_done  turn 2  privacy rule LEAK@2 · llm:m pass  first leak: turn 2`
fn attempt_line(a: &FanAttempt, theme: &Theme) -> Line<'static> {
    let end = a.end.clone().unwrap_or_else(|| "running".into());
    let mut spans = vec![
        Span::styled(format!("#{:<4}", a.index), theme.text()),
        Span::styled(
            format!("{:<14}", end),
            if a.error.is_some() { theme.outcome(Outcome::Error) } else { theme.dim() },
        ),
        Span::styled(format!("turn {:<3}", a.turn()), theme.dim()),
    ];
    spans.extend(verdict_spans(&a.summary, theme));
    spans.push(Span::styled(first_leak_label(&a.summary), theme.dim()));
    if let Some(error) = &a.error {
        spans.push(Span::styled(format!("  {}", single_line(error)), theme.dim()));
    }
    Line::from(spans)
}

/// `  first leak: turn 2` (`(inferred)` when the judges name no turn and it comes from the
/// snippets they quote, as in the index and the charts), `  no leak`, or nothing while nothing
/// is judged.
pub fn first_leak_label(attempt: &Attempt) -> String {
    let first = attempt.first_leak();
    let leaked = attempt.verdicts.values().any(|(o, _)| *o == Outcome::Fail);
    match (first, leaked) {
        (Some(turn), _) if attempt.first_leak_inferred() => format!("  first leak: turn {turn} (inferred)"),
        (Some(turn), _) => format!("  first leak: turn {turn}"),
        (None, true) => "  first leak: ?".into(),
        (None, false) if !attempt.verdicts.is_empty() => "  no leak".into(),
        _ => String::new(),
    }
}

/// ` privacy rule LEAK@2 · llm:m pass`: each (judge, source) of the attempt's own verdicts.
pub fn verdict_spans(attempt: &Attempt, theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for (i, ((judge, source), (outcome, turn))) in attempt.verdicts.iter().enumerate() {
        let sep = if i == 0 { " " } else { " · " };
        spans.push(Span::styled(format!("{sep}{judge} {} ", single_line(source)), theme.dim()));
        let word = match (outcome, turn) {
            (Outcome::Fail, Some(turn)) => format!("LEAK@{turn}"),
            (Outcome::Fail, None) => "LEAK".into(),
            (other, _) => other.as_str().to_string(),
        };
        spans.push(Span::styled(word, theme.outcome(*outcome)));
    }
    spans
}

fn draw_status(frame: &mut Frame, area: Rect, fan: &FanView, chrome: &Chrome, theme: &Theme) {
    let line = match (&chrome.message, chrome.overlay()) {
        (_, Some(Overlay::ConfirmQuit { question })) => super::status::quit_line(chrome, question),
        (Some(message), _) => format!(" {}", single_line(message)),
        (None, _) => {
            // Pause while it runs; continue or step while paused.
            let applies = |c| match c {
                Command::PlayPause => !fan.done && !fan.paused,
                Command::Continue | Command::StepCall => !fan.done && fan.paused,
                _ => true,
            };
            format!(" {}", chrome.keymap.footer(Footer::Fan, applies))
        }
    };
    frame.render_widget(Paragraph::new(Line::from(line)).style(theme.status()), area);
}
