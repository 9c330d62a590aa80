//! The masker: a persona's values compiled once, applied to every text shown or exported.

use std::borrow::Cow;
use std::collections::HashMap;

use aho_corasick::AhoCorasick;

use super::emails::email_spans;
use super::kind::PrivateKind;
use super::numbers::{MAX_GROUPS, MIN_ID_DIGITS, generic_number, number_runs, same_phone};

#[derive(Debug, Clone, Default)]
pub struct Redactor {
    pub(super) text: Option<AhoCorasick>,
    pub(super) text_kinds: Vec<PrivateKind>,
    /// Names that are also dictionary words, matched case-sensitively as written (`Peter`).
    pub(super) proper_names: Option<AhoCorasick>,
    /// Digits-only ids (SSN, passport, account numbers).
    pub(super) digit_ids: HashMap<String, PrivateKind>,
    /// Digits-only phone numbers.
    pub(super) phones: Vec<String>,
}

impl Redactor {
    /// `text` with every private value masked; borrowed when nothing is.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut spans = Vec::new();
        self.text_spans(text, &mut spans);
        self.number_spans(text, &mut spans);
        email_spans(text, |s, e| spans.push((s, e, PrivateKind::Email)));
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        // Leftmost first, longest first among equals; skip what overlaps a chosen span.
        spans.sort_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
        let mut out = String::with_capacity(text.len());
        let mut done = 0;
        for (s, e, kind) in spans {
            if s < done {
                continue;
            }
            let (Some(before), Some(_)) = (text.get(done..s), text.get(s..e)) else { continue };
            out.push_str(before);
            out.push_str(kind.mask());
            done = e;
        }
        out.push_str(text.get(done..).unwrap_or_default());
        Cow::Owned(out)
    }

    fn text_spans(&self, text: &str, spans: &mut Vec<(usize, usize, PrivateKind)>) {
        if let Some(ac) = &self.text {
            for m in ac.find_overlapping_iter(text) {
                if whole_word(text, m.start(), m.end()) {
                    spans.push((m.start(), m.end(), self.text_kinds[m.pattern().as_usize()]));
                }
            }
        }
        if let Some(ac) = &self.proper_names {
            for m in ac.find_overlapping_iter(text) {
                if whole_word(text, m.start(), m.end()) {
                    spans.push((m.start(), m.end(), PrivateKind::Name));
                }
            }
        }
    }

    fn number_spans(&self, text: &str, spans: &mut Vec<(usize, usize, PrivateKind)>) {
        for run in number_runs(text) {
            let groups = &run.groups;
            let mut i = 0;
            let mut unmatched = 0;
            while i < groups.len() {
                let mut digits = String::new();
                let mut best = None;
                for (j, group) in groups.iter().enumerate().skip(i).take(MAX_GROUPS) {
                    digits.push_str(&group.digits);
                    if let Some(kind) = self.known_number(&digits) {
                        best = Some((j, kind));
                    }
                }
                match best {
                    Some((j, kind)) => {
                        generic_number(&run, unmatched, i, spans);
                        spans.push((groups[i].start, groups[j].end, kind));
                        i = j + 1;
                        unmatched = i;
                    }
                    None => i += 1,
                }
            }
            generic_number(&run, unmatched, groups.len(), spans);
        }
    }

    fn known_number(&self, digits: &str) -> Option<PrivateKind> {
        if digits.len() < MIN_ID_DIGITS {
            return None;
        }
        if let Some(kind) = self.digit_ids.get(digits) {
            return Some(*kind);
        }
        self.phones.iter().any(|p| same_phone(p, digits)).then_some(PrivateKind::Phone)
    }
}

fn whole_word(text: &str, start: usize, end: usize) -> bool {
    let (Some(before), Some(matched), Some(after)) =
        (text.get(..start), text.get(start..end), text.get(end..))
    else {
        return false;
    };
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let starts_word = word(matched.chars().next());
    let ends_word = word(matched.chars().next_back());
    let glued_before = starts_word && word(before.chars().next_back());
    let glued_after = ends_word && word(after.chars().next());
    !glued_before && !glued_after
}
