//! One exported episode as an Inspect sample, its forks among the exported episodes as branches:
//! a `branch` span per fork (its BranchEvent, its model and tool events, its verdicts as score
//! events), an anchor where it leaves its parent, as `inspect_ai.event.timeline_branch` writes them.
//! The sample keeps in its metadata what Inspect has no field for (the episode's task and config,
//! its parent, its annotations, its verdicts and other events as they were, its turns), and each
//! fork's span the same of the fork, so a log we wrote reads back as the episodes it was made of.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::exported::Exported;
use super::family::Family;
use super::scores::{notes_of, scores};
use super::transcript::{self, Attachments, Conversation};
use crate::core::episode::{Episode, EventBody};

/// The sample of exported episode `root` (no branch), `(id, epoch)` its key.
pub fn built(all: &[Exported], family: &Family, root: usize, (id, epoch): (Value, u32)) -> Value {
    let episodes: Vec<&Episode> = all.iter().map(|e| e.episode).collect();
    let episode = all[root].episode;
    let header = episode.header();
    let mut attachments = Attachments::new(&episodes);
    let mut pool = Vec::new();
    let mut prefix = Vec::new();
    if let Some(system) = header.task.extra.get("system_message").and_then(Value::as_str) {
        pool.push(json!({"role": "system", "content": attachments.text(system, episode)}));
        prefix.push((0, 1));
    }
    let conversation = transcript::write(&mut pool, &mut attachments, episode, None, prefix);
    let mut events = with_anchors(all, family, root, &conversation.events, None);
    events.extend(branches(all, family, root, Some(&conversation.ranges), &mut pool, &mut attachments));
    let messages = in_ranges(&pool, &conversation.ranges);
    let facts = header.config.extra.get("inspect_sample");
    let fact = |key: &str| facts.and_then(|f| f.get(key)).filter(|v| !v.is_null()).cloned();
    let mut metadata =
        header.task.extra.get("sample_metadata").and_then(Value::as_object).cloned().unwrap_or_default();
    // The task and config, their long texts (a task's persona, a user task held once) attachments.
    let task = serde_json::to_value(&header.task).unwrap_or_default();
    let config = serde_json::to_value(&header.config).unwrap_or_default();
    metadata.insert("task".into(), attachments.value(&task, episode));
    metadata.insert("config".into(), attachments.value(&config, episode));
    let input = attachments.text(header.task.user_task.as_deref().unwrap_or_default(), episode);
    let target =
        header.task.extra.get("target").cloned().or_else(|| header.task.attack_goal.clone().map(Value::from));
    let target = attachments.value(&target.unwrap_or(json!("")), episode);
    metadata.insert("converse".into(), ours(all, root, &conversation));
    let last_reply = messages.iter().rev().find(|m| m["role"] == "assistant");
    let model = header.config.models.get("assistant").and_then(Value::as_str).unwrap_or("none/none");
    let mut sample = json!({
        "id": id,
        "epoch": epoch,
        "input": input,
        "target": target,
        "messages": messages,
        "output": {"model": model, "choices": last_reply.map(|m| vec![json!({"message": m, "stop_reason": "stop"})]).unwrap_or_default(),
            "completion": last_reply.map_or(json!(""), |m| m["content"].clone())},
        "scores": scores(episode, &all[root].notes),
        "metadata": metadata,
        "store": fact("store").unwrap_or(json!({})),
        "events": events,
        "events_data": {"messages": pool, "calls": []},
        "model_usage": model_usage(episode),
        "started_at": episode.events.first().map(|e| e.at.clone()),
        "completed_at": episode.events.last().map(|e| e.at.clone()),
        // Inspect's count (its top-level generations): as Inspect logged it, else the assistant's
        // model calls (its replies, and those that only called tools).
        "turn_count": fact("turn_count").unwrap_or_else(|| json!(calls_of(&conversation, "assistant"))),
        "attachments": attachments.map,
    });
    if let Some(error) = error_of(episode, fact("error")) {
        sample["error"] = error;
    }
    if let Some(Value::Array(retried)) = fact("retried_after") {
        let retried = retried.iter().map(|e| {
            json!({"message": e["message"], "traceback": e["traceback"].as_str().unwrap_or_default(),
            "traceback_ansi": e["traceback"].as_str().unwrap_or_default()})
        });
        sample["error_retries"] = Value::Array(retried.collect());
    }
    for key in ["limit", "uuid", "total_time", "working_time"] {
        if let Some(value) = fact(key) {
            sample[key] = value;
        }
    }
    sample
}

/// A copy of the pool's messages in `ranges`.
fn in_ranges(pool: &[Value], ranges: &[(usize, usize)]) -> Vec<Value> {
    ranges.iter().flat_map(|&(a, b)| pool[a..b].iter().cloned()).collect()
}

/// What the metadata keeps of an episode (or the span of a fork) for reading it back.
fn ours(all: &[Exported], index: usize, conversation: &Conversation) -> Value {
    let episode = all[index].episode;
    let at = episode.events.first().map(|e| e.at.clone());
    let mut ours = json!({"episode": episode.id(), "at": at, "events": conversation.others,
        "conversation": conversation.ranges});
    if let Some(parent) = &episode.header().parent {
        ours["parent"] = json!({"episode": parent.episode, "seq": parent.seq});
    }
    if !all[index].notes.is_empty() {
        ours["annotations"] = notes_of(&all[index].notes);
    }
    ours
}

/// How many model calls of `role` a conversation holds.
fn calls_of(conversation: &Conversation, role: &str) -> usize {
    conversation.events.iter().filter(|(_, e)| e["event"] == "model" && e["role"] == role).count()
}

