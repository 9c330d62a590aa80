//! The texts a sample holds once: its long texts (taken out of the stream as it inflates, see
//! [`super::big_text`]) and its attachments (issue 36). While the sample's episodes are built,
//! each is a short mark; [`BigTexts::restore`] then puts the texts in. A text is put in full where
//! it is first used; a later use gets a copy, except that
//!
//! - a long text (over [`LONG`]) already in full in the same episode is referred to, and
//! - once the sample's copies reach [`COPIES`], every further use is referred to,
//!
//! a reference being a short line naming the event that holds the text
//! ([`held_ref`], which a writer resolves). So a log of one 8 MB
//! attachment referenced 2,000 times (16 GB copied, before) costs the attachment once, and `dump`
//! and the exports print it once; an ordinary log, whose repeated texts are short or in other
//! episodes (a fork sharing its sample's tool result), reads as it was written.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use memchr::{memchr, memmem};
use serde_json::{Map, Value};

use crate::core::episode::texts::{each_text_mut, each_value_text_mut};
use crate::core::episode::{Episode, held_ref};

/// What a held text is parsed and built as: `MARK`, its index, `END`. A text of the log's own that
/// could hold one is held too (see [`super::big_text::Diverting`]), so every mark in a text is ours.
pub const MARK: &str = "\u{0}converse-text:";
pub const END: char = '\u{0}';

/// A text longer than this, used again in the episode that holds it, is referred to. (The fuzz
/// build makes this and [`COPIES`] small, so the fuzzer reaches references and the budget.)
#[cfg(not(feature = "fuzzing"))]
pub const LONG: usize = 64 << 10;
#[cfg(feature = "fuzzing")]
pub const LONG: usize = 64;
/// The most a sample's texts are copied, in all; past it, every further use is referred to.
#[cfg(not(feature = "fuzzing"))]
pub const COPIES: usize = 64 << 20;
#[cfg(feature = "fuzzing")]
pub const COPIES: usize = 4 << 10;

/// The texts held once by one sample (or one plain `.json` log), identical texts stored once.
#[derive(Debug, Default)]
pub struct BigTexts {
    texts: Vec<Option<String>>,
    /// The texts by [`look`], to find an identical one without comparing every text.
    by_look: HashMap<u64, Vec<usize>>,
}

/// Where a text is used: the episode (its index among those restored) and the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    episode: usize,
    seq: u64,
}

/// What one use of a held text gets.
#[derive(Debug, Clone, Copy)]
enum Use {
    Full,
    RefersTo(Place),
}

impl BigTexts {
    /// Keeps `text` and gives the mark that stands for it (an identical text already kept gives
    /// its mark, so equal texts stay equal marks: a fork's conversation compares equal to its
    /// parent's where they share a long text).
    pub fn keep(&mut self, text: String) -> String {
        let candidates = self.by_look.entry(look(&text)).or_default();
        let same = candidates.iter().copied().find(|&i| self.texts[i].as_deref() == Some(text.as_str()));
        let index = same.unwrap_or_else(|| {
            candidates.push(self.texts.len());
            self.texts.push(Some(text));
            self.texts.len() - 1
        });
        format!("{MARK}{index}{END}")
    }

    /// Holds every text attachment of a sample: each becomes a mark (a long one already is), so
    /// its `attachment://` references copy a mark while the episodes are built, never the text.
    pub fn hold_attachments(&mut self, attachments: &mut Map<String, Value>) {
        for value in attachments.values_mut() {
            if let Value::String(text) = value
                && !self.is_mark(text)
            {
                *text = self.keep(std::mem::take(text));
            }
        }
    }

    fn is_mark(&self, text: &str) -> bool {
        matches!(marks(text, self.texts.len()).as_slice(), [(range, _)] if *range == (0..text.len()))
    }

    /// Puts the texts in `episodes` where their marks are, as the module's comment says.
    pub fn restore(self, episodes: &mut [Episode]) {
        if self.texts.is_empty() {
            return;
        }
        let ids: Vec<String> = episodes.iter().map(|e| e.id().to_string()).collect();
        self.restore_in(&ids, Restore::HeldOnce, |f| {
            for (index, episode) in episodes.iter_mut().enumerate() {
                for event in &mut episode.events {
                    let place = Place { episode: index, seq: event.seq };
                    each_text_mut(&mut event.body, &mut |text| f(text, place));
                }
            }
        });
    }

