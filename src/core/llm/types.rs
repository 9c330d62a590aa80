//! OpenAI chat-completions wire types.
//!
//! Outgoing values are built by us and serialized strictly; incoming values come
//! from many servers (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM…) and are read
//! leniently: `null` content, missing usage, unknown fields and argument objects
//! instead of strings are all accepted.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// Who a chat message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    System,
    User,
    #[default]
    Assistant,
    Tool,
}

/// One message of the history sent to the model (and the model's reply).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    // Some servers omit the role in replies; a reply is always the assistant's.
    #[serde(default)]
    pub role: ChatRole,
    /// `None` is sent as `null` (an assistant turn that only calls tools).
    #[serde(default, deserialize_with = "lenient_content")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    fn new(role: ChatRole, content: impl Into<String>) -> Self {
        ChatMessage { role, content: Some(content.into()), tool_calls: Vec::new(), tool_call_id: None }
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::new(ChatRole::System, content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::new(ChatRole::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(ChatRole::Assistant, content)
    }

    /// An assistant turn that calls tools; CONVERSE sends `""` rather than `null` as its content.
    pub fn assistant_tool_calls(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        ChatMessage { tool_calls, ..Self::new(ChatRole::Assistant, content) }
    }

    /// The result of a tool call, answering `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage { tool_call_id: Some(tool_call_id.into()), ..Self::new(ChatRole::Tool, content) }
    }

    /// The content, `""` when there is none.
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    // Missing ids happen (some local servers); the tool reply then answers "".
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: FunctionCall,
}

impl ToolCall {
    pub fn function(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall {
            id: id.into(),
            kind: function_type(),
            function: FunctionCall { name: name.into(), arguments: arguments.into() },
        }
    }
}

/// Name and JSON-encoded arguments of a call, exactly as the model wrote them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    /// A JSON string; an object sent by a non-conforming server is re-encoded.
    #[serde(default, deserialize_with = "lenient_arguments")]
    pub arguments: String,
}

/// A tool offered to the model: `{"type":"function","function":{name, description, parameters}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: FunctionDefinition,
}

impl ToolDefinition {
    pub fn function(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolDefinition {
            kind: function_type(),
            function: FunctionDefinition {
                name: name.into(),
                description: Some(description.into()),
                parameters,
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDefinition {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON schema.
    #[serde(default)]
    pub parameters: Value,
}

/// Generation parameters. `None` fields are left out so the server's defaults apply.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GenerationParams {
    pub temperature: Option<f64>,
    pub seed: Option<i64>,
    pub max_tokens: Option<u32>,
    /// Anything else (`top_p`, `tool_choice`, `reasoning_effort`…), merged into the body as is.
    pub extra: Map<String, Value>,
}

/// What one call sends, apart from the model and endpoint-wide params (see [`super::Endpoint`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolDefinition>,
    pub params: GenerationParams,
}

impl ChatRequest {
    pub fn new(messages: Vec<ChatMessage>) -> Self {
        ChatRequest { messages, ..Default::default() }
    }

    pub fn with_tools(mut self, tools: Vec<ToolDefinition>) -> Self {
        self.tools = tools;
        self
    }

    pub fn with_params(mut self, params: GenerationParams) -> Self {
        self.params = params;
        self
    }

    /// The JSON body. Precedence, lowest first: endpoint extras, request extras,
    /// the typed params, then the fields the client owns (model, messages, tools, stream).
    pub fn to_body(&self, model: &str, endpoint_extra: &Map<String, Value>, stream: bool) -> Value {
        let mut body = endpoint_extra.clone();
        body.extend(self.params.extra.clone());
        if let Some(t) = self.params.temperature {
            body.insert("temperature".into(), Value::from(t));
        }
        if let Some(s) = self.params.seed {
            body.insert("seed".into(), Value::from(s));
        }
        if let Some(m) = self.params.max_tokens {
            body.insert("max_tokens".into(), Value::from(m));
        }
        body.insert("model".into(), Value::from(model));
        body.insert("messages".into(), serde_json::to_value(&self.messages).unwrap_or(Value::Null));
        if self.tools.is_empty() {
            // An empty `tools` array is rejected by some servers.
            body.remove("tools");
        } else {
            body.insert("tools".into(), serde_json::to_value(&self.tools).unwrap_or(Value::Null));
        }
        if stream {
            body.insert("stream".into(), Value::Bool(true));
            body.insert("stream_options".into(), serde_json::json!({ "include_usage": true }));
        } else {
            body.remove("stream");
            body.remove("stream_options");
        }
        Value::Object(body)
    }
}

/// Tokens spent by one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    /// Tokens of two calls together; `None` only when neither server said.
    pub fn sum(a: Option<Usage>, b: Option<Usage>) -> Option<Usage> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Usage {
                input_tokens: a.input_tokens + b.input_tokens,
                output_tokens: a.output_tokens + b.output_tokens,
            }),
            (a, b) => a.or(b),
        }
    }
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The assistant message (content and/or tool calls).
    pub message: ChatMessage,
    /// `stop`, `tool_calls`, `length`… when the server said.
    pub finish_reason: Option<String>,
    /// `None` when the server reported no usage.
    pub usage: Option<Usage>,
    /// The model that answered, when the server said.
    pub model: Option<String>,
}

