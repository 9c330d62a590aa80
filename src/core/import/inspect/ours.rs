//! A log converse-tui wrote (`export --format eval`), read back as the episodes it was made of:
//! every message, tool call and result with its own `seq`, time, turn and parties (kept in the
//! messages' metadata, `converse`), the verdicts and other events as they were (the sample's
//! metadata), each fork from its branch span's metadata with its config and its conversation's
//! ranges of the message pool, and the notes of each. Ids are those of the log (`{id}_epoch_{n}`,
//! a fork `{parent}~{name}`), so notes and sidecars beside the log find them; the rest is as it was.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::branch::name_of;
use super::log::{FORMAT, LogInfo};
use super::schema::{ChatMessage, Sample, SampleEvent};
use super::text::Attachments;
use crate::core::episode::{
    Episode, EpisodeConfig, Event, EventBody, Message, ParentRef, Party, ToolCall, ToolResult,
};

/// The episodes of a sample we wrote, when it keeps them whole (written since 27 Nov 2026).
pub fn episodes(sample: &mut Sample, info: &LogInfo, path: &Path) -> Option<Vec<Episode>> {
    let ours = sample.metadata.get("converse")?.as_object()?.clone();
    ours.get("events")?.as_array()?;
    let attachments = Attachments(&sample.attachments);
    let mut header = info.header(
        path,
        (&sample.id, sample.epoch),
        (&sample.input, &sample.target, &sample.metadata),
        &attachments,
        FORMAT,
    );
    header.parent = parent_of(&ours, &HashMap::new());
    let messages = std::mem::take(&mut sample.messages);
    let main = episode(header, &ours, messages, &attachments, path);
    let mut read_ids: HashMap<String, String> = HashMap::new();
    read_ids.insert(text(&ours, "episode"), main.id().to_string());
    let pool = sample.events_data.as_ref().map(|d| d.messages.as_slice()).unwrap_or_default();
    let mut read = vec![main];
    for event in &sample.events {
        let SampleEvent::SpanBegin(span) = event else { continue };
        let Some(fork) = span.metadata.as_ref().and_then(|m| m.get("converse")).and_then(Value::as_object)
        else {
            continue;
        };
        let Some(parent) = parent_of(fork, &read_ids) else { continue };
        let conversation: Vec<ChatMessage> = ranges(fork)
            .into_iter()
            .flat_map(|(a, b)| {
                let a = a.min(pool.len());
                pool[a..b.clamp(a, pool.len())].iter().cloned()
            })
            .collect();
        let mut header = read[0].header().clone();
        header.id = format!("{}~{}", parent.episode, name_of(&span.name, &span.id));
        header.parent = Some(parent);
        if let Some(config) =
            fork.get("config").and_then(|c| serde_json::from_value::<EpisodeConfig>(c.clone()).ok())
        {
            header.config = config;
        }
        let episode = episode(header, fork, conversation, &attachments, path);
        read_ids.insert(text(fork, "episode"), episode.id().to_string());
        read.push(episode);
    }
    Some(read)
}

fn text(ours: &Map<String, Value>, key: &str) -> String {
    ours.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// Where an episode leaves its parent, the parent named as read (`read_ids`: the ids of the
/// episodes read so far, by the ids they had).
fn parent_of(ours: &Map<String, Value>, read_ids: &HashMap<String, String>) -> Option<ParentRef> {
    let parent = ours.get("parent")?;
    let named = parent.get("episode")?.as_str()?;
    let episode = read_ids.get(named).cloned().unwrap_or_else(|| named.to_string());
    Some(ParentRef { episode, seq: parent.get("seq")?.as_u64()? })
}

fn ranges(ours: &Map<String, Value>) -> Vec<(usize, usize)> {
    serde_json::from_value(ours.get("conversation").cloned().unwrap_or_default()).unwrap_or_default()
}

fn episode(
    header: crate::core::episode::EpisodeHeader,
    ours: &Map<String, Value>,
    messages: Vec<ChatMessage>,
    attachments: &Attachments,
    path: &Path,
) -> Episode {
    let at = ours.get("at").and_then(Value::as_str).unwrap_or(crate::core::import::defaults::NO_TIME);
    let mut events = vec![Event { seq: 0, at: at.to_string(), body: EventBody::Episode(Box::new(header)) }];
    for message in messages {
        events.extend(events_of(message, attachments));
    }
    let others = ours.get("events").and_then(Value::as_array).into_iter().flatten();
    events.extend(others.filter_map(|e| serde_json::from_value::<Event>(e.clone()).ok()));
    events[1..].sort_by_key(|e| e.seq);
    let mut episode = Episode::new(events, path.to_string_lossy().into_owned());
    episode.carried_notes =
        serde_json::from_value(ours.get("annotations").cloned().unwrap_or_default()).unwrap_or_default();
    episode
}

/// The events one message we wrote stands for: itself (a message or a tool result) and its tool
/// calls, each with its own `seq`.
fn events_of(message: ChatMessage, attachments: &Attachments) -> Vec<Event> {
    let ours = message.metadata.as_ref().and_then(|m| m.get("converse")).cloned().unwrap_or_default();
    let number = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64);
    let word = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(|s| attachments.resolve(s));
    let turn = number(&ours, "turn").unwrap_or(0) as u32;
    let mut events = Vec::new();
    let calls = message.tool_calls.clone().unwrap_or_default();
    let (text, _) = attachments.take_text(message.content);
    if let (Some(seq), Some(at)) = (number(&ours, "seq"), word(&ours, "at")) {
        let body = match message.role.as_str() {
            "tool" => EventBody::ToolResult(ToolResult {
                turn,
                call_id: message.tool_call_id.unwrap_or_default(),
                tool: message.function.unwrap_or_default(),
                output: text,
                ok: ours.get("ok").and_then(Value::as_bool).unwrap_or(true),
                raw: word(&ours, "raw"),
            }),
            _ => {
                let party = |key: &str| {
                    serde_json::from_value::<Party>(ours.get(key).cloned().unwrap_or_default()).ok()
                };
                let mut said = Message::new(
                    turn,
                    party("from").unwrap_or(Party::User),
                    party("to").unwrap_or(Party::Assistant),
                    text,
                );
                said.raw = word(&ours, "raw");
                said.model = word(&ours, "model");
                said.usage = ours.get("usage").and_then(|u| serde_json::from_value(u.clone()).ok());
                said.by = word(&ours, "by");
                EventBody::Message(said)
            }
        };
        events.push(Event { seq, at, body });
    }
    let kept = ours.get("calls").and_then(Value::as_array).cloned().unwrap_or_default();
    for (call, kept) in calls.iter().zip(kept) {
        let (Some(seq), Some(at)) = (number(&kept, "seq"), word(&kept, "at")) else { continue };
        let body = ToolCall {
            turn: number(&kept, "turn").unwrap_or(u64::from(turn)) as u32,
            call_id: call.id.clone(),
            tool: call.function.clone(),
            args: attachments.resolve_value(&call.arguments),
            raw_args: word(&kept, "raw_args"),
            raw: word(&kept, "raw"),
            late: kept.get("late").and_then(Value::as_bool).unwrap_or(false),
        };
        events.push(Event { seq, at, body: EventBody::from(body) });
    }
    events
}
