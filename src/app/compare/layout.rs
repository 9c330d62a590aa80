//! Where the parts of the compare screen go.

use ratatui::layout::{Constraint, Layout, Rect};

/// Where the parts of the compare screen go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CompareLayout {
    pub titles: [Rect; 2],
    /// The turn rows, both columns and the separator between them.
    pub body: Rect,
    pub columns: [Rect; 2],
    pub status: Rect,
}

impl CompareLayout {
    pub fn new(area: Rect) -> Self {
        let [titles, body, status] =
            Layout::vertical([Constraint::Length(2), Constraint::Min(1), Constraint::Length(1)]).areas(area);
        let [left, _, right] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Length(1), Constraint::Fill(1)])
                .areas(titles);
        let [a, _, b] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Length(1), Constraint::Fill(1)]).areas(body);
        CompareLayout { titles: [left, right], body, columns: [a, b], status }
    }
}
