//! What the LLM judges read, rendered from events (reference §4.0):
//! the dialogue as `External Agent:` / `Assistant:` lines, the tool traffic as
//! `Assistant: [calls tool(args)]` / `Environment: output` lines, and the final package.

use crate::core::episode::{Event, EventBody, Party};

/// Events up to and including `turn` (all of them for `None`); verdicts are left out.
pub fn up_to_turn(events: &[Event], turn: Option<u32>) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| !matches!(e.body, EventBody::Verdict(_)))
        .filter(|e| match (turn, e.body.turn()) {
            (Some(limit), Some(t)) => t <= limit,
            _ => true,
        })
        .collect()
}

/// The dialogue the assistant took part in. As in the reference, whatever
/// reaches the assistant from outside (the user's task first, then the
/// provider) is labelled `External Agent`.
pub fn conversation(events: &[&Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Message(m) if m.from == Party::Assistant && m.to != Party::Environment => {
                Some(format!("Assistant: {}", m.text))
            }
            EventBody::Message(m)
                if m.to == Party::Assistant && matches!(m.from, Party::Attacker | Party::User) =>
            {
                Some(format!("External Agent: {}", m.text))
            }
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The assistant's tool calls and their results; dialogue is left out.
pub fn tool_traffic(events: &[&Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolCall(c) => {
                let args = c.raw_args.clone().unwrap_or_else(|| c.args.to_string());
                let name = if c.tool.is_empty() { "unknown_tool" } else { c.tool.as_str() };
                Some(format!("Assistant: [calls {name}({args})]"))
            }
            EventBody::ToolResult(r) => Some(format!("Environment: {}", r.output)),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last non-empty assistant message: the final package (reference §4.2).
pub fn final_package(events: &[&Event]) -> Option<(u64, String)> {
    events.iter().rev().find_map(|e| match &e.body {
        EventBody::Message(m) if m.from == Party::Assistant && !m.text.trim().is_empty() => {
            Some((e.seq, m.text.clone()))
        }
        _ => None,
    })
}

/// `- item` lines.
pub fn bullets(items: &[String]) -> String {
    items.iter().map(|s| format!("- {s}")).collect::<Vec<_>>().join("\n")
}

/// The first `max` characters on one line, for summaries.
pub fn short(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > max {
        format!("{}…", one_line.chars().take(max).collect::<String>())
    } else {
        one_line
    }
}
