//! One episode on the inspector screen: the events indexed as they arrive (panes, turns, the
//! timeline marks), the replay cursor, and the redaction mask every shown text goes through.

use std::collections::{BTreeMap, HashMap};

use crate::core::corpus::leak_turn::{needs_turn, snippet_event};
use crate::core::episode::{Episode, Event, EventBody, Judge, Outcome, Verdict, VerdictMethod};
use crate::core::redact::Redactor;
use crate::core::redact_episode::redact_event;

use super::super::layout::PaneId;
use super::super::pane::{Pane, PaneMut};
use super::pane_body::{pane_body, pane_slot};
use super::verdict_row::{VerdictRow, worse};

/// What the timeline shows for one turn.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TurnMark {
    /// The worst outcome among verdicts that changed in this turn.
    pub changed: Option<Outcome>,
    /// Event index of the last event of the turn.
    pub last_event: usize,
}

pub struct EpisodeView {
    pub episode: Episode,
    /// Index of the last revealed event.
    pub cursor: usize,
    /// Attacker, Assistant and Tools panes.
    pub(super) panes: [Pane; 3],
    /// The turn each event belongs to (events without one inherit the previous).
    pub(super) turn_of: Vec<u32>,
    /// Per turn number, only the turns that occur: a file's turn numbers never size an
    /// allocation (`"turn": 4294967295` is one entry). Whole-episode verdicts are in `end_mark`.
    pub(super) turns: BTreeMap<u32, TurnMark>,
    pub end_mark: Option<Outcome>,
    /// Whole-episode verdicts exist (the timeline shows `end`, marked when one changed an outcome).
    pub has_end_verdicts: bool,
    /// Last outcome per judge key, to find changes while indexing.
    pub(super) last_outcome: HashMap<(Judge, VerdictMethod), Outcome>,
    pub verdict_rows: Vec<VerdictRow>,
    pub verdict_selected: usize,
    /// Live episodes keep the cursor on the newest event.
    pub follow_tail: bool,
    /// Reviewers' labels as verdicts, by the event index they judge.
    pub(super) human: Vec<(usize, Verdict)>,
    /// The search whose matches are highlighted (lowercase).
    pub(super) search: Option<String>,
    /// While redaction is on: the masker every shown text goes through. The episode itself is
    /// never changed, so unmasking needs no second copy of it.
    pub(super) mask: Option<Redactor>,
    /// A leak whose judge names no turn (a judge file): its verdict's event index → the first
    /// reply holding a snippet the judge quotes, as the index and the charts infer its turn.
    pub(super) inferred_leaks: HashMap<usize, usize>,
}

impl EpisodeView {
    pub fn new(episode: Episode) -> Self {
        Self::build(episode, None)
    }

    fn build(episode: Episode, mask: Option<Redactor>) -> Self {
        let count = episode.events.len();
        let mut view = EpisodeView {
            // The events stay where they are (no second array of them while indexing).
            episode,
            cursor: 0,
            panes: [Pane::new(), Pane::new(), Pane::new()],
            turn_of: Vec::new(),
            turns: BTreeMap::new(),
            end_mark: None,
            has_end_verdicts: false,
            last_outcome: HashMap::new(),
            verdict_rows: Vec::new(),
            verdict_selected: 0,
            follow_tail: false,
            human: Vec::new(),
            search: None,
            mask,
            inferred_leaks: HashMap::new(),
        };
        for i in 0..count {
            view.index(i);
        }
        view.set_cursor(view.first_cursor());
        view
    }

    /// Masks (or with `None` unmasks) the persona's private values in every shown text: the
    /// panes and verdict rows are rebuilt from the same events, and the cursor stays.
    pub fn set_mask(&mut self, mask: Option<Redactor>) {
        let episode = std::mem::take(&mut self.episode);
        let mut view = Self::build(episode, mask);
        view.follow_tail = self.follow_tail;
        view.human = std::mem::take(&mut self.human);
        view.search = self.search.take();
        view.verdict_selected = self.verdict_selected;
        view.set_cursor(self.cursor);
        if let Some(query) = view.search.clone() {
            view.highlight_matches(&query);
        }
        *self = view;
    }

    /// The masker, while redaction is on.
    pub fn mask(&self) -> Option<&Redactor> {
        self.mask.as_ref()
    }

    /// Where a replay starts: the first event after the header.
    pub fn first_cursor(&self) -> usize {
        1.min(self.last())
    }

    pub fn last(&self) -> usize {
        self.episode.events.len().saturating_sub(1)
    }

    pub fn events(&self) -> &[Event] {
        &self.episode.events
    }

    pub fn pane(&self, id: PaneId) -> Option<&Pane> {
        pane_slot(id).map(|i| &self.panes[i])
    }

    /// Scrolls pane `id` by `delta` rows; the verdict pane moves its selected row instead.
    pub fn scroll_pane(&mut self, id: PaneId, delta: isize) {
        match self.pane_mut(id) {
            Some(mut pane) => pane.scroll_by(delta),
            None => self.select_verdict(delta),
        }
    }

