//! The A2A client of one episode (`--assistant a2a:URL`, issue 26): reads the agent card, then
//! sends the user's task and each attacker message in one `contextId`, streamed when the card
//! says the agent streams. A task left `input-required` is continued by the next message; one
//! that ends `failed`, `canceled` or `rejected` is an error naming the state and the agent's words.
//!
//! A request that never reached the agent (refused connection, HTTP 429/502/503/504) is retried
//! with the models' backoff; one the agent may have acted on is not, so no tool runs twice.

use futures_util::StreamExt as _;
use serde_json::Value;

use crate::core::llm::RetryPolicy;
use crate::core::llm::sse::SseParser;
use crate::core::sanitize;

use super::card::{AgentCard, CARD_PATH};
use super::wire::{self, Dialect, Outgoing, TaskState, Update, WireError};

/// Longest agent text quoted in an error.
const QUOTE_CHARS: usize = 200;
/// The first and the longest wait between two `GetTask` of a task still working.
const POLL_FIRST: std::time::Duration = std::time::Duration::from_millis(200);
const POLL_MAX: std::time::Duration = std::time::Duration::from_secs(2);
/// Largest response body or stream read for one message.
const MAX_REPLY_BYTES: usize = 16 * 1024 * 1024;
/// Most artifacts one answer may hold: an agent streaming each chunk as an artifact of its own
/// makes hundreds; 80,000 tiny ones cost seconds of CPU past the deadline.
pub const MAX_ARTIFACTS: usize = 1024;
/// Updates of a stream taken in between two yields to the runtime, so that a deadline around
/// `ask` fires even while a single chunk holds thousands of events.
const UPDATES_PER_YIELD: usize = 256;

#[derive(Debug, thiserror::Error)]
pub enum A2aError {
    #[error("cannot read the agent card {url}: {reason}")]
    Card { url: String, reason: String },
    #[error("the agent at {url} cannot be reached: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("the agent answered HTTP {status}: {body}")]
    Http { status: u16, body: String },
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error("the agent's answer broke off: {0}")]
    Broken(String),
    #[error("the agent sent something that is not A2A JSON: {0}")]
    Garbage(String),
    #[error("the agent's task ended {state}: {text}")]
    TaskEnded { state: String, text: String },
    #[error("the agent's stream ended while its task was {0}")]
    Unfinished(String),
}

/// One message's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentReply {
    pub text: String,
    /// `Completed`, or `InputRequired` / `AuthRequired` when the agent waits for more.
    pub state: TaskState,
}

pub struct A2aAgent {
    http: reqwest::Client,
    /// The URL the user gave (the card is read under it).
    pub url: String,
    pub card: AgentCard,
    context_id: String,
    /// A task left waiting for input: the next message continues it.
    open_task: Option<String>,
    next_id: u64,
    max_retries: u32,
    retry: RetryPolicy,
}

impl A2aAgent {
    /// Reads the agent card at `url`; `max_retries` bounds the retries of every request.
    pub async fn connect(
        url: &str,
        context_id: &str,
        max_retries: u32,
        retry: RetryPolicy,
    ) -> Result<Self, A2aError> {
        let http = reqwest::Client::builder()
            .connect_timeout(crate::core::llm::client::CONNECT_TIMEOUT)
            .build()
            .map_err(|e| A2aError::Unreachable { url: url.to_string(), reason: e.to_string() })?;
        let url = url.trim_end_matches('/').to_string();
        let card_url = format!("{url}{CARD_PATH}");
        let card_error = |reason: String| A2aError::Card { url: card_url.clone(), reason };
        let mut attempt = 0;
        let response = loop {
            attempt += 1;
            match http.get(&card_url).header("A2A-Version", Dialect::V1_0.version()).send().await {
                Ok(response) if !retryable(response.status().as_u16()) || attempt > max_retries => {
                    break response;
                }
                Err(e) if attempt > max_retries => return Err(card_error(reason(&e))),
                _ => tokio::time::sleep(retry.delay(attempt, None)).await,
            }
        };
        if !response.status().is_success() {
            return Err(card_error(format!("HTTP {}", response.status().as_u16())));
        }
        let body = read_capped(response).await.map_err(card_error)?;
        let card: Value = serde_json::from_slice(&body).map_err(|_| card_error("it is not JSON".into()))?;
        let card = AgentCard::parse(&card).map_err(card_error)?;
        Ok(A2aAgent {
            http,
            url,
            card,
            context_id: context_id.to_string(),
            open_task: None,
            next_id: 0,
            max_retries,
            retry,
        })
    }

