//! One Inspect sample as one episode: its conversation as messages, tool calls and results, its
//! scores as verdicts, its error as an error event.
//!
//! Whose conversation: in a plain agent eval, the sample's `messages` (user → assistant, tool
//! calls and their results). In an audit (a log with `auditor`/`target` model roles, as Petri
//! writes), the target's conversation as its last model call saw it, its input resolved from the
//! condensed message pool: the auditor's user turns are the attacker's messages.
//!
//! Turns: the first assistant message of the conversation is turn 1; every later assistant
//! message, and a user message after an assistant, starts the next one (so an episode has as many
//! turns as the sample has assistant messages, Inspect's `turn_count`).

use std::path::Path;

use serde_json::{Map, Value, json};

use super::branch::{self, Branch, Spans, conversation_of};
use super::facts::Ending;
use super::held::BigTexts;
use super::log::{FORMAT, LogInfo};
use super::ours;
use super::schema::{ChatMessage, Sample, SampleEvent};
use super::scores;
use super::text::Attachments;
use crate::core::episode::{
    End, EndReason, Episode, EpisodeHeader, EventBody, Message, ParentRef, Party, ToolCall, ToolResult,
    stamp_events,
};
use crate::core::import::defaults::NO_TIME;

/// The episodes of `sample`, a sample of the log `info` read from `path`: its own, then one fork
/// per branch (see [`super::branch`]), each with its parent and the event it leaves it at.
pub fn episodes(mut sample: Sample, info: &LogInfo, path: &Path) -> Vec<Episode> {
    let mut texts = std::mem::take(&mut sample.big_texts);
    let mut read = episodes_holding(sample, info, path, &mut texts);
    // The sample's held texts go in last, when nothing of the sample refers to them any more.
    texts.restore(&mut read);
    read
}

/// [`episodes`], the sample's texts left as marks of `texts` (its attachments held there too), for
/// [`super::held::BigTexts::restore`] to put in.
pub fn episodes_holding(
    mut sample: Sample,
    info: &LogInfo,
    path: &Path,
    texts: &mut BigTexts,
) -> Vec<Episode> {
    texts.hold_attachments(&mut sample.attachments);
    if info.ours
        && let Some(read) = ours::episodes(&mut sample, info, path)
    {
        return read;
    }
    let role = info.audit.then_some("target");
    let branches = branch::branches(&sample, role);
    let mut main = episode(&mut sample, info, path);
    if branches.left_out > 0 {
        main.warnings.push(format!(
            "{}: {} of the branches of sample {} are not read as forks: with them its forks' conversations \
             would weigh over {} MiB",
            path.display(),
            branches.left_out,
            main.id(),
            branch::BRANCHES_WEIGH >> 20
        ));
    }
    let mut read = vec![main];
    let mut spans: Vec<String> = Vec::new();
    for branch in branches.read {
        // A branch of a branch forks that branch's fork (read before it: its span began first).
        let parent =
            branch.leaves.as_ref().and_then(|s| spans.iter().position(|x| x == s)).map_or(0, |i| i + 1);
        spans.push(branch.span.clone());
        let fork = fork(branch, &read[parent], &sample, info, path);
        read.push(fork);
    }
    read
}

/// The episode of the sample itself (its messages taken from it).
fn episode(sample: &mut Sample, info: &LogInfo, path: &Path) -> Episode {
    let audit = if info.audit { target_conversation(sample) } else { None };
    let (messages, user) = match audit {
        Some(messages) => (messages, Party::Attacker),
        // Taken, not copied: a sample's messages can be hundreds of MB.
        None => (std::mem::take(&mut sample.messages), Party::User),
    };
    let attachments = Attachments(&sample.attachments);
    let mut header = sample_header(sample, info, path);
    let (events, system) = conversation(messages, user, &attachments);
    if !system.is_empty() {
        header.task.extra.insert("system_message".into(), Value::String(system.join("\n\n")));
    }
    if !sample.model_usage.is_empty() {
        header.config.extra.insert("model_usage".into(), Value::Object(sample.model_usage.clone()));
    }
    let ending = Ending::of_sample(sample);
    header.config.extra.insert("inspect_sample".into(), Value::Object(ending.facts.clone()));
    let turns = events.iter().filter_map(EventBody::turn).max().unwrap_or(0);
    let mut bodies = vec![EventBody::Episode(Box::new(header))];
    bodies.extend(events);
    bodies.extend(
        scores::verdicts(sample.scores.as_ref(), &attachments, info.ours).into_iter().map(EventBody::from),
    );
    bodies.extend(ending.events(turns));
    Episode::new(stamp_events(bodies, &started(sample, info)), path.to_string_lossy().into_owned())
}

fn sample_header(sample: &Sample, info: &LogInfo, path: &Path) -> EpisodeHeader {
    let attachments = Attachments(&sample.attachments);
    info.header(
        path,
        (&sample.id, sample.epoch),
        (&sample.input, &sample.target, &sample.metadata),
        &attachments,
        FORMAT,
    )
}

fn started(sample: &Sample, info: &LogInfo) -> String {
    sample.started_at.clone().or_else(|| info.created.clone()).unwrap_or_else(|| NO_TIME.to_string())
}

