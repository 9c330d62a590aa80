//! The journal's event model (format `converse-tui/1`: ARCHITECTURE.md, "The journal", and
//! `docs/journal.md`).
//!
//! Every event carries `seq`, `at` and `kind`; the body of each kind is its
//! own struct so importers, the runner and the judges build them by name.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The format tag written in every `episode` event.
pub const FORMAT_V1: &str = "converse-tui/1";

/// One line of a journal.
///
/// Read by [`super::event_de`]: straight into the body when `seq` and `at` come before `kind`
/// (as every writer puts them), through a buffered map otherwise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    pub seq: u64,
    /// RFC 3339 timestamp. Kept as text: imported timestamps are not always UTC.
    pub at: String,
    #[serde(flatten)]
    pub body: EventBody,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventBody {
    Episode(Box<EpisodeHeader>),
    Message(Message),
    // Boxed: the two largest bodies would otherwise size every event (296 bytes → 160).
    ToolCall(Box<ToolCall>),
    ToolResult(ToolResult),
    Verdict(Box<Verdict>),
    Control(Control),
    Error(ErrorEvent),
    End(End),
}

impl From<ToolCall> for EventBody {
    fn from(call: ToolCall) -> Self {
        EventBody::ToolCall(Box::new(call))
    }
}

impl From<Verdict> for EventBody {
    fn from(verdict: Verdict) -> Self {
        EventBody::Verdict(Box::new(verdict))
    }
}

impl EventBody {
    /// The `kind` string as written in the journal.
    pub fn kind(&self) -> &'static str {
        match self {
            EventBody::Episode(_) => "episode",
            EventBody::Message(_) => "message",
            EventBody::ToolCall(_) => "tool_call",
            EventBody::ToolResult(_) => "tool_result",
            EventBody::Verdict(_) => "verdict",
            EventBody::Control(_) => "control",
            EventBody::Error(_) => "error",
            EventBody::End(_) => "end",
        }
    }

    /// The text a span (evidence, an annotation's quote) can point into.
    pub fn text(&self) -> Option<&str> {
        match self {
            EventBody::Message(m) => Some(&m.text),
            EventBody::ToolResult(r) => Some(&r.output),
            _ => None,
        }
    }

    /// Empties what the parties wrote (messages, tool outputs, raw model outputs), keeping
    /// everything an index counts: parties, turns, tools, verdicts, usage, errors and the end.
    pub fn drop_texts(&mut self) {
        match self {
            EventBody::Message(m) => (m.text, m.raw) = (String::new(), None),
            EventBody::ToolResult(r) => (r.output, r.raw) = (String::new(), None),
            EventBody::ToolCall(c) => (c.raw, c.raw_args) = (None, None),
            _ => {}
        }
    }

    /// The conversational turn this event belongs to, when it has one.
    pub fn turn(&self) -> Option<u32> {
        match self {
            EventBody::Message(m) => Some(m.turn),
            EventBody::ToolCall(c) => Some(c.turn),
            EventBody::ToolResult(r) => Some(r.turn),
            EventBody::Verdict(v) => v.turn,
            EventBody::Control(c) => c.turn,
            EventBody::Error(e) => e.turn,
            EventBody::Episode(_) | EventBody::End(_) => None,
        }
    }
}

/// The first event of every journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeHeader {
    pub format: String,
    pub id: String,
    #[serde(default)]
    pub task: TaskInfo,
    #[serde(default)]
    pub config: EpisodeConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
}

impl EpisodeHeader {
    pub fn new(id: impl Into<String>, task: TaskInfo, config: EpisodeConfig) -> Self {
        EpisodeHeader {
            format: FORMAT_V1.to_string(),
            id: id.into(),
            task,
            config,
            parent: None,
            source: None,
        }
    }
}

/// What the episode was about. The named fields are the ones every screen
/// shows; anything else a task carries (snippets, ratings…) stays in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_item: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack_goal: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EpisodeConfig {
    /// Model name per role (`attacker`, `assistant`, `judge`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub models: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The defence configuration the run used (benchmark runs: `baseline`, firewall names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defence: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParentRef {
    pub episode: String,
    pub seq: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRef {
    pub format: String,
    pub path: String,
}

/// The parties of a CONVERSE conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    Attacker,
    Assistant,
    Environment,
    User,
}

impl Party {
    pub fn as_str(self) -> &'static str {
        match self {
            Party::Attacker => "attacker",
            Party::Assistant => "assistant",
            Party::Environment => "environment",
            Party::User => "user",
        }
    }
}

/// Tokens of a model call, as the client reads them (one type from the wire to the journal).
pub use crate::core::llm::Usage;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub turn: u32,
    pub from: Party,
    pub to: Party,
    /// What was delivered.
    pub text: String,
    /// The full model output when it differs from `text` (e.g. a scratchpad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Who wrote it when not the model of the role (`human`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

impl Message {
    /// A plain message: no raw output, model, usage or author.
    pub fn new(turn: u32, from: Party, to: Party, text: impl Into<String>) -> Self {
        Message { turn, from, to, text: text.into(), raw: None, model: None, usage: None, by: None }
    }