    /// Puts the texts in a JSON value's strings, each use in full: a sample carried over as it was
    /// written, whose repeated long texts were each in the entry (within its inflation cap).
    pub fn restore_value(self, value: &mut Value) {
        let place = Place { episode: 0, seq: 0 };
        self.restore_in(&[String::new()], Restore::Whole, |f| {
            each_value_text_mut(value, &mut |text| f(text, place))
        });
    }

    /// [`Self::restore_value`] held once, as an episode's texts are.
    #[cfg(test)]
    fn restore_value_held(self, value: &mut Value) {
        let place = Place { episode: 0, seq: 0 };
        self.restore_in(&[String::new()], Restore::HeldOnce, |f| {
            each_value_text_mut(value, &mut |text| f(text, place))
        });
    }

    /// Puts the texts in the texts `each` calls its argument on, twice in the same order: once to
    /// decide what each use gets, once to put it there.
    fn restore_in(
        mut self,
        ids: &[String],
        how: Restore,
        mut each: impl FnMut(&mut dyn FnMut(&mut String, Place)),
    ) {
        let count = self.texts.len();
        let mut plan = Plan::new(&self.texts, how);
        each(&mut |text, place| marks(text, count).into_iter().for_each(|(_, index)| plan.add(index, place)));
        let Plan { uses, mut full, .. } = plan;
        let mut uses = uses.into_iter();
        // Their lengths, for the references: a text moved in is gone from its slot.
        let lens: Vec<usize> = self.texts.iter().map(|t| t.as_ref().map_or(0, String::len)).collect();
        each(&mut |text, at| self.swap(text, at, (ids, &lens), &mut uses, &mut full));
    }

    fn swap(
        &mut self,
        text: &mut String,
        at: Place,
        (ids, lens): (&[String], &[usize]),
        uses: &mut impl Iterator<Item = Use>,
        full: &mut [usize],
    ) {
        let found = marks(text, self.texts.len());
        if found.is_empty() {
            return;
        }
        let mut put = |index: usize| -> String {
            match uses.next() {
                Some(Use::Full) => {
                    full[index] -= 1;
                    let slot = &mut self.texts[index];
                    // The last use in full takes the text: it is moved, not copied.
                    if full[index] == 0 { slot.take() } else { slot.clone() }.unwrap_or_default()
                }
                Some(Use::RefersTo(place)) => {
                    let of = (place.episode != at.episode).then(|| ids[place.episode].as_str());
                    held_ref::reference(lens[index], place.seq, of)
                }
                None => String::new(),
            }
        };
        // The usual case, the whole text one mark: the text is moved in, never copied.
        if let [(range, index)] = found.as_slice()
            && *range == (0..text.len())
        {
            *text = put(*index);
            return;
        }
        let mut whole = String::new();
        let mut at = 0;
        for (range, index) in found {
            whole.push_str(&text[at..range.start]);
            whole.push_str(&put(index));
            at = range.end;
        }
        whole.push_str(&text[at..]);
        *text = whole;
    }
}

/// How texts are put back: held once (the module's rules), or every use in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restore {
    HeldOnce,
    Whole,
}

/// What each use of each text gets, decided in the order the texts are met.
struct Plan<'a> {
    texts: &'a [Option<String>],
    how: Restore,
    uses: Vec<Use>,
    /// The uses in full of each text.
    full: Vec<usize>,
    /// Where each text is first in full, in the sample and in the last episode it was put in.
    first: Vec<Option<Place>>,
    latest: Vec<Option<Place>>,
    copied: usize,
}

impl<'a> Plan<'a> {
    fn new(texts: &'a [Option<String>], how: Restore) -> Self {
        let count = texts.len();
        Plan {
            texts,
            how,
            uses: Vec::new(),
            full: vec![0; count],
            first: vec![None; count],
            latest: vec![None; count],
            copied: 0,
        }
    }

