//! The detail overlay: one event in full (text, raw model output, JSON), or a
//! verdict with its evidence and the judge's reasoning.

use std::ops::Range;

use serde_json::Value;

use crate::core::episode::{Event, EventBody, position_of};
use crate::core::sanitize::inert;

use super::wrap::wrap;

pub struct Detail {
    pub title: String,
    pub body: String,
    pub lines: Vec<Range<usize>>,
    width: usize,
    pub scroll: usize,
}

impl Detail {
    pub fn of_event(event: &Event, events: &[Event]) -> Self {
        let what = match &event.body {
            EventBody::Verdict(v) => {
                let model = v.model.as_deref().map(|m| format!(", {m}")).unwrap_or_default();
                format!(
                    "verdict {} ({}{model}) {}",
                    v.judge,
                    v.method.as_str(),
                    v.outcome.as_str().to_uppercase()
                )
            }
            other => other.kind().to_string(),
        };
        let title = format!("#{} {what}{}", event.seq, turn_label(event));
        let mut body = String::new();
        match &event.body {
            EventBody::Message(m) => {
                let title = if m.is_note() {
                    format!("{} · own note", m.from.as_str())
                } else {
                    format!("{} → {}", m.from.as_str(), m.to.as_str())
                };
                section(&mut body, &title, &m.text);
                if let Some(raw) = &m.raw {
                    section(&mut body, "RAW MODEL OUTPUT", raw);
                }
            }
            EventBody::ToolResult(r) => section(&mut body, &format!("OUTPUT of {}", r.tool), &r.output),
            EventBody::Verdict(v) => {
                if let Some(summary) = &v.summary {
                    section(&mut body, "SUMMARY", summary);
                }
                if let Some(e) = &v.evidence {
                    let quoted = e.text.clone().unwrap_or_default();
                    let target = position_of(events, e.seq)
                        .map(|i| format!(" in #{}{}", e.seq, turn_label(&events[i])));
                    section(&mut body, &format!("EVIDENCE{}", target.unwrap_or_default()), &quoted);
                }
                questions(&mut body, &v.details);
                reasoning(&mut body, &v.details);
            }
            _ => {}
        }
        let json = serde_json::to_string_pretty(event).unwrap_or_default();
        section(&mut body, "JSON", &json);
        Detail::new(title, body)
    }

    /// A detail whose body is made inert here, once, so drawing never sees raw text.
    pub fn new(title: String, body: String) -> Self {
        Detail { title, body: inert(&body).into_owned(), lines: Vec::new(), width: 0, scroll: 0 }
    }

    pub fn set_width(&mut self, width: usize) {
        if width != self.width {
            self.width = width;
            self.lines = wrap(&self.body, width);
        }
    }

    pub fn scroll_by(&mut self, delta: isize, viewport: usize) {
        let max = self.lines.len().saturating_sub(viewport) as isize;
        self.scroll = (self.scroll as isize + delta).clamp(0, max.max(0)) as usize;
    }
}

fn turn_label(event: &Event) -> String {
    event.body.turn().map(|t| format!(" · turn {t}")).unwrap_or_default()
}

pub(super) fn section(out: &mut String, heading: &str, text: &str) {
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str("── ");
    out.push_str(heading);
    out.push_str(" ──\n");
    out.push_str(text);
}

/// Imported judges carry question/answer pairs; show them as a list.
fn questions(out: &mut String, details: &Value) {
    let Some(list) = details.get("questions").and_then(Value::as_array) else {
        return;
    };
    let text: Vec<String> = list
        .iter()
        .map(|q| {
            let field = |k: &str| q.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            format!("{}: {}\n    → {}", field("id"), field("question"), field("answer"))
        })
        .collect();
    section(out, "QUESTIONS AND ANSWERS", &text.join("\n"));
}

/// An LLM judge's reasoning, wherever the judge put it.
fn reasoning(out: &mut String, details: &Value) {
    let found = ["reasoning", "REASONING"].iter().find_map(|k| {
        details
            .get(*k)
            .or_else(|| details.get("llm_evaluation").and_then(|l| l.get(*k)))
            .or_else(|| details.get("coverage").and_then(|l| l.get(*k)))
            // ConVerse benchmark utility judges.
            .or_else(|| details.get("utility_evaluation").and_then(|l| l.get(*k)))
            .and_then(Value::as_str)
    });
    if let Some(text) = found {
        section(out, "REASONING", text);
    }
}
