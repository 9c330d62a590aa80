//! The pane: the items revealed at the cursor, scrolled (an item and a line within it) and
//! selected, their heights refined as they are wrapped.

use std::ops::{Deref, DerefMut};

use super::super::lazy_rows::{self, Position, RowSource};
use super::item::PaneItem;
use crate::core::episode::Event;

/// Bytes of bodies wrapped ahead of being shown per settle, so that the heights of a normal
/// episode are exact at once and a huge one's estimates are refined a little at a time.
const REFINE_BUDGET: usize = 256 * 1024;

/// The items a pane reveals, as the scrolling engine sees them (wrapping marks the offsets stale).
struct PaneRows<'a> {
    pane: &'a mut Pane,
    events: &'a [Event],
}

impl RowSource for PaneRows<'_> {
    fn count(&self) -> usize {
        self.pane.visible
    }

    fn ensure_rows(&mut self, item: usize, rows: usize) -> usize {
        let height = self.pane.items[item].ensure_rows(self.events, rows, self.pane.width);
        self.pane.mark_stale(item);
        height
    }

    fn complete(&self, item: usize) -> bool {
        self.pane.items[item].complete()
    }
}

#[derive(Debug, Clone, Default)]
pub struct Pane {
    pub items: Vec<PaneItem>,
    /// Start line of each item (estimated where not yet wrapped), plus the total at the end.
    offsets: Vec<usize>,
    /// First item whose offset is stale.
    stale_from: Option<usize>,
    /// Items before this one have been considered for wrapping ahead (see [`REFINE_BUDGET`]).
    refined: usize,
    /// Text width the bodies are wrapped to.
    width: usize,
    /// Rows the pane can show.
    pub viewport: usize,
    /// How many items are revealed at the cursor.
    pub visible: usize,
    /// Top row asked for when not following.
    anchor: Position,
    /// Top row as last settled: what is drawn.
    shown: Position,
    /// Keep the newest revealed line in view.
    pub follow: bool,
    /// The selected item; `None` means the newest revealed one.
    pub selected: Option<usize>,
}

impl Pane {
    pub fn new() -> Self {
        Pane { offsets: vec![0], follow: true, width: 1, ..Pane::default() }
    }

    /// Adds an item; it is wrapped when it is shown.
    /// Adds an item for event `event` of `ev`, with its own text when it differs from the event's.
    pub fn push(&mut self, ev: &[Event], event: usize, own: Option<String>) {
        let item = PaneItem::new(event, own, ev);
        self.refresh_offsets();
        let end = self.offsets.last().copied().unwrap_or(0);
        self.offsets.push(end + item.height(self.width));
        self.items.push(item);
    }

