//! A scrollable pane of items (messages, tool calls): each item is a header
//! line, its wrapped body and a blank separator. Wrapping happens when an item
//! is added or the width changes, never while drawing.

use std::ops::Range;

use super::wrap::wrap;

/// One event shown in a pane.
#[derive(Debug, Clone)]
pub struct PaneItem {
    /// Index of the event in the episode.
    pub event: usize,
    /// The sanitized text shown under the header.
    pub body: String,
    /// Byte ranges of `body`, one per screen line at the pane's width.
    pub lines: Vec<Range<usize>>,
    /// Byte ranges of `body` to highlight (evidence of a verdict).
    pub highlights: Vec<Range<usize>>,
    /// Byte ranges of `body` that match the search.
    pub matches: Vec<Range<usize>>,
}

impl PaneItem {
    /// Header + body lines + separator.
    pub fn height(&self) -> usize {
        self.lines.len() + 2
    }
}

#[derive(Debug, Clone, Default)]
pub struct Pane {
    pub items: Vec<PaneItem>,
    /// `offsets[i]` is the first screen line of item `i`; one extra entry at the end.
    offsets: Vec<usize>,
    /// Text width the bodies are wrapped to.
    width: usize,
    /// Rows the pane can show.
    pub viewport: usize,
    /// How many items are revealed at the cursor.
    pub visible: usize,
    /// Top screen line when not following.
    scroll: usize,
    /// Keep the newest revealed line in view.
    pub follow: bool,
    /// The selected item; `None` means the newest revealed one.
    pub selected: Option<usize>,
}

impl Pane {
    pub fn new() -> Self {
        Pane { offsets: vec![0], follow: true, width: 1, ..Pane::default() }
    }

    pub fn push(&mut self, event: usize, body: String) {
        let lines = wrap(&body, self.width);
        let end = self.offsets.last().copied().unwrap_or(0);
        self.items.push(PaneItem { event, body, lines, highlights: Vec::new(), matches: Vec::new() });
        self.offsets.push(end + self.items[self.items.len() - 1].height());
    }

    /// Rewraps every body for a new text width (only when it changed).
    pub fn set_size(&mut self, width: usize, viewport: usize) {
        self.viewport = viewport;
        let width = width.max(1);
        if width == self.width {
            return;
        }
        self.width = width;
        self.offsets.clear();
        self.offsets.push(0);
        let mut end = 0;
        for item in &mut self.items {
            item.lines = wrap(&item.body, width);
            end += item.height();
            self.offsets.push(end);
        }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// Reveals the items whose event index is at most `cursor`.
    pub fn reveal(&mut self, cursor: usize) {
        self.visible = self.items.partition_point(|item| item.event <= cursor);
        if let Some(sel) = self.selected
            && sel >= self.visible
        {
            self.selected = None;
        }
    }

    /// Screen lines of the revealed items.
    pub fn total_lines(&self) -> usize {
        self.offsets[self.visible]
    }

    fn max_scroll(&self) -> usize {
        self.total_lines().saturating_sub(self.viewport)
    }

    /// The top line to draw. Following shows the newest item from its header,
    /// so a message taller than the pane is read from its start.
    pub fn top(&self) -> usize {
        if self.follow {
            let newest_start = self.visible.checked_sub(1).map_or(0, |i| self.offsets[i]);
            self.max_scroll().min(newest_start)
        } else {
            self.scroll.min(self.max_scroll())
        }
    }

    pub fn scroll_by(&mut self, delta: isize) {
        let top = self.top() as isize + delta;
        self.scroll = top.clamp(0, self.max_scroll() as isize) as usize;
        self.follow = false;
    }

    /// The item under a screen line, and the line within it.
    pub fn locate(&self, line: usize) -> Option<(usize, usize)> {
        if line >= self.total_lines() {
            return None;
        }
        let item = self.offsets[..=self.visible].partition_point(|&o| o <= line) - 1;
        Some((item, line - self.offsets[item]))
    }

    pub fn selected_item(&self) -> Option<usize> {
        self.selected.or(self.visible.checked_sub(1))
    }

    /// Moves the selection by `delta` items and scrolls it into view.
    pub fn select_by(&mut self, delta: isize) {
        let Some(current) = self.selected_item() else {
            return;
        };
        let next = (current as isize + delta).clamp(0, self.visible as isize - 1) as usize;
        self.selected = Some(next);
        self.scroll_to_item(next);
    }

    pub fn scroll_to_item(&mut self, item: usize) {
        let (start, end) = (self.offsets[item], self.offsets[item + 1]);
        let top = self.top();
        if start < top {
            self.scroll = start;
        } else if end > top + self.viewport {
            self.scroll = end.saturating_sub(self.viewport).min(start);
        } else {
            self.scroll = top;
        }
        self.follow = self.scroll >= self.max_scroll() && self.selected.is_none_or(|s| s + 1 == self.visible);
    }

    /// Back to following the newest item.
    pub fn reset_view(&mut self) {
        self.follow = true;
        self.selected = None;
    }

    /// Finds the item showing event `event`.
    pub fn item_of_event(&self, event: usize) -> Option<usize> {
        self.items[..self.visible].binary_search_by_key(&event, |i| i.event).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane(bodies: &[&str]) -> Pane {
        let mut pane = Pane::new();
        pane.set_size(10, 5);
        for (i, body) in bodies.iter().enumerate() {
            pane.push(i * 2, body.to_string());
        }
        pane
    }

    #[test]
    fn reveal_counts_items_up_to_the_cursor() {
        let mut p = pane(&["a", "b", "c"]);
        p.reveal(2);
        assert_eq!(p.visible, 2);
        assert_eq!(p.total_lines(), 6);
        p.reveal(100);
        assert_eq!(p.locate(7), Some((2, 1)));
    }

    #[test]
    fn follow_keeps_the_tail_in_view_and_scrolling_up_stops_it() {
        let mut p = pane(&["a", "b", "c"]);
        p.reveal(4);
        assert_eq!(p.top(), 4);
        p.scroll_by(-2);
        assert!(!p.follow);
        assert_eq!(p.top(), 2);
        p.scroll_by(100);
        assert_eq!(p.top(), 4, "clamped to the end");
        p.reset_view();
        assert!(p.follow);
    }

    #[test]
    fn following_shows_a_tall_newest_item_from_its_header() {
        let mut p = pane(&["a", "one two three four five six seven eight nine ten eleven twelve"]);
        p.reveal(2);
        assert_eq!(p.top(), 3, "the second item starts at line 3");
    }

    #[test]
    fn resizing_rewraps() {
        let mut p = pane(&["aaaa bbbb cccc"]);
        p.reveal(0);
        assert_eq!(p.total_lines(), 4);
        p.set_size(4, 5);
        assert_eq!(p.total_lines(), 5);
    }
}
