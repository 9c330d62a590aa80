//! One item of a pane: an event's text (borrowed, or a copy where it is shown changed), its
//! highlights and search matches, and its body wrapped as far as it was shown.

use std::ops::Range;

use crate::app::wrap::LazyWrap;
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
    pub(super) wrap: Option<Box<LazyWrap>>,
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
    pub(super) fn new(event: usize, own: Option<String>, events: &[Event]) -> Self {
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
    pub(super) fn wrapped_lines(&self) -> usize {
        self.wrap.as_ref().map_or(0, |w| w.lines().len())
    }

    /// Every body line is known.
    pub(super) fn complete(&self) -> bool {
        self.wrap.as_ref().is_some_and(|w| w.complete())
    }

    /// Bytes of the text not wrapped yet.
    pub(super) fn remaining(&self) -> usize {
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
    pub(super) fn ensure_rows(&mut self, events: &[Event], rows: usize, width: usize) -> usize {
        // Not `self.text`: the wrap is borrowed mutably beside the text.
        let text = shown_text(self.own.as_deref(), self.event(), events);
        self.wrap.get_or_insert_with(|| Box::new(LazyWrap::new(width))).ensure(text, rows.saturating_sub(1));
        self.height(width)
    }
}