    /// A new text width forgets every wrap (only when it changed); what is shown is rewrapped.
    /// Only a new size settles: the layout is applied after every action (each batch of a journal
    /// being loaded among them), and every settle wraps ahead (see [`REFINE_BUDGET`]).
    pub fn set_size(&mut self, ev: &[Event], width: usize, viewport: usize) {
        let width = width.max(1);
        if (width, viewport) == (self.width, self.viewport) {
            return;
        }
        self.viewport = viewport;
        if width != self.width {
            self.width = width;
            for item in &mut self.items {
                item.wrap = None;
            }
            self.mark_stale(0);
            self.refined = 0;
        }
        self.settle(ev);
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// Reveals the items whose event index is at most `cursor`.
    pub fn reveal(&mut self, ev: &[Event], cursor: usize) {
        self.visible = self.items.partition_point(|item| item.event() <= cursor);
        if let Some(sel) = self.selected
            && sel >= self.visible
        {
            self.selected = None;
        }
        self.settle(ev);
    }

    /// Screen lines of the revealed items (estimated for items not seen yet).
    pub fn total_lines(&self) -> usize {
        self.offsets[self.visible]
    }

    /// The top line drawn. Following shows the newest item from its header,
    /// so a message taller than the pane is read from its start.
    pub fn top(&self) -> usize {
        self.offsets[self.shown.0.min(self.visible)] + self.shown.1
    }

    pub fn scroll_by(&mut self, ev: &[Event], delta: isize) {
        let from = self.shown;
        self.anchor = lazy_rows::scrolled(&mut self.rows(ev), from, delta);
        self.follow = false;
        self.settle(ev);
    }

    /// The item under a screen line, and the line within it.
    pub fn locate(&self, line: usize) -> Option<(usize, usize)> {
        if line >= self.total_lines() {
            return None;
        }
        let item = self.offsets[..=self.visible].partition_point(|&o| o <= line) - 1;
        Some((item, line - self.offsets[item]))
    }

    /// The item and row within it at the top of the pane.
    pub fn top_row(&self) -> Option<(usize, usize)> {
        (self.shown.0 < self.visible).then_some(self.shown)
    }

    pub fn selected_item(&self) -> Option<usize> {
        self.selected.or(self.visible.checked_sub(1))
    }

    /// Moves the selection by `delta` items and scrolls it into view.
    pub fn select_by(&mut self, ev: &[Event], delta: isize) {
        let Some(current) = self.selected_item() else {
            return;
        };
        let next = (current as isize + delta).clamp(0, self.visible as isize - 1) as usize;
        self.selected = Some(next);
        self.scroll_to_item(ev, next);
    }

    /// Scrolls as little as needed to show item `item`, from its header where it is taller than the pane.
    pub fn scroll_to_item(&mut self, ev: &[Event], item: usize) {
        if item >= self.visible {
            return;
        }
        let top = self.shown;
        self.anchor = if (item, 0) < top {
            (item, 0)
        } else {
            let height = self.items[item].ensure_rows(ev, self.viewport + 1, self.width);
            self.mark_stale(item);
            let rows_above = self.rows_between(top, item);
            if rows_above + height <= self.viewport {
                top
            } else if height >= self.viewport {
                (item, 0)
            } else {
                let rows_above = self.viewport - height;
                lazy_rows::walk_up(&mut self.rows(ev), (item, 0), rows_above)
            }
        };
        self.follow = false;
        let at_tail = self.settle(ev);
        self.follow = at_tail && self.selected.is_none_or(|s| s + 1 == self.visible);
        if self.follow {
            self.settle(ev);
        }
    }

    /// Back to following the newest item.
    pub fn reset_view(&mut self, ev: &[Event]) {
        self.follow = true;
        self.selected = None;
        self.settle(ev);
    }

    /// Finds the item showing event `event`.
    pub fn item_of_event(&self, event: usize) -> Option<usize> {
        self.items[..self.visible].binary_search_by_key(&event, |i| i.event()).ok()
    }

    /// Wraps what the pane shows from its top row and refreshes the line offsets;
    /// returns whether the shown rows reach the end (nothing further to scroll).
    fn settle(&mut self, ev: &[Event]) -> bool {
        let mut at_tail = true;
        if self.visible > 0 && self.viewport > 0 {
            // Following starts at the newest item's header; `fill_from` falls back to the tail
            // when that item is shorter than the pane.
            let top = if self.follow { (self.visible - 1, 0) } else { self.anchor };
            let viewport = self.viewport;
            let (top, reaches_end) = lazy_rows::fill_from(&mut self.rows(ev), top, viewport);
            at_tail = reaches_end;
            self.shown = if reaches_end { lazy_rows::tail_top(&mut self.rows(ev), viewport) } else { top };
            if !self.follow {
                self.anchor = self.shown;
            }
        } else {
            self.shown = (0, 0);
        }
        self.refine_ahead(ev);
        self.refresh_offsets();
        at_tail
    }

    /// Wraps not-yet-shown items within the budget; an item larger than what is left stays estimated.
    fn refine_ahead(&mut self, ev: &[Event]) {
        let mut budget = REFINE_BUDGET;
        while self.refined < self.items.len() && budget > 0 {
            let item = &mut self.items[self.refined];
            let remaining = item.remaining();
            if !item.complete() && remaining <= budget {
                budget -= remaining.max(1);
                item.ensure_rows(ev, usize::MAX, self.width);
                self.mark_stale(self.refined);
            }
            self.refined += 1;
        }
    }

    fn rows<'a>(&'a mut self, events: &'a [Event]) -> PaneRows<'a> {
        PaneRows { pane: self, events }
    }

    /// Rows from `top` to the start of `item` (which is at or below it).
    fn rows_between(&mut self, top: Position, item: usize) -> usize {
        self.refresh_offsets();
        (self.offsets[item]).saturating_sub(self.offsets[top.0] + top.1)
    }

    fn mark_stale(&mut self, from: usize) {
        self.stale_from = Some(self.stale_from.map_or(from, |s| s.min(from)));
    }

    fn refresh_offsets(&mut self) {
        let Some(from) = self.stale_from.take() else { return };
        let from = from.min(self.items.len());
        let mut end = self.offsets[from];
        for (i, item) in self.items.iter().enumerate().skip(from) {
            end += item.height(self.width);
            self.offsets[i + 1] = end;
        }
    }
}

/// A pane with the episode's events its items' texts come from: what the app changes a pane
/// through (scrolling, selecting, resizing). Reading goes through to the [`Pane`].
pub struct PaneMut<'a> {
    pub pane: &'a mut Pane,
    pub events: &'a [Event],
}

