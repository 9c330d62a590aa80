//! The verdict pane: one row per judge and method, as it stood at the cursor. A narrow pane
//! keeps whose verdict it is whole (`sec claude-sonnet-4-5`) and drops the turn, method and
//! summary (`Enter` shows them), since two sources that disagree must be told apart.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState};
use unicode_width::UnicodeWidthStr;

use crate::app::view::EpisodeView;
use crate::config::Theme;
use crate::core::episode::{Judge, Outcome, Verdict, VerdictMethod};
use crate::core::sanitize::single_line;

/// Below this inner width the pane is compact.
const COMPACT_BELOW: u16 = 70;

/// `privacy · gpt-5` (wide) or `priv gpt-5`, `sec llm:m`, `util rule` (compact).
fn whose(v: &Verdict, compact: bool) -> String {
    let judge = single_line(v.judge.as_str());
    if !compact {
        return match &v.model {
            Some(model) => format!("{judge} · {}", single_line(model)),
            None => judge.into_owned(),
        };
    }
    let short = match v.judge {
        Judge::Privacy => "priv",
        Judge::Security => "sec",
        Judge::Utility => "util",
        Judge::Other(_) => &judge,
    };
    match (&v.model, v.method) {
        (Some(model), VerdictMethod::Imported) => format!("{short} {}", single_line(model)),
        (Some(model), method) => format!("{short} {}:{}", method.as_str(), single_line(model)),
        (None, method) => format!("{short} {}", method.as_str()),
    }
}

pub fn draw(frame: &mut Frame, area: Rect, view: &EpisodeView, focused: bool, theme: &Theme) {
    let title = Line::from(vec![
        Span::styled(" Verdicts ", theme.title()),
        Span::styled(format!("{} ", view.verdict_rows.len()), theme.dim()),
    ]);
    let block = Block::bordered().border_style(theme.border(focused)).title(title);
    if view.verdict_rows.is_empty() {
        let text = Paragraph::new(Span::styled("no verdicts yet", theme.dim())).block(block);
        frame.render_widget(text, area);
        return;
    }
    let inner = area.width.saturating_sub(2);
    let compact = inner < COMPACT_BELOW;
    let judge_width = view
        .verdict_rows
        .iter()
        .filter_map(|row| {
            Some(whose(view.row_verdict(row)?, compact).width() + if row.disagrees { 2 } else { 0 })
        })
        .fold("judge".len(), usize::max);
    // Compact, the turn shows when the judges' names leave room for it.
    let with_turn = !compact || judge_width + 7 + 5 + 4 + 3 <= usize::from(inner);
    let rows: Vec<Row> = view
        .verdict_rows
        .iter()
        .filter_map(|row| {
            let v = view.row_verdict(row)?;
            let score = v.score.map(|s| format!("{s:.2}")).unwrap_or_else(|| "-".into());
            let judge = whose(v, compact);
            let mut cells = vec![
                Cell::from(if row.disagrees {
                    Line::from(vec![Span::styled("≠ ", theme.outcome(Outcome::Error)), Span::raw(judge)])
                } else {
                    Line::from(judge)
                }),
                Cell::from(Span::styled(v.outcome.as_str().to_uppercase(), theme.outcome(v.outcome))),
                Cell::from(score),
            ];
            if with_turn {
                // A judge file names no turn: the one the index and the charts infer (`~`) from
                // the snippets it quotes.
                let inferred = row.human.is_none().then(|| view.inferred_leak(row.event)).flatten();
                let turn = match (v.turn, inferred) {
                    (Some(t), _) => format!("T{t}"),
                    (None, Some((_, t))) => format!("~T{t}"),
                    (None, None) => "end".into(),
                };
                cells.push(Cell::from(turn));
            }
            if !compact {
                cells.push(Cell::from(Span::styled(v.method.as_str(), theme.dim())));
                cells.push(Cell::from(row.summary.as_str()));
            }
            Some(Row::new(cells))
        })
        .collect();
    let (header, widths): (Vec<&str>, Vec<Constraint>) = if compact {
        let mut header = vec!["judge", "outcome", "score"];
        let mut widths = vec![Constraint::Fill(1), Constraint::Length(7), Constraint::Length(5)];
        if with_turn {
            header.push("turn");
            widths.push(Constraint::Length(4));
        }
        (header, widths)
    } else {
        // Whose verdict it is shows whole; the summary gives way, up to half the pane.
        let judge_width = judge_width.min(34).min(usize::from(inner) / 2) as u16;
        (
            vec!["judge", "outcome", "score", "turn", "method", "summary"],
            vec![
                Constraint::Length(judge_width),
                Constraint::Length(7),
                Constraint::Length(5),
                Constraint::Length(4),
                Constraint::Length(8),
                Constraint::Fill(1),
            ],
        )
    };
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.dim()))
        .block(block)
        .column_spacing(1)
        .row_highlight_style(theme.selection());
    let mut state = TableState::default();
    if focused {
        state.select(Some(view.verdict_selected));
    }
    frame.render_stateful_widget(table, area, &mut state);
}
