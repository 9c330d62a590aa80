//! A text held once: where an imported log uses one long text many times (an Inspect attachment
//! referenced thousands of times), the episode holds it in full at its first use and a short
//! reference at the others (issue 36, `core::import::inspect::held`). A reference names the length
//! of the text and the event holding it — in the same episode, or in another one read from the
//! same sample — so a writer can put the text back ([`resolve`]), and a reader sees where it is.

use std::borrow::Cow;

use super::Episode;
use super::texts::each_text;

const OPEN: &str = "⟦text held once: ";
const CLOSE: char = '⟧';

/// The reference to a text of `len` bytes in full at event `seq` (of the episode `of`, when it is
/// another one).
pub fn reference(len: usize, seq: u64, of: Option<&str>) -> String {
    let of = of.map(|id| format!(" of {id}")).unwrap_or_default();
    format!("{OPEN}{} bytes, in full at event {seq}{of}{CLOSE}", thousands(len))
}

/// A reference read back.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ref<'a> {
    len: usize,
    seq: u64,
    of: Option<&'a str>,
}

/// The references in `text`: where each is, and what it names.
fn references(text: &str) -> Vec<(std::ops::Range<usize>, Ref<'_>)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(OPEN).map(|i| from + i) {
        let body_at = at + OPEN.len();
        let Some(end) = text[body_at..].find(CLOSE).map(|i| body_at + i) else { break };
        if let Some(named) = parse(&text[body_at..end]) {
            found.push((at..end + CLOSE.len_utf8(), named));
        }
        from = end;
    }
    found
}

fn parse(body: &str) -> Option<Ref<'_>> {
    let (len, rest) = body.split_once(" bytes, in full at event ")?;
    let len = len.replace(',', "").parse().ok()?;
    let (seq, of) = match rest.split_once(" of ") {
        Some((seq, of)) => (seq, Some(of)),
        None => (rest, None),
    };
    Some(Ref { len, seq: seq.parse().ok()?, of })
}

/// Whether `text` holds a reference (cheap: no text is looked up).
pub fn holds_references(text: &str) -> bool {
    text.contains(OPEN)
}

/// `text` with each reference to a text of `episode` (or of `others`, by id) replaced by that
/// text; a reference naming nothing there is kept as it is.
pub fn resolve<'a>(text: &'a str, episode: &'a Episode, others: &[&'a Episode]) -> Cow<'a, str> {
    let found = references(text);
    let held = |named: &Ref| {
        let holder = match named.of {
            None => Some(episode),
            Some(id) => others.iter().copied().chain([episode]).find(|e| e.id() == id),
        };
        holder.and_then(|e| held_text(e, named.seq, named.len))
    };
    match found.as_slice() {
        [] => return Cow::Borrowed(text),
        // The whole text one reference: the text it names, borrowed (never copied).
        [(range, named)] if *range == (0..text.len()) => return Cow::Borrowed(held(named).unwrap_or(text)),
        _ => {}
    }
    let mut whole = String::with_capacity(text.len());
    let mut at = 0;
    for (range, named) in found {
        whole.push_str(&text[at..range.start]);
        whole.push_str(held(&named).unwrap_or(&text[range.clone()]));
        at = range.end;
    }
    whole.push_str(&text[at..]);
    Cow::Owned(whole)
}

/// The text of `len` bytes event `seq` of `episode` holds (none that is a reference itself).
fn held_text(episode: &Episode, seq: u64, len: usize) -> Option<&str> {
    let event = episode.events.iter().find(|e| e.seq == seq)?;
    let mut texts = Vec::new();
    each_text(&event.body, &mut |text| texts.push(text));
    texts.into_iter().find(|t| t.len() == len && references(t).is_empty())
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{
        EpisodeConfig, EpisodeHeader, EventBody, Message, Party, TaskInfo, stamp_events,
    };

    fn episode(id: &str, text: &str) -> Episode {
        let header = EpisodeHeader::new(id, TaskInfo::default(), EpisodeConfig::default());
        let bodies = vec![
            EventBody::Episode(Box::new(header)),
            EventBody::Message(Message::new(1, Party::User, Party::Assistant, text)),
        ];
        Episode::new(stamp_events(bodies, "2026-11-27T00:00:00Z"), id)
    }

    #[test]
    fn a_reference_names_its_text_and_resolves_to_it() {
        let text = "long text ".repeat(200);
        assert_eq!(reference(1_234_567, 4, None), "⟦text held once: 1,234,567 bytes, in full at event 4⟧");
        let (a, b) = (episode("a", &text), episode("b", "other"));
        let here = reference(text.len(), 1, None);
        assert_eq!(resolve(&format!("<{here}>"), &a, &[]), format!("<{text}>"));
        let there = reference(text.len(), 1, Some("a"));
        assert_eq!(resolve(&there, &b, &[&a]), text);
        // A reference naming no such text stays as it is.
        let wrong = reference(text.len() + 1, 1, None);
        assert_eq!(resolve(&wrong, &a, &[]), wrong);
        assert_eq!(resolve(&there, &b, &[]), there);
    }
}