/// The fork a branch is: `{parent id}~{branch name}`, its whole conversation (the prefix it shares
/// with its parent included, as our fork journals have it), its parent and the parent's last event
/// the two share, the branch's own scores as verdicts.
fn fork(branch: Branch, parent: &Episode, sample: &Sample, info: &LogInfo, path: &Path) -> Episode {
    let attachments = Attachments(&sample.attachments);
    let user = if info.audit { Party::Attacker } else { Party::User };
    let (events, _) = conversation(branch.messages, user, &attachments);
    let shared = events.iter().zip(parent.events.iter().skip(1)).take_while(|(a, b)| **a == b.body).count();
    let mut header = sample_header(sample, info, path);
    header.id = format!("{}~{}", parent.id(), branch.name);
    header.parent = Some(ParentRef { episode: parent.id().to_string(), seq: parent.events[shared].seq });
    let mut about = json!({"name": branch.name, "span": branch.span, "from_anchor": branch.from_anchor});
    if !branch.metadata.is_empty() {
        about["metadata"] = Value::Object(branch.metadata);
    }
    header.task.extra.insert("inspect_branch".into(), about);
    let turns = events.iter().filter_map(EventBody::turn).max().unwrap_or(0);
    let mut bodies = vec![EventBody::Episode(Box::new(header))];
    bodies.extend(events);
    bodies.extend(
        scores::verdicts(Some(&branch.scores), &attachments, info.ours).into_iter().map(EventBody::from),
    );
    bodies.push(EventBody::End(End { reason: EndReason::AssistantDone, turns }));
    Episode::new(stamp_events(bodies, &started(sample, info)), path.to_string_lossy().into_owned())
}

/// The target's conversation in an audit: the input of its last model call and what it answered.
fn target_conversation(sample: &Sample) -> Option<Vec<ChatMessage>> {
    let spans = Spans::of(sample);
    // The last call of the trajectory itself: a branch's calls are its fork's.
    let call = sample.events.iter().rev().find_map(|e| match e {
        SampleEvent::Model(m)
            if m.role.as_deref() == Some("target") && spans.branch_of(m.span_id.as_deref()).is_none() =>
        {
            Some(m)
        }
        _ => None,
    })?;
    Some(conversation_of(call, sample.events_data.as_ref()))
}

/// The events of a conversation, and the texts of its system messages (shown in the header);
/// `user` is the party whose turns the `user` role holds.
fn conversation(
    messages: Vec<ChatMessage>,
    user: Party,
    attachments: &Attachments,
) -> (Vec<EventBody>, Vec<String>) {
    let mut bodies = Vec::new();
    let mut system = Vec::new();
    let mut turn = 1u32;
    let mut answered = false;
    for message in messages {
        let (text, reasoning) = attachments.take_text(message.content);
        match message.role.as_str() {
            "system" => system.push(text),
            "user" => {
                if answered {
                    turn += 1;
                    answered = false;
                }
                bodies.push(EventBody::Message(Message::new(turn, user, Party::Assistant, text)));
            }
            "assistant" => {
                if answered {
                    turn += 1;
                }
                answered = true;
                let calls = message.tool_calls.unwrap_or_default();
                if !text.is_empty() || reasoning.is_some() || calls.is_empty() {
                    let raw = reasoning.map(|r| format!("[reasoning]\n{r}\n\n{text}"));
                    let mut said = Message::new(turn, Party::Assistant, user, text);
                    (said.raw, said.model) = (raw, message.model);
                    bodies.push(EventBody::Message(said));
                }
                for call in &calls {
                    bodies.push(EventBody::from(tool_call(turn, call, attachments)));
                }
            }
            "tool" => {
                let (output, ok) = match &message.error {
                    Some(error) if text.is_empty() => (format!("{}: {}", error.kind, error.message), false),
                    Some(error) => (format!("{text}\n{}: {}", error.kind, error.message), false),
                    None => (text, true),
                };
                bodies.push(EventBody::ToolResult(ToolResult {
                    turn,
                    call_id: message.tool_call_id.unwrap_or_default(),
                    tool: message.function.unwrap_or_default(),
                    output,
                    ok,
                    raw: None,
                }));
            }
            // Any other role (none in Inspect today) says nothing of the conversation.
            _ => {}
        }
    }
    (bodies, system)
}

fn tool_call(turn: u32, call: &super::schema::ToolCall, attachments: &Attachments) -> ToolCall {
    let args = match attachments.resolve_value(&call.arguments) {
        Value::Object(map) => Value::Object(map),
        Value::Null => Value::Object(Map::new()),
        // Always an object: anything else is kept as written.
        other => {
            return ToolCall {
                turn,
                call_id: call.id.clone(),
                tool: call.function.clone(),
                args: Value::Object(Map::new()),
                raw_args: Some(other.to_string()),
                raw: None,
                late: false,
            };
        }
    };
    ToolCall {
        turn,
        call_id: call.id.clone(),
        tool: call.function.clone(),
        args,
        raw_args: call.parse_error.as_ref().map(|e| format!("parse error: {e}")),
        raw: None,
        late: false,
    }
}
