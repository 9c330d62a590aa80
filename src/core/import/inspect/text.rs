//! The text of Inspect content, with `attachment://` references swapped for what they name.

use serde_json::{Map, Value};

use super::schema::{ChatMessage, Content};

const ATTACHMENT: &str = "attachment://";

/// A sample's attachments (texts moved out of its messages and events, by hash or index).
pub struct Attachments<'a>(pub &'a Map<String, Value>);

impl Attachments<'_> {
    /// `text`, or the attachment it names. A reference to an attachment the sample does not
    /// hold is kept as written (Inspect's reader does the same).
    pub fn resolve(&self, text: &str) -> String {
        match text.strip_prefix(ATTACHMENT).and_then(|key| self.0.get(key)).and_then(Value::as_str) {
            Some(found) => found.to_string(),
            None => text.to_string(),
        }
    }

    /// A JSON value (tool arguments) with every string that is a reference resolved.
    pub fn resolve_value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.resolve(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.resolve_value(v)).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), self.resolve_value(v))).collect())
            }
            other => other.clone(),
        }
    }

    /// What a message says, and its reasoning when it shows any.
    pub fn message_text(&self, message: &ChatMessage) -> (String, Option<String>) {
        match &message.content {
            Content::Text(text) => (self.resolve(text), None),
            Content::Parts(parts) => {
                let mut text = Vec::new();
                let mut reasoning = Vec::new();
                for part in parts {
                    match part.kind.as_str() {
                        "text" => text.push(self.resolve(part.text.as_deref().unwrap_or_default())),
                        "reasoning" if part.redacted => reasoning.push("[reasoning redacted]".to_string()),
                        "reasoning" => {
                            let said =
                                part.reasoning.as_deref().or(part.summary.as_deref()).unwrap_or_default();
                            reasoning.push(self.resolve(said));
                        }
                        // Media are not shown in a terminal: their place is marked.
                        kind @ ("image" | "audio" | "video" | "document" | "data") => {
                            text.push(format!("[{kind}]"))
                        }
                        _ => {}
                    }
                }
                let reasoning = (!reasoning.is_empty()).then(|| reasoning.join("\n"));
                (text.join("\n"), reasoning)
            }
        }
    }
}

/// The text of the sample's input: a string, or the texts of its messages.
pub fn input_text(input: &Value, attachments: &Attachments) -> Option<String> {
    match input {
        Value::String(text) => Some(attachments.resolve(text)),
        Value::Array(messages) => {
            let texts: Vec<String> = messages
                .iter()
                .filter_map(|m| serde_json::from_value::<ChatMessage>(m.clone()).ok())
                .map(|m| attachments.message_text(&m).0)
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}
