//! Episodes: the event model, the journal file format, and the in-memory episode.

pub mod event;
mod event_de;
pub mod held_ref;
pub mod index;
pub mod journal;
pub mod judge;
pub mod judge_source;
pub mod sidecar;
pub mod standing;
pub mod texts;

pub use event::*;
pub use journal::{
    JournalError, JournalReader, JournalWarning, JournalWriter, is_journal, read_journal, read_journal_from,
    write_journal,
};
pub use judge::{ATTACK_JUDGES, JUDGES, Judge};
pub use judge_source::JudgeSource;

/// A whole episode in memory: its events in display order (`seq` order, but
/// for merged sidecar verdicts), the first being the header.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Episode {
    pub events: Vec<Event>,
    /// Where it came from, for the status line (a path, or `demo:<name>`).
    pub origin: String,
    /// What the reader or importer forgave.
    pub warnings: Vec<String>,
    /// Reviewers' notes the file it was read from carries (an Inspect log converse-tui wrote keeps
    /// the notes of its episodes), shown with those of its notes file.
    pub carried_notes: Vec<CarriedNote>,
}

/// A reviewer's note carried in an episode's file, as the exports write one.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CarriedNote {
    pub target_seq: u64,
    pub label: String,
    #[serde(default)]
    pub note: String,
    #[serde(default)]
    pub author: Option<String>,
    #[serde(default)]
    pub quote: Option<String>,
}

impl Episode {
    /// Builds an episode from events whose first is an `episode` event.
    ///
    /// Panics if that is not so: every reader and importer guarantees it.
    pub fn new(events: Vec<Event>, origin: impl Into<String>) -> Self {
        assert!(
            matches!(events.first().map(|e| &e.body), Some(EventBody::Episode(_))),
            "an episode starts with its header event"
        );
        Episode { events, origin: origin.into(), warnings: Vec::new(), carried_notes: Vec::new() }
    }

    pub fn header(&self) -> &EpisodeHeader {
        match &self.events[0].body {
            EventBody::Episode(header) => header,
            _ => unreachable!("checked in Episode::new"),
        }
    }

    pub fn id(&self) -> &str {
        &self.header().id
    }

    /// The file it was read from (none for a bundled demo, or one not read from a file).
    pub fn file(&self) -> Option<&std::path::Path> {
        (!self.origin.is_empty() && !self.origin.starts_with("demo:"))
            .then(|| std::path::Path::new(&self.origin))
    }

    /// The index in `events` of the event whose `seq` is `seq`. Journals are in
    /// `seq` order (found at once); merged sidecar verdicts may not be.
    pub fn position_of(&self, seq: u64) -> Option<usize> {
        position_of(&self.events, seq)
    }

    /// The events in `seq` order, as a journal holds them: merged sidecar verdicts, shown
    /// after the event they follow, come after the journal's events here. What writes a
    /// journal back (JSON exports, `dump --json`) writes this order, which its reader accepts.
    pub fn events_in_seq_order(&self) -> Vec<&Event> {
        let mut events: Vec<&Event> = self.events.iter().collect();
        // Stable, and already sorted for every journal without a sidecar.
        if !events.is_sorted_by_key(|e| e.seq) {
            events.sort_by_key(|e| e.seq);
        }
        events
    }

    /// The highest turn number any event carries.
    pub fn turns(&self) -> u32 {
        self.events.iter().filter_map(|e| e.body.turn()).max().unwrap_or(0)
    }
}

/// The index in `events` of the event whose `seq` is `seq` (see [`Episode::position_of`]).
pub fn position_of(events: &[Event], seq: u64) -> Option<usize> {
    let guess = usize::try_from(seq).ok().filter(|&i| events.get(i).is_some_and(|e| e.seq == seq));
    guess.or_else(|| events.iter().position(|e| e.seq == seq))
}

/// Stamps bodies with consecutive `seq` numbers and one timestamp, for
/// importers and tests that build episodes in memory.
pub fn stamp_events(bodies: impl IntoIterator<Item = EventBody>, at: &str) -> Vec<Event> {
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| Event { seq: i as u64, at: at.to_string(), body })
        .collect()
}
