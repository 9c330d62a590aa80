//! The transcript layout: one chronological column of what happened — the user's task, the
//! attacker's and the assistant's messages, tool calls and results folded to one line (Enter
//! unfolds), verdicts as one-line markers — revealed with the replay cursor like the panes.
//!
//! The transcript holds no text of its own: an entry names its event, and its body is the text
//! the panes already hold ([`event_text`]), so the episode's text is not copied again. Bodies are
//! wrapped lazily ([`LazyWrap`]), only the entries (and the part of an entry) that are shown, and
//! the wraps are kept per width: a resize (or masking) forgets them. Every `&mut` method leaves
//! the shown rows wrapped, so drawing only reads.

use std::collections::{HashMap, HashSet};

use crate::core::episode::{EventBody, Judge, Outcome, Party, VerdictMethod};

use super::layout::PaneId;
use super::lazy_rows::{self, Position, RowSource};
use super::pane::PaneItem;
use super::view::EpisodeView;
use super::wrap::LazyWrap;

/// Columns before a body line (`▎ `).
pub const GUTTER: usize = 2;

/// What an entry is, which decides how it is drawn and whether it folds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A message from this party (the user's task is a message from `user`).
    Message(Party),
    /// A tool call, a tool result, an error, a control event or the end: folded to one line.
    Tool,
    /// A verdict: a one-line marker; `previous` is that judge's outcome before it, if any.
    Verdict { previous: Option<Outcome> },
}

#[derive(Debug, Clone)]
pub struct Entry {
    /// Index of the event in the episode.
    pub event: usize,
    pub kind: EntryKind,
    wrap: LazyWrap,
}

impl Entry {
    /// Whether the entry shows a body under its header.
    fn expanded(&self, unfolded: &HashSet<usize>) -> bool {
        match self.kind {
            EntryKind::Message(_) => true,
            EntryKind::Tool => unfolded.contains(&self.event),
            EntryKind::Verdict { .. } => false,
        }
    }
}

/// The revealed entries, as the scrolling engine sees them.
struct TranscriptRows<'a> {
    transcript: &'a mut Transcript,
    view: &'a EpisodeView,
}

impl RowSource for TranscriptRows<'_> {
    fn count(&self) -> usize {
        self.transcript.visible
    }

    fn ensure_rows(&mut self, entry: usize, rows: usize) -> usize {
        self.transcript.ensure_rows(self.view, entry, rows)
    }

    fn complete(&self, entry: usize) -> bool {
        let e = &self.transcript.entries[entry];
        !e.expanded(&self.transcript.unfolded) || e.wrap.complete()
    }
}

#[derive(Debug, Clone)]
pub struct Transcript {
    pub entries: Vec<Entry>,
    /// Events looked at so far (entries are appended as events arrive).
    synced: usize,
    /// Last outcome per judge, to say what a verdict changed.
    last_outcome: HashMap<(Judge, VerdictMethod, Option<String>), Outcome>,
    /// Text width of a body line (the gutter excluded).
    width: usize,
    /// Rows the transcript shows.
    pub viewport: usize,
    /// Whether the wraps were made of masked text.
    masked: bool,
    /// Tool entries unfolded (by event index).
    unfolded: HashSet<usize>,
    /// Entries revealed at the cursor.
    pub visible: usize,
    /// The cursor the transcript was last settled at.
    cursor: Option<usize>,
    /// Keep the newest revealed entry in view.
    pub follow: bool,
    anchor: Position,
    shown: Position,
    /// The selected entry; `None` means the newest revealed one.
    pub selected: Option<usize>,
    /// Screen rows of the revealed entries (estimated where not wrapped yet), and the top row:
    /// for the scrollbar.
    pub total_rows: usize,
    pub top_row_index: usize,
}

impl Default for Transcript {
    fn default() -> Self {
        Transcript {
            entries: Vec::new(),
            synced: 0,
            last_outcome: HashMap::new(),
            width: 1,
            viewport: 0,
            masked: false,
            unfolded: HashSet::new(),
            visible: 0,
            cursor: None,
            follow: true,
            anchor: (0, 0),
            shown: (0, 0),
            selected: None,
            total_rows: 0,
            top_row_index: 0,
        }
    }
}

