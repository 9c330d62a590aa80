//! The `.eval` reader over attachments and condensed events (issue 36): the input is decoded into
//! a sample — attachments, messages whose texts, content parts and tool arguments refer to them
//! (or to none), a condensed message pool, model calls whose `input_refs` are any ranges of it,
//! branch spans and anchors, an audit's model roles — zipped with its header and summaries. The
//! log loads or fails with one `path: problem` line, never a panic, and what it loads stays
//! within a bound of its content: its attachments held once, their copies and its forks'
//! conversations within their budgets (small in the fuzz build, so they are reached).
#![no_main]

use std::io::{Cursor, Write};
use std::path::Path;

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use zip::write::SimpleFileOptions;

use converse_tui::core::import::inspect::{BRANCHES_WEIGH, COPIES, LONG};

const KEYS: usize = 4;

/// A text: plain, a reference (to an attachment or to none), or a reference inside a text.
fn text(u: &mut Unstructured) -> Result<String> {
    let key = u.int_in_range(0..=KEYS)?;
    Ok(match u.int_in_range(0..=3)? {
        0 => u.arbitrary::<String>()?,
        1 | 2 => format!("attachment://k{key}"),
        _ => format!("<{}attachment://k{key}>", u.arbitrary::<String>()?),
    })
}

fn message(u: &mut Unstructured) -> Result<Value> {
    let role = *u.choose(&["user", "assistant", "tool", "system"])?;
    let content = if u.arbitrary()? {
        json!(text(u)?)
    } else {
        let parts: Result<Vec<Value>> = (0..u.int_in_range(0..=3)?)
            .map(|_| {
                let kind = *u.choose(&["text", "reasoning", "image"])?;
                Ok(json!({"type": kind, "text": text(u)?, "reasoning": text(u)?}))
            })
            .collect();
        Value::Array(parts?)
    };
    let mut message = json!({"role": role, "content": content});
    if role == "assistant" && u.arbitrary()? {
        message["tool_calls"] =
            json!([{"id": "c", "function": "f", "arguments": {"a": text(u)?, "b": [text(u)?]}}]);
    }
    if role == "tool" {
        message["tool_call_id"] = json!("c");
    }
    Ok(message)
}

fn messages(u: &mut Unstructured, most: usize) -> Result<Vec<Value>> {
    (0..u.int_in_range(0..=most)?).map(|_| message(u)).collect()
}

/// Condensed inputs: any ranges, reversed and past the pool's end included.
fn refs(u: &mut Unstructured) -> Result<Value> {
    let ranges: Result<Vec<Value>> = (0..u.int_in_range(0..=3)?)
        .map(|_| Ok(json!([u.int_in_range(0..=40u32)?, u.int_in_range(0..=40u32)?])))
        .collect();
    Ok(Value::Array(ranges?))
}

fn events(u: &mut Unstructured) -> Result<Vec<Value>> {
    let mut events = vec![json!({"event": "anchor", "anchor_id": "a0"})];
    for b in 0..u.int_in_range(0..=40)? {
        let span = format!("s{b}");
        let parent = if b > 0 && u.arbitrary()? { json!(format!("s{}", b - 1)) } else { Value::Null };
        events.push(json!({"event": "span_begin", "id": span, "parent_id": parent, "type": "branch", "name": text(u)?}));
        events.push(json!({"event": "branch", "span_id": span, "from_anchor": format!("a{}", u.int_in_range(0..=b)?)}));
        events.push(json!({"event": "anchor", "anchor_id": format!("a{}", b + 1), "span_id": span}));
        let mut call = json!({"event": "model", "span_id": span, "role": *u.choose(&["target", "auditor"])?,
            "output": {"choices": [{"message": message(u)?}]}});
        if u.arbitrary()? {
            call["input_refs"] = refs(u)?;
        } else {
            call["input"] = Value::Array(messages(u, 3)?);
        }
        events.push(call);
        events.push(json!({"event": "score", "span_id": span, "scorer": "s", "score": {"value": text(u)?}}));
    }
    if u.arbitrary()? {
        events.push(json!({"event": "model", "role": "target", "input_refs": refs(u)?,
            "output": {"choices": [{"message": message(u)?}]}}));
    }
    Ok(events)
}

fn sample(u: &mut Unstructured) -> Result<Value> {
    let mut attachments = serde_json::Map::new();
    for key in 0..u.int_in_range(0..=KEYS)? {
        // Short and long texts alike (a long one is taken out of the stream as it inflates).
        let piece = u.arbitrary::<String>()?;
        let times = u.int_in_range(1..=LONG * 2)?;
        attachments
            .insert(format!("k{key}"), json!(piece.repeat(times.min(LONG * 2 / piece.len().max(1)).max(1))));
    }
    Ok(json!({
        "id": text(u)?, "epoch": 1, "input": text(u)?, "target": text(u)?,
        "messages": messages(u, 30)?,
        "scores": {"s": {"value": "C", "explanation": text(u)?, "answer": text(u)?}},
        "metadata": {"m": text(u)?},
        "attachments": attachments,
        "events": events(u)?,
        "events_data": {"messages": messages(u, 30)?},
    }))
}

fn archive(sample: &Value, audit: bool) -> Vec<u8> {
    let roles = if audit { json!({"auditor": {"model": "a"}, "target": {"model": "t"}}) } else { json!({}) };
    let header =
        json!({"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "model_roles": roles}});
    let summaries = json!([{"id": sample["id"], "epoch": 1, "input": sample["input"]}]);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, value) in
        [("header.json", &header), ("samples/s_epoch_1.json", sample), ("summaries.json", &summaries)]
    {
        zip.start_file(name, options).unwrap();
        zip.write_all(value.to_string().as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (Ok(sample), Ok(audit)) = (sample(&mut u), u.arbitrary::<bool>()) else { return };
    let bytes = archive(&sample, audit);
    match converse_tui::core::import::load_bytes(&bytes, Path::new("fuzz.eval")) {
        Ok(episodes) => {
            let loaded: usize = episodes
                .iter()
                .flat_map(|e| e.events.iter())
                .map(|event| serde_json::to_string(event).map_or(0, |s| s.len()))
                .sum();
            // The content once (written out a few times over: ids, turns, parties), the copies and
            // the forks' conversations within their budgets, a header and a reference line each.
            let bound = 8 * bytes.len() + 4 * (COPIES + BRANCHES_WEIGH) + 2048 * episodes.len();
            assert!(loaded <= bound, "{loaded} bytes loaded from {} bytes (bound {bound})", bytes.len());
        }
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "error is not one line: {line:?}");
            assert!(line.starts_with("fuzz.eval"), "error does not name the file: {line:?}");
        }
    }
});
