//! The detail overlay: one event in full (text, raw model output, JSON), or a
//! verdict with its evidence and the judge's reasoning.
//!
//! Bounded for huge events: the body is wrapped lazily (as far as it is shown, like the panes),
//! and the JSON section shortens texts longer than [`JSON_TEXT_LIMIT`] (they are shown whole
//! above it), so a 50 MB message costs one copy of its text, not a pretty-printed second one.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use crate::core::episode::{ErrorEvent, Event, EventBody, Message, ToolCall, ToolResult, position_of};
use crate::core::sanitize::inert;

use super::wrap::LazyWrap;

/// Bytes of a text the JSON section shows; the rest is named, not repeated.
pub const JSON_TEXT_LIMIT: usize = 4096;

/// Bodies up to this many bytes are wrapped whole when the overlay is laid out; longer ones as
/// far as they are shown.
const EAGER_WRAP: usize = 256 * 1024;

pub struct Detail {
    pub title: String,
    pub body: String,
    /// `body` wrapped at the overlay's width, as far as it was shown.
    wrap: LazyWrap,
    viewport: usize,
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
        let json = serde_json::to_string_pretty(&bounded(event)).unwrap_or_default();
        section(&mut body, "JSON", &json);
        Detail::new(title, body)
    }

    /// A detail whose body is made inert here, once, so drawing never sees raw text.
    pub fn new(title: String, body: String) -> Self {
        let body = match inert(&body) {
            Cow::Borrowed(_) => body,
            Cow::Owned(sanitized) => sanitized,
        };
        Detail { title, body, wrap: LazyWrap::new(0), viewport: 0, scroll: 0 }
    }

    /// The overlay's text width and rows; a new width forgets the wrap. Wraps what is shown.
    pub fn set_size(&mut self, width: usize, viewport: usize) {
        if width.max(1) != self.wrap.width() || self.wrap.lines().is_empty() {
            self.wrap = LazyWrap::new(width);
        }
        self.viewport = viewport;
        // A body of ordinary size is wrapped whole at once: its scrollbar is exact from the start.
        let rows = if self.body.len() <= EAGER_WRAP { usize::MAX } else { self.scroll + viewport };
        self.wrap.ensure(&self.body, rows);
    }

    /// Scrolls, wrapping as far as the new position shows (to the end once, for the end).
    pub fn scroll_by(&mut self, delta: isize, viewport: usize) {
        self.viewport = viewport;
        let wanted = (self.scroll as isize + delta).max(0) as usize;
        let known = self.wrap.ensure(&self.body, wanted.saturating_add(viewport));
        let max = known.saturating_sub(viewport);
        self.scroll = wanted.min(max);
        self.wrap.ensure(&self.body, self.scroll + viewport);
    }

    /// The lines wrapped so far (at least those from `scroll` down the overlay).
    pub fn lines(&self) -> &[Range<usize>] {
        self.wrap.lines()
    }

    /// Lines of the whole body: exact once wrapped to its end, estimated before.
    pub fn total_lines(&self) -> usize {
        let known = self.wrap.lines().len();
        if self.wrap.complete() {
            known
        } else {
            known + self.wrap.remaining(&self.body).div_ceil(self.wrap.width())
        }
    }
}

/// `event`, its texts longer than [`JSON_TEXT_LIMIT`] shortened with a note (no copy of them).
fn bounded(event: &Event) -> Cow<'_, Event> {
    fn cut(text: &str) -> String {
        if text.len() <= JSON_TEXT_LIMIT {
            return text.to_string();
        }
        let end = (0..=JSON_TEXT_LIMIT).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        format!("{}… [{} more bytes: the whole text is shown above]", &text[..end], text.len() - end)
    }
    let long = |text: &str| text.len() > JSON_TEXT_LIMIT;
    let long_opt = |text: &Option<String>| text.as_deref().is_some_and(long);
    let body = match &event.body {
        EventBody::Message(m) if long(&m.text) || long_opt(&m.raw) => EventBody::Message(Message {
            turn: m.turn,
            from: m.from,
            to: m.to,
            text: cut(&m.text),
            raw: m.raw.as_deref().map(cut),
            model: m.model.clone(),
            usage: m.usage,
            by: m.by.clone(),
        }),
        EventBody::ToolResult(r) if long(&r.output) || long_opt(&r.raw) => {
            EventBody::ToolResult(ToolResult {
                turn: r.turn,
                call_id: r.call_id.clone(),
                tool: r.tool.clone(),
                output: cut(&r.output),
                ok: r.ok,
                raw: r.raw.as_deref().map(cut),
            })
        }
        EventBody::ToolCall(c) if long_opt(&c.raw) || long_opt(&c.raw_args) => EventBody::from(ToolCall {
            raw: c.raw.as_deref().map(cut),
            raw_args: c.raw_args.as_deref().map(cut),
            ..(**c).clone()
        }),
        EventBody::Error(e) if long(&e.message) => {
            EventBody::Error(ErrorEvent { message: cut(&e.message), ..e.clone() })
        }
        _ => return Cow::Borrowed(event),
    };
    Cow::Owned(Event { seq: event.seq, at: event.at.clone(), body })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::Party;

    fn message(text: String) -> Event {
        let body = EventBody::Message(Message::new(1, Party::Assistant, Party::User, text));
        Event { seq: 2, at: "2026-11-22T00:00:00Z".into(), body }
    }

    /// Issue 14: a 20 MB message opens in the detail overlay with one copy of its text (the JSON
    /// section shortens it), wrapped only as far as it is shown, and to its end once.
    #[test]
    fn a_huge_message_is_bounded_and_wrapped_lazily() {
        let text = "lorem ipsum dolor sit amet ".repeat(800_000);
        let event = message(text.clone());
        let mut detail = Detail::of_event(&event, std::slice::from_ref(&event));
        assert!(detail.body.len() < text.len() + 2 * JSON_TEXT_LIMIT, "{} bytes", detail.body.len());
        assert!(
            detail
                .body
                .contains(&format!("… [{} more bytes: the whole text is shown above]", text.len() - 4096))
        );
        detail.set_size(80, 40);
        assert!(detail.lines().len() < 100, "opening wraps one screen: {}", detail.lines().len());
        let estimate = detail.total_lines();
        detail.scroll_by(1000, 40);
        assert_eq!(detail.scroll, 1000);
        assert!(detail.lines().len() < 1100);
        detail.scroll_by(isize::MAX / 2, 40);
        let total = detail.lines().len();
        assert_eq!(detail.total_lines(), total, "the end was wrapped");
        assert_eq!(detail.scroll, total - 40, "the end fills the overlay");
        assert!(estimate.abs_diff(total) < total / 5, "estimate {estimate}, exact {total}");
        detail.set_size(60, 40);
        assert!(detail.lines().len() < detail.scroll + 100, "a resize rewraps what is shown");
    }

    /// Small events keep their whole JSON (unchanged screens).
    #[test]
    fn a_small_event_shows_its_whole_json() {
        let event = message("short text".into());
        let detail = Detail::of_event(&event, std::slice::from_ref(&event));
        assert!(detail.body.contains("\"text\": \"short text\""));
        assert!(matches!(bounded(&event), Cow::Borrowed(_)));
    }
}
