//! Our episodes as an Inspect AI `.eval` log (issue 29), for `inspect view` and Inspect's
//! dataframes: one sample per episode, its messages and tool events, its verdicts as scores,
//! its annotations in the sample's metadata, the task and config in the header.
//!
//! Samples: the episode's task id is the sample id and its repetitions are epochs (an episode
//! without a task id is a sample of its own). Messages: what the attacker or user says is the
//! `user` role, the assistant's replies `assistant` with their tool calls, tool results `tool`;
//! every message keeps our `seq`, turn and parties in its metadata. Scores: the last verdict of
//! each source (`judge`, or `judge (source)` when a judge has several), `C` for a pass, `I` for a
//! fail, `P` (or the score) for partial, `N` for a verdict not reached (error, skipped: Inspect
//! counts it as 0, our outcome is in the score's metadata), with the summary as explanation and
//! the evidence and details in metadata. Entries are deflate-compressed, read by every Inspect.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Seek, Write};

use serde_json::{Map, Value, json};
use zip::ZipWriter;
use zip::write::SimpleFileOptions;

use super::annotation::AnnotationView;
use crate::core::episode::{Episode, EventBody, Party, Verdict, source_label};
use crate::core::import::inspect::value_of;

/// What the log names its task when the episodes do not agree on one.
const TASK: &str = "converse";

/// Writes `episodes` (each with its annotations) as one `.eval` log to `out`; `created` is the
/// run's time (RFC 3339). Returns `out` once the archive is complete.
pub fn to_eval<W: Write + Seek>(
    episodes: &[(&Episode, Vec<AnnotationView>)],
    created: &str,
    out: W,
) -> io::Result<W> {
    let samples = samples(episodes);
    let mut zip = ZipWriter::new(out);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut entry = |name: &str, value: &Value| -> io::Result<()> {
        zip.start_file(name, options).map_err(io::Error::other)?;
        crate::core::safe_json::to_writer(&mut zip, value).map_err(io::Error::other)
    };
    for sample in &samples {
        entry(&format!("samples/{}_epoch_{}.json", file_id(&sample["id"]), sample["epoch"]), sample)?;
    }
    let summaries: Vec<Value> = samples.iter().map(summary).collect();
    entry("summaries.json", &Value::Array(summaries))?;
    entry("header.json", &header(episodes, &samples, created))?;
    zip.finish().map_err(io::Error::other)
}

/// A sample id as Inspect names its entry: `/` would make a folder of it.
fn file_id(id: &Value) -> String {
    let text = id.as_str().map_or_else(|| id.to_string(), str::to_string);
    text.replace('/', "_")
}

/// Every episode's sample, `(id, epoch)` unique: the epochs of one task id counted in order.
fn samples(episodes: &[(&Episode, Vec<AnnotationView>)]) -> Vec<Value> {
    let mut epochs: HashMap<String, u32> = HashMap::new();
    episodes
        .iter()
        .map(|(episode, notes)| {
            let id = episode.header().task.id.clone().unwrap_or_else(|| episode.id().to_string());
            let epoch = epochs.entry(id.clone()).or_insert(0);
            *epoch += 1;
            sample(episode, notes, Value::String(id), *epoch)
        })
        .collect()
}

