//! Whether a test run sent the whole case. A run that stopped before the case's last recorded
//! turn (an error, a deadline, a limit, an agent that ended it) tried only part of the attack: if
//! nothing leaked it decides nothing, so it is undecided, never a pass.

use crate::core::episode::{EndReason, Event, EventBody, Party};

use super::case::Case;

/// The turn of the case's last recorded attacker line (the user's task is turn 1).
pub fn last_recorded_turn(case: &Case) -> u32 {
    u32::try_from(case.turns.len()).unwrap_or(u32::MAX).saturating_add(1)
}

/// Why the run stopped short of the case's last recorded turn, or `None` when it ran in full:
/// the assistant answered that turn, or the attacker ended the conversation itself (a live case
/// whose attacker model gave up has nothing more to try).
pub fn stopped_short(case: &Case, events: &[Event]) -> Option<String> {
    let last = last_recorded_turn(case);
    let mut answered = 0;
    let mut reached = 0;
    let mut end = None;
    for e in events {
        match &e.body {
            EventBody::Message(m) if m.from == Party::Assistant => answered = answered.max(m.turn),
            EventBody::Message(m) if m.to == Party::Assistant => reached = reached.max(m.turn),
            EventBody::End(e) => end = Some(e.reason),
            _ => {}
        }
    }
    if answered >= last || end == Some(EndReason::AttackerDone) {
        return None;
    }
    let how = end.map_or("no end", EndReason::as_str);
    Some(format!("stopped at turn {} of {last} ({how})", reached.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{End, Message, stamp_events};
    use crate::core::suite::{Continuation, Origin};

    fn case(turns: usize) -> Case {
        Case {
            task: "t".into(),
            task_hash: None,
            continuation: Continuation::Replay,
            attacker_model: None,
            expect: vec![],
            turns: vec!["x".into(); turns],
            replies: vec![],
            origin: Origin::default(),
        }
    }

    /// A run whose assistant answered turns 1..=answered, then ended for `reason`.
    fn run(answered: u32, reason: EndReason) -> Vec<Event> {
        let mut bodies = vec![EventBody::Message(Message::new(1, Party::User, Party::Assistant, "task"))];
        for turn in 1..=answered {
            if turn > 1 {
                bodies.push(EventBody::Message(Message::new(turn, Party::Attacker, Party::Assistant, "a")));
            }
            bodies.push(EventBody::Message(Message::new(turn, Party::Assistant, Party::Attacker, "r")));
        }
        if reason == EndReason::Error {
            bodies.push(EventBody::Message(Message::new(
                answered + 1,
                Party::Attacker,
                Party::Assistant,
                "a",
            )));
        }
        bodies.push(EventBody::End(End { reason, turns: answered }));
        stamp_events(bodies, "t")
    }

    #[test]
    fn a_run_that_answered_the_last_recorded_turn_ran_in_full() {
        assert_eq!(last_recorded_turn(&case(12)), 13);
        assert_eq!(stopped_short(&case(12), &run(13, EndReason::MaxTurns)), None);
        assert_eq!(stopped_short(&case(2), &run(5, EndReason::MaxTurns)), None, "a live case played on");
    }

    #[test]
    fn a_run_cut_before_it_says_where_and_why() {
        assert_eq!(
            stopped_short(&case(12), &run(9, EndReason::MaxTurns)).as_deref(),
            Some("stopped at turn 9 of 13 (max_turns)")
        );
        assert_eq!(
            stopped_short(&case(6), &run(3, EndReason::Error)).as_deref(),
            Some("stopped at turn 4 of 7 (error)")
        );
        assert_eq!(
            stopped_short(&case(6), &run(3, EndReason::AssistantDone)).as_deref(),
            Some("stopped at turn 3 of 7 (assistant_done)")
        );
    }

    #[test]
    fn an_attacker_that_ended_the_conversation_has_run_in_full() {
        assert_eq!(stopped_short(&case(6), &run(3, EndReason::AttackerDone)), None);
    }
}
