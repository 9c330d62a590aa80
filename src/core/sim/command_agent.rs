//! The command adapter (`--assistant 'cmd:…'`, issue 26): the simplest external assistant, one
//! process per episode speaking JSON lines on stdio. Each message goes in as
//! `{"text": …, "converse": {…}}` and the answer comes back as `{"text": …}`; the process's
//! stderr goes to the log.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::core::sanitize;

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
}

pub struct CommandAgent {
    /// The command as the user gave it (after `cmd:`), for the journal header.
    pub command: String,
    child: Child,
    stdin: ChildStdin,
    /// Taken while a blocking read runs, put back after.
    stdout: Option<BufReader<ChildStdout>>,
}

impl Drop for CommandAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl CommandAgent {
    /// Starts `command` (split like a shell would, never run by one).
    pub fn spawn(command: &str) -> Result<Self, AgentError> {
        let words = shlex::split(command).filter(|w| !w.is_empty()).ok_or_else(|| {
            AgentError::Spawn(format!("cannot split the command line {}", sanitize::single_line(command)))
        })?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| AgentError::Spawn(format!("{}: {e}", sanitize::single_line(&words[0]))))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        if let Some(stderr) = child.stderr.take() {
            // The agent's own diagnostics go to the log, never to the screen.
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    tracing::info!(target: "agent", "{}", sanitize::single_line(&line));
                }
            });
        }
        Ok(CommandAgent { command: command.to_string(), child, stdin, stdout: Some(stdout) })
    }

    /// Sends one message and waits for the agent's one-line answer.
    pub async fn ask(&mut self, text: &str, converse: &Value) -> Result<String, AgentError> {
        let mut line =
            serde_json::to_string(&json!({"text": text, "converse": converse})).expect("a JSON value");
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).map_err(|_| AgentError::Exited)?;
        self.stdin.flush().map_err(|_| AgentError::Exited)?;
        let mut stdout = self.stdout.take().ok_or(AgentError::Exited)?;
        let (stdout, read) = tokio::task::spawn_blocking(move || {
            let mut answer = String::new();
            let read = stdout.read_line(&mut answer).map(|n| (n, answer));
            (stdout, read)
        })
        .await
        .map_err(|e| AgentError::Io(std::io::Error::other(e)))?;
        self.stdout = Some(stdout);
        let (n, answer) = read?;
        if n == 0 {
            return Err(AgentError::Exited);
        }
        parse_answer(&answer)
    }
}

/// `{"text": "…"}` → the text; anything else is `Malformed` with the line quoted, made inert.
fn parse_answer(line: &str) -> Result<String, AgentError> {
    let malformed = || AgentError::Malformed(sanitize::single_line(line.trim_end()).into_owned());
    let value: Value = serde_json::from_str(line).map_err(|_| malformed())?;
    value.get("text").and_then(Value::as_str).map(str::to_string).ok_or_else(malformed)
}
