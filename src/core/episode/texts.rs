//! Every text an event holds (what a party wrote, tool arguments and outputs, a verdict's words,
//! the task's texts): walked to read them, or to change them in place.

use serde_json::Value;

use super::EventBody;

/// Calls `f` on every text an event holds.
pub fn each_text<'a>(body: &'a EventBody, f: &mut dyn FnMut(&'a str)) {
    match body {
        EventBody::Episode(header) => {
            let task = &header.task;
            [&task.user_task, &task.attack_goal, &task.data_item].into_iter().flatten().for_each(|t| f(t));
            task.persona.iter().chain(task.extra.values()).for_each(|v| each_value_text(v, f));
            header.config.extra.values().for_each(|v| each_value_text(v, f));
        }
        EventBody::Message(m) => std::iter::once(m.text.as_str()).chain(m.raw.as_deref()).for_each(f),
        EventBody::ToolCall(c) => {
            each_value_text(&c.args, f);
            c.raw_args.as_deref().into_iter().chain(c.raw.as_deref()).for_each(f);
        }
        EventBody::ToolResult(r) => std::iter::once(r.output.as_str()).chain(r.raw.as_deref()).for_each(f),
        EventBody::Verdict(v) => {
            v.summary.as_deref().into_iter().for_each(&mut *f);
            each_value_text(&v.details, f);
            v.evidence.iter().filter_map(|e| e.text.as_deref()).for_each(f);
        }
        EventBody::Error(e) => f(&e.message),
        EventBody::Control(_) | EventBody::End(_) => {}
    }
}

pub fn each_value_text<'a>(value: &'a Value, f: &mut dyn FnMut(&'a str)) {
    match value {
        Value::String(text) => f(text),
        Value::Array(items) => items.iter().for_each(|v| each_value_text(v, f)),
        Value::Object(map) => map.values().for_each(|v| each_value_text(v, f)),
        _ => {}
    }
}

/// Calls `f` on every text an event holds, to change it.
pub fn each_text_mut(body: &mut EventBody, f: &mut dyn FnMut(&mut String)) {
    match body {
        EventBody::Episode(header) => {
            let task = &mut header.task;
            [&mut task.user_task, &mut task.attack_goal, &mut task.data_item]
                .into_iter()
                .flatten()
                .for_each(&mut *f);
            task.persona.iter_mut().chain(task.extra.values_mut()).for_each(|v| each_value_text_mut(v, f));
            header.config.extra.values_mut().for_each(|v| each_value_text_mut(v, f));
        }
        EventBody::Message(m) => std::iter::once(&mut m.text).chain(m.raw.as_mut()).for_each(f),
        EventBody::ToolCall(c) => {
            each_value_text_mut(&mut c.args, f);
            c.raw_args.iter_mut().chain(c.raw.iter_mut()).for_each(f);
        }
        EventBody::ToolResult(r) => std::iter::once(&mut r.output).chain(r.raw.as_mut()).for_each(f),
        EventBody::Verdict(v) => {
            v.summary.iter_mut().for_each(&mut *f);
            each_value_text_mut(&mut v.details, f);
            v.evidence.iter_mut().flat_map(|e| e.text.iter_mut()).for_each(f);
        }
        EventBody::Error(e) => f(&mut e.message),
        EventBody::Control(_) | EventBody::End(_) => {}
    }
}

pub fn each_value_text_mut(value: &mut Value, f: &mut dyn FnMut(&mut String)) {
    match value {
        Value::String(text) => f(text),
        Value::Array(items) => items.iter_mut().for_each(|v| each_value_text_mut(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| each_value_text_mut(v, f)),
        _ => {}
    }
}