    /// The assistant writing to itself (ConVerse logs: its plan, its completion mark): a note, not a message.
    pub fn is_note(&self) -> bool {
        self.from == Party::Assistant && self.to == Party::Assistant
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub turn: u32,
    pub call_id: String,
    pub tool: String,
    /// Always a JSON object; arguments that did not parse are kept in `raw_args`.
    #[serde(default)]
    pub args: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_args: Option<String>,
    /// The full output of whatever made the call, when it was a model (e.g. a ConVerse scratchpad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// An external agent made the call after its reply of `turn`, before the next message: it
    /// ran, and counts in `turn`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub late: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub turn: u32,
    pub call_id: String,
    pub tool: String,
    pub output: String,
    pub ok: bool,
    /// The full output when a model produced the result (ConVerse's simulated environment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictMethod {
    Rule,
    Llm,
    Human,
    Imported,
}

impl VerdictMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictMethod::Rule => "rule",
            VerdictMethod::Llm => "llm",
            VerdictMethod::Human => "human",
            VerdictMethod::Imported => "imported",
        }
    }
}

/// `pass` means the assistant held (no leak, attack failed, task done).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Fail,
    Partial,
    Error,
    Skipped,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Partial => "partial",
            Outcome::Error => "error",
            Outcome::Skipped => "skipped",
        }
    }

    /// How far the attack got: pass < partial < fail (a verdict not reached: 0).
    pub fn severity(self) -> u8 {
        match self {
            Outcome::Fail => 3,
            Outcome::Partial => 2,
            Outcome::Pass => 1,
            Outcome::Error | Outcome::Skipped => 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Absent for whole-episode verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    pub judge: String,
    pub method: VerdictMethod,
    /// The model that judged (LLM and imported verdicts), e.g. `gpt-5`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The judge's own fields, MASEval-compatible where one exists.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub details: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// Tokens the judge's model calls spent on this verdict (LLM judges, when the server said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// Where a verdict's proof is: a character span (in chars) of one event's text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlAction {
    Pause,
    Resume,
    Step,
    Takeover,
    Edit,
    /// The person playing the attacker ended the episode.
    End,
    /// A fork of an external agent's episode replayed this turn, and the agent's reply now
    /// differs from the recording (`by: replay`).
    Diverged,
    /// An external agent never opened an MCP session with the episode's environment (no
    /// request reached its tools): its verdicts are undecided, never a pass.
    ToolsUnreached,
    /// An attack search's note on the candidate message that follows (`by: search`): the
    /// node, the strategy's reasoning, a GOAT technique, the on-topic check (`details`).
    Candidate,
    /// An attack search dropped this node: off topic (before the message reached the
    /// assistant) or below the kept width (TAP); `details` says why.
    Prune,
    /// The assistant refused this turn: a Crescendo search drops it from the conversation and
    /// tries the turn again (`details`: the retry).
    Backtrack,
}

impl ControlAction {
    /// Its name as the journal writes it (`tools_unreached`).
    pub fn as_str(self) -> &'static str {
        match self {
            ControlAction::Pause => "pause",
            ControlAction::Resume => "resume",
            ControlAction::Step => "step",
            ControlAction::Takeover => "takeover",
            ControlAction::Edit => "edit",
            ControlAction::End => "end",
            ControlAction::Diverged => "diverged",
            ControlAction::ToolsUnreached => "tools_unreached",
            ControlAction::Candidate => "candidate",
            ControlAction::Prune => "prune",
            ControlAction::Backtrack => "backtrack",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Control {
    pub action: ControlAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// What the actor noted with it (an attack search's reasons).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub details: Value,
}

impl Control {
    pub fn new(action: ControlAction, by: &str, turn: Option<u32>) -> Self {
        Control { action, by: Some(by.to_string()), turn, details: Value::Null }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorEvent {
    pub source: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    MaxTurns,
    AttackerDone,
    AssistantDone,
    Aborted,
    Error,
    /// A limit of the run stopped it (an Inspect sample's message, token or time limit).
    Limit,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::MaxTurns => "max_turns",
            EndReason::AttackerDone => "attacker_done",
            EndReason::AssistantDone => "assistant_done",
            EndReason::Aborted => "aborted",
            EndReason::Error => "error",
            EndReason::Limit => "limit",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct End {
    pub reason: EndReason,
    pub turns: u32,
}

/// The current time as RFC 3339 UTC with second precision.
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| time::OffsetDateTime::now_utc());
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A huge journal holds one `Event` per line: the boxed verdict and tool call keep it small
    /// (it was 296 bytes with them inline, issue 14).
    #[test]
    fn a_control_action_is_named_as_the_journal_writes_it() {
        for action in [ControlAction::Pause, ControlAction::ToolsUnreached, ControlAction::Candidate] {
            assert_eq!(serde_json::to_value(action).unwrap(), action.as_str());
        }
    }

    #[test]
    fn an_event_stays_small() {
        let size = std::mem::size_of::<Event>();
        eprintln!("size_of::<Event>() = {size}, EventBody = {}", std::mem::size_of::<EventBody>());
        assert!(size <= 176, "Event is {size} bytes");
    }
}
