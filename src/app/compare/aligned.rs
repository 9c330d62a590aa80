//! The two episodes aligned turn by turn: the rows, the first divergence, the shared prefix, the
//! cursor, and the rows wrapped as they are shown.

use std::collections::{BTreeMap, BTreeSet};

use ratatui::layout::Rect;

use crate::core::episode::EventBody;

use super::super::lazy_rows::{self, RowSource};
use super::super::transcript::event_text;
use super::super::view::EpisodeView;
use super::super::wrap::wrap;
use super::layout::CompareLayout;
use super::title::SideTitle;
use super::turns::{CellLine, TurnRow, VerdictPair, pair_verdicts, signature, turns_of};

/// A row's lines at one width: per side, or once (`shared`) for a row both hold.
#[derive(Debug, Clone, PartialEq)]
struct RowWrap {
    width: usize,
    masked: bool,
    cells: [Vec<CellLine>; 2],
}

pub struct Compare {
    pub titles: [SideTitle; 2],
    pub rows: Vec<TurnRow>,
    /// The first row where the sides differ (messages, calls or verdicts).
    pub first_divergence: Option<usize>,
    /// Leading rows that are the same on both sides: drawn once, across both columns.
    pub shared: usize,
    /// The row at the cursor: both sides step together.
    pub cursor: usize,
    pub layout: CompareLayout,
    /// The screen area the layout was made for.
    area: Rect,
    wraps: Vec<Option<RowWrap>>,
    /// The top line shown: a row and a line within it (0 = its header).
    top: (usize, usize),
}

impl Compare {
    /// Aligns two episodes turn by turn. `Some(k)` rows come in turn order, the `None` row of
    /// whole-episode verdicts last.
    pub fn new(a: &EpisodeView, b: &EpisodeView) -> Self {
        let sides = [turns_of(a), turns_of(b)];
        let views = [a, b];
        let mut keys: BTreeSet<Option<u32>> = sides.iter().flat_map(|s| s.keys().copied()).collect();
        // Whole-episode verdicts after every turn (`None` sorts first).
        let end = keys.remove(&None);
        let mut order: Vec<Option<u32>> = keys.into_iter().collect();
        if end {
            order.push(None);
        }
        let rows: Vec<TurnRow> = order
            .into_iter()
            .map(|turn| {
                let empty = (Vec::new(), BTreeMap::new());
                let [sa, sb] = [sides[0].get(&turn).unwrap_or(&empty), sides[1].get(&turn).unwrap_or(&empty)];
                let sig = |side: usize, events: &[usize]| -> Vec<(String, String)> {
                    events.iter().filter_map(|&i| signature(&views[side].events()[i].body)).collect()
                };
                let verdicts = pair_verdicts(&sa.1, &sb.1);
                let same = sig(0, &sa.0) == sig(1, &sb.0) && !verdicts.iter().any(VerdictPair::differs);
                TurnRow { turn, events: [sa.0.clone(), sb.0.clone()], same, verdicts }
            })
            .collect();
        let first_divergence = rows.iter().position(|r| !r.same);
        // Shown once: the same turns that open both (a fork's copied prefix), not a whole pair of
        // identical episodes' rows (still shown once: nothing differs).
        let shared = first_divergence.unwrap_or(rows.len());
        let cursor = first_divergence.unwrap_or(0);
        let count = rows.len();
        Compare {
            titles: [SideTitle::of(&a.episode), SideTitle::of(&b.episode)],
            rows,
            first_divergence,
            shared,
            cursor,
            layout: CompareLayout::default(),
            area: Rect::default(),
            wraps: vec![None; count],
            top: (cursor, 0),
        }
    }

    /// Whether row `row` is drawn once across both columns.
    pub fn is_shared(&self, row: usize) -> bool {
        row < self.shared
    }

    /// The lines of row `row`'s columns, if wrapped (drawing reads only what `settle` wrapped).
    pub fn cells(&self, row: usize) -> Option<&[Vec<CellLine>; 2]> {
        self.wraps.get(row)?.as_ref().map(|w| &w.cells)
    }

    /// The top line shown: a row and a line within it.
    pub fn top(&self) -> (usize, usize) {
        self.top
    }

    /// Rows of screen a turn row takes: its header, its tallest column, a blank line.
    pub fn height(&self, row: usize) -> usize {
        self.cells(row).map_or(2, |[a, b]| 2 + a.len().max(b.len()))
    }

    /// Text width of one column (the whole body for a shared row), two columns of indent off.
    fn width(&self, row: usize) -> usize {
        let [a, b] = self.layout.columns;
        let column = if self.is_shared(row) { self.layout.body.width } else { a.width.min(b.width) };
        (column as usize).saturating_sub(2).max(1)
    }

