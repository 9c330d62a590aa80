//! The parts of Inspect AI's log schema (`inspect_ai.log.EvalLog`, 0.3.x) that become episodes.
//!
//! Only what is mapped is named; serde skips every other field unparsed, so a sample's model
//! call payloads, state deltas and spans cost reading, not memory.

use super::held::BigTexts;
use super::json_budget;
use serde::Deserialize;
use serde_json::{Map, Value};

/// `header.json` (or `_journal/start.json` while the run is live; a `.json` log's top level).
#[derive(Debug, Default, Deserialize)]
pub struct LogHeader {
    #[serde(default)]
    pub status: Option<String>,
    pub eval: EvalSpec,
    #[serde(default)]
    pub error: Option<EvalError>,
}

#[derive(Debug, Default, Deserialize)]
pub struct EvalSpec {
    #[serde(default)]
    pub eval_id: Option<String>,
    #[serde(default)]
    pub run_id: Option<String>,
    #[serde(default)]
    pub created: Option<String>,
    pub task: String,
    #[serde(default)]
    pub task_id: Option<String>,
    #[serde(default, deserialize_with = "json_budget::opt_value")]
    pub task_version: Option<Value>,
    #[serde(default)]
    pub model: Option<String>,
    /// `{role: {model: name, …}}` (an audit: `auditor`, `target`, `judge`).
    #[serde(default, deserialize_with = "json_budget::opt_map")]
    pub model_roles: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "json_budget::opt_map")]
    pub task_args: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "json_budget::opt_map")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "json_budget::opt_map")]
    pub config: Option<Map<String, Value>>,
}

#[derive(Debug, Default, Deserialize)]
pub struct EvalError {
    #[serde(default)]
    pub message: String,
}

/// One row of `summaries.json` (and of `_journal/summaries/N.json`): Inspect's `EvalSampleSummary`, a
/// type of its own there too (a shared flattened part would make serde buffer every sample whole).
#[derive(Debug, Deserialize)]
pub struct SampleSummary {
    #[serde(deserialize_with = "json_budget::value")]
    pub id: Value,
    pub epoch: u32,
    #[serde(default, deserialize_with = "json_budget::value")]
    pub input: Value,
    #[serde(default, deserialize_with = "json_budget::value")]
    pub target: Value,
    #[serde(default, deserialize_with = "json_budget::map")]
    pub metadata: Map<String, Value>,
    #[serde(default, deserialize_with = "json_budget::opt_map")]
    pub scores: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "json_budget::opt_value")]
    pub error: Option<Value>,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub message_count: Option<usize>,
    #[serde(default)]
    pub turn_count: Option<u32>,
    #[serde(default, deserialize_with = "json_budget::map")]
    pub model_usage: Map<String, Value>,
    /// The limit that stopped the sample (`message`, `token`, `time`…) and why.
    #[serde(default)]
    pub limit: Option<String>,
    #[serde(default)]
    pub limit_reason: Option<String>,
    /// How many times the sample was retried after an error.
    #[serde(default)]
    pub retries: Option<u32>,
    #[serde(default)]
    pub completed_at: Option<String>,
    #[serde(default)]
    pub total_time: Option<f64>,
    #[serde(default)]
    pub working_time: Option<f64>,
    #[serde(default)]
    pub uuid: Option<String>,
}

/// One sample (`samples/{id}_epoch_{n}.json`, a `.json` log's `samples[]`).
#[derive(Debug, Deserialize)]
pub struct Sample {
    #[serde(deserialize_with = "json_budget::value")]
    pub id: Value,
    pub epoch: u32,
    #[serde(default, deserialize_with = "json_budget::value")]
    pub input: Value,
    #[serde(default, deserialize_with = "json_budget::value")]
    pub target: Value,
    #[serde(default)]
    pub messages: Vec<ChatMessage>,
    #[serde(default, deserialize_with = "json_budget::opt_map")]
    pub scores: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "json_budget::map")]
    pub metadata: Map<String, Value>,
    #[serde(default)]
    pub events: Vec<SampleEvent>,
    #[serde(default, deserialize_with = "json_budget::map")]
    pub model_usage: Map<String, Value>,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default, deserialize_with = "json_budget::opt_value")]
    pub error: Option<Value>,
    /// The errors the sample was retried after (`EvalRetryError`: message, traceback).
    #[serde(default, deserialize_with = "json_budget::opt_value")]
    pub error_retries: Option<Value>,
    /// The limit that stopped it (`EvalSampleLimit`: type, limit, reason).
    #[serde(default, deserialize_with = "json_budget::opt_value")]
    pub limit: Option<Value>,
    #[serde(default, deserialize_with = "json_budget::map")]
    pub store: Map<String, Value>,
    #[serde(default)]
    pub completed_at: Option<String>,
    #[serde(default)]
    pub total_time: Option<f64>,
    #[serde(default)]
    pub working_time: Option<f64>,
    #[serde(default)]
    pub uuid: Option<String>,
    #[serde(default)]
    pub turn_count: Option<u32>,
    /// Texts moved out of the sample, by hash: `attachment://<hash>` anywhere points here.
    #[serde(default, deserialize_with = "json_budget::map")]
    pub attachments: Map<String, Value>,
    /// The condensed pools model events point into (`input_refs`).
    #[serde(default)]
    pub events_data: Option<EventsData>,
    /// The chunked layout's final conversation: half-open ranges of the message sequence.
    #[serde(default)]
    pub message_refs: Option<Vec<(usize, usize)>>,
    /// The long texts taken out of the sample as it was read, swapped back into its episodes.
    #[serde(skip)]
    pub big_texts: BigTexts,
}

