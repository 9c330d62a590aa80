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
        self.named(text).unwrap_or(text).to_string()
    }

    /// [`Self::resolve`] taking the text: an ordinary text is moved, not copied.
    pub fn resolve_owned(&self, text: String) -> String {
        match self.named(&text) {
            Some(found) => found.to_string(),
            None => text,
        }
    }

    fn named(&self, text: &str) -> Option<&str> {
        text.strip_prefix(ATTACHMENT).and_then(|key| self.0.get(key)).and_then(Value::as_str)
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

    /// What a message says, and its reasoning when it shows any; the content is taken, so a huge
    /// text is moved into the event, never copied.
    pub fn take_text(&self, content: Content) -> (String, Option<String>) {
        match content {
            Content::Text(text) => (self.resolve_owned(text), None),
            Content::Parts(parts) => {
                let mut text = Vec::new();
                let mut reasoning = Vec::new();
                for part in parts {
                    match part.kind.as_str() {
                        "text" => text.push(self.resolve_owned(part.text.unwrap_or_default())),
                        "reasoning" if part.redacted => reasoning.push("[reasoning redacted]".to_string()),
                        "reasoning" => {
                            let said = part.reasoning.or(part.summary).unwrap_or_default();
                            reasoning.push(self.resolve_owned(said));
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
                .map(|m| attachments.take_text(m.content).0)
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}
