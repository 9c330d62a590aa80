//! Why a model call failed, said so a person can act on it.

use std::time::Duration;

use serde_json::Value;

use super::endpoint::{Endpoint, Role};
use crate::core::text::truncate_chars as truncate;

/// A failed model call: which role, endpoint and model, why, and after how many attempts.
///
/// Every server-provided text in it has had the API key replaced by `***`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{role} model `{model}` at {base_url} failed after {attempts} attempt{s}: {kind}", s = if *.attempts == 1 { "" } else { "s" })]
pub struct LlmError {
    pub role: Role,
    pub base_url: String,
    pub model: String,
    pub attempts: u32,
    pub kind: LlmErrorKind,
}

impl LlmError {
    pub(crate) fn new(endpoint: &Endpoint, attempts: u32, kind: LlmErrorKind) -> Self {
        LlmError {
            role: endpoint.role,
            base_url: endpoint.base_url.clone(),
            model: endpoint.model.clone(),
            attempts,
            kind,
        }
    }

    /// The HTTP status, when the server answered with an error status.
    pub fn status(&self) -> Option<u16> {
        match self.kind {
            LlmErrorKind::Http { status, .. } => Some(status),
            _ => None,
        }
    }
}

/// The cause of an [`LlmError`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmErrorKind {
    /// The server answered with a non-success status; `message` is its error message or body text.
    #[error("HTTP {status}: {message}")]
    Http { status: u16, message: String },
    /// No complete answer within the endpoint's `timeout`.
    #[error("timed out after {0:?} waiting for the response")]
    Timeout(Duration),
    /// A stream went silent for longer than the endpoint's `idle_timeout`.
    #[error("stream stalled: no data for {0:?}")]
    IdleTimeout(Duration),
    /// Could not connect, or the connection broke.
    #[error("connection error: {0}")]
    Connection(String),
    /// A 2xx answer we cannot read (invalid JSON, no choices, bad stream chunk).
    #[error("invalid response: {0}")]
    InvalidResponse(String),
    /// The server sent an error inside a stream.
    #[error("error in stream: {0}")]
    Stream(String),
    /// A stream broke after output had already been forwarded; not retried,
    /// because a retry would repeat deltas the caller has shown.
    #[error("stream interrupted after output began: {0}")]
    Interrupted(String),
    /// The request could not be built (e.g. an invalid base URL).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The reply (a body, or a stream's text and tool calls) went past the endpoint's cap.
    #[error("reply larger than {} (the cap is `max_reply_mb` of the role in the config file)", size(*.0))]
    TooLarge(usize),
    /// The command's call budget (`attack --budget`) was spent: the call was not made.
    #[error(transparent)]
    Budget(#[from] super::budget::BudgetSpent),
}

/// Bytes as a person reads them: `8 MB`, `512 KB`, `100 bytes`.
fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KB", b >> 10),
        b => format!("{b} bytes"),
    }
}

impl LlmErrorKind {
    /// Worth another attempt: 429, 5xx, timeouts, connection errors.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmErrorKind::Http { status, .. } => *status == 429 || *status >= 500,
            LlmErrorKind::Timeout(_) | LlmErrorKind::IdleTimeout(_) | LlmErrorKind::Connection(_) => true,
            LlmErrorKind::InvalidResponse(_)
            | LlmErrorKind::Stream(_)
            | LlmErrorKind::Interrupted(_)
            | LlmErrorKind::InvalidRequest(_)
            | LlmErrorKind::TooLarge(_)
            | LlmErrorKind::Budget(_) => false,
        }
    }
}

/// Longest server text kept in an error.
pub(crate) const MAX_MESSAGE: usize = 500;

/// The server's message from an error body: OpenAI's `{"error":{"message"}}`, a few
/// common variants, or else the body text itself, truncated.
pub(crate) fn server_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let from_json = serde_json::from_str::<Value>(&text).ok().and_then(|v| server_message_from_value(&v));
    if let Some(msg) = from_json {
        return truncate(&msg, MAX_MESSAGE);
    }
    let text = text.trim();
    if text.is_empty() { "(empty body)".to_string() } else { truncate(text, MAX_MESSAGE) }
}

pub(crate) fn server_message_from_value(value: &Value) -> Option<String> {
    let err = value.get("error").unwrap_or(value);
    let msg = match err {
        Value::String(s) => Some(s.clone()),
        Value::Object(_) => {
            ["message", "detail", "error"].iter().find_map(|k| err.get(*k)).map(|m| match m {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
        }
        _ => None,
    }?;
    Some(msg.trim().to_string()).filter(|m| !m.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_messages() {
        assert_eq!(server_message(br#"{"error":{"message":"bad model","type":"x"}}"#), "bad model");
        assert_eq!(server_message(br#"{"error":"nope"}"#), "nope");
        assert_eq!(server_message(br#"{"detail":"missing"}"#), "missing");
        assert_eq!(server_message(b"  Bad Gateway \n"), "Bad Gateway");
        assert_eq!(server_message(b""), "(empty body)");
        let long = "é".repeat(MAX_MESSAGE + 10);
        assert_eq!(server_message(long.as_bytes()).chars().count(), MAX_MESSAGE + 1);
    }

    #[test]
    fn display_names_role_model_endpoint_and_attempts() {
        let ep = Endpoint::new(Role::Judge, "http://h:1/v1", "gpt-x");
        let e = LlmError::new(&ep, 3, LlmErrorKind::Http { status: 500, message: "boom".into() });
        assert_eq!(
            e.to_string(),
            "judge model `gpt-x` at http://h:1/v1 failed after 3 attempts: HTTP 500: boom"
        );
    }
}