/// The pane item showing event `event` (its text, evidence highlights and search matches), and
/// the pane it is in. Every item is searched, revealed or not.
pub fn event_item(view: &EpisodeView, event: usize) -> Option<(PaneId, &PaneItem)> {
    [PaneId::Attacker, PaneId::Assistant, PaneId::Tools].into_iter().find_map(|id| {
        let pane = view.pane(id)?;
        let item = pane.items.binary_search_by_key(&event, |i| i.event()).ok()?;
        Some((id, &pane.items[item]))
    })
}

/// The text the panes show for event `event` (sanitized, masked while redaction is on), and
/// the pane it is in. Every item is searched, revealed or not.
pub fn event_text(view: &EpisodeView, event: usize) -> Option<(PaneId, &str)> {
    event_item(view, event).map(|(id, item)| (id, item.text(view.events())))
}

impl Transcript {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the body width and the rows shown; a new width (only when it changed) forgets every wrap.
    pub fn set_size(&mut self, width: usize, viewport: usize) {
        self.viewport = viewport;
        let width = width.saturating_sub(GUTTER).max(1);
        if width != self.width {
            self.width = width;
            self.forget_wraps();
        }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// Body lines wrapped so far, over every entry: the work the transcript did, which stays about
    /// the screens shown whatever the size of the texts.
    pub fn wrapped_lines(&self) -> usize {
        self.entries.iter().map(|e| e.wrap.lines().len()).sum()
    }

    fn forget_wraps(&mut self) {
        for entry in &mut self.entries {
            entry.wrap = LazyWrap::new(self.width);
        }
    }

    /// Appends entries for the events that arrived since the last call.
    fn sync(&mut self, view: &EpisodeView) {
        let masked = view.mask().is_some();
        if masked != self.masked {
            // The panes' texts were rebuilt (masked or not): the ranges wrapped no longer fit them.
            self.masked = masked;
            self.forget_wraps();
        }
        let events = view.events();
        for (i, event) in events.iter().enumerate().skip(self.synced) {
            let kind = match &event.body {
                EventBody::Episode(_) => None,
                EventBody::Message(m) => Some(EntryKind::Message(m.from)),
                EventBody::Verdict(v) => {
                    let key = (v.judge.clone(), v.method, v.model.clone());
                    let previous = self.last_outcome.insert(key, v.outcome);
                    Some(EntryKind::Verdict { previous })
                }
                _ => Some(EntryKind::Tool),
            };
            if let Some(kind) = kind {
                self.entries.push(Entry { event: i, kind, wrap: LazyWrap::new(self.width) });
            }
        }
        self.synced = events.len();
    }

    /// Entry `entry`'s body text.
    fn body<'a>(&self, view: &'a EpisodeView, entry: usize) -> &'a str {
        event_text(view, self.entries[entry].event).map_or("", |(_, text)| text)
    }

    /// Rows of entry `entry`: its header, then (expanded) its body and a blank line. Exact once the
    /// body is wrapped to its end, estimated before.
    pub fn height(&self, view: &EpisodeView, entry: usize) -> usize {
        let e = &self.entries[entry];
        if !e.expanded(&self.unfolded) {
            return 1;
        }
        let known = e.wrap.lines().len();
        let body = if e.wrap.complete() {
            known
        } else {
            let text = self.body(view, entry);
            let rest = e.wrap.remaining(text);
            let estimate = if known == 0 {
                text.bytes().filter(|&b| b == b'\n').count() + 1 + text.len() / self.width
            } else {
                known + rest.div_ceil(self.width)
            };
            estimate.max(known)
        };
        body + 2
    }

    /// Wraps until the entry's first `rows` rows are known (or all are); returns its height.
    fn ensure_rows(&mut self, view: &EpisodeView, entry: usize, rows: usize) -> usize {
        if self.entries[entry].expanded(&self.unfolded) {
            let text = event_text(view, self.entries[entry].event).map_or("", |(_, t)| t);
            self.entries[entry].wrap.ensure(text, rows.saturating_sub(1));
        }
        self.height(view, entry)
    }

    /// Body line `index` of entry `entry` (0 = the first line under the header), if wrapped.
    pub fn line(&self, entry: usize, index: usize) -> Option<std::ops::Range<usize>> {
        self.entries[entry].wrap.lines().get(index).cloned()
    }

    pub fn is_expanded(&self, entry: usize) -> bool {
        self.entries[entry].expanded(&self.unfolded)
    }

    /// The entry and the row within it at the top of the transcript.
    pub fn top_row(&self) -> Option<Position> {
        (self.shown.0 < self.visible).then_some(self.shown)
    }

    pub fn selected_entry(&self) -> Option<usize> {
        self.selected.or(self.visible.checked_sub(1))
    }

    /// The entry showing event `event`, if it is revealed.
    pub fn entry_of_event(&self, event: usize) -> Option<usize> {
        self.entries[..self.visible].binary_search_by_key(&event, |e| e.event).ok()
    }

    /// Catches up with the view (new events, the cursor, masking) and wraps what is shown. A
    /// moved cursor brings the newest revealed entry back into view, as the panes do.
    pub fn settle(&mut self, view: &EpisodeView) {
        self.sync(view);
        if self.cursor != Some(view.cursor) {
            self.cursor = Some(view.cursor);
            self.follow = true;
            self.selected = None;
        }
        self.visible = self.entries.partition_point(|e| e.event <= view.cursor);
        if self.selected.is_some_and(|s| s >= self.visible) {
            self.selected = None;
        }
        if self.visible == 0 || self.viewport == 0 {
            self.shown = (0, 0);
        } else {
            let top = if self.follow {
                let last = self.visible - 1;
                let viewport = self.viewport;
                if self.ensure_rows(view, last, viewport + 1) >= viewport {
                    (last, 0)
                } else {
                    lazy_rows::tail_top(&mut self.rows(view), viewport)
                }
            } else {
                let (entry, row) = self.anchor;
                let entry = entry.min(self.visible - 1);
                let height = self.ensure_rows(view, entry, row + 1);
                (entry, row.min(height - 1))
            };
            let viewport = self.viewport;
            let (top, reaches_end) = lazy_rows::fill_from(&mut self.rows(view), top, viewport);
            self.shown =
                if reaches_end { lazy_rows::tail_top(&mut self.rows(view), viewport).min(top) } else { top };
            if !self.follow {
                self.anchor = self.shown;
            }
        }
        self.count_rows(view);
    }

    fn rows<'a>(&'a mut self, view: &'a EpisodeView) -> TranscriptRows<'a> {
        TranscriptRows { transcript: self, view }
    }

    /// Rows of the revealed entries and the index of the top row (estimates where not wrapped).
    fn count_rows(&mut self, view: &EpisodeView) {
        let mut total = 0;
        let mut top = 0;
        for entry in 0..self.visible {
            if entry == self.shown.0 {
                top = total + self.shown.1;
            }
            total += self.height(view, entry);
        }
        self.total_rows = total;
        self.top_row_index = top;
    }

    pub fn scroll_by(&mut self, view: &EpisodeView, delta: isize) {
        let from = self.shown;
        self.anchor = lazy_rows::scrolled(&mut self.rows(view), from, delta);
        self.follow = false;
        self.settle(view);
    }

    /// Moves the selection by `delta` entries and scrolls it into view.
    pub fn select_by(&mut self, view: &EpisodeView, delta: isize) {
        let Some(current) = self.selected_entry() else { return };
        let next = (current as isize + delta).clamp(0, self.visible as isize - 1) as usize;
        self.select(view, next);
    }

    /// Selects entry `entry` and scrolls as little as needed to show it.
    pub fn select(&mut self, view: &EpisodeView, entry: usize) {
        if entry >= self.visible {
            return;
        }
        self.selected = Some(entry);
        let top = self.shown;
        let height = self.ensure_rows(view, entry, self.viewport + 1);
        let fits = (entry, 0) >= top && {
            let mut rows = 0;
            let mut e = top.0;
            let mut row = top.1;
            while e < entry && rows <= self.viewport {
                rows += self.ensure_rows(view, e, self.viewport + 1) - row;
                row = 0;
                e += 1;
            }
            rows + height.min(self.viewport) <= self.viewport
        };
        if !fits {
            self.anchor = if (entry, 0) < top || height >= self.viewport {
                (entry, 0)
            } else {
                let viewport = self.viewport;
                lazy_rows::walk_up(&mut self.rows(view), (entry + 1, 0), viewport)
            };
            self.follow = false;
        }
        self.settle(view);
    }

    /// Folds or unfolds a tool entry; whether `entry` is one.
    pub fn toggle_fold(&mut self, view: &EpisodeView, entry: usize) -> bool {
        let Some(e) = self.entries.get(entry) else { return false };
        if e.kind != EntryKind::Tool {
            return false;
        }
        let event = e.event;
        if !self.unfolded.remove(&event) {
            self.unfolded.insert(event);
        }
        // Keep the entry where it is on screen (a newest entry unfolding would otherwise scroll).
        if self.follow {
            self.anchor = self.shown;
            self.follow = false;
        }
        self.select(view, entry);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::*;

    fn episode(messages: usize, words: usize) -> Episode {
        let mut bodies = vec![EventBody::Episode(Box::new(EpisodeHeader::new(
            "t",
            TaskInfo::default(),
            Default::default(),
        )))];
        for i in 0..messages {
            let (from, to) = if i % 2 == 0 {
                (Party::Attacker, Party::Assistant)
            } else {
                (Party::Assistant, Party::Attacker)
            };
            let text = format!("message {i} ") + &"word ".repeat(words);
            bodies.push(EventBody::Message(Message::new((i / 2 + 1) as u32, from, to, text)));
        }
        Episode::new(stamp_events(bodies, "t"), "t")
    }

    #[test]
    fn follows_the_cursor_and_wraps_only_what_is_shown() {
        let mut view = EpisodeView::new(episode(200, 400));
        let mut t = Transcript::new();
        t.set_size(42, 10);
        view.set_cursor(view.last());
        t.settle(&view);
        assert_eq!(t.visible, 200);
        let wrapped = t.entries.iter().filter(|e| !e.wrap.lines().is_empty()).count();
        assert!(wrapped <= 2, "only the newest entry is wrapped, not {wrapped}");
        assert_eq!(t.top_row(), Some((199, 0)), "a tall newest message is shown from its header");
        view.set_cursor(3);
        t.settle(&view);
        assert_eq!(t.visible, 3);
        assert!(t.follow);
    }

    #[test]
    fn a_resize_forgets_the_wraps_and_rewraps_at_the_new_width() {
        let mut view = EpisodeView::new(episode(4, 30));
        view.set_cursor(view.last());
        let mut t = Transcript::new();
        t.set_size(42, 100);
        t.settle(&view);
        let narrow_rows = t.total_rows;
        t.set_size(82, 100);
        t.settle(&view);
        assert!(t.total_rows < narrow_rows, "{} < {narrow_rows}", t.total_rows);
        for (i, entry) in t.entries.iter().enumerate() {
            let text = t.body(&view, i);
            assert_eq!(entry.wrap.lines(), &crate::app::wrap::wrap(text, 80)[..]);
        }
    }

    #[test]
    fn scrolling_up_and_back_down_returns_to_the_tail() {
        let mut view = EpisodeView::new(episode(30, 20));
        view.set_cursor(view.last());
        let mut t = Transcript::new();
        t.set_size(40, 8);
        t.settle(&view);
        let tail = t.top_row().unwrap();
        assert_eq!(t.top_row_index + 8, t.total_rows);
        t.scroll_by(&view, -5);
        // Five rows up: counted over the entries' exact heights (wrapped as they were passed).
        let (entry, row) = t.top_row().unwrap();
        let above: usize = (entry..tail.0).map(|e| t.height(&view, e)).sum::<usize>() - row + tail.1;
        assert_eq!(above, 5, "from {tail:?} to {:?}", (entry, row));
        assert!(!t.follow);
        t.scroll_by(&view, 100);
        assert_eq!(t.top_row(), Some(tail), "clamped at the tail");
        assert_eq!(t.top_row_index + 8, t.total_rows);
    }
}
