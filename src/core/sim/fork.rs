//! Take over / fork: a new episode that starts with a saved (or paused live)
//! episode's events up to a point and continues live from there.
//!
//! The fork keeps every complete turn up to the cursor (a turn is complete
//! once the assistant has answered the attacker), then the attacker moves
//! next — the human at the composer, or a model. The assistant's message
//! history, the attacker's view and the environment's state (a deleted event
//! stays deleted) are rebuilt from the copied events.

use anyhow::bail;

use crate::core::episode::{Event, EventBody, ParentRef, Party};
use crate::core::llm::{ChatMessage, ToolCall};

use super::prompts::AttackerHistoryRole;

/// Where a fork starts: the copied events and the source they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Resume {
    pub parent: ParentRef,
    /// The source's events from its header up to the fork point, as recorded.
    pub prefix: Vec<Event>,
}

/// What happens first in the fork.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextMove {
    /// The assistant answers `incoming` as turn `turn`.
    AssistantReplies { turn: u32, incoming: String },
    /// Turn `completed` is done; the attacker speaks next.
    AttackerMoves { completed: u32 },
}

impl Resume {
    /// The prefix of `events` a fork at `cursor` keeps.
    pub fn at(events: &[Event], cursor: usize, source_id: &str) -> anyhow::Result<Resume> {
        let cursor = cursor.min(events.len().saturating_sub(1));
        let last_reply = (0..=cursor).rev().find(|&i| is_reply_to_attacker(&events[i]));
        let end = match last_reply {
            // Keep the verdicts that judged that turn, when they were revealed.
            Some(i) => (i + 1..=cursor)
                .take_while(|&j| matches!(events[j].body, EventBody::Verdict(_)))
                .last()
                .unwrap_or(i),
            None => match (0..events.len()).find(|&i| is_to_assistant(&events[i])) {
                Some(task) => task,
                None => bail!("nothing to take over: the episode has no message to the assistant"),
            },
        };
        Ok(Resume {
            parent: ParentRef { episode: source_id.to_string(), seq: events[end].seq },
            prefix: events[..=end].to_vec(),
        })
    }

    /// The `max_turns` a take-over needs to play on: every turn its parent recorded
    /// (`parent_turns`), and at least its own next one. A published run records a limit that
    /// does not count turns as we do (10, over 38 turns), and a fork held to it would end at
    /// once with nothing played.
    pub fn max_turns_to_continue(&self, parent_turns: u32) -> u32 {
        let next = match self.next_move() {
            NextMove::AssistantReplies { turn, .. } => turn,
            NextMove::AttackerMoves { completed } => completed + 1,
        };
        // `max_turns` M plays turns up to M - 1 (turn 1 is the user's task).
        parent_turns.max(next).saturating_add(1)
    }

    pub fn next_move(&self) -> NextMove {
        let last_message = self.prefix.iter().rev().find_map(|e| match &e.body {
            EventBody::Message(m) if m.to == Party::Assistant || m.to == Party::Attacker => Some(m),
            _ => None,
        });
        match last_message {
            Some(m) if m.to == Party::Assistant => {
                NextMove::AssistantReplies { turn: m.turn, incoming: m.text.clone() }
            }
            Some(m) => NextMove::AttackerMoves { completed: m.turn },
            None => NextMove::AttackerMoves { completed: 0 },
        }
    }