    /// Moves the verdict pane's selected row by `delta`.
    pub fn select_verdict(&mut self, delta: isize) {
        let rows = self.verdict_rows.len() as isize;
        self.verdict_selected = (self.verdict_selected as isize + delta).clamp(0, (rows - 1).max(0)) as usize;
    }

    /// Pane `id`, to scroll, select or resize (its items' texts resolve through the events).
    pub fn pane_mut(&mut self, id: PaneId) -> Option<PaneMut<'_>> {
        let events = &self.episode.events;
        pane_slot(id).map(|i| PaneMut { pane: &mut self.panes[i], events })
    }

    pub fn panes_mut(&mut self) -> impl Iterator<Item = (PaneId, PaneMut<'_>)> {
        let events = &self.episode.events;
        [PaneId::Attacker, PaneId::Assistant, PaneId::Tools]
            .into_iter()
            .zip(self.panes.iter_mut())
            .map(move |(id, pane)| (id, PaneMut { pane, events }))
    }

    /// The text item `item` of pane `id` shows (sanitized, masked while redaction is on).
    pub fn item_text(&self, id: PaneId, item: usize) -> Option<&str> {
        let pane = self.pane(id)?;
        Some(pane.items.get(item)?.text(&self.episode.events))
    }

    /// Appends an event that arrived live; the cursor follows when asked to.
    pub fn push(&mut self, event: Event) {
        self.episode.events.push(event);
        self.index(self.episode.events.len() - 1);
        if self.follow_tail {
            self.set_cursor(self.last());
        }
    }

    /// Gives events their final `seq`, by index (sidecar verdicts placed while their journal was
    /// read get theirs once its last event is known).
    pub fn renumber(&mut self, seqs: &[(usize, u64)]) {
        crate::core::episode::sidecar::renumber(&mut self.episode.events, seqs);
    }

    /// Indexes event `i`, the newest one indexed so far.
    fn index(&mut self, i: usize) {
        let event = &self.episode.events[i];
        let turn = event.body.turn().unwrap_or_else(|| self.turn_of.last().copied().unwrap_or(0));
        self.turn_of.push(turn);
        if turn >= 1 {
            self.turns.entry(turn).or_default().last_event = i;
        }
        let shown = pane_body(&event.body, self.mask.as_ref());
        if let EventBody::Verdict(v) = &self.episode.events[i].body {
            let key = (v.judge.clone(), v.method);
            let mut turn = v.turn;
            if needs_turn(v)
                && let Some(at) = snippet_event(&self.episode.events[..i], v)
            {
                self.inferred_leaks.insert(i, at);
                // The timeline marks the turn the pane infers (`~T4`), not the end.
                turn = Some(self.turn_of[at]);
            }
            self.index_verdict(key, turn, v.outcome);
        }
        if let Some((slot, own)) = shown {
            self.panes[slot].push(&self.episode.events, i, own);
            self.match_last_item(slot);
        }
    }

    fn index_verdict(&mut self, key: (Judge, VerdictMethod), turn: Option<u32>, outcome: Outcome) {
        let whole_episode = !turn.is_some_and(|t| t >= 1 && (t as usize) <= self.turns.len());
        self.has_end_verdicts |= whole_episode;
        let previous = self.last_outcome.insert(key, outcome);
        let changed = match previous {
            Some(p) => p != outcome,
            None => outcome != Outcome::Pass && outcome != Outcome::Skipped,
        };
        if !changed {
            return;
        }
        let mark = match turn.and_then(|t| self.turns.get_mut(&t)) {
            Some(turn) => &mut turn.changed,
            None => &mut self.end_mark,
        };
        *mark = Some(worse(*mark, outcome));
    }

    /// The reply a leak verdict's turn was inferred from (its judge names none), and its turn.
    pub fn inferred_leak(&self, verdict_event: usize) -> Option<(usize, u32)> {
        let at = *self.inferred_leaks.get(&verdict_event)?;
        Some((at, self.turn_at(at)))
    }

    pub fn turn_at(&self, event: usize) -> u32 {
        self.turn_of.get(event).copied().unwrap_or(0)
    }

    /// The highest turn number in the episode (0 when none).
    pub fn max_turn(&self) -> u32 {
        self.turns.keys().next_back().copied().unwrap_or(0)
    }

    /// The timeline mark of turn `turn`; a turn with no events has the default mark.
    pub fn turn_mark(&self, turn: u32) -> TurnMark {
        self.turns.get(&turn).copied().unwrap_or_default()
    }

    /// Moves the cursor and recomputes what depends on it.
    pub fn set_cursor(&mut self, cursor: usize) {
        let cursor = cursor.min(self.last());
        let moved = cursor != self.cursor;
        self.cursor = cursor;
        let events = &self.episode.events;
        for pane in &mut self.panes {
            pane.reveal(events, cursor);
            if moved {
                pane.reset_view(events);
            }
        }
        self.refresh_verdicts();
    }

    /// The last event of turn `turn`, if the episode has that turn.
    pub fn end_of_turn(&self, turn: u32) -> Option<usize> {
        if turn == 0 {
            return Some(0);
        }
        self.turns.get(&turn).map(|t| t.last_event)
    }

    /// The end of the current turn, or of the next turn that has events when the cursor is there.
    pub fn next_turn_cursor(&self) -> usize {
        let current = self.turn_at(self.cursor);
        let at_end_of_turn = self.end_of_turn(current) == Some(self.cursor);
        let target = if at_end_of_turn || current == 0 { current.saturating_add(1) } else { current };
        self.turns.range(target..).next().map_or(self.last(), |(_, t)| t.last_event)
    }

    /// The end of the previous turn that has events (skipping numbers no event carries).
    pub fn prev_turn_cursor(&self) -> usize {
        let current = self.turn_at(self.cursor);
        let previous = self.turns.range(1..current.max(1)).next_back().map_or(0, |(_, t)| t.last_event);
        previous.max(self.first_cursor().min(self.cursor))
    }

    /// `text` as the screen may show it: masked while redaction is on.
    pub fn masked<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        match &self.mask {
            Some(mask) => mask.redact(text),
            None => std::borrow::Cow::Borrowed(text),
        }
    }

    /// Event `index` as the screen may show it: a masked copy of that one event while redaction
    /// is on.
    pub fn shown_event(&self, index: usize) -> Option<std::borrow::Cow<'_, Event>> {
        let event = self.episode.events.get(index)?;
        Some(match &self.mask {
            Some(mask) => {
                let mut masked = event.clone();
                redact_event(&mut masked, mask);
                std::borrow::Cow::Owned(masked)
            }
            None => std::borrow::Cow::Borrowed(event),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, EpisodeHeader, Message, Party, TaskInfo, stamp_events};

    fn message(turn: u32, from: Party, to: Party, text: &str) -> EventBody {
        EventBody::Message(Message::new(turn, from, to, text))
    }

    fn view() -> EpisodeView {
        let header = EpisodeHeader::new("e", TaskInfo::default(), EpisodeConfig::default());
        let bodies = vec![
            EventBody::Episode(Box::new(header)),
            message(1, Party::Attacker, Party::Assistant, "my card is 4111 and I live here"),
            message(1, Party::Assistant, Party::Attacker, "plain\nreply"),
            message(2, Party::Attacker, Party::Assistant, "bell \u{7} and\tescape \u{1b}[31m"),
        ];
        let mut view = EpisodeView::new(Episode::new(stamp_events(bodies, "2026-11-22T00:00:00Z"), "test"));
        view.set_cursor(usize::MAX);
        view
    }

    /// Issue 14: an item whose text needs no sanitizing borrows its event's text; only a
    /// changed (sanitized or masked) text is a copy.
    #[test]
    fn pane_items_borrow_unchanged_texts_and_own_changed_ones() {
        let mut view = view();
        let attacker = view.pane(PaneId::Attacker).unwrap();
        let assistant = view.pane(PaneId::Assistant).unwrap();
        assert!(!attacker.items[0].owns_text());
        assert!(!assistant.items[0].owns_text());
        assert!(attacker.items[1].owns_text(), "controls are made inert in a copy");
        let events = view.events();
        let clean = attacker.items[0].text(events);
        let EventBody::Message(m) = &events[1].body else { panic!() };
        assert_eq!(clean.as_ptr(), m.text.as_ptr(), "the very same bytes, not a copy");
        assert_eq!(view.item_text(PaneId::Assistant, 0), Some("plain\nreply"));
        assert_eq!(view.item_text(PaneId::Attacker, 1), Some("bell ␇ and    escape ␛[31m"));

        view.set_mask(Some(Redactor::from_texts(["4111"])));
        let attacker = view.pane(PaneId::Attacker).unwrap();
        assert!(attacker.items[0].owns_text(), "a masked text is a copy");
        assert!(!view.pane(PaneId::Assistant).unwrap().items[0].owns_text(), "nothing to mask: borrowed");
        assert!(!view.item_text(PaneId::Attacker, 0).unwrap().contains("4111"));
        view.set_mask(None);
        assert!(!view.pane(PaneId::Attacker).unwrap().items[0].owns_text());
        assert_eq!(view.item_text(PaneId::Attacker, 0), Some("my card is 4111 and I live here"));
    }

    /// Search matches index the shown text, borrowed or not.
    #[test]
    fn search_highlights_borrowed_texts() {
        let mut view = view();
        let hit = view.search("REPLY").unwrap();
        assert_eq!(hit.event, 2);
        let matches = view.pane(PaneId::Assistant).unwrap().items[0].matches();
        assert_eq!((matches.len(), matches[0].clone()), (1, 6..11));
    }
}
