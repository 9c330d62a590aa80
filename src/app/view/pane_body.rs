//! Which pane shows an event, and the text it shows there.

use crate::core::episode::{EventBody, Party};
use crate::core::redact::Redactor;
use crate::core::sanitize::inert;

use super::super::layout::PaneId;

pub(super) fn pane_slot(id: PaneId) -> Option<usize> {
    match id {
        PaneId::Attacker => Some(0),
        PaneId::Assistant => Some(1),
        PaneId::Tools => Some(2),
        PaneId::Verdicts => None,
    }
}

/// Which pane shows an event, and the (masked, sanitized) text it shows where that is not the
/// event's own text as it is (`None`: the pane borrows the event's text, see `app::pane::event_text`).
pub(super) fn pane_body(body: &EventBody, mask: Option<&Redactor>) -> Option<(usize, Option<String>)> {
    use std::borrow::Cow;
    // Own a copy only where masking or sanitizing changed the text.
    let shown = |text: &str| match mask.map(|mask| mask.redact(text)) {
        Some(Cow::Owned(masked)) => Some(inert(&masked).into_owned()),
        _ => match inert(text) {
            Cow::Borrowed(_) => None,
            Cow::Owned(sanitized) => Some(sanitized),
        },
    };
    let made = |text: String| match mask {
        Some(mask) => Some(inert(&mask.redact(&text)).into_owned()),
        None => Some(inert(&text).into_owned()),
    };
    match body {
        EventBody::Message(m) => {
            let slot = match m.from {
                Party::Attacker | Party::User => 0,
                Party::Assistant => 1,
                Party::Environment => 2,
            };
            Some((slot, shown(&m.text)))
        }
        EventBody::ToolCall(c) => {
            let args = match &c.raw_args {
                Some(raw) => format!("unparsable arguments: {raw}"),
                None => readable_args(&c.args),
            };
            Some((2, made(args)))
        }
        EventBody::ToolResult(r) => Some((2, shown(&r.output))),
        EventBody::Error(e) => Some((2, shown(&e.message))),
        EventBody::Control(c) => Some((2, Some(c.action.as_str().to_string()))),
        EventBody::End(end) => Some((2, Some(format!("{} after {} turns", end.reason.as_str(), end.turns)))),
        EventBody::Episode(_) | EventBody::Verdict(_) => None,
    }
}

/// Tool arguments as `name: value` lines; multi-line strings (a ConVerse
/// environment request, an email body) shown as text, not as escaped JSON.
fn readable_args(args: &serde_json::Value) -> String {
    let Some(map) = args.as_object() else { return args.to_string() };
    if map.is_empty() {
        return "(no arguments)".to_string();
    }
    let mut out = Vec::new();
    for (name, value) in map {
        match value {
            serde_json::Value::String(text) if text.trim().contains('\n') => {
                out.push(format!("{name}:"));
                out.extend(text.trim().lines().map(|line| format!("  {line}")));
            }
            serde_json::Value::String(text) => out.push(format!("{name}: {text}")),
            other => out.push(format!("{name}: {other}")),
        }
    }
    out.join("\n")
}
