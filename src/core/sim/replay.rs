//! A fork or take-over of an external agent's episode (issue 26). The agent cannot be rewound,
//! so the fork starts a fresh context and replays the recorded prefix into it turn by turn: each
//! recorded message to the assistant is copied and sent again, the agent answers anew (its tool
//! calls run again on a fresh environment), and a turn whose reply now differs from the
//! recording is marked with a `control` event (`diverged`, by `replay`) and said on screen.

use std::collections::HashMap;

use crate::core::episode::{Control, ControlAction, EventBody, Party};

use super::emitter::{Emitter, RunnerUpdate};
use super::external_assistant::ExternalAssistant;
use super::fork::Resume;
use super::prompts::AttackerHistoryRole;
use super::run_error::RunError;

/// Replays `resume`'s complete turns into `agent`; returns the conversation as the attacker now
/// sees it (the agent's new replies, not the recorded ones). A last message the recording never
/// answered is copied and left for the runner to send.
pub async fn replay_into(
    agent: &mut ExternalAssistant,
    resume: &Resume,
    emitter: &mut Emitter,
) -> Result<Vec<(AttackerHistoryRole, String)>, RunError> {
    let recorded: HashMap<u32, &str> = resume
        .prefix
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Message(m) if m.from == Party::Assistant && m.to == Party::Attacker => {
                Some((m.turn, m.text.as_str()))
            }
            _ => None,
        })
        .collect();
    let mut history = Vec::new();
    for event in resume.prefix.iter().skip(1) {
        let EventBody::Message(message) = &event.body else { continue };
        if message.to != Party::Assistant {
            continue;
        }
        emitter.copy(event).await?;
        history.push((AttackerHistoryRole::Attacker, message.text.clone()));
        let Some(was) = recorded.get(&message.turn) else { continue };
        let reply = agent.respond(message.turn, &message.text, emitter).await?;
        if reply != *was {
            let mark = Control::new(ControlAction::Diverged, "replay", Some(message.turn));
            emitter.emit(EventBody::Control(mark)).await?;
            let notice = format!("turn {}: the agent's reply differs from the recording", message.turn);
            emitter.notify(RunnerUpdate::Notice(notice));
        }
        history.push((AttackerHistoryRole::Assistant, reply));
    }
    Ok(history)
}
