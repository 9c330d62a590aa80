//! The episode browser screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState};

use crate::app::browser::Browser;
use crate::app::state::{AppState, Overlay, PromptKind};
use crate::config::Theme;
use crate::config::keymap::Command;
use crate::core::episode::Outcome;
use crate::core::sanitize::single_line;

pub fn draw(frame: &mut Frame, area: Rect, state: &AppState, browser: &Browser, theme: &Theme) {
    let errors_height = browser.errors.len().min(3) as u16;
    let [list, errors, status] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(errors_height), Constraint::Length(1)])
            .areas(area);
    let title = Line::from(vec![
        Span::styled(format!(" Episodes — {} ", single_line(&browser.title)), theme.title()),
        Span::styled(format!("{} of {} ", browser.shown.len(), browser.entries.len()), theme.dim()),
    ]);
    let block = Block::bordered().border_style(theme.border(true)).title(title);
    let rows = browser.shown.iter().map(|&i| {
        let e = &browser.entries[i];
        let mut verdicts = Vec::new();
        for (judge, outcome, score) in &e.verdicts {
            let score = score.map(|s| format!("{s:.2}")).unwrap_or_default();
            let chip = format!("{} {}{score}", single_line(judge), outcome_symbol(*outcome));
            verdicts.push(Span::styled(chip, theme.outcome(*outcome)));
            verdicts.push(Span::raw(" "));
        }
        Row::new(vec![
            Cell::from(if e.depth == 0 {
                Line::from(e.id.clone())
            } else {
                Line::from(vec![
                    Span::styled(format!("{}└ fork ", "  ".repeat(e.depth - 1)), theme.dim()),
                    Span::raw(e.id.clone()),
                ])
            }),
            Cell::from(e.domain.clone()),
            Cell::from(e.attack.clone()),
            Cell::from(format!("{:>3}", e.turns)),
            Cell::from(match e.events {
                Some(n) => format!("{n:>5}"),
                None => format!("{:>5}", "-"),
            }),
            Cell::from(Line::from(verdicts)),
        ])
    });
    let widths = [
        Constraint::Fill(3),
        Constraint::Length(15),
        Constraint::Fill(3),
        Constraint::Length(5),
        Constraint::Length(6),
        Constraint::Fill(4),
    ];
    let table = Table::new(rows, widths)
        .header(Row::new(["episode", "domain", "attack", "turns", "events", "verdicts"]).style(theme.dim()))
        .block(block)
        .column_spacing(1)
        .row_highlight_style(theme.selection())
        .highlight_symbol("▶ ");
    let mut table_state = TableState::default();
    if !browser.shown.is_empty() {
        table_state.select(Some(browser.selected));
    }
    frame.render_stateful_widget(table, list, &mut table_state);
    if browser.shown.is_empty() {
        let inner = Rect { y: list.y + 2, height: 1, x: list.x + 2, width: list.width.saturating_sub(4) };
        let why = if browser.entries.is_empty() { "no episodes found" } else { "nothing matches the filter" };
        frame.render_widget(Paragraph::new(Span::styled(why, theme.dim())), inner);
    }
    let error_lines: Vec<Line> = browser
        .errors
        .iter()
        .take(errors_height as usize)
        .map(|e| Line::styled(format!(" ⚠ {}", single_line(e)), theme.outcome(Outcome::Error)))
        .collect();
    frame.render_widget(Paragraph::new(error_lines), errors);
    draw_status(frame, status, state, browser, theme);
}

fn draw_status(frame: &mut Frame, area: Rect, state: &AppState, browser: &Browser, theme: &Theme) {
    let line = match (state.overlay(), &state.message) {
        (Some(Overlay::Prompt(p)), _) if p.kind == PromptKind::Filter => {
            Line::from(format!(" filter: {}▏  Enter keep · Esc clear", single_line(&p.input)))
        }
        (Some(Overlay::Prompt(p)), _) if p.kind == PromptKind::SearchEpisodes => Line::from(format!(
            " {}: {}▏  Enter search · /regex/ · Esc cancel",
            p.kind.label(),
            single_line(&p.input)
        )),
        // Loading an indexed episode, or why it could not be opened.
        (_, Some(message)) => Line::from(format!(" {}", single_line(message))),
        _ => {
            let k = |c| state.keymap.keys_label(c);
            let filter = if browser.filter.is_empty() {
                String::new()
            } else {
                format!("filter '{}' · ", single_line(&browser.filter))
            };
            Line::from(format!(
                " {filter}{} open · {} filter · {} back · {} help · {} quit",
                k(Command::OpenDetail),
                k(Command::Search),
                k(Command::Close),
                k(Command::Help),
                k(Command::Quit)
            ))
        }
    };
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}

/// A one-character outcome, so a row's verdicts fit a narrow screen.
pub fn outcome_symbol(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "✓",
        Outcome::Fail => "✗",
        Outcome::Partial => "◐",
        Outcome::Error => "⚠",
        Outcome::Skipped => "·",
    }
}
