//! The verdict pane: one row per judge and method, as it stood at the cursor.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState};

use crate::app::view::EpisodeView;
use crate::config::Theme;
use crate::core::episode::Outcome;
use crate::core::sanitize::single_line;

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
    let rows = view.verdict_rows.iter().filter_map(|row| {
        let v = view.row_verdict(row)?;
        let score = v.score.map(|s| format!("{s:.2}")).unwrap_or_else(|| "-".into());
        // A judge file names no turn: the one the index and the charts infer (`~`) from the
        // snippets it quotes.
        let inferred = row.human.is_none().then(|| view.inferred_leak(row.event)).flatten();
        let turn = match (v.turn, inferred) {
            (Some(t), _) => format!("T{t}"),
            (None, Some((_, t))) => format!("~T{t}"),
            (None, None) => "end".into(),
        };
        let judge = match &v.model {
            Some(model) => format!("{} · {}", single_line(&v.judge), single_line(model)),
            None => single_line(&v.judge).into_owned(),
        };
        Some(Row::new(vec![
            Cell::from(if row.disagrees {
                Line::from(vec![Span::styled("≠ ", theme.outcome(Outcome::Error)), Span::raw(judge)])
            } else {
                Line::from(judge)
            }),
            Cell::from(Span::styled(v.outcome.as_str().to_uppercase(), theme.outcome(v.outcome))),
            Cell::from(score),
            Cell::from(turn),
            Cell::from(Span::styled(v.method.as_str(), theme.dim())),
            Cell::from(row.summary.as_str()),
        ]))
    });
    let widths = [
        Constraint::Max(34),
        Constraint::Length(7),
        Constraint::Length(5),
        Constraint::Length(4),
        Constraint::Length(8),
        Constraint::Fill(1),
    ];
    let table = Table::new(rows, widths)
        .header(Row::new(["judge", "outcome", "score", "turn", "method", "summary"]).style(theme.dim()))
        .block(block)
        .column_spacing(1)
        .row_highlight_style(theme.selection());
    let mut state = TableState::default();
    if focused {
        state.select(Some(view.verdict_selected));
    }
    frame.render_stateful_widget(table, area, &mut state);
}
