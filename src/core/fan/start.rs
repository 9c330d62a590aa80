//! Where every attempt of a fan starts: the episode's events up to and including the message to
//! the assistant of the chosen turn (the user's task for turn 1), so that each attempt draws the
//! assistant's reply to the same words again.

use anyhow::bail;

use crate::core::episode::{Event, EventBody, ParentRef, Party};
use crate::core::sim::fork::Resume;
use crate::core::sim::replay_attacker::RecordedAttack;

/// How far an attempt goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FanMode {
    /// Only the assistant's reply to the turn's message is drawn again; the attempt ends there.
    #[default]
    Reply,
    /// The conversation goes on from that reply, the attacker model playing, to `max_turns`.
    Rest,
}

/// Who plays the attacker in an attempt: in `Reply` mode an empty recorded attack (the attacker
/// has nothing more to say once the reply is in: the attempt ends); in `Rest` mode the model.
pub fn fan_attacker(mode: FanMode, episode_id: &str, turn: u32) -> Option<RecordedAttack> {
    (mode == FanMode::Reply).then(|| RecordedAttack {
        source: format!("fan of {episode_id} at turn {turn}"),
        ..RecordedAttack::default()
    })
}

/// The fork every attempt starts from.
pub fn fan_start(events: &[Event], episode_id: &str, turn: u32) -> anyhow::Result<Resume> {
    let to_assistant =
        |e: &Event| matches!(&e.body, EventBody::Message(m) if m.to == Party::Assistant && m.turn == turn);
    let Some(at) = events.iter().position(to_assistant) else {
        let last = events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::Message(m) if m.to == Party::Assistant => Some(m.turn),
                _ => None,
            })
            .max();
        match last {
            Some(last) => bail!("turn {turn}: no message to the assistant there (turns 1–{last})"),
            None => bail!("the episode has no message to the assistant to start from"),
        }
    };
    Ok(Resume {
        parent: ParentRef { episode: episode_id.to_string(), seq: events[at].seq },
        prefix: events[..=at].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, EpisodeHeader, Message, TaskInfo};
    use crate::core::sim::fork::NextMove;

    fn events() -> Vec<Event> {
        let header = EpisodeHeader::new("ep", TaskInfo::default(), EpisodeConfig::default());
        let bodies = vec![
            EventBody::Episode(Box::new(header)),
            EventBody::Message(Message::new(1, Party::User, Party::Assistant, "task")),
            EventBody::Message(Message::new(1, Party::Assistant, Party::Attacker, "r1")),
            EventBody::Message(Message::new(2, Party::Attacker, Party::Assistant, "a2")),
            EventBody::Message(Message::new(2, Party::Assistant, Party::Attacker, "r2")),
        ];
        crate::core::episode::stamp_events(bodies, "t")
    }

    #[test]
    fn every_attempt_answers_the_turns_message_again() {
        let start = fan_start(&events(), "ep", 2).unwrap();
        assert_eq!(start.prefix.len(), 4);
        assert_eq!(start.next_move(), NextMove::AssistantReplies { turn: 2, incoming: "a2".into() });
        assert_eq!(start.parent.seq, events()[3].seq);
        let first = fan_start(&events(), "ep", 1).unwrap();
        assert_eq!(first.next_move(), NextMove::AssistantReplies { turn: 1, incoming: "task".into() });
    }

    #[test]
    fn a_turn_without_a_message_is_refused_with_the_turns_there_are() {
        let e = fan_start(&events(), "ep", 3).unwrap_err().to_string();
        assert_eq!(e, "turn 3: no message to the assistant there (turns 1–2)");
    }
}
