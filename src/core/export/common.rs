//! Facts every readable export shows the same way: party names, model lists,
//! and which characters of which event a verdict's evidence points at.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::core::episode::{Episode, EventBody, Message, Party, Verdict};
use crate::core::text::{byte_of_char, char_of_byte};

/// The name a reader sees for a party.
pub(super) fn party_name(party: Party) -> &'static str {
    match party {
        Party::Attacker => "Attacker",
        Party::Assistant => "Assistant",
        Party::Environment => "Environment",
        Party::User => "User",
    }
}

/// Who wrote a message to whom, as a reader sees it; the assistant's own notes say so.
pub(super) fn direction(m: &Message) -> String {
    if m.is_note() {
        format!("{} (own note)", party_name(m.from))
    } else {
        format!("{} → {}", party_name(m.from), party_name(m.to))
    }
}

/// `attacker: m1, assistant: m2, …` from the header, in the header's order.
pub(super) fn models_line(episode: &Episode) -> String {
    let mut out = String::new();
    for (role, model) in &episode.header().config.models {
        if !out.is_empty() {
            out.push_str(", ");
        }
        let model = match model {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let _ = write!(out, "{role}: {model}");
    }
    out
}

/// A JSON value as text: strings as they are, anything else as JSON.
pub(super) fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Pretty JSON that never fails (a `Value` always serialises).
pub(super) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Every verdict of the episode, in event order.
pub(super) fn verdicts(episode: &Episode) -> impl Iterator<Item = (u64, &Verdict)> {
    episode.events.iter().filter_map(|e| match &e.body {
        EventBody::Verdict(v) => Some((e.seq, &**v)),
        _ => None,
    })
}

/// Evidence spans per target event: sorted, merged character ranges within its text.
///
/// Offsets are in characters (ARCHITECTURE.md, "The journal"). Evidence without offsets is
/// located by its quoted text; spans outside the text are clamped or dropped.
pub(super) fn evidence_spans(episode: &Episode) -> BTreeMap<u64, Vec<(usize, usize)>> {
    let mut spans: BTreeMap<u64, Vec<(usize, usize)>> = BTreeMap::new();
    for (_, verdict) in verdicts(episode) {
        let Some(ev) = &verdict.evidence else { continue };
        let Some(text) = episode.events.iter().find(|e| e.seq == ev.seq).and_then(|e| e.body.text()) else {
            continue;
        };
        let len = text.chars().count();
        let range = match (ev.start, ev.end) {
            (Some(start), Some(end)) => Some((start.min(len), end.min(len))),
            _ => ev.text.as_deref().filter(|t| !t.is_empty()).and_then(|quoted| {
                let start = char_of_byte(text, text.find(quoted)?);
                Some((start, start + quoted.chars().count()))
            }),
        };
        if let Some((start, end)) = range.filter(|(s, e)| s < e) {
            spans.entry(ev.seq).or_default().push((start, end));
        }
    }
    for ranges in spans.values_mut() {
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for &(s, e) in ranges.iter() {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        *ranges = merged;
    }
    spans
}

/// Splits `text` at character ranges: `(piece, marked)` in order, covering all of it.
pub(super) fn split_marked<'a>(text: &'a str, ranges: &[(usize, usize)]) -> Vec<(&'a str, bool)> {
    let byte_at = |chars: usize| byte_of_char(text, chars);
    let mut pieces = Vec::new();
    let mut pos = 0usize;
    for &(start, end) in ranges {
        let (s, e) = (byte_at(start).max(pos), byte_at(end));
        if s >= e {
            continue;
        }
        if pos < s {
            pieces.push((&text[pos..s], false));
        }
        pieces.push((&text[s..e], true));
        pos = e;
    }
    if pos < text.len() {
        pieces.push((&text[pos..], false));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_marked_uses_characters() {
        assert_eq!(split_marked("£1 ab", &[(1, 2)]), vec![("£", false), ("1", true), (" ab", false)]);
        assert_eq!(split_marked("abc", &[(0, 9)]), vec![("abc", true)]);
        assert_eq!(split_marked("abc", &[(2, 1)]), vec![("abc", false)]);
        assert_eq!(split_marked("", &[(0, 1)]), Vec::<(&str, bool)>::new());
    }
}
