//! A scrollable pane of items (messages, tool calls): each item is a header
//! line, its wrapped body and a blank separator.
//!
//! Bodies are wrapped lazily ([`LazyWrap`]): only the items (and the part of an
//! item) that the pane shows are wrapped, once per width. Heights of items not
//! wrapped yet are estimated from their length and refined when they are seen;
//! the scroll position is an item and a line within it, so refining the items
//! above never moves what is on screen. Every `&mut` method leaves the shown
//! lines wrapped, so drawing only reads.

use std::ops::{Deref, DerefMut, Range};

use super::lazy_rows::{self, Position, RowSource};
use super::wrap::LazyWrap;
use crate::core::episode::{Event, EventBody};

/// One event shown in a pane.
///
/// Its text is held once: an item borrows its event's text (resolved through the episode's
/// events, see [`PaneItem::text`]) unless the shown text differs from it (sanitized, masked, or
/// made up like a tool call's arguments), and only then owns a copy.
///
/// There is one item per event per pane (124k on a 50 MB journal), so what most items never
/// use is boxed until used: the wrap state (until the item is first shown or refined) and the
/// highlight and match lists. 48 bytes (152 before, issue 14).
#[derive(Debug, Clone)]
pub struct PaneItem {
    /// Index of the event in the episode.
    event: u32,
    /// Line breaks in the text (saturating), for estimating its height before it is wrapped.
    newlines: u32,
    /// Length of the text in bytes.
    len: usize,
    /// The shown text where it is not the event's own text as it is.
    own: Option<Box<str>>,
    /// The text wrapped at the pane's width, as far as it was shown; `None` until first wrapped.
    wrap: Option<Box<LazyWrap>>,
    /// Highlighted evidence and search matches; `None` while there are neither.
    marks: Option<Box<Marks>>,
}

#[derive(Debug, Clone, Default)]
struct Marks {
    /// Byte ranges of the text to highlight (evidence of a verdict).
    highlights: Vec<Range<usize>>,
    /// Byte ranges of the text that match the search.
    matches: Vec<Range<usize>>,
}

/// The text of an event that a pane shows as it is (when sanitizing and masking leave it alone).
pub fn event_text(body: &EventBody) -> Option<&str> {
    match body {
        EventBody::Message(m) => Some(&m.text),
        EventBody::ToolResult(r) => Some(&r.output),
        EventBody::Error(e) => Some(&e.message),
        _ => None,
    }
}

/// An item's own text, or else its event's.
fn shown_text<'a>(own: Option<&'a str>, event: usize, events: &'a [Event]) -> &'a str {
    own.or_else(|| events.get(event).and_then(|e| event_text(&e.body))).unwrap_or("")
}

impl PaneItem {
    fn new(event: usize, own: Option<String>, events: &[Event]) -> Self {
        let mut item = PaneItem {
            // An episode in memory has far fewer than 2^32 events.
            event: u32::try_from(event).unwrap_or(u32::MAX),
            newlines: 0,
            len: 0,
            own: own.map(String::into_boxed_str),
            wrap: None,
            marks: None,
        };
        let text = item.text(events);
        let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
        (item.newlines, item.len) = (u32::try_from(newlines).unwrap_or(u32::MAX), text.len());
        item
    }

    /// Index of the event in the episode.
    pub fn event(&self) -> usize {
        self.event as usize
    }

    /// The text shown under the header: the item's own copy, or else its event's text.
    pub fn text<'a>(&'a self, events: &'a [Event]) -> &'a str {
        shown_text(self.own.as_deref(), self.event(), events)
    }

    /// Whether the item holds a copy of its text (it differs from the event's).
    pub fn owns_text(&self) -> bool {
        self.own.is_some()
    }

    /// Byte ranges of the text to highlight (evidence of a verdict).
    pub fn highlights(&self) -> &[Range<usize>] {
        self.marks.as_ref().map_or(&[], |m| &m.highlights)
    }

    /// Byte ranges of the text that match the search.
    pub fn matches(&self) -> &[Range<usize>] {
        self.marks.as_ref().map_or(&[], |m| &m.matches)
    }

    pub fn add_highlight(&mut self, range: Range<usize>) {
        self.marks.get_or_insert_default().highlights.push(range);
    }

    pub fn clear_highlights(&mut self) {
        if let Some(marks) = &mut self.marks {
            marks.highlights.clear();
            self.drop_empty_marks();
        }
    }

    pub fn set_matches(&mut self, matches: Vec<Range<usize>>) {
        if !matches.is_empty() || self.marks.is_some() {
            self.marks.get_or_insert_default().matches = matches;
            self.drop_empty_marks();
        }
    }

    fn drop_empty_marks(&mut self) {
        if self.marks.as_ref().is_some_and(|m| m.highlights.is_empty() && m.matches.is_empty()) {
            self.marks = None;
        }
    }

    /// Body lines wrapped so far.
    #[cfg(test)]
    fn wrapped_lines(&self) -> usize {
        self.wrap.as_ref().map_or(0, |w| w.lines().len())
    }

    /// Every body line is known.
    fn complete(&self) -> bool {
        self.wrap.as_ref().is_some_and(|w| w.complete())
    }

    /// Bytes of the text not wrapped yet.
    fn remaining(&self) -> usize {
        self.wrap.as_ref().map_or(self.len, |w| w.remaining_of(self.len))
    }

    /// Header + body lines + separator at text width `width` (the pane's): exact once the body
    /// is wrapped to its end, estimated before.
    pub fn height(&self, width: usize) -> usize {
        let known = self.wrap.as_ref().map_or(0, |w| w.lines().len());
        let width = width.max(1);
        let body = if self.complete() {
            known
        } else if known == 0 {
            self.newlines as usize + 1 + self.len / width
        } else {
            known + self.remaining().div_ceil(width)
        };
        body.max(known) + 2
    }

    /// Body line `index` (0 = first line under the header), if it has been wrapped.
    pub fn line(&self, index: usize) -> Option<Range<usize>> {
        self.wrap.as_ref()?.lines().get(index).cloned()
    }

    /// Wraps at `width` until the item's first `rows` rows are known (or all are); returns its height.
    fn ensure_rows(&mut self, events: &[Event], rows: usize, width: usize) -> usize {
        // Not `self.text`: the wrap is borrowed mutably beside the text.
        let text = shown_text(self.own.as_deref(), self.event(), events);
        self.wrap.get_or_insert_with(|| Box::new(LazyWrap::new(width))).ensure(text, rows.saturating_sub(1));
        self.height(width)
    }
}

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