impl ChatResponse {
    /// The text content, `""` when there is none.
    pub fn text(&self) -> &str {
        self.message.text()
    }

    pub fn tool_calls(&self) -> &[ToolCall] {
        &self.message.tool_calls
    }
}

/// Non-streaming response body as received.
#[derive(Debug, Deserialize)]
pub(crate) struct RawResponse {
    #[serde(default, deserialize_with = "null_as_default")]
    pub choices: Vec<RawChoice>,
    #[serde(default)]
    pub usage: Option<RawUsage>,
    #[serde(default)]
    pub model: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RawChoice {
    #[serde(default)]
    pub message: Option<ChatMessage>,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

#[derive(Debug, Deserialize, Default)]
pub(crate) struct RawUsage {
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    #[serde(default)]
    pub completion_tokens: Option<u64>,
}

impl RawUsage {
    pub(crate) fn to_usage(&self) -> Usage {
        Usage {
            input_tokens: self.prompt_tokens.unwrap_or(0),
            output_tokens: self.completion_tokens.unwrap_or(0),
        }
    }
}

impl RawResponse {
    /// The first choice as a response; `None` when there is no choice at all.
    pub(crate) fn into_response(self) -> Option<ChatResponse> {
        let choice = self.choices.into_iter().next()?;
        let mut message = choice.message.unwrap_or_else(|| ChatMessage::assistant(""));
        message.role = ChatRole::Assistant;
        Some(ChatResponse {
            message,
            finish_reason: choice.finish_reason,
            usage: self.usage.as_ref().map(RawUsage::to_usage),
            model: self.model,
        })
    }
}

fn function_type() -> String {
    "function".to_string()
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// `null` → None, a string → itself, an array of content parts → their text joined.
fn lenient_content<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Null => None,
        Value::String(s) => Some(s),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    other => other.get("text").and_then(Value::as_str),
                })
                .collect(),
        ),
        other => Some(other.to_string()),
    })
}

/// A string stays as is; `null` → ""; anything else (an object) is JSON-encoded.
fn lenient_arguments<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Null => String::new(),
        Value::String(s) => s,
        other => other.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn body_merges_params_in_order() {
        let mut endpoint_extra = Map::new();
        endpoint_extra.insert("top_p".into(), json!(0.5));
        endpoint_extra.insert("temperature".into(), json!(1.0));
        endpoint_extra.insert("model".into(), json!("ignored"));
        let mut params = GenerationParams {
            temperature: Some(0.0),
            seed: Some(7),
            max_tokens: Some(64),
            ..Default::default()
        };
        params.extra.insert("top_p".into(), json!(0.9));
        let req = ChatRequest::new(vec![ChatMessage::user("hi")]).with_params(params);
        let body = req.to_body("m", &endpoint_extra, false);
        assert_eq!(body["model"], "m");
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["top_p"], 0.9);
        assert_eq!(body["seed"], 7);
        assert_eq!(body["max_tokens"], 64);
        assert!(body.get("tools").is_none());
        assert!(body.get("stream").is_none());
        assert_eq!(body["messages"], json!([{"role":"user","content":"hi"}]));
    }

    #[test]
    fn messages_serialize_like_openai() {
        let call = ToolCall::function("c1", "get_user_info", r#"{"q":1}"#);
        let msgs = vec![ChatMessage::assistant_tool_calls("", vec![call]), ChatMessage::tool("c1", "ok")];
        assert_eq!(
            serde_json::to_value(&msgs).unwrap(),
            json!([
                {"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"get_user_info","arguments":"{\"q\":1}"}}]},
                {"role":"tool","content":"ok","tool_call_id":"c1"}
            ])
        );
    }

    #[test]
    fn responses_are_read_leniently() {
        let raw: RawResponse = serde_json::from_value(json!({
            "id": "x", "object": "chat.completion", "unknown": [1, 2],
            "choices": [{"index": 0, "message": {"content": null, "tool_calls": [
                {"function": {"name": "f", "arguments": {"a": 1}}}
            ]}, "finish_reason": "tool_calls"}]
        }))
        .unwrap();
        let resp = raw.into_response().unwrap();
        assert_eq!(resp.message.content, None);
        assert_eq!(resp.text(), "");
        assert_eq!(resp.tool_calls()[0].function.arguments, r#"{"a":1}"#);
        assert_eq!(resp.tool_calls()[0].kind, "function");
        assert_eq!(resp.usage, None);

        let parts: ChatMessage = serde_json::from_value(
            json!({"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"tool_calls":null}),
        )
        .unwrap();
        assert_eq!(parts.text(), "ab");
    }
}