    /// Wraps row `row` at its width (kept until the width or the masking changes).
    fn ensure(&mut self, row: usize, views: [&EpisodeView; 2]) -> usize {
        let width = self.width(row);
        let masked = views[0].mask().is_some() || views[1].mask().is_some();
        let fresh = self.wraps[row].as_ref().is_some_and(|w| w.width == width && w.masked == masked);
        if !fresh {
            let r = &self.rows[row];
            let sides = if self.is_shared(row) { 1 } else { 2 };
            let mut cells: [Vec<CellLine>; 2] = [Vec::new(), Vec::new()];
            for (side, cell) in cells.iter_mut().enumerate().take(sides) {
                cell.extend(
                    r.verdicts
                        .iter()
                        .enumerate()
                        .filter(|(_, v)| v.sides[side].is_some())
                        .map(|(i, _)| CellLine::Verdict(i)),
                );
                if r.events[side].is_empty() && r.turn.is_some() {
                    cell.push(CellLine::Missing);
                }
                for (item, &event) in r.events[side].iter().enumerate() {
                    cell.push(CellLine::Header(item));
                    if let EventBody::Message(_) = &views[side].events()[event].body {
                        let text = event_text(views[side], event).map_or("", |(_, t)| t);
                        cell.extend(wrap(text, width).into_iter().map(|range| CellLine::Body(item, range)));
                    }
                }
            }
            self.wraps[row] = Some(RowWrap { width, masked, cells });
        }
        self.height(row)
    }

    /// Lays the screen out in `area` and wraps the rows shown from the top.
    pub fn settle(&mut self, area: Rect, views: [&EpisodeView; 2]) {
        self.area = area;
        self.layout = CompareLayout::new(area);
        // Before the first resize there is no width to wrap at.
        if self.rows.is_empty() || self.layout.body.is_empty() || self.layout.columns[1].is_empty() {
            return;
        }
        let (row, line) = self.top;
        let top = (row.min(self.rows.len() - 1), line);
        let viewport = self.layout.body.height as usize;
        (self.top, _) = lazy_rows::fill_from(&mut CompareRows { compare: self, views }, top, viewport);
    }

    /// Moves the cursor to row `row` and shows it from its header.
    pub fn go_to(&mut self, row: usize, views: [&EpisodeView; 2]) {
        if self.rows.is_empty() {
            return;
        }
        self.cursor = row.min(self.rows.len() - 1);
        self.top = (self.cursor, 0);
        self.settle(self.area, views);
    }

    /// Scrolls by `delta` lines (rows are wrapped as they come into view); past the end, the
    /// last line of the last row.
    pub fn scroll_by(&mut self, delta: isize, views: [&EpisodeView; 2]) {
        if self.rows.is_empty() || self.layout.body.is_empty() {
            return;
        }
        let from = self.top;
        let mut rows = CompareRows { compare: self, views };
        let mut top = lazy_rows::scrolled(&mut rows, from, delta);
        if top.0 == rows.count() {
            let last = top.0 - 1;
            top = (last, rows.ensure_rows(last, usize::MAX) - 1);
        }
        self.top = top;
        self.settle(self.area, views);
    }
}

/// The turn rows, as the scrolling engine sees them (a row is wrapped whole).
struct CompareRows<'a> {
    compare: &'a mut Compare,
    views: [&'a EpisodeView; 2],
}

