//! An episode's conversation as Inspect holds a sample's: its messages once, in the sample's
//! message pool (`events_data.messages`), and a model event per reply — the assistant's and the
//! attacker's, with their models — whose input is the pool's ranges before it (`input_refs`, as
//! Inspect condenses its own logs), and a tool event per tool call. Every message keeps what
//! Inspect has no field for in its metadata (`converse`: our `seq`, time, turn, parties, usage, raw
//! output, author), so a log we wrote reads back as the episode it was. Texts over 64 KiB are
//! attachments, written once however often used (a text held once is put back there).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::core::episode::{Episode, Event, EventBody, Message, Party, ToolCall, ToolResult, held_ref};

/// Texts longer than this are written as attachments.
const ATTACH_OVER: usize = 64 << 10;

/// The attachments of one sample, each text once.
pub struct Attachments<'a> {
    pub map: Map<String, Value>,
    /// The keys of texts already attached, by where their bytes are (a text held once is the
    /// same bytes at every use: hashed once).
    keys: HashMap<(usize, usize), String>,
    /// The same, of texts written around references (`ref + "and again"`), by the episode and the
    /// text with its references: each rebuilt and hashed once.
    rebuilt: HashMap<(usize, String), String>,
    /// The episodes written, where a reference to a text held by another one is looked up.
    episodes: &'a [&'a Episode],
}

impl<'a> Attachments<'a> {
    pub fn new(episodes: &'a [&'a Episode]) -> Self {
        Attachments { map: Map::new(), keys: HashMap::new(), rebuilt: HashMap::new(), episodes }
    }

    /// `text` of `episode` as written in the sample: its references to texts held once put back,
    /// `attachment://KEY` when it is long.
    pub fn text(&mut self, text: &str, episode: &Episode) -> Value {
        let rebuilt =
            held_ref::holds_references(text).then(|| (std::ptr::from_ref(episode) as usize, text.to_owned()));
        if let Some(key) = rebuilt.as_ref().and_then(|at| self.rebuilt.get(at)) {
            return attachment(key);
        }
        let resolved = held_ref::resolve(text, episode, self.episodes);
        if resolved.len() <= ATTACH_OVER {
            return Value::String(resolved.into_owned());
        }
        // (Only borrowed bytes stay where they are: a rebuilt text's are freed once written.)
        let at = matches!(resolved, Cow::Borrowed(_)).then(|| (resolved.as_ptr() as usize, resolved.len()));
        let key = match at.as_ref().and_then(|at| self.keys.get(at)) {
            Some(key) => key.clone(),
            None => {
                let digest = Sha256::digest(resolved.as_bytes());
                let key: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
                self.map.entry(key.clone()).or_insert_with(|| Value::String(resolved.into_owned()));
                if let Some(at) = at {
                    self.keys.insert(at, key.clone());
                }
                key
            }
        };
        if let Some(at) = rebuilt {
            self.rebuilt.insert(at, key.clone());
        }
        attachment(&key)
    }

    /// Every string of a JSON value (tool arguments) as [`Self::text`] writes it.
    pub fn value(&mut self, value: &Value, episode: &Episode) -> Value {
        match value {
            Value::String(text) => self.text(text, episode),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v, episode)).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), self.value(v, episode))).collect())
            }
            other => other.clone(),
        }
    }
}

fn attachment(key: &str) -> Value {
    Value::String(format!("attachment://{key}"))
}

/// A conversation written into the pool: the ranges of the pool it is (a fork's: its parent's
/// up to where it leaves it, then its own), its model and tool events by `seq`, and its other
/// events (verdicts, controls, errors, its end) as they were.
pub struct Conversation {
    pub ranges: Vec<(usize, usize)>,
    pub events: Vec<(u64, Value)>,
    pub others: Vec<Value>,
}