    /// The A2A `contextId` of the episode.
    pub fn context_id(&self) -> &str {
        &self.context_id
    }

    /// Sends one message (`converse` is its `metadata.converse`) and reads the answer; text
    /// fragments go to `on_text` as they stream in.
    pub async fn ask(
        &mut self,
        text: &str,
        message_id: &str,
        converse: &Value,
        mut on_text: impl FnMut(&str),
    ) -> Result<AgentReply, A2aError> {
        self.next_id += 1;
        let streaming = self.card.streaming;
        let outgoing = Outgoing {
            text,
            message_id,
            context_id: &self.context_id,
            task_id: self.open_task.as_deref(),
            converse,
        };
        let body = wire::request(self.card.dialect, streaming, self.next_id, &outgoing);
        let response = self.post(&body).await?;
        let mut turn = Turn::default();
        let is_stream = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if is_stream {
            self.read_stream(response, &mut turn, &mut on_text).await?;
        } else {
            // Not streamed (or a JSON-RPC error answering a stream request): one result.
            let body = read_capped(response).await.map_err(A2aError::Broken)?;
            let value: Value = serde_json::from_slice(&body).map_err(|_| garbage(&body))?;
            if let Some(shown) = turn.apply(wire::parse_response(self.card.dialect, &value)?)? {
                on_text(&shown);
            }
        }
        // A task still submitted or working is asked after until it ends (the caller's deadline
        // bounds the wait): an agent may answer `SendMessage` at once and work on (issue 37 D7). A stream that
        // ends early stays an error (docs/agents.md).
        let mut wait = POLL_FIRST;
        while !is_stream
            && !turn.ended()
            && let Some(task_id) = turn.task_id.clone()
        {
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(POLL_MAX);
            self.next_id += 1;
            let response = self.post(&wire::get_task(self.card.dialect, self.next_id, &task_id)).await?;
            let body = read_capped(response).await.map_err(A2aError::Broken)?;
            let value: Value = serde_json::from_slice(&body).map_err(|_| garbage(&body))?;
            if let Some(shown) = turn.apply(wire::parse_task(self.card.dialect, &value)?)? {
                on_text(&shown);
            }
        }
        self.finish(turn)
    }

    async fn post(&self, body: &Value) -> Result<reqwest::Response, A2aError> {
        let url = &self.card.rpc_url;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let request = self
                .http
                .post(url)
                .header("A2A-Version", self.card.dialect.version())
                .header(
                    reqwest::header::ACCEPT,
                    if self.card.streaming { "text/event-stream" } else { "application/json" },
                )
                .json(body);
            let failure = match request.send().await {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status().as_u16();
                    if !retryable(status) || attempt > self.max_retries {
                        let body = read_capped(response).await.unwrap_or_default();
                        return Err(A2aError::Http { status, body: quote(&String::from_utf8_lossy(&body)) });
                    }
                    format!("HTTP {status}")
                }
                // Refused or reset before an answer: the agent never saw the message.
                Err(e) if attempt > self.max_retries || !(e.is_connect() || e.is_timeout()) => {
                    return Err(A2aError::Unreachable { url: url.clone(), reason: reason(&e) });
                }
                Err(e) => reason(&e),
            };
            let delay = self.retry.delay(attempt, None);
            tracing::warn!(%failure, attempt, ?delay, "A2A request failed; retrying");
            tokio::time::sleep(delay).await;
        }
    }

    async fn read_stream(
        &self,
        response: reqwest::Response,
        turn: &mut Turn,
        on_text: &mut impl FnMut(&str),
    ) -> Result<(), A2aError> {
        let mut parser = SseParser::default();
        let mut bytes = response.bytes_stream();
        let mut read = 0;
        let mut taken = 0usize;
        loop {
            let (events, more) = match bytes.next().await {
                Some(Ok(chunk)) => {
                    read += chunk.len();
                    if read > MAX_REPLY_BYTES {
                        return Err(A2aError::Broken(format!(
                            "the answer is longer than {MAX_REPLY_BYTES} bytes"
                        )));
                    }
                    (parser.push(&chunk).map_err(A2aError::Broken)?, true)
                }
                Some(Err(e)) => return Err(A2aError::Broken(reason(&e))),
                None => (parser.finish().into_iter().collect(), false),
            };
            for event in events {
                taken += 1;
                if taken.is_multiple_of(UPDATES_PER_YIELD) {
                    tokio::task::yield_now().await;
                }
                let data = event.data();
                let value: Value = serde_json::from_str(&data).map_err(|_| garbage(data.as_bytes()))?;
                if let Some(shown) = turn.apply(wire::parse_response(self.card.dialect, &value)?)? {
                    on_text(&shown);
                }
                if turn.ended() {
                    return Ok(());
                }
            }
            if !more {
                return Ok(());
            }
        }
    }

    fn finish(&mut self, turn: Turn) -> Result<AgentReply, A2aError> {
        let (text, state) = turn.reply();
        self.open_task = None;
        match state {
            TaskState::Completed => Ok(AgentReply { text, state }),
            TaskState::InputRequired | TaskState::AuthRequired => {
                self.open_task = turn.task_id;
                Ok(AgentReply { text, state })
            }
            TaskState::Submitted | TaskState::Working => Err(A2aError::Unfinished(state.name().to_string())),
            state => {
                let text =
                    if text.trim().is_empty() { "(the agent gave no reason)".into() } else { quote(&text) };
                Err(A2aError::TaskEnded { state: state.name().to_string(), text })
            }
        }
    }
}