impl RowSource for CompareRows<'_> {
    fn count(&self) -> usize {
        self.compare.rows.len()
    }

    fn ensure_rows(&mut self, row: usize, _rows: usize) -> usize {
        self.compare.ensure(row, self.views)
    }

    fn complete(&self, row: usize) -> bool {
        self.compare.wraps[row].is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::*;

    fn message(turn: u32, from: Party, text: &str) -> EventBody {
        let to = if from == Party::Assistant { Party::Attacker } else { Party::Assistant };
        EventBody::Message(Message::new(turn, from, to, text))
    }

    fn verdict(turn: Option<u32>, outcome: Outcome) -> EventBody {
        verdict_by(turn, outcome, None)
    }

    fn verdict_by(turn: Option<u32>, outcome: Outcome, model: Option<&str>) -> EventBody {
        let method = if model.is_some() { VerdictMethod::Imported } else { VerdictMethod::Rule };
        let verdict = Verdict::new(Judge::Privacy, method, outcome);
        EventBody::from(Verdict { turn, model: model.map(String::from), ..verdict })
    }

    /// An episode of `turns` turns; the assistant's reply in turn `leak` (if any) differs.
    fn episode(id: &str, turns: u32, leak: Option<u32>, extra: Vec<EventBody>) -> EpisodeView {
        let mut bodies = vec![EventBody::Episode(Box::new(EpisodeHeader::new(
            id,
            TaskInfo::default(),
            EpisodeConfig::default(),
        )))];
        for t in 1..=turns {
            bodies.push(message(t, Party::Attacker, &format!("ask {t}")));
            let reply = if leak == Some(t) { "the passport is X123" } else { "I cannot share that" };
            bodies.push(message(t, Party::Assistant, reply));
        }
        bodies.extend(extra);
        let mut view = EpisodeView::new(Episode::new(stamp_events(bodies, "2026-01-01T00:00:00Z"), id));
        view.set_cursor(view.last());
        view
    }

    #[test]
    fn episodes_of_different_lengths_align_by_turn_and_a_missing_turn_is_empty() {
        let a = episode("a", 3, None, vec![]);
        let b = episode("b", 5, None, vec![]);
        let c = Compare::new(&a, &b);
        let turns: Vec<Option<u32>> = c.rows.iter().map(|r| r.turn).collect();
        assert_eq!(turns, [Some(1), Some(2), Some(3), Some(4), Some(5)]);
        assert_eq!(c.rows[3].events[0], Vec::<usize>::new(), "A has no turn 4");
        assert_eq!(c.rows[3].events[1].len(), 2);
        assert_eq!(c.first_divergence, Some(3));
        assert_eq!(c.shared, 3, "the three common turns are shown once");
        assert_eq!(c.cursor, 3, "the compare opens at the first divergent turn");
    }

    #[test]
    fn the_first_divergent_turn_is_the_first_whose_messages_differ() {
        let a = episode("a", 4, None, vec![]);
        let b = episode("b", 4, Some(2), vec![]);
        let c = Compare::new(&a, &b);
        assert_eq!(c.first_divergence, Some(1));
        assert_eq!(c.rows[c.first_divergence.unwrap()].turn, Some(2));
        assert!(c.rows[0].same && !c.rows[1].same);
        // Turns 3 and 4 are the same again, but after a divergence they are not "shared".
        assert!(c.rows[2].same && !c.is_shared(2));
    }

    #[test]
    fn verdicts_are_paired_per_turn_and_differences_flagged() {
        let a = episode("a", 2, None, vec![verdict(Some(2), Outcome::Pass), verdict(None, Outcome::Pass)]);
        let b = episode("b", 2, None, vec![verdict(Some(2), Outcome::Fail), verdict(None, Outcome::Pass)]);
        let c = Compare::new(&a, &b);
        assert_eq!(c.rows.last().unwrap().turn, None, "whole-episode verdicts come last");
        let turn2 = &c.rows[1];
        assert_eq!(turn2.verdicts.len(), 1);
        assert!(turn2.verdicts[0].differs());
        assert_eq!(c.first_divergence, Some(1), "the same messages with another verdict diverge");
        assert!(!c.rows[2].verdicts[0].differs());
    }

    #[test]
    fn two_judge_models_pair_with_the_same_model_first() {
        let a = episode(
            "a",
            1,
            None,
            vec![
                verdict_by(None, Outcome::Pass, Some("claude")),
                verdict_by(None, Outcome::Fail, Some("gpt-5")),
            ],
        );
        let b = episode("b", 1, None, vec![verdict_by(None, Outcome::Fail, Some("gpt-5"))]);
        let c = Compare::new(&a, &b);
        let end = c.rows.last().unwrap();
        let models: Vec<[Option<&str>; 2]> = end
            .verdicts
            .iter()
            .map(|p| [0, 1].map(|s| p.sides[s].as_ref().and_then(|v| v.model.as_deref())))
            .collect();
        assert_eq!(models, [[Some("claude"), None], [Some("gpt-5"), Some("gpt-5")]]);
        assert!(end.verdicts[0].differs() && !end.verdicts[1].differs());
        // Another judge model on each side is still paired (by judge name).
        let b = episode("b", 1, None, vec![verdict_by(None, Outcome::Pass, Some("gpt-5-chat"))]);
        let a = episode("a", 1, None, vec![verdict_by(None, Outcome::Fail, Some("gpt-5"))]);
        let c = Compare::new(&a, &b);
        let end = c.rows.last().unwrap();
        assert_eq!(end.verdicts.len(), 1);
        assert!(end.verdicts[0].differs());
    }

    #[test]
    fn a_fork_and_its_parent_share_their_prefix_once() {
        let parent = episode("parent", 3, None, vec![]);
        // The fork copies turns 1–2 and then goes its own way.
        let mut fork = episode("fork", 2, None, vec![]);
        let mut bodies: Vec<EventBody> = fork.events().iter().map(|e| e.body.clone()).collect();
        if let EventBody::Episode(h) = &mut bodies[0] {
            h.parent = Some(ParentRef { episode: "parent".into(), seq: 4 });
        }
        bodies.push(message(3, Party::Attacker, "a new question"));
        fork = EpisodeView::new(Episode::new(stamp_events(bodies, "2026-01-01T00:00:00Z"), "fork"));
        let c = Compare::new(&parent, &fork);
        assert_eq!(c.shared, 2);
        assert!(c.is_shared(0) && c.is_shared(1) && !c.is_shared(2));
        assert_eq!(c.first_divergence, Some(2));
        assert!(c.titles[1].detail.contains("fork of parent at #4"), "{:?}", c.titles[1]);
    }

    #[test]
    fn rows_are_wrapped_only_when_shown() {
        let a = episode("a", 40, None, vec![]);
        let b = episode("b", 40, Some(1), vec![]);
        let mut c = Compare::new(&a, &b);
        c.settle(Rect::new(0, 0, 80, 12), [&a, &b]);
        let wrapped = c.wraps.iter().filter(|w| w.is_some()).count();
        assert!(wrapped <= 3, "{wrapped} rows wrapped for a 9-line body");
        c.go_to(39, [&a, &b]);
        assert_eq!(c.top(), (39, 0));
        c.scroll_by(-3, [&a, &b]);
        assert_eq!(c.top().0, 38);
    }
}
