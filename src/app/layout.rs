//! Screen geometry, shared by `update` (pane sizes for wrapping, mouse hit
//! tests) and `draw`, so both always agree on where everything is.

use ratatui::layout::{Constraint, Layout, Rect};

/// Panes that hold text; the verdict pane is a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaneId {
    Attacker,
    Assistant,
    Tools,
    Verdicts,
}

impl PaneId {
    pub const ALL: [PaneId; 4] = [PaneId::Attacker, PaneId::Assistant, PaneId::Tools, PaneId::Verdicts];

    pub fn title(self) -> &'static str {
        match self {
            PaneId::Attacker => "Attacker",
            PaneId::Assistant => "Assistant",
            PaneId::Tools => "Tools",
            PaneId::Verdicts => "Verdicts",
        }
    }

    pub fn next(self) -> PaneId {
        let i = PaneId::ALL.iter().position(|p| *p == self).unwrap_or(0);
        PaneId::ALL[(i + 1) % PaneId::ALL.len()]
    }

    pub fn prev(self) -> PaneId {
        let i = PaneId::ALL.iter().position(|p| *p == self).unwrap_or(0);
        PaneId::ALL[(i + PaneId::ALL.len() - 1) % PaneId::ALL.len()]
    }
}

/// Where each part of the inspector screen goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InspectorLayout {
    pub attacker: Rect,
    pub assistant: Rect,
    pub tools: Rect,
    pub verdicts: Rect,
    /// Everything above the composer and the timeline: the transcript layout's column.
    pub main: Rect,
    pub timeline: Rect,
    pub status: Rect,
    /// The composer, when it is open.
    pub composer: Option<Rect>,
    /// Where a reply is streaming in, and the rows it takes at the bottom of that text area (set
    /// by `AppState::relayout`, with the rest of the geometry).
    pub stream: Option<(TextArea, u16)>,
    /// The annotate form's popup.
    pub form: Rect,
    /// The task picker: its list, and the selected task's detail (beside it, or under it when narrow).
    pub picker: [Rect; 2],
}

/// A text area of the inspector: a pane's, or the transcript column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextArea {
    Pane(PaneId),
    Transcript,
}

/// Wide screens get three text columns over a verdict strip; narrow ones a 2×2 grid.
const WIDE: u16 = 120;

impl InspectorLayout {
    pub fn new(area: Rect, composer_rows: u16) -> Self {
        let [main, composer, timeline, status] = Layout::vertical([
            Constraint::Min(4),
            Constraint::Length(composer_rows),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let composer = (composer_rows > 0).then_some(composer);
        let [attacker, assistant, tools, verdicts] = if area.width >= WIDE {
            let [top, verdicts] =
                Layout::vertical([Constraint::Min(3), Constraint::Length(verdict_height(main.height))])
                    .areas(main);
            let [attacker, assistant, tools] = Layout::horizontal([
                Constraint::Ratio(1, 3),
                Constraint::Ratio(1, 3),
                Constraint::Ratio(1, 3),
            ])
            .areas(top);
            [attacker, assistant, tools, verdicts]
        } else {
            let [top, bottom] =
                Layout::vertical([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(main);
            let [attacker, assistant] =
                Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(top);
            let [tools, verdicts] =
                Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).areas(bottom);
            [attacker, assistant, tools, verdicts]
        };
        InspectorLayout {
            attacker,
            assistant,
            tools,
            verdicts,
            main,
            timeline,
            status,
            composer,
            ..Self::default()
        }
    }

    /// The text inside `area` (borders and scrollbar off) and, when a reply streams into it, the
    /// rows at its bottom the reply takes.
    pub fn text(&self, area: TextArea) -> (Rect, Option<Rect>) {
        let outer = match area {
            TextArea::Pane(id) => self.pane(id),
            TextArea::Transcript => self.main,
        };
        let mut text = text_area(outer);
        match self.stream {
            Some((streaming, rows)) if streaming == area => {
                let stream = Rect { y: text.y + text.height - rows, height: rows, ..text };
                text.height -= rows;
                (text, Some(stream))
            }
            _ => (text, None),
        }
    }

    pub fn pane(&self, id: PaneId) -> Rect {
        match id {
            PaneId::Attacker => self.attacker,
            PaneId::Assistant => self.assistant,
            PaneId::Tools => self.tools,
            PaneId::Verdicts => self.verdicts,
        }
    }

    /// The pane under a screen position.
    pub fn pane_at(&self, column: u16, row: u16) -> Option<PaneId> {
        PaneId::ALL.into_iter().find(|id| self.pane(*id).contains((column, row).into()))
    }
}

fn verdict_height(available: u16) -> u16 {
    (available / 4).clamp(5, 9)
}

/// The text area inside a bordered pane: borders off, one column kept for the scrollbar.
pub fn text_area(pane: Rect) -> Rect {
    Rect {
        x: pane.x + 1,
        y: pane.y + 1,
        width: pane.width.saturating_sub(3),
        height: pane.height.saturating_sub(2),
    }
}

/// A centred popup of the given share of the screen.
pub fn popup(area: Rect, width_pct: u16, height_pct: u16) -> Rect {
    let width = (area.width * width_pct / 100).max(area.width.min(40));
    let height = (area.height * height_pct / 100).max(area.height.min(10));
    Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height }
}

/// The task picker's list and detail over its status line: side by side, or the detail under the
/// list on narrow screens so task ids stay readable.
pub fn task_columns(area: Rect) -> [Rect; 2] {
    let [body, _status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    if area.width < 110 {
        Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(body)
    } else {
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body)
    }
}
