//! The command adapter (`--assistant 'cmd:…'`, issue 26): the simplest external assistant, one
//! process per episode speaking JSON lines on stdio. Each message goes in as
//! `{"text": …, "converse": {…}}` and the answer comes back as `{"text": …}`; the process's
//! stderr goes to the log. Its lifecycle (process group, bounded pipes, stopping) is
//! [`AgentProcess`]'s.

use serde_json::{Value, json};

use crate::core::sanitize;

use super::agent_process::{AgentProcess, Line, MAX_ANSWER_BYTES, Stdout};
use super::launch_template::Fill;

/// Longest piece of an agent's line quoted in an error.
const QUOTE_CHARS: usize = 200;

/// Why the agent gave no answer; each names what happened in one line.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the agent command could not start: {0}")]
    Spawn(String),
    #[error("the agent's stdio failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("the agent exited without answering")]
    Exited,
    #[error("the agent answered with a line that is not {{\"text\": …}}: {0}")]
    Malformed(String),
    #[error("the agent answered with a line over {MAX_ANSWER_BYTES} bytes")]
    TooLong,
}

pub struct CommandAgent {
    /// The command as the user gave it (after `cmd:`), for the journal header.
    pub command: String,
    process: AgentProcess,
}

impl CommandAgent {
    /// Starts `command` (split like a shell would, never run by one), its placeholders
    /// (`{mcp_url}`, `{mcp_authorization}`…) filled with `fill`.
    pub fn spawn(command: &str, fill: &Fill) -> Result<Self, AgentError> {
        let words = fill.words(command).map_err(AgentError::Spawn)?;
        let process = AgentProcess::spawn(&words, &[], Stdout::Answers)
            .map_err(|e| AgentError::Spawn(format!("{}: {e}", sanitize::single_line(&words[0]))))?;
        Ok(CommandAgent { command: command.to_string(), process })
    }

    /// Sends one message and waits for the agent's one-line answer. Dropping the future (the
    /// caller's deadline) ends a write to an agent that stopped reading as well as the read.
    pub async fn ask(&mut self, text: &str, converse: &Value) -> Result<String, AgentError> {
        let mut line =
            serde_json::to_string(&json!({"text": text, "converse": converse})).expect("a JSON value");
        line.push('\n');
        self.process.write(line.as_bytes()).await.map_err(|_| AgentError::Exited)?;
        match self.process.read_line().await? {
            Line::Text(answer) => parse_answer(&answer),
            Line::TooLong => Err(AgentError::TooLong),
            Line::Closed => Err(AgentError::Exited),
        }
    }

    /// Stops the agent and its children (stdin closed, SIGTERM, SIGKILL after a grace).
    pub async fn stop(self) {
        self.process.stop().await;
    }
}

/// `{"text": "…"}` → the text; anything else is `Malformed` with the line quoted, made inert.
fn parse_answer(line: &str) -> Result<String, AgentError> {
    let malformed = || AgentError::Malformed(quote(line.trim_end()));
    let value: Value = serde_json::from_str(line).map_err(|_| malformed())?;
    value.get("text").and_then(Value::as_str).map(str::to_string).ok_or_else(malformed)
}

fn quote(text: &str) -> String {
    sanitize::excerpt(text, QUOTE_CHARS)
}