/// What one message's answer has said so far.
#[derive(Default)]
struct Turn {
    task_id: Option<String>,
    state: Option<TaskState>,
    status_text: Option<String>,
    /// The answer's artifacts in the order they came, and where each id is among them.
    artifacts: Vec<(String, String)>,
    artifact_at: std::collections::HashMap<String, usize>,
    message: Option<String>,
}

impl Turn {
    /// Takes one update in; returns the text to show live, if any.
    fn apply(&mut self, update: Update) -> Result<Option<String>, A2aError> {
        Ok(match update {
            Update::Message { text } => {
                self.message = Some(text.clone());
                Some(text)
            }
            Update::Task { task_id, state, status_text, artifacts } => {
                self.task_id = Some(task_id);
                self.state = Some(state);
                self.status_text = status_text.or(self.status_text.take());
                if !artifacts.is_empty() {
                    self.artifacts.clear();
                    self.artifact_at.clear();
                    for (id, text) in artifacts {
                        self.put_artifact(id, text, false)?;
                    }
                }
                None
            }
            Update::Status { task_id, state, text } => {
                self.task_id = Some(task_id);
                self.state = Some(state);
                self.status_text = text.or(self.status_text.take());
                None
            }
            Update::Artifact { task_id, artifact_id, text, append } => {
                self.task_id = Some(task_id);
                self.put_artifact(artifact_id, text.clone(), append)?;
                Some(text)
            }
        })
    }

    fn put_artifact(&mut self, id: String, text: String, append: bool) -> Result<(), A2aError> {
        match self.artifact_at.get(&id) {
            Some(&at) if append => self.artifacts[at].1.push_str(&text),
            Some(&at) => self.artifacts[at].1 = text,
            None if self.artifacts.len() >= MAX_ARTIFACTS => {
                return Err(A2aError::Broken(format!("more than {MAX_ARTIFACTS} artifacts in one answer")));
            }
            None => {
                self.artifact_at.insert(id.clone(), self.artifacts.len());
                self.artifacts.push((id, text));
            }
        }
        Ok(())
    }

    fn ended(&self) -> bool {
        self.message.is_some() || self.state.as_ref().is_some_and(TaskState::ends_turn)
    }

    /// The answer: a message's text, else the artifacts', else the status message's.
    fn reply(&self) -> (String, TaskState) {
        if let Some(text) = &self.message {
            return (text.clone(), TaskState::Completed);
        }
        let state = self.state.clone().unwrap_or(TaskState::Submitted);
        let artifacts: Vec<&str> =
            self.artifacts.iter().map(|(_, text)| text.as_str()).filter(|t| !t.is_empty()).collect();
        let text = if artifacts.is_empty() {
            self.status_text.clone().unwrap_or_default()
        } else {
            // Artifacts are pieces of one answer (an agent may stream each chunk as its own):
            // put together as they came, with nothing added (issue 37 D8).
            artifacts.concat()
        };
        (text, state)
    }
}

fn retryable(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

fn reason(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let shown = cause.to_string();
        if !text.contains(&shown) {
            text = format!("{text}: {shown}");
        }
        source = cause.source();
    }
    text
}

/// The agent's text in an error: one line, inert, cut short.
fn quote(text: &str) -> String {
    sanitize::excerpt(text, QUOTE_CHARS)
}

fn garbage(bytes: &[u8]) -> A2aError {
    A2aError::Garbage(quote(&String::from_utf8_lossy(bytes)))
}

async fn read_capped(response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        body.extend_from_slice(&chunk.map_err(|e| reason(&e))?);
        if body.len() > MAX_REPLY_BYTES {
            return Err(format!("the answer is longer than {MAX_REPLY_BYTES} bytes"));
        }
    }
    Ok(body)
}
