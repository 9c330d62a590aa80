//! A2A on the wire, both dialects (issue 26): the JSON-RPC request for one message, and what comes
//! back (a task, a message, a status or artifact update) read into one dialect-free [`Update`].
//!
//! v1.0 (`SendMessage`, `ROLE_USER`, `TASK_STATE_COMPLETED`, results keyed by their type) and 0.3
//! (`message/send`, `user`, `completed`, results tagged with `kind`) differ only in names; the
//! shapes here are those the official Python SDK (a2a-sdk 1.3.0) sends and accepts
//! (`tests/live/a2a_agent.rs` runs against it).

use serde_json::{Value, json};

/// Which A2A protocol version the agent's card says it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    V1_0,
    V0_3,
}

impl Dialect {
    /// The `A2A-Version` header value.
    pub fn version(self) -> &'static str {
        match self {
            Dialect::V1_0 => "1.0",
            Dialect::V0_3 => "0.3",
        }
    }

    pub fn method(self, streaming: bool) -> &'static str {
        match (self, streaming) {
            (Dialect::V1_0, false) => "SendMessage",
            (Dialect::V1_0, true) => "SendStreamingMessage",
            (Dialect::V0_3, false) => "message/send",
            (Dialect::V0_3, true) => "message/stream",
        }
    }
}

/// One outgoing message: the user's task or an attacker message, with its `metadata.converse`.
pub struct Outgoing<'a> {
    pub text: &'a str,
    pub message_id: &'a str,
    pub context_id: &'a str,
    /// The task this message continues (one left `input-required`).
    pub task_id: Option<&'a str>,
    pub converse: &'a Value,
}

/// The JSON-RPC request carrying `message` in `dialect`.
pub fn request(dialect: Dialect, streaming: bool, id: u64, message: &Outgoing) -> Value {
    let mut body = match dialect {
        Dialect::V1_0 => json!({
            "messageId": message.message_id,
            "contextId": message.context_id,
            "role": "ROLE_USER",
            "parts": [{"text": message.text}],
            "metadata": {"converse": message.converse},
        }),
        Dialect::V0_3 => json!({
            "kind": "message",
            "messageId": message.message_id,
            "contextId": message.context_id,
            "role": "user",
            "parts": [{"kind": "text", "text": message.text}],
            "metadata": {"converse": message.converse},
        }),
    };
    if let Some(task) = message.task_id {
        body["taskId"] = task.into();
    }
    let configuration = match dialect {
        Dialect::V1_0 => json!({}),
        Dialect::V0_3 => json!({"blocking": true}),
    };
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": dialect.method(streaming),
        // Also on the request: some frameworks hand only the request's metadata to the agent
        // (ADK forwards it to its runner), not the message's.
        "params": {"message": body, "configuration": configuration, "metadata": {"converse": message.converse}},
    })
}

/// The JSON-RPC request asking for task `task_id` (`GetTask`, 0.3's `tasks/get`).
pub fn get_task(dialect: Dialect, id: u64, task_id: &str) -> Value {
    let method = match dialect {
        Dialect::V1_0 => "GetTask",
        Dialect::V0_3 => "tasks/get",
    };
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"id": task_id}})
}

/// Reads the answer to [`get_task`]: 1.0 answers the task itself, 0.3 a `kind`-tagged task.
pub fn parse_task(dialect: Dialect, response: &Value) -> Result<Update, WireError> {
    match (dialect, response.get("result")) {
        (Dialect::V1_0, Some(task)) if task.get("task").is_none() => {
            parse_response(dialect, &json!({"result": {"task": task}}))
        }
        _ => parse_response(dialect, response),
    }
}

/// A task's state, the same in both dialects (`TASK_STATE_INPUT_REQUIRED` = `input-required`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskState {
    Submitted,
    Working,
    Completed,
    InputRequired,
    AuthRequired,
    Failed,
    Canceled,
    Rejected,
    /// Anything else, as the agent wrote it.
    Other(String),
}

impl TaskState {
    fn parse(wire: &str) -> TaskState {
        let name = wire.strip_prefix("TASK_STATE_").unwrap_or(wire).to_ascii_lowercase().replace('_', "-");
        match name.as_str() {
            "submitted" => TaskState::Submitted,
            "working" => TaskState::Working,
            "completed" => TaskState::Completed,
            "input-required" => TaskState::InputRequired,
            "auth-required" => TaskState::AuthRequired,
            "failed" => TaskState::Failed,
            "canceled" | "cancelled" => TaskState::Canceled,
            "rejected" => TaskState::Rejected,
            _ => TaskState::Other(name),
        }
    }

    /// The 0.3 spelling, used in messages and the journal.
    pub fn name(&self) -> &str {
        match self {
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::Completed => "completed",
            TaskState::InputRequired => "input-required",
            TaskState::AuthRequired => "auth-required",
            TaskState::Failed => "failed",
            TaskState::Canceled => "canceled",
            TaskState::Rejected => "rejected",
            TaskState::Other(name) => name,
        }
    }

    /// The task waits for the other side or is over: the turn's answer is complete.
    pub fn ends_turn(&self) -> bool {
        !matches!(self, TaskState::Submitted | TaskState::Working)
    }
}