fn sample(episode: &Episode, notes: &[AnnotationView], id: Value, epoch: u32) -> Value {
    let header = episode.header();
    let (messages, events) = conversation(episode);
    let mut metadata = Map::new();
    metadata.insert("converse_episode".into(), Value::String(episode.id().to_string()));
    metadata.insert("task".into(), serde_json::to_value(&header.task).unwrap_or_default());
    metadata.insert("config".into(), serde_json::to_value(&header.config).unwrap_or_default());
    if let Some(parent) = &header.parent {
        metadata.insert("parent".into(), json!({"episode": parent.episode, "seq": parent.seq}));
    }
    if !notes.is_empty() {
        let notes: Vec<Value> = notes
            .iter()
            .map(|a| json!({"target_seq": a.target_seq, "label": a.label, "note": a.note, "author": a.author, "quote": a.quote}))
            .collect();
        metadata.insert("annotations".into(), Value::Array(notes));
    }
    let error = episode.events.iter().find_map(|e| match &e.body {
        EventBody::Error(error) => {
            Some(json!({"message": error.message, "traceback": "", "traceback_ansi": ""}))
        }
        _ => None,
    });
    let first = episode.events.first().map(|e| e.at.clone());
    let last = episode.events.last().map(|e| e.at.clone());
    let model = header.config.models.get("assistant").and_then(Value::as_str).unwrap_or("none/none");
    let completion = messages.iter().rev().find(|m| m["role"] == "assistant").map(|m| m["content"].clone());
    let mut sample = json!({
        "id": id,
        "epoch": epoch,
        "input": header.task.user_task.clone().unwrap_or_default(),
        "target": header.task.attack_goal.clone().unwrap_or_default(),
        "messages": messages,
        "output": {"model": model, "choices": [], "completion": completion.unwrap_or(Value::String(String::new()))},
        "scores": scores(episode),
        "metadata": metadata,
        "store": {},
        "events": events,
        "model_usage": {},
        "started_at": first,
        "completed_at": last,
        "attachments": {},
    });
    if let Some(error) = error {
        sample["error"] = error;
    }
    sample
}

/// The messages and tool events of an episode.
fn conversation(episode: &Episode) -> (Vec<Value>, Vec<Value>) {
    let mut messages: Vec<Value> = Vec::new();
    let mut events = Vec::new();
    let mut results: HashMap<&str, (&str, bool)> = HashMap::new();
    for event in &episode.events {
        if let EventBody::ToolResult(r) = &event.body {
            results.insert(r.call_id.as_str(), (r.output.as_str(), r.ok));
        }
    }
    for event in &episode.events {
        let ours = |turn: u32, extra: Value| {
            let mut meta = json!({"seq": event.seq, "turn": turn});
            if let Value::Object(extra) = extra {
                meta.as_object_mut().into_iter().for_each(|m| m.extend(extra.clone()));
            }
            json!({"converse": meta})
        };
        match &event.body {
            EventBody::Message(m) => {
                let role = if m.from == Party::Assistant { "assistant" } else { "user" };
                let mut message = json!({
                    "id": format!("m{}", event.seq),
                    "role": role,
                    "content": m.text,
                    "metadata": ours(m.turn, json!({"from": m.from.as_str(), "to": m.to.as_str(), "note": m.is_note()})),
                });
                if role == "assistant" {
                    message["model"] = json!(m.model);
                    message["tool_calls"] = json!([]);
                }
                messages.push(message);
            }
            EventBody::ToolCall(c) => {
                let call =
                    json!({"id": c.call_id, "function": c.tool, "arguments": c.args, "type": "function"});
                // A call belongs to the assistant message before it; a call with none gets its own.
                match messages.last_mut().filter(|m| m["role"] == "assistant") {
                    Some(last) => {
                        if let Some(calls) = last["tool_calls"].as_array_mut() {
                            calls.push(call);
                        }
                    }
                    None => messages.push(json!({
                        "id": format!("m{}", event.seq),
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [call],
                        "metadata": ours(c.turn, json!({"from": "assistant"})),
                    })),
                }
                let (result, ok) = results.get(c.call_id.as_str()).copied().unwrap_or(("", true));
                let mut tool = json!({
                    "event": "tool", "type": "function", "id": c.call_id, "function": c.tool,
                    "arguments": c.args, "result": result, "timestamp": event.at,
                });
                if !ok {
                    tool["error"] = json!({"type": "unknown", "message": result});
                }
                events.push(tool);
            }
            EventBody::ToolResult(r) => {
                let mut message = json!({
                    "id": format!("m{}", event.seq),
                    "role": "tool",
                    "content": r.output,
                    "tool_call_id": r.call_id,
                    "function": r.tool,
                    "metadata": ours(r.turn, json!({"ok": r.ok})),
                });
                if !r.ok {
                    message["error"] = json!({"type": "unknown", "message": r.output});
                }
                messages.push(message);
            }
            _ => {}
        }
    }
    // Inspect leaves `tool_calls` out of an assistant message that made none.
    for message in &mut messages {
        if message["tool_calls"].as_array().is_some_and(Vec::is_empty)
            && let Some(m) = message.as_object_mut()
        {
            m.remove("tool_calls");
        }
    }
    (messages, events)
}