    /// The assistant's chat history (without the system prompt) as the model saw it.
    /// Consecutive tool calls were one model response; text the assistant wrote
    /// beside them (journaled to the user) is that response's content.
    pub fn assistant_history(&self) -> Vec<ChatMessage> {
        let mut history = Vec::new();
        let mut aside: Option<String> = None;
        let mut calls: Vec<ToolCall> = Vec::new();
        for event in &self.prefix {
            if !matches!(event.body, EventBody::ToolCall(_)) && !calls.is_empty() {
                history.push(ChatMessage::assistant_tool_calls(
                    aside.take().unwrap_or_default(),
                    std::mem::take(&mut calls),
                ));
            }
            match &event.body {
                EventBody::Message(m) if m.to == Party::Assistant => {
                    aside = None;
                    history.push(ChatMessage::user(m.text.clone()))
                }
                EventBody::Message(m) if m.from == Party::Assistant && m.to == Party::Attacker => {
                    aside = None;
                    history.push(ChatMessage::assistant(m.text.clone()))
                }
                EventBody::Message(m) if m.from == Party::Assistant => aside = Some(m.text.clone()),
                EventBody::ToolCall(c) => {
                    let arguments = c.raw_args.clone().unwrap_or_else(|| c.args.to_string());
                    calls.push(ToolCall::function(c.call_id.clone(), c.tool.clone(), arguments));
                }
                EventBody::ToolResult(r) => {
                    history.push(ChatMessage::tool(r.call_id.clone(), r.output.clone()))
                }
                _ => {}
            }
        }
        if !calls.is_empty() {
            history.push(ChatMessage::assistant_tool_calls(aside.unwrap_or_default(), calls));
        }
        history
    }

    /// The conversation from the attacker's side: its messages (the first is the user's task) and the replies.
    pub fn attacker_history(&self) -> Vec<(AttackerHistoryRole, String)> {
        attacker_view(&self.prefix)
    }
}

/// The conversation of `events` from the attacker's side: its messages (the first is the user's
/// task) and the assistant's replies.
pub fn attacker_view(events: &[Event]) -> Vec<(AttackerHistoryRole, String)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Message(m) if m.to == Party::Assistant => {
                Some((AttackerHistoryRole::Attacker, m.text.clone()))
            }
            EventBody::Message(m) if m.from == Party::Assistant && m.to == Party::Attacker => {
                Some((AttackerHistoryRole::Assistant, m.text.clone()))
            }
            _ => None,
        })
        .collect()
}

fn is_reply_to_attacker(event: &Event) -> bool {
    matches!(&event.body, EventBody::Message(m) if m.from == Party::Assistant && m.to == Party::Attacker)
}

fn is_to_assistant(event: &Event) -> bool {
    matches!(&event.body, EventBody::Message(m) if m.to == Party::Assistant)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, EpisodeHeader, Message, TaskInfo};

    fn events() -> Vec<Event> {
        let header = EpisodeHeader::new("ep", TaskInfo::default(), EpisodeConfig::default());
        let bodies = vec![
            EventBody::Episode(Box::new(header)),
            EventBody::Message(Message::new(1, Party::User, Party::Assistant, "task")),
            EventBody::Message(Message::new(1, Party::Assistant, Party::Attacker, "r1")),
            EventBody::Message(Message::new(2, Party::Attacker, Party::Assistant, "a2")),
            EventBody::Message(Message::new(2, Party::Assistant, Party::Attacker, "r2")),
            EventBody::Message(Message::new(3, Party::Attacker, Party::Assistant, "a3")),
        ];
        crate::core::episode::stamp_events(bodies, "t")
    }

    #[test]
    fn a_take_over_has_room_for_its_parents_turns_and_its_own_next_one() {
        // After turn 2's reply: the attacker plays turn 3, which `max_turns` 4 allows.
        let after_reply = Resume::at(&events(), 4, "ep").unwrap();
        assert_eq!(after_reply.next_move(), NextMove::AttackerMoves { completed: 2 });
        assert_eq!(after_reply.max_turns_to_continue(0), 4);
        // A parent of 12 turns: room for all of them, whatever limit it records.
        assert_eq!(after_reply.max_turns_to_continue(12), 13);
        // On the parent's last message (turn 3's, unanswered): turn 3 is played anew, and fits.
        let at_last = Resume::at(&events(), 5, "ep").unwrap();
        assert_eq!(at_last.max_turns_to_continue(3), 4);
    }
}