impl PaneMut<'_> {
    pub fn set_size(&mut self, width: usize, viewport: usize) {
        self.pane.set_size(self.events, width, viewport);
    }

    pub fn reveal(&mut self, cursor: usize) {
        self.pane.reveal(self.events, cursor);
    }

    pub fn scroll_by(&mut self, delta: isize) {
        self.pane.scroll_by(self.events, delta);
    }

    pub fn select_by(&mut self, delta: isize) {
        self.pane.select_by(self.events, delta);
    }

    pub fn scroll_to_item(&mut self, item: usize) {
        self.pane.scroll_to_item(self.events, item);
    }

    pub fn reset_view(&mut self) {
        self.pane.reset_view(self.events);
    }
}

impl Deref for PaneMut<'_> {
    type Target = Pane;

    fn deref(&self) -> &Pane {
        self.pane
    }
}

impl DerefMut for PaneMut<'_> {
    fn deref_mut(&mut self) -> &mut Pane {
        self.pane
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane(bodies: &[&str]) -> Pane {
        let mut pane = Pane::new();
        pane.set_size(&[], 10, 5);
        for (i, body) in bodies.iter().enumerate() {
            pane.push(&[], i * 2, Some(body.to_string()));
        }
        pane
    }

    #[test]
    fn reveal_counts_items_up_to_the_cursor() {
        let mut p = pane(&["a", "b", "c"]);
        p.reveal(&[], 2);
        assert_eq!(p.visible, 2);
        assert_eq!(p.total_lines(), 6);
        p.reveal(&[], 100);
        assert_eq!(p.locate(7), Some((2, 1)));
    }

    #[test]
    fn follow_keeps_the_tail_in_view_and_scrolling_up_stops_it() {
        let mut p = pane(&["a", "b", "c"]);
        p.reveal(&[], 4);
        assert_eq!(p.top(), 4);
        p.scroll_by(&[], -2);
        assert!(!p.follow);
        assert_eq!(p.top(), 2);
        p.scroll_by(&[], 100);
        assert_eq!(p.top(), 4, "clamped to the end");
        p.reset_view(&[]);
        assert!(p.follow);
    }

    #[test]
    fn following_shows_a_tall_newest_item_from_its_header() {
        let mut p = pane(&["a", "one two three four five six seven eight nine ten eleven twelve"]);
        p.reveal(&[], 2);
        assert_eq!(p.top(), 3, "the second item starts at line 3");
    }

    #[test]
    fn resizing_rewraps() {
        let mut p = pane(&["aaaa bbbb cccc"]);
        p.reveal(&[], 0);
        assert_eq!(p.total_lines(), 4);
        p.set_size(&[], 4, 5);
        assert_eq!(p.total_lines(), 5);
    }

    /// Issue 14: one item per event per pane, so its size is most of a pane's memory.
    #[test]
    fn a_pane_item_is_48_bytes() {
        assert_eq!(std::mem::size_of::<PaneItem>(), 48);
    }

    /// A 20 MB body: opening, scrolling and resizing wrap only what is shown.
    #[test]
    fn a_huge_item_is_wrapped_only_as_far_as_it_is_shown() {
        let body = "lorem ipsum dolor sit amet ".repeat(800_000);
        let mut p = Pane::new();
        p.push(&[], 0, Some(body));
        p.set_size(&[], 80, 40);
        p.reveal(&[], 0);
        assert!(p.items[0].wrapped_lines() < 100, "opening wraps one screen");
        p.scroll_by(&[], 1000);
        assert!(p.items[0].wrapped_lines() < 1100);
        p.set_size(&[], 60, 40);
        assert!(p.items[0].wrapped_lines() < 1100, "a resize rewraps what is shown");
        p.scroll_by(&[], isize::MAX);
        assert!(p.items[0].complete(), "the end was shown");
        assert_eq!(p.top() + 40, p.total_lines(), "the end fills the pane");
    }

    /// Estimated heights above the top are refined without moving what is shown.
    #[test]
    fn scrolling_up_into_unwrapped_items_is_exact() {
        let bodies: Vec<String> = (0..50).map(|i| format!("item {i} ").repeat(i % 7 + 1)).collect();
        let refs: Vec<&str> = bodies.iter().map(String::as_str).collect();
        let mut lazy = pane(&refs);
        lazy.reveal(&[], usize::MAX);
        let mut eager = pane(&refs);
        eager.reveal(&[], usize::MAX);
        for item in &mut eager.items {
            item.ensure_rows(&[], usize::MAX, 10);
        }
        eager.mark_stale(0);
        eager.settle(&[]);
        for _ in 0..200 {
            lazy.scroll_by(&[], -3);
            eager.scroll_by(&[], -3);
            assert_eq!(lazy.top_row(), eager.top_row());
        }
        assert_eq!(lazy.top(), 0);
    }
}