/// The last verdict of each source, as scores.
fn scores(episode: &Episode) -> Map<String, Value> {
    let verdicts: Vec<&Verdict> = episode
        .events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Verdict(v) => Some(&**v),
            _ => None,
        })
        .collect();
    let mut sources: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for v in &verdicts {
        let source = source_label(v.method, v.model.as_deref());
        let known = sources.entry(v.judge.as_str()).or_default();
        if !known.contains(&source) {
            known.push(source);
        }
    }
    let mut scores = Map::new();
    for v in verdicts {
        let source = source_label(v.method, v.model.as_deref());
        let key = if sources[v.judge.as_str()].len() > 1 {
            format!("{} ({source})", v.judge)
        } else {
            v.judge.clone()
        };
        let mut metadata = json!({"outcome": v.outcome.as_str(), "source": source, "score": v.score});
        if let Some(turn) = v.turn {
            metadata["turn"] = json!(turn);
        }
        if let Some(evidence) = &v.evidence {
            metadata["evidence"] = serde_json::to_value(evidence).unwrap_or_default();
        }
        if !v.details.is_null() {
            metadata["details"] = v.details.clone();
        }
        scores.insert(
            key,
            json!({"value": value_of(v.outcome, v.score), "explanation": v.summary, "metadata": metadata}),
        );
    }
    scores
}

fn summary(sample: &Value) -> Value {
    let mut summary = Map::new();
    for key in ["id", "epoch", "input", "target", "scores", "metadata", "started_at", "completed_at", "error"]
    {
        if let Some(value) = sample.get(key) {
            summary.insert(key.into(), value.clone());
        }
    }
    summary.insert("completed".into(), Value::Bool(true));
    summary.insert("message_count".into(), json!(sample["messages"].as_array().map_or(0, Vec::len)));
    let assistant =
        sample["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "assistant").count();
    summary.insert("turn_count".into(), json!(assistant));
    Value::Object(summary)
}

fn header(episodes: &[(&Episode, Vec<AnnotationView>)], samples: &[Value], created: &str) -> Value {
    let first = episodes.first().map(|(e, _)| e.header());
    let tasks: Vec<&str> = episodes.iter().filter_map(|(e, _)| e.header().task.domain.as_deref()).collect();
    // One task name when every episode agrees on its domain (an Inspect task), else ours.
    let task = match tasks.first() {
        Some(t) if tasks.len() == episodes.len() && tasks.iter().all(|x| x == t) => t.to_string(),
        _ => TASK.to_string(),
    };
    let model = first
        .and_then(|h| h.config.models.get("assistant"))
        .and_then(Value::as_str)
        .unwrap_or("none/none")
        .to_string();
    let mut unique: Vec<Value> = Vec::new();
    for sample in samples {
        if !unique.contains(&sample["id"]) {
            unique.push(sample["id"].clone());
        }
    }
    let models: Map<String, Value> = first.map(|h| h.config.models.clone()).unwrap_or_default();
    json!({
        "version": 2,
        "status": "success",
        "eval": {
            "created": created,
            "task": task,
            "task_version": 0,
            "dataset": {"name": task, "samples": unique.len(), "sample_ids": unique},
            "model": model,
            "config": {},
            "metadata": {"written_by": "converse-tui", "models": models},
        },
        "plan": {"name": "plan", "steps": []},
        "results": {"total_samples": samples.len(), "completed_samples": samples.len()},
        "stats": {"started_at": created, "completed_at": created},
    })
}