/// Writes the conversation of `episode` after `after` (all of it for `None`) into `pool`,
/// following `prefix` (the ranges of the pool before it), and keeps its other events.
pub fn write(
    pool: &mut Vec<Value>,
    attachments: &mut Attachments,
    episode: &Episode,
    after: Option<u64>,
    prefix: Vec<(usize, usize)>,
) -> Conversation {
    let start = pool.len();
    let mut tools = Vec::new();
    let mut others = Vec::new();
    let results: HashMap<&str, &ToolResult> = episode
        .events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolResult(r) => Some((r.call_id.as_str(), r)),
            _ => None,
        })
        .collect();
    for event in episode.events.iter().skip(1) {
        // Before `after` the conversation is its parent's (in the pool already); the rest is its
        // own (a fork's copies of its parent's verdicts included).
        let shared = after.is_some_and(|at| event.seq <= at);
        match &event.body {
            EventBody::Message(_) | EventBody::ToolCall(_) | EventBody::ToolResult(_) if shared => {}
            EventBody::Message(m) => pool.push(message(m, event, episode, attachments)),
            EventBody::ToolCall(c) => {
                let call = call(c, episode, attachments);
                let mut ours = json!({"seq": event.seq, "at": event.at, "turn": c.turn,
                    "raw_args": c.raw_args, "raw": c.raw});
                if c.late {
                    ours["late"] = json!(true);
                }
                attach_call(pool, start, call, ours);
                tools.push((
                    event.seq,
                    tool_event(c, event, results.get(c.call_id.as_str()), episode, attachments),
                ));
            }
            EventBody::ToolResult(r) => pool.push(tool_message(r, event, episode, attachments)),
            EventBody::Episode(_) => {}
            _ => others.push(serde_json::to_value(event).unwrap_or_default()),
        }
    }
    let mut ranges = prefix;
    ranges.push((start, pool.len()));
    let models = &episode.header().config.models;
    let mut events = tools;
    for index in start..pool.len() {
        if let Some(event) = model_event(pool, index, &ranges, models) {
            events.push(event);
        }
    }
    // A reply's model call before the tool calls it made (a reply made only of tool calls is
    // known by its first call's `seq`).
    events.sort_by_key(|(seq, e)| (*seq, e["event"] != "model"));
    Conversation { ranges, events, others }
}

fn message(m: &Message, event: &Event, episode: &Episode, attachments: &mut Attachments) -> Value {
    let role = if m.from == Party::Assistant { "assistant" } else { "user" };
    let mut ours = json!({"seq": event.seq, "at": event.at, "turn": m.turn, "from": m.from, "to": m.to});
    for (key, value) in [
        ("model", m.model.as_ref().map(|x| json!(x))),
        ("usage", m.usage.map(|u| json!(u))),
        ("raw", m.raw.as_ref().map(|raw| attachments.text(raw, episode))),
        ("by", m.by.as_ref().map(|x| json!(x))),
    ] {
        if let Some(value) = value {
            ours[key] = value;
        }
    }
    let mut message = json!({"id": format!("m{}", event.seq), "role": role, "content": attachments.text(&m.text, episode),
        "metadata": {"converse": ours}});
    if role == "assistant" {
        message["source"] = json!("generate");
        message["model"] = json!(m.model);
    }
    message
}

fn call(c: &ToolCall, episode: &Episode, attachments: &mut Attachments) -> Value {
    let mut call = json!({"id": c.call_id, "function": c.tool, "arguments": attachments.value(&c.args, episode),
        "type": "function"});
    if let Some(raw) = &c.raw_args {
        call["parse_error"] = json!(raw);
    }
    call
}

/// Puts a tool call in the assistant message before it, when that message is in this part of the
/// pool; otherwise in an assistant message of its own, without text (and without our `seq`).
fn attach_call(pool: &mut Vec<Value>, start: usize, call: Value, ours: Value) {
    let last = pool.len().checked_sub(1).filter(|&i| i >= start && pool[i]["role"] == "assistant");
    let message = match last {
        Some(i) => &mut pool[i],
        None => {
            pool.push(json!({"id": format!("c{}", ours["seq"]), "role": "assistant", "content": "",
                "source": "generate", "metadata": {"converse": {}}}));
            pool.last_mut().expect("just pushed")
        }
    };
    push(&mut message["tool_calls"], call);
    push(&mut message["metadata"]["converse"]["calls"], ours);
}

