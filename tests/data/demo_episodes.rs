//! The embedded demo episodes: they load, and their cross-references hold.

use std::collections::HashSet;

use converse_tui::core::demo::demo_episodes;
use converse_tui::core::episode::Judge;
use converse_tui::core::episode::{Episode, EventBody, Outcome, VerdictMethod};

fn text_of(episode: &Episode, seq: u64) -> &str {
    match &episode.events[seq as usize].body {
        EventBody::Message(m) => &m.text,
        EventBody::ToolResult(r) => &r.output,
        other => panic!("{}: evidence points at a {} event", episode.origin, other.kind()),
    }
}

#[test]
fn all_three_load_in_name_order() {
    let episodes = demo_episodes();
    let origins: Vec<&str> = episodes.iter().map(|e| e.origin.as_str()).collect();
    assert_eq!(
        origins,
        [
            "demo:01-travel-privacy-leak.jsonl",
            "demo:02-insurance-security-refused.jsonl",
            "demo:03-real-estate-partial.jsonl",
        ]
    );
    for episode in &episodes {
        assert!(episode.warnings.is_empty(), "{}: {:?}", episode.origin, episode.warnings);
        assert!(episode.id().starts_with("demo-"), "{}", episode.origin);
    }
    let domains: Vec<_> =
        episodes.iter().map(|e| e.header().task.domain.clone().unwrap_or_default()).collect();
    assert_eq!(domains, ["travel_planning", "insurance", "real_estate"]);
}

#[test]
fn seqs_are_consecutive_and_times_increase() {
    for episode in demo_episodes() {
        for (i, event) in episode.events.iter().enumerate() {
            assert_eq!(event.seq, i as u64, "{}", episode.origin);
        }
        for pair in episode.events.windows(2) {
            // RFC 3339 UTC with second precision sorts as text.
            assert!(pair[0].at <= pair[1].at, "{}: seq {}", episode.origin, pair[1].seq);
        }
    }
}

#[test]
fn every_evidence_span_slices_its_event_text() {
    let mut spans = 0;
    for episode in demo_episodes() {
        for event in &episode.events {
            let EventBody::Verdict(verdict) = &event.body else {
                continue;
            };
            let Some(evidence) = &verdict.evidence else {
                continue;
            };
            assert!(evidence.seq < event.seq, "{}: evidence after its verdict", episode.origin);
            let (start, end) = (evidence.start.unwrap(), evidence.end.unwrap());
            let sliced: String =
                text_of(&episode, evidence.seq).chars().skip(start).take(end - start).collect();
            assert_eq!(
                Some(sliced.as_str()),
                evidence.text.as_deref(),
                "{}: verdict seq {}",
                episode.origin,
                event.seq
            );
            spans += 1;
        }
    }
    assert!(spans >= 3, "the demos should show evidence");
}

#[test]
fn travel_leak_is_first_flagged_at_turn_3() {
    let episodes = demo_episodes();
    let first_fail = episodes[0]
        .events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Verdict(v) if v.judge == Judge::Privacy && v.outcome == Outcome::Fail => Some(v),
            _ => None,
        })
        .expect("episode 1 has a failing privacy verdict");
    assert_eq!(first_fail.turn, Some(3));
    assert_eq!(first_fail.method, VerdictMethod::Rule);
    assert_eq!(first_fail.details["leak_turn"], 3);
    // The evidence is the assistant's turn-3 message.
    let seq = first_fail.evidence.as_ref().unwrap().seq as usize;
    match &episodes[0].events[seq].body {
        EventBody::Message(m) => assert_eq!((m.turn, m.from.as_str()), (3, "assistant")),
        other => panic!("evidence points at {}", other.kind()),
    }
}

#[test]
fn every_tool_result_follows_its_call() {
    for episode in demo_episodes() {
        let mut calls = HashSet::new();
        for event in &episode.events {
            match &event.body {
                EventBody::ToolCall(c) => {
                    assert!(calls.insert(c.call_id.clone()), "{}: duplicate call_id", episode.origin);
                }
                EventBody::ToolResult(r) => assert!(
                    calls.contains(&r.call_id),
                    "{}: result {} without a preceding call",
                    episode.origin,
                    r.call_id
                ),
                _ => {}
            }
        }
    }
}

#[test]
fn each_episode_ends_with_end() {
    for episode in demo_episodes() {
        match &episode.events.last().unwrap().body {
            EventBody::End(end) => assert_eq!(end.turns, episode.turns(), "{}", episode.origin),
            other => panic!("{}: last event is {}", episode.origin, other.kind()),
        }
    }
}
