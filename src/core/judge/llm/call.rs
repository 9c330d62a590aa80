//! One judge call: one user message at temperature 0, the reply parsed as a
//! JSON object holding the judge's decision (see [`super::expect`]), up to three attempts
//! (reference §4.0 `_call_llm_judge`).
//!
//! Unlike the reference, a judge that never answers properly is a
//! [`JudgeFailure`] the caller turns into an `error` verdict, never "safe";
//! and a reply that is JSON but not an object counts as a JSON failure.
//! The three attempts are for replies that do not parse: the client already
//! retried transport errors (429, 5xx, timeouts) by its own policy, so a
//! transport failure ends the call at once and is named as the error.

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::core::llm::{ChatMessage, ChatRequest, Endpoint, GenerationParams, LlmClient, Usage};

use super::prompts::JSON_REMINDER;

/// What a reply must hold to be a decision (see [`super::expect`]): `Err` says what is missing.
pub type Expect = fn(&Map<String, Value>) -> Result<(), String>;

pub const MAX_ATTEMPTS: u32 = 3;

/// How judge calls behave; the reference waits one second between attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeOptions {
    pub retry_delay: Duration,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions { retry_delay: Duration::from_secs(1) }
    }
}

/// Why a judge gave no usable answer, with the last raw reply.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeFailure {
    pub error: String,
    pub raw_response: Option<String>,
    pub parse_error: String,
}

impl JudgeFailure {
    /// The reference's error dict: `{error, raw_response, parse_error}`.
    pub fn to_json(&self) -> Value {
        json!({"error": self.error, "raw_response": self.raw_response, "parse_error": self.parse_error})
    }
}

/// A judge call's answer and the tokens all its attempts spent (counted whether it answered or not).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeCall {
    pub reply: Result<Map<String, Value>, JudgeFailure>,
    pub usage: Option<Usage>,
}

/// Strips whitespace and a ```` ```json ```` (or bare ```` ``` ````) fence, then parses strictly.
pub fn parse_reply(text: &str) -> Result<Map<String, Value>, String> {
    let mut t = text.trim();
    if let Some(rest) = t.strip_prefix("```json") {
        t = rest;
    } else if let Some(rest) = t.strip_prefix("```") {
        t = rest;
    }
    if let Some(rest) = t.strip_suffix("```") {
        t = rest;
    }
    match serde_json::from_str::<Value>(t.trim()) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!("expected a JSON object, got {}", kind_of(&other))),
        Err(e) => Err(e.to_string()),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Asks the judge; `what` names the evaluation in the failure (`privacy leak evaluation`…); a
/// reply `expect` turns down is asked again, as one that does not parse.
pub async fn call_judge(
    client: &LlmClient,
    endpoint: &Endpoint,
    prompt: &str,
    what: &str,
    expect: Expect,
    opts: &JudgeOptions,
) -> JudgeCall {
    let mut prompt = prompt.to_string();
    let mut raw_response = None;
    let mut parse_error = String::new();
    let mut usage = None;
    for attempt in 1..=MAX_ATTEMPTS {
        if attempt > 1 && !opts.retry_delay.is_zero() {
            tokio::time::sleep(opts.retry_delay).await;
        }
        let params = GenerationParams { temperature: Some(0.0), ..GenerationParams::default() };
        let request = ChatRequest::new(vec![ChatMessage::user(prompt.clone())]).with_params(params);
        match client.chat(endpoint, request).await {
            Ok(response) => {
                usage = Usage::sum(usage, response.usage);
                let text = response.text().to_string();
                match parse_reply(&text).and_then(|map| expect(&map).map(|()| map)) {
                    Ok(map) => return JudgeCall { reply: Ok(map), usage },
                    Err(e) => {
                        raw_response = Some(text);
                        parse_error = e;
                        // The reminder accumulates, as in the reference.
                        prompt.push_str(JSON_REMINDER);
                    }
                }
            }
            // The client has retried already; retrying here would multiply its attempts.
            Err(e) => {
                let failure = JudgeFailure {
                    error: e.to_string(),
                    raw_response,
                    parse_error: "no reply to parse".to_string(),
                };
                return JudgeCall { reply: Err(failure), usage };
            }
        }
    }
    let failure = JudgeFailure {
        error: format!("Failed to parse {what} response after {MAX_ATTEMPTS} attempts"),
        raw_response,
        parse_error,
    };
    JudgeCall { reply: Err(failure), usage }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_whitespace_are_stripped() {
        assert!(parse_reply("  ```json\n{\"a\": 1}\n```  ").is_ok());
        assert!(parse_reply("```\n{\"a\": 1}\n```").is_ok());
        assert!(parse_reply("{\"a\": 1}").is_ok());
        assert!(parse_reply("Sure! {\"a\": 1}").is_err());
        assert_eq!(parse_reply("[1]").unwrap_err(), "expected a JSON object, got an array");
        assert!(parse_reply("").is_err());
    }
}