fn push(list: &mut Value, item: Value) {
    match list {
        Value::Array(items) => items.push(item),
        other => *other = Value::Array(vec![item]),
    }
}

fn tool_message(r: &ToolResult, event: &Event, episode: &Episode, attachments: &mut Attachments) -> Value {
    let content = attachments.text(&r.output, episode);
    let mut ours = json!({"seq": event.seq, "at": event.at, "turn": r.turn, "ok": r.ok});
    if let Some(raw) = &r.raw {
        ours["raw"] = attachments.text(raw, episode);
    }
    let mut message = json!({"id": format!("m{}", event.seq), "role": "tool", "content": content,
        "tool_call_id": r.call_id, "function": r.tool, "metadata": {"converse": ours}});
    if !r.ok {
        message["error"] = json!({"type": "unknown", "message": "the tool call failed"});
    }
    message
}

fn tool_event(
    c: &ToolCall,
    event: &Event,
    result: Option<&&ToolResult>,
    episode: &Episode,
    attachments: &mut Attachments,
) -> Value {
    let output = result.map_or(Value::String(String::new()), |r| attachments.text(&r.output, episode));
    let mut tool = json!({"event": "tool", "type": "function", "id": c.call_id, "function": c.tool,
        "arguments": attachments.value(&c.args, episode), "result": output, "timestamp": event.at,
        "metadata": {"converse": {"seq": event.seq}}});
    if result.is_some_and(|r| !r.ok) {
        tool["error"] = json!({"type": "unknown", "message": "the tool call failed"});
    }
    tool
}

/// The model call that wrote pool message `index`: an assistant's reply (the assistant's model)
/// or the attacker's message (the attacker's model); none for what no model wrote (the user's
/// task, a person's message, a tool result).
fn model_event(
    pool: &[Value],
    index: usize,
    ranges: &[(usize, usize)],
    models: &Map<String, Value>,
) -> Option<(u64, Value)> {
    let message = &pool[index];
    let ours = &message["metadata"]["converse"];
    let from = match message["role"].as_str() {
        Some("assistant") => "assistant",
        Some("user") if ours["from"] == "attacker" && ours["by"].is_null() => "attacker",
        _ => return None,
    };
    let seq = ours["seq"].as_u64().or_else(|| ours["calls"][0]["seq"].as_u64())?;
    let at = ours["at"].as_str().or_else(|| ours["calls"][0]["at"].as_str()).unwrap_or_default();
    let model =
        ours["model"].as_str().or_else(|| models.get(from).and_then(Value::as_str)).unwrap_or("none/none");
    let mut said = message.clone();
    if from == "attacker" {
        said = json!({"role": "assistant", "content": message["content"], "model": model,
            "metadata": message["metadata"]});
    }
    // The input: every message of the conversation before this one.
    let input: Vec<(usize, usize)> =
        ranges.iter().map(|&(a, b)| (a, b.min(index))).filter(|(a, b)| a < b).collect();
    let mut output = json!({"model": model, "choices": [{"message": said, "stop_reason": stop(&said)}],
        "completion": message["content"]});
    if let Some(usage) = ours.get("usage").filter(|u| !u.is_null()) {
        let (i, o) =
            (usage["input_tokens"].as_u64().unwrap_or(0), usage["output_tokens"].as_u64().unwrap_or(0));
        output["usage"] = json!({"input_tokens": i, "output_tokens": o, "total_tokens": i + o});
    }
    Some((
        seq,
        json!({"event": "model", "model": model, "role": from, "input": [], "input_refs": input, "tools": [],
            "tool_choice": "auto", "config": {}, "output": output, "timestamp": at,
            "metadata": {"converse": {"seq": seq}}}),
    ))
}

fn stop(message: &Value) -> &'static str {
    if message["tool_calls"].as_array().is_some_and(|c| !c.is_empty()) { "tool_calls" } else { "stop" }
}