/// An episode's tokens per model: Inspect's own when read from a sample, else its messages'.
pub fn model_usage(episode: &Episode) -> Value {
    let config = &episode.header().config;
    if let Some(usage) = config.extra.get("model_usage") {
        return usage.clone();
    }
    let mut sums: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for event in &episode.events {
        let EventBody::Message(m) = &event.body else { continue };
        let Some(usage) = m.usage else { continue };
        let model = m
            .model
            .clone()
            .or_else(|| config.models.get(m.from.as_str()).and_then(Value::as_str).map(str::to_string));
        let sum = sums.entry(model.unwrap_or_else(|| "none/none".into())).or_default();
        (sum.0, sum.1) = (sum.0 + usage.input_tokens, sum.1 + usage.output_tokens);
    }
    let usage: Map<String, Value> = sums
        .into_iter()
        .map(|(model, (i, o))| (model, json!({"input_tokens": i, "output_tokens": o, "total_tokens": i + o})))
        .collect();
    Value::Object(usage)
}

/// The sample's error as Inspect's `EvalError`: the one Inspect logged, else the episode's first.
fn error_of(episode: &Episode, logged: Option<Value>) -> Option<Value> {
    let (message, traceback) = match logged {
        Some(error) => (
            error["message"].as_str()?.to_string(),
            error["traceback"].as_str().unwrap_or_default().to_string(),
        ),
        None => episode.events.iter().find_map(|e| match &e.body {
            EventBody::Error(error) => Some((error.message.clone(), String::new())),
            _ => None,
        })?,
    };
    Some(json!({"message": message, "traceback": traceback, "traceback_ansi": traceback}))
}

/// An episode's model and tool events (`span`: the branch span they lie in, none for a sample's
/// own) with an anchor where each of its forks leaves it.
fn with_anchors(
    all: &[Exported],
    family: &Family,
    index: usize,
    events: &[(u64, Value)],
    span: Option<&str>,
) -> Vec<Value> {
    let mut events: Vec<(u64, Value)> = events.to_vec();
    let episode = all[index].episode;
    for &fork in family.forks_of(index) {
        let fork = all[fork].episode;
        let at = fork.header().parent.as_ref().map_or(0, |p| p.seq);
        // After every event up to the fork point (a stable sort keeps the anchors' order).
        events.push((
            at,
            json!({"event": "anchor", "anchor_id": anchor_id(fork), "timestamp": time_at(episode, at)}),
        ));
    }
    events.sort_by_key(|(seq, _)| *seq);
    events
        .into_iter()
        .map(|(_, mut e)| {
            if let Some(span) = span {
                e["span_id"] = json!(span);
            }
            e
        })
        .collect()
}

/// The branch spans of every fork of exported episode `index` (its conversation the pool's
/// `ranges`; `None` when it is not in the pool, a sample carried over: each fork's conversation is
/// written whole) and of their forks in turn, one after another (Inspect's timeline reads
/// branches as siblings; a branch of a branch has its anchor in that branch's span).
pub fn branches(
    all: &[Exported],
    family: &Family,
    index: usize,
    ranges: Option<&[(usize, usize)]>,
    pool: &mut Vec<Value>,
    attachments: &mut Attachments,
) -> Vec<Value> {
    let mut events = Vec::new();
    for &fork_index in family.forks_of(index) {
        let fork = all[fork_index].episode;
        let point = fork.header().parent.as_ref().map_or(0, |p| p.seq);
        let (after, prefix) = match ranges {
            Some(ranges) => (Some(point), up_to(pool, ranges, point)),
            None => (None, Vec::new()),
        };
        let conversation = transcript::write(pool, attachments, fork, after, prefix);
        let span = format!("branch:{}", fork.id());
        let start = time_at(fork, point + 1);
        let mut metadata = ours(all, fork_index, &conversation);
        metadata["config"] = serde_json::to_value(&fork.header().config).unwrap_or_default();
        events.push(json!({"event": "span_begin", "id": span, "type": "branch", "name": fork.id(),
            "timestamp": start, "metadata": {"converse": metadata}}));
        events.push(
            json!({"event": "branch", "from_anchor": anchor_id(fork), "span_id": span, "timestamp": start}),
        );
        events.extend(with_anchors(all, family, fork_index, &conversation.events, Some(&span)));
        let end = time_at(fork, u64::MAX);
        for (scorer, score) in scores(fork, &all[fork_index].notes) {
            events.push(json!({"event": "score", "span_id": span, "scorer": scorer, "score": score,
                "intermediate": false, "timestamp": end}));
        }
        events.push(json!({"event": "span_end", "id": span, "span_id": span, "timestamp": end}));
        events.extend(branches(all, family, fork_index, Some(&conversation.ranges), pool, attachments));
    }
    events
}

/// The ranges of `ranges` holding the messages up to event `point` (the messages a fork leaving
/// there shares with its parent).
fn up_to(pool: &[Value], ranges: &[(usize, usize)], point: u64) -> Vec<(usize, usize)> {
    let mut kept = Vec::new();
    for &(a, b) in ranges {
        let seq = |m: &Value| {
            let ours = &m["metadata"]["converse"];
            ours["seq"].as_u64().or_else(|| ours["calls"][0]["seq"].as_u64())
        };
        let end = (a..b).find(|&i| seq(&pool[i]).is_some_and(|s| s > point)).unwrap_or(b);
        if end > a {
            kept.push((a, end));
        }
        if end < b {
            break;
        }
    }
    kept
}

fn anchor_id(fork: &Episode) -> String {
    format!("fork:{}", fork.id())
}

/// When the event `seq` of `episode` happened (its header's time when there is none).
fn time_at(episode: &Episode, seq: u64) -> String {
    let event = episode.events.iter().rev().find(|e| e.seq <= seq).or(episode.events.first());
    event.map(|e| e.at.clone()).unwrap_or_default()
}