/// What one result (a whole response, or one streamed event) says.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// The agent answered with a message, no task.
    Message {
        text: String,
    },
    /// A task as a whole: its state, the text of its status message and of its artifacts.
    Task {
        task_id: String,
        state: TaskState,
        status_text: Option<String>,
        artifacts: Vec<(String, String)>,
    },
    Status {
        task_id: String,
        state: TaskState,
        text: Option<String>,
    },
    /// A chunk of an artifact: appended to what came before when `append`, else replacing it.
    Artifact {
        task_id: String,
        artifact_id: String,
        text: String,
        append: bool,
    },
}

/// Longest JSON-RPC error message quoted.
const RPC_MESSAGE_CHARS: usize = 200;

/// Why a response could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WireError {
    #[error("the agent answered JSON-RPC error {code}: {message}")]
    Rpc { code: i64, message: String },
    #[error("the agent answered something that is not an A2A result")]
    NotA2a,
}

/// Reads one JSON-RPC response (or one streamed event's data) in `dialect`.
pub fn parse_response(dialect: Dialect, response: &Value) -> Result<Update, WireError> {
    if let Some(error) = response.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        // Quoted short and inert: an agent's error text can be of any size (issue 36 F11).
        let message = crate::core::sanitize::excerpt(
            error.get("message").and_then(Value::as_str).unwrap_or(""),
            RPC_MESSAGE_CHARS,
        );
        return Err(WireError::Rpc { code, message });
    }
    let result = response.get("result").ok_or(WireError::NotA2a)?;
    match dialect {
        Dialect::V1_0 => parse_v1(result),
        Dialect::V0_3 => parse_v03(result),
    }
    .ok_or(WireError::NotA2a)
}

fn parse_v1(result: &Value) -> Option<Update> {
    if let Some(task) = result.get("task") {
        return task_update(task);
    }
    if let Some(message) = result.get("message") {
        return Some(Update::Message { text: parts_text(message)? });
    }
    if let Some(status) = result.get("statusUpdate") {
        return status_update(status);
    }
    artifact_update(result.get("artifactUpdate")?)
}

fn parse_v03(result: &Value) -> Option<Update> {
    match result.get("kind")?.as_str()? {
        "task" => task_update(result),
        "message" => Some(Update::Message { text: parts_text(result)? }),
        "status-update" => status_update(result),
        "artifact-update" => artifact_update(result),
        _ => None,
    }
}

fn task_update(task: &Value) -> Option<Update> {
    let status = task.get("status")?;
    let artifacts = match task.get("artifacts") {
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|a| Some((a.get("artifactId")?.as_str()?.to_string(), parts_text(a)?)))
            .collect(),
        _ => Vec::new(),
    };
    Some(Update::Task {
        task_id: task.get("id")?.as_str()?.to_string(),
        state: TaskState::parse(status.get("state")?.as_str()?),
        status_text: status.get("message").and_then(parts_text),
        artifacts,
    })
}

fn status_update(update: &Value) -> Option<Update> {
    let status = update.get("status")?;
    Some(Update::Status {
        task_id: update.get("taskId")?.as_str()?.to_string(),
        state: TaskState::parse(status.get("state")?.as_str()?),
        text: status.get("message").and_then(parts_text),
    })
}

fn artifact_update(update: &Value) -> Option<Update> {
    let artifact = update.get("artifact")?;
    Some(Update::Artifact {
        task_id: update.get("taskId")?.as_str()?.to_string(),
        artifact_id: artifact.get("artifactId")?.as_str()?.to_string(),
        text: parts_text(artifact)?,
        append: update.get("append").and_then(Value::as_bool).unwrap_or(false),
    })
}

/// The text parts of a message or artifact, joined; other parts (files, data) carry no text.
fn parts_text(holder: &Value) -> Option<String> {
    let parts = holder.get("parts")?.as_array()?;
    Some(parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects_name_the_same_states() {
        for (wire, state) in [
            ("TASK_STATE_INPUT_REQUIRED", TaskState::InputRequired),
            ("input-required", TaskState::InputRequired),
            ("TASK_STATE_COMPLETED", TaskState::Completed),
            ("rejected", TaskState::Rejected),
            ("TASK_STATE_CANCELED", TaskState::Canceled),
        ] {
            assert_eq!(TaskState::parse(wire), state, "{wire}");
        }
        assert_eq!(TaskState::parse("TASK_STATE_PONDERING").name(), "pondering");
        assert!(!TaskState::Working.ends_turn() && TaskState::InputRequired.ends_turn());
    }

    #[test]
    fn a_json_rpc_error_and_a_stranger_are_told_apart() {
        let error =
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no such method"}});
        assert_eq!(
            parse_response(Dialect::V1_0, &error),
            Err(WireError::Rpc { code: -32601, message: "no such method".into() })
        );
        let stranger = json!({"jsonrpc": "2.0", "id": 1, "result": {"kind": "weather"}});
        assert_eq!(parse_response(Dialect::V0_3, &stranger), Err(WireError::NotA2a));
        assert_eq!(parse_response(Dialect::V1_0, &json!([1, 2])), Err(WireError::NotA2a));
    }
}