    fn add(&mut self, index: usize, at: Place) {
        let len = self.texts[index].as_ref().map_or(0, String::len);
        let here = self.latest[index].filter(|p| p.episode == at.episode);
        let use_ = match (self.first[index], here) {
            _ if self.how == Restore::Whole => Use::Full,
            (None, _) => Use::Full,
            (Some(_), Some(place)) if len > LONG => Use::RefersTo(place),
            (Some(first), _) if self.copied + len > COPIES => Use::RefersTo(here.unwrap_or(first)),
            (Some(_), _) => {
                self.copied += len;
                Use::Full
            }
        };
        if let Use::Full = use_ {
            self.full[index] += 1;
            self.first[index].get_or_insert(at);
            if here.is_none() {
                self.latest[index] = Some(at);
            }
        }
        self.uses.push(use_);
    }
}

/// A cheap fingerprint of a text: its length and its first and last KiB.
fn look(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut hasher = std::hash::DefaultHasher::new();
    bytes.len().hash(&mut hasher);
    bytes[..bytes.len().min(1024)].hash(&mut hasher);
    bytes[bytes.len().saturating_sub(1024)..].hash(&mut hasher);
    hasher.finish()
}

/// The marks in `text` naming one of `count` texts: where each is, and the text it names.
fn marks(text: &str, count: usize) -> Vec<(std::ops::Range<usize>, usize)> {
    let mut found = Vec::new();
    if memchr(0, text.as_bytes()).is_none() {
        return found;
    }
    for start in memmem::find_iter(text.as_bytes(), MARK) {
        let digits = &text[start + MARK.len()..];
        let Some(end) = digits.find(END) else { continue };
        if let Ok(index) = digits[..end].parse::<usize>()
            && index < count
        {
            found.push((start..start + MARK.len() + end + END.len_utf8(), index));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_share_a_mark_and_the_last_use_takes_it() {
        let mut texts = BigTexts::default();
        let a = texts.keep("x".repeat(10));
        assert_eq!(texts.keep("x".repeat(10)), a);
        let mut value = serde_json::json!([a.clone(), format!("<{a}>"), a]);
        texts.restore_value(&mut value);
        let x = "x".repeat(10);
        assert_eq!(value, serde_json::json!([x, format!("<{x}>"), x]));
    }

    #[test]
    fn a_long_text_used_again_in_its_episode_is_referred_to() {
        let mut texts = BigTexts::default();
        let long = texts.keep("y".repeat(LONG + 1));
        let short = texts.keep("z".repeat(10));
        let mut value =
            serde_json::json!([long.clone(), [long.clone(), short.clone()], format!("{long}+{short}")]);
        texts.restore_value_held(&mut value);
        let reference = held_ref::reference(LONG + 1, 0, None);
        assert_eq!(value[0].as_str().unwrap().len(), LONG + 1);
        assert_eq!(value[1], serde_json::json!([reference.clone(), "z".repeat(10)]));
        assert_eq!(value[2], format!("{reference}+{}", "z".repeat(10)));
    }

    #[test]
    fn copies_stop_at_the_budget() {
        let mut texts = BigTexts::default();
        let text = "w".repeat(LONG);
        let mark = texts.keep(text.clone());
        let uses = COPIES / LONG + 3;
        let mut value = Value::Array(vec![Value::String(mark); uses]);
        texts.restore_value_held(&mut value);
        let full = value.as_array().unwrap().iter().filter(|v| **v == text).count();
        assert_eq!(full, 1 + COPIES / LONG, "the first use and the copies the budget allows");
    }

    #[test]
    fn attachments_are_held_as_marks() {
        let mut texts = BigTexts::default();
        let long = texts.keep("l".repeat(100));
        let mut attachments: Map<String, Value> =
            serde_json::from_value(serde_json::json!({"a": "short", "b": long, "c": 3})).unwrap();
        texts.hold_attachments(&mut attachments);
        assert_eq!(attachments["b"], long, "a long text stays its mark");
        assert_eq!(attachments["a"], format!("{MARK}1{END}"));
        assert_eq!(attachments["c"], 3);
    }
}