#[derive(Debug, Default, Deserialize)]
pub struct EventsData {
    #[serde(default)]
    pub messages: Vec<ChatMessage>,
}

/// A chat message of any role.
#[derive(Debug, Clone, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    #[serde(default)]
    pub content: Content,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCall>>,
    #[serde(default)]
    pub tool_call_id: Option<String>,
    #[serde(default)]
    pub function: Option<String>,
    #[serde(default)]
    pub error: Option<ToolError>,
    /// What converse-tui keeps of an event it wrote as this message (`converse`).
    #[serde(default, deserialize_with = "json_budget::opt_value")]
    pub metadata: Option<Value>,
}

/// A message's content: a string, or a list of parts (text, reasoning, images…).
#[derive(Debug, Clone)]
pub enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
}

/// Read by its first token, not `#[serde(untagged)]`: an untagged enum buffers the value before
/// trying its variants, two more copies of a text that can be hundreds of MB (measured: a 500 MB
/// tool result peaked at 3× its size, see docs/performance.md).
impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Content;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a text or a list of content parts")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Content, E> {
                Ok(Content::Text(text.to_string()))
            }

            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Content, E> {
                Ok(Content::Text(text))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Content, A::Error> {
                Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(Content::Parts)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct ContentPart {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub reasoning: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub redacted: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub function: String,
    #[serde(default, deserialize_with = "json_budget::value")]
    pub arguments: Value,
    #[serde(default)]
    pub parse_error: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ToolError {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub message: String,
}

/// The events the mapping reads: model calls (their role, input and output), and the spans,
/// anchors and branch markers a branched trajectory leaves. Every other kind is read as `Other`
/// and dropped.
#[derive(Debug, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SampleEvent {
    Model(ModelEvent),
    SpanBegin(SpanBegin),
    /// Where a branch's own content begins, inside its `type: "branch"` span.
    Branch(BranchMark),
    /// A point a branch can start from (`BranchEvent.from_anchor` names it).
    Anchor(Anchor),
    Score(ScoreEvent),
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
pub struct SpanBegin {
    pub id: String,
    #[serde(default)]
    pub parent_id: Option<String>,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "json_budget::opt_map")]
    pub metadata: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
pub struct BranchMark {
    #[serde(default)]
    pub span_id: Option<String>,
    #[serde(default)]
    pub from_anchor: String,
}

#[derive(Debug, Deserialize)]
pub struct Anchor {
    #[serde(default)]
    pub span_id: Option<String>,
    #[serde(default)]
    pub anchor_id: String,
}

/// A score given during the run (a branch's scores are given inside its span).
#[derive(Debug, Deserialize)]
pub struct ScoreEvent {
    #[serde(default)]
    pub span_id: Option<String>,
    #[serde(default)]
    pub scorer: Option<String>,
    #[serde(default, deserialize_with = "json_budget::value")]
    pub score: Value,
}

#[derive(Debug, Deserialize)]
pub struct ModelEvent {
    /// The span the call was made in (a branch's, or one inside it).
    #[serde(default)]
    pub span_id: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub input: Vec<ChatMessage>,
    /// Half-open ranges into [`EventsData::messages`] standing for `input` when condensed.
    #[serde(default)]
    pub input_refs: Option<Vec<(usize, usize)>>,
    #[serde(default)]
    pub output: Option<ModelOutput>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ModelOutput {
    #[serde(default)]
    pub choices: Vec<ModelChoice>,
}

#[derive(Debug, Deserialize)]
pub struct ModelChoice {
    pub message: ChatMessage,
}

/// A score as Inspect writes it.
#[derive(Debug, Default, Deserialize)]
pub struct Score {
    #[serde(default, deserialize_with = "json_budget::value")]
    pub value: Value,
    #[serde(default)]
    pub answer: Option<String>,
    #[serde(default)]
    pub explanation: Option<String>,
}

/// The text of a sample id (`paris`, `3`) as Inspect names its entry.
pub fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_a_text_or_parts() {
        let text: ChatMessage = serde_json::from_str(r#"{"role": "user", "content": "hi\nthere"}"#).unwrap();
        assert!(matches!(text.content, Content::Text(t) if t == "hi\nthere"));
        let parts: ChatMessage = serde_json::from_str(
            r#"{"role": "assistant", "content": [{"type": "reasoning", "reasoning": "r"}, {"type": "text", "text": "ok"}]}"#,
        )
        .unwrap();
        let Content::Parts(parts) = parts.content else { panic!("parts") };
        assert_eq!((parts[0].kind.as_str(), parts[1].text.as_deref()), ("reasoning", Some("ok")));
        let missing: ChatMessage = serde_json::from_str(r#"{"role": "user"}"#).unwrap();
        assert!(matches!(missing.content, Content::Text(t) if t.is_empty()));
        let wrong = serde_json::from_str::<ChatMessage>(r#"{"role": "user", "content": 3}"#).unwrap_err();
        assert!(wrong.to_string().contains("a text or a list of content parts"), "{wrong}");
    }
}
