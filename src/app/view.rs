//! One episode on the inspector screen: the replay cursor and everything
//! derived from it (pane contents, verdict rows, the turn timeline).
//!
//! Events are only ever appended (live runs), so every index here is built
//! incrementally in [`EpisodeView::push`].

use std::collections::{BTreeMap, HashMap};

use crate::core::episode::{Episode, Event, EventBody, Outcome, Party, Verdict, VerdictMethod};
use crate::core::judge::standing::supersedes;
use crate::core::redact::Redactor;
use crate::core::redact_episode::redact_event;
use crate::core::sanitize::{inert, single_line};
use crate::core::text::byte_of_char;

use super::layout::PaneId;
use super::pane::{Pane, PaneMut};

/// The latest verdict of one judge (and method) at the cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictRow {
    /// Event index of that verdict.
    pub event: usize,
    pub judge: String,
    pub method: VerdictMethod,
    /// The judge's model, when it names one: two judge models are two rows.
    pub model: Option<String>,
    /// Another method's verdict on the same question says the opposite.
    pub disagrees: bool,
    /// A reviewer's label (from the notes file) rather than a verdict event.
    pub human: Option<Verdict>,
    /// The verdict's summary on one inert line, masked while redaction is on.
    pub summary: String,
}

/// Where a search landed: event index, and which match of how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchHit {
    pub event: usize,
    /// 1-based.
    pub nth: usize,
    pub of: usize,
    /// Past the last match: started again from the top.
    pub wrapped: bool,
}

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
    panes: [Pane; 3],
    /// The turn each event belongs to (events without one inherit the previous).
    turn_of: Vec<u32>,
    /// Per turn number, only the turns that occur: a file's turn numbers never size an
    /// allocation (`"turn": 4294967295` is one entry). Whole-episode verdicts are in `end_mark`.
    turns: BTreeMap<u32, TurnMark>,
    pub end_mark: Option<Outcome>,
    /// Whole-episode verdicts exist (the timeline shows `end`, marked when one changed an outcome).
    pub has_end_verdicts: bool,
    /// Last outcome per judge key, to find changes while indexing.
    last_outcome: HashMap<(String, VerdictMethod), Outcome>,
    pub verdict_rows: Vec<VerdictRow>,
    pub verdict_selected: usize,
    /// Live episodes keep the cursor on the newest event.
    pub follow_tail: bool,
    /// Reviewers' labels as verdicts, by the event index they judge.
    human: Vec<(usize, Verdict)>,
    /// The search whose matches are highlighted (lowercase).
    search: Option<String>,
    /// While redaction is on: the masker every shown text goes through. The episode itself is
    /// never changed, so unmasking needs no second copy of it.
    mask: Option<Redactor>,
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
            self.index_verdict(key, v.turn, v.outcome);
        }
        if let Some((slot, own)) = shown {
            let events = &self.episode.events;
            let pane = &mut self.panes[slot];
            pane.push(events, i, own);
            if let (Some(query), Some(item)) = (&self.search, pane.items.last_mut()) {
                item.set_matches(find_ignoring_case(item.text(events), query));
            }
        }
    }

    fn index_verdict(&mut self, key: (String, VerdictMethod), turn: Option<u32>, outcome: Outcome) {
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

    fn refresh_verdicts(&mut self) {
        let mut rows: Vec<VerdictRow> = Vec::new();
        let events = &self.episode.events;
        for (i, event) in events[..=self.cursor.min(self.last())].iter().enumerate() {
            if let EventBody::Verdict(v) = &event.body {
                match rows
                    .iter_mut()
                    .find(|r| r.judge == v.judge && r.method == v.method && r.model == v.model)
                {
                    // An `error` or `skipped` verdict never hides an answer (a re-judge that failed).
                    Some(row) => {
                        if let EventBody::Verdict(old) = &events[row.event].body
                            && supersedes((v.outcome, v.method), (old.outcome, old.method))
                        {
                            row.event = i;
                        }
                    }
                    None => rows.push(VerdictRow {
                        event: i,
                        judge: v.judge.clone(),
                        method: v.method,
                        model: v.model.clone(),
                        disagrees: false,
                        human: None,
                        summary: String::new(),
                    }),
                }
            }
        }
        for (target, verdict) in self.human.iter().filter(|(target, _)| *target <= self.cursor) {
            let row = VerdictRow {
                event: *target,
                judge: verdict.judge.clone(),
                method: verdict.method,
                model: verdict.model.clone(),
                disagrees: false,
                human: Some(verdict.clone()),
                summary: String::new(),
            };
            match rows.iter_mut().find(|r| r.human.is_some() && r.judge == verdict.judge) {
                Some(existing) => *existing = row,
                None => rows.push(row),
            }
        }
        // Rows on the same question (judge name) whose methods reach opposite conclusions.
        let held: Vec<Option<bool>> =
            rows.iter().map(|r| self.row_verdict(r).and_then(|v| assistant_held(v.outcome))).collect();
        for i in 0..rows.len() {
            rows[i].disagrees = held[i].is_some()
                && (0..rows.len())
                    .any(|j| rows[j].judge == rows[i].judge && held[j].is_some() && held[j] != held[i]);
        }
        for row in &mut rows {
            let summary = self.row_verdict(row).and_then(|v| v.summary.as_deref()).unwrap_or("");
            row.summary = single_line(&self.masked(summary)).into_owned();
        }
        self.verdict_rows = rows;
        self.verdict_selected = self.verdict_selected.min(self.verdict_rows.len().saturating_sub(1));
        self.refresh_highlights();
    }

    /// Marks the evidence spans of the verdicts shown at the cursor.
    fn refresh_highlights(&mut self) {
        for pane in &mut self.panes {
            for item in &mut pane.items {
                item.clear_highlights();
            }
        }
        // Evidence spans index the real text; the masks shift it.
        if self.mask.is_some() {
            return;
        }
        for row in &self.verdict_rows {
            let EventBody::Verdict(v) = &self.episode.events[row.event].body else {
                continue;
            };
            let Some(evidence) = &v.evidence else {
                continue;
            };
            let (Some(start), Some(end)) = (evidence.start, evidence.end) else {
                continue;
            };
            let Some(target) = self.episode.position_of(evidence.seq) else {
                continue;
            };
            let Some(text) = self.episode.events.get(target).and_then(|e| e.body.text()) else {
                continue;
            };
            let Some((slot, _)) = pane_body(&self.episode.events[target].body, None) else {
                continue;
            };
            let pane = &mut self.panes[slot];
            if let Some(item) = pane.item_of_event(target) {
                let range = sanitized_byte_range(text, start, end);
                pane.items[item].add_highlight(range);
            }
        }
    }

    /// Reviewers' labels to show with the judges' verdicts.
    pub fn set_human_verdicts(&mut self, verdicts: Vec<(usize, Verdict)>) {
        self.human = verdicts
            .into_iter()
            .filter(|(target, _)| *target < self.episode.events.len())
            .map(|(target, mut v)| {
                v.turn = Some(self.turn_at(target));
                (target, v)
            })
            .collect();
        self.refresh_verdicts();
    }

    /// The verdict a row shows.
    pub fn row_verdict<'a>(&'a self, row: &'a VerdictRow) -> Option<&'a Verdict> {
        match (&row.human, &self.episode.events[row.event].body) {
            (Some(v), _) => Some(v),
            (None, EventBody::Verdict(v)) => Some(v),
            _ => None,
        }
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

    /// The next event after the cursor whose text contains `query` (any case),
    /// wrapping around; and highlights the matches in the panes.
    pub fn search(&mut self, query: &str) -> Option<SearchHit> {
        let needle = query.to_lowercase();
        self.highlight_matches(&needle);
        self.search = Some(needle.clone());
        let hits: Vec<usize> = (0..self.episode.events.len())
            .filter(|&i| event_search_text(&self.episode.events[i].body).to_lowercase().contains(&needle))
            .collect();
        let after = hits.iter().position(|&i| i > self.cursor);
        let index = after.unwrap_or(0);
        let &event = hits.get(index)?;
        Some(SearchHit { event, nth: index + 1, of: hits.len(), wrapped: after.is_none() })
    }

    fn highlight_matches(&mut self, needle: &str) {
        let events = &self.episode.events;
        for pane in &mut self.panes {
            for item in &mut pane.items {
                item.set_matches(find_ignoring_case(item.text(events), needle));
            }
        }
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

    /// The worst outcome among the verdict rows at the cursor.
    pub fn worst_outcome(&self) -> Option<Outcome> {
        self.verdict_rows.iter().fold(None, |acc, row| match &self.episode.events[row.event].body {
            EventBody::Verdict(v) => Some(worse(acc, v.outcome)),
            _ => acc,
        })
    }
}

fn pane_slot(id: PaneId) -> Option<usize> {
    match id {
        PaneId::Attacker => Some(0),
        PaneId::Assistant => Some(1),
        PaneId::Tools => Some(2),
        PaneId::Verdicts => None,
    }
}

/// Which pane shows an event, and the (masked, sanitized) text it shows where that is not the
/// event's own text as it is (`None`: the pane borrows the event's text, see [`super::pane::event_text`]).
fn pane_body(body: &EventBody, mask: Option<&Redactor>) -> Option<(usize, Option<String>)> {
    use std::borrow::Cow;
    // Own a copy only where masking or sanitizing changed the text.
    let shown = |text: &str| match mask.map(|mask| mask.redact(text)) {
        Some(Cow::Owned(masked)) => Some(inert(&masked).into_owned()),
        _ => match inert(text) {
            Cow::Borrowed(_) => None,
            Cow::Owned(sanitized) => Some(sanitized),
        },
    };
    let made = |text: String| match mask {
        Some(mask) => Some(inert(&mask.redact(&text)).into_owned()),
        None => Some(inert(&text).into_owned()),
    };
    match body {
        EventBody::Message(m) => {
            let slot = match m.from {
                Party::Attacker | Party::User => 0,
                Party::Assistant => 1,
                Party::Environment => 2,
            };
            Some((slot, shown(&m.text)))
        }
        EventBody::ToolCall(c) => {
            let args = match &c.raw_args {
                Some(raw) => format!("unparsable arguments: {raw}"),
                None => readable_args(&c.args),
            };
            Some((2, made(args)))
        }
        EventBody::ToolResult(r) => Some((2, shown(&r.output))),
        EventBody::Error(e) => Some((2, shown(&e.message))),
        EventBody::Control(c) => Some((2, Some(format!("{:?}", c.action).to_lowercase()))),
        EventBody::End(end) => Some((2, Some(format!("{} after {} turns", end.reason.as_str(), end.turns)))),
        EventBody::Episode(_) | EventBody::Verdict(_) => None,
    }
}

/// Tool arguments as `name: value` lines; multi-line strings (a ConVerse
/// environment request, an email body) shown as text, not as escaped JSON.
fn readable_args(args: &serde_json::Value) -> String {
    let Some(map) = args.as_object() else { return args.to_string() };
    if map.is_empty() {
        return "(no arguments)".to_string();
    }
    let mut out = Vec::new();
    for (name, value) in map {
        match value {
            serde_json::Value::String(text) if text.trim().contains('\n') => {
                out.push(format!("{name}:"));
                out.extend(text.trim().lines().map(|line| format!("  {line}")));
            }
            serde_json::Value::String(text) => out.push(format!("{name}: {text}")),
            other => out.push(format!("{name}: {other}")),
        }
    }
    out.join("\n")
}

fn event_search_text(body: &EventBody) -> String {
    match body {
        EventBody::Message(m) => m.text.clone(),
        EventBody::ToolCall(c) => format!("{} {}", c.tool, c.args),
        EventBody::ToolResult(r) => format!("{} {}", r.tool, r.output),
        EventBody::Verdict(v) => format!("{} {}", v.judge, v.summary.as_deref().unwrap_or("")),
        EventBody::Error(e) => e.message.clone(),
        _ => String::new(),
    }
}

/// Byte ranges of `text` where `needle` (lowercase) occurs in any case. Where
/// lowercasing changes byte lengths, only exact-case matches are found.
fn find_ignoring_case(text: &str, needle: &str) -> Vec<std::ops::Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    let lower = text.to_lowercase();
    let haystack = if lower.len() == text.len() { lower.as_str() } else { text };
    haystack.match_indices(needle).map(|(at, m)| at..at + m.len()).collect()
}

/// Maps a char span of the original text to a byte span of its sanitized form.
fn sanitized_byte_range(text: &str, start: usize, end: usize) -> std::ops::Range<usize> {
    let (start, end) = (byte_of_char(text, start), byte_of_char(text, end.max(start)));
    // Sanitizing works char by char, so the sanitized prefix gives the offset.
    let s = inert(&text[..start]).len();
    s..s + inert(&text[start..end]).len()
}

/// Whether the assistant held (pass) or not (fail, partial); no opinion for errors and skips.
pub fn assistant_held(outcome: Outcome) -> Option<bool> {
    match outcome {
        Outcome::Pass => Some(true),
        Outcome::Fail | Outcome::Partial => Some(false),
        Outcome::Error | Outcome::Skipped => None,
    }
}

/// Orders outcomes by how bad they are for the assistant.
pub fn severity(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Skipped => 0,
        Outcome::Pass => 1,
        Outcome::Partial => 2,
        Outcome::Error => 3,
        Outcome::Fail => 4,
    }
}

fn worse(a: Option<Outcome>, b: Outcome) -> Outcome {
    match a {
        Some(a) if severity(a) >= severity(b) => a,
        _ => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, EpisodeHeader, Message, TaskInfo, stamp_events};

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
