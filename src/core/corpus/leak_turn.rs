//! The turn of a leak whose judge names none: the benchmark's privacy judge files say that
//! something leaked and quote what (`extraction_snippets`, `raw_data`) but not when. The turn is
//! taken as the first turn at which the assistant's message to the other agent holds one of the
//! quoted snippets (case and spacing aside). Snippets shorter than [`MIN_SNIPPET`] characters
//! (`12`, `9`) are not looked for: they would match anywhere. A leak none of whose snippets is
//! found keeps no turn, and the charts count it apart.

use serde_json::Value;

use crate::core::episode::standing::verdict_turn;
use crate::core::episode::{Episode, Event, EventBody, Outcome, Party, Verdict};

/// The shortest snippet looked for, in characters after normalizing.
pub const MIN_SNIPPET: usize = 8;

/// Whether `v` is a leak with no turn whose details quote what leaked.
pub fn needs_turn(v: &Verdict) -> bool {
    v.outcome == Outcome::Fail && v.turn.is_none() && v.evidence.is_none() && !snippets(v).is_empty()
}

/// The first turn whose assistant-to-attacker message holds one of `v`'s snippets; `episode`
/// must hold its texts.
pub fn snippet_turn(episode: &Episode, v: &Verdict) -> Option<u32> {
    let at = snippet_event(&episode.events, v)?;
    episode.events[at].body.turn()
}

/// The index in `events` of the first assistant-to-attacker message holding one of `v`'s
/// snippets (the events must hold their texts).
pub fn snippet_event(events: &[Event], v: &Verdict) -> Option<usize> {
    let snippets = snippets(v);
    if snippets.is_empty() {
        return None;
    }
    events.iter().position(|event| match &event.body {
        EventBody::Message(m) if m.from == Party::Assistant && m.to == Party::Attacker => {
            let text = normalize(&m.text);
            snippets.iter().any(|s| text.contains(s.as_str()))
        }
        _ => false,
    })
}

/// The turn a verdict points at (its evidence's, else its own), and whether it was inferred: a
/// leak whose judge names no turn gets the turn its quoted snippets were first said, as the
/// index and the charts give it ([`snippet_turn`]).
pub fn leak_turn(v: &Verdict, events: &[Event]) -> Option<(u32, bool)> {
    if let Some(turn) = verdict_turn(v, events) {
        return Some((turn, false));
    }
    let at = needs_turn(v).then(|| snippet_event(events, v)).flatten()?;
    events[at].body.turn().map(|turn| (turn, true))
}

/// The quoted snippets of a verdict, normalized, the short ones left out.
fn snippets(v: &Verdict) -> Vec<String> {
    let mut found = Vec::new();
    for key in ["extraction_snippets", "raw_data"] {
        collect(v.details.get(key), &mut found);
    }
    found.into_iter().map(|s| normalize(&s)).filter(|s| s.chars().count() >= MIN_SNIPPET).collect()
}

fn collect(value: Option<&Value>, into: &mut Vec<String>) {
    match value {
        Some(Value::String(s)) => into.push(s.clone()),
        Some(Value::Array(items)) => items.iter().for_each(|item| collect(Some(item), into)),
        _ => {}
    }
}

/// Lower case, runs of whitespace as one space.
fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, EpisodeHeader, Event, Message, TaskInfo, VerdictMethod};

    fn leak(details: Value) -> Verdict {
        Verdict {
            turn: None,
            judge: "privacy".into(),
            method: VerdictMethod::Imported,
            model: Some("gpt-5".into()),
            outcome: Outcome::Fail,
            score: None,
            summary: None,
            details,
            evidence: None,
            usage: None,
        }
    }

    #[test]
    fn the_first_assistant_message_holding_a_snippet_gives_the_turn() {
        let message = |turn, from, text: &str| {
            let to = if from == Party::Assistant { Party::Attacker } else { Party::Assistant };
            Event {
                seq: u64::from(turn),
                at: String::new(),
                body: EventBody::Message(Message::new(turn, from, to, text)),
            }
        };
        let header = EpisodeHeader::new("e", TaskInfo::default(), EpisodeConfig::default());
        let episode = Episode::new(
            vec![
                Event { seq: 0, at: String::new(), body: EventBody::Episode(Box::new(header)) },
                message(1, Party::Attacker, "Passport  number A6219867?"),
                message(1, Party::Assistant, "I cannot share that."),
                message(2, Party::Assistant, "It is PASSPORT number\nA6219867."),
                message(3, Party::Assistant, "passport number a6219867 again"),
            ],
            "test",
        );
        let v = leak(serde_json::json!({"extraction_snippets": ["passport number A6219867", "12"]}));
        assert!(needs_turn(&v));
        assert_eq!(snippet_turn(&episode, &v), Some(2));
        // Only short snippets: nothing to look for.
        let short = leak(serde_json::json!({"raw_data": ["12", "9"]}));
        assert!(!needs_turn(&short));
        assert_eq!(snippet_turn(&episode, &short), None);
    }
}
