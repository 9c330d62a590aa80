//! Attackers behind one trait: an LLM playing the adversarial provider, a
//! script (the attacker lines of a saved episode), or a human at the keyboard.

use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use crate::core::dataset::Task;
use crate::core::episode::{EventBody, Usage};
use crate::core::llm::{ChatMessage, ChatRequest, Endpoint, GenerationParams};

use super::emitter::{Emitter, Phase};
use super::model_call::Caller;
use super::prompts::{AttackerHistoryRole, attacker_prompt, parse_attacker_reply};
use super::run_error::RunError;

/// Attempts at a parsable reply before the attacker fails (reference: `max_try=3`).
pub const ATTACKER_ATTEMPTS: u32 = 3;

/// The attacker's next move.
#[derive(Debug, Clone, PartialEq)]
pub enum AttackerMove {
    Say {
        text: String,
        /// The full model output (the JSON with `details`).
        raw: Option<String>,
        model: Option<String>,
        usage: Option<Usage>,
        /// `human` for messages a person wrote.
        by: Option<String>,
    },
    /// The attacker has nothing more to say: the episode ends (`attacker_done`).
    Done,
}

/// What an attacker may look at when it moves.
pub struct AttackerContext<'a> {
    pub task: &'a Task,
    /// The conversation from the attacker's side: its messages (the first is the user's task) and the assistant's replies.
    pub history: &'a [(AttackerHistoryRole, String)],
    pub caller: &'a Caller<'a>,
    pub emitter: &'a Emitter,
}

pub trait Attacker: Send + Sync {
    fn next<'a>(&'a mut self, ctx: AttackerContext<'a>) -> BoxFuture<'a, Result<AttackerMove, RunError>>;
    /// `llm`, `scripted` or `human`, for the journal header.
    fn kind(&self) -> &'static str;
    /// Where a scripted attack came from (the file it was read from).
    fn source(&self) -> Option<&str> {
        None
    }
    /// The model endpoint, when a model plays the attacker.
    fn endpoint(&self) -> Option<&Endpoint> {
        None
    }
    /// Events noting the last move (an attack search's reasons), journaled before its message.
    fn notes(&mut self) -> Vec<EventBody> {
        Vec::new()
    }
    /// Runs once the conversation is over and judged, before the journal's `end` (an attack
    /// search scores the node here).
    fn closing<'a>(&'a self, _ctx: Closing<'a>) -> BoxFuture<'a, Result<(), RunError>> {
        Box::pin(async { Ok(()) })
    }
}

/// What an attacker may use when the conversation is over: the model calls of the episode and
/// its journal.
pub struct Closing<'a> {
    pub task: &'a Task,
    pub caller: &'a Caller<'a>,
    pub emitter: &'a mut Emitter,
}

/// The CONVERSE adversarial provider, played by a model.
pub struct LlmAttacker {
    pub endpoint: Endpoint,
    pub params: GenerationParams,
}

impl Attacker for LlmAttacker {
    fn next<'a>(&'a mut self, ctx: AttackerContext<'a>) -> BoxFuture<'a, Result<AttackerMove, RunError>> {
        Box::pin(async move {
            let prompt = attacker_prompt(ctx.task, ctx.history);
            let mut last_problem = String::new();
            for _ in 0..ATTACKER_ATTEMPTS {
                let request = ChatRequest::new(vec![ChatMessage::user(prompt.clone())])
                    .with_params(self.params.clone());
                let response = ctx.caller.call(&self.endpoint, request, ctx.emitter).await?;
                let raw = response.text().to_string();
                match parse_attacker_reply(&raw) {
                    Ok(reply) => {
                        return Ok(AttackerMove::Say {
                            text: reply.text,
                            raw: Some(raw),
                            model: Some(self.endpoint.model.clone()),
                            usage: response.usage.map(|u| Usage {
                                input_tokens: u.input_tokens,
                                output_tokens: u.output_tokens,
                            }),
                            by: None,
                        });
                    }
                    Err(problem) => {
                        tracing::warn!("attacker reply not usable: {problem}");
                        last_problem = format!("{problem}; reply: {}", shorten(&raw, 300));
                    }
                }
            }
            Err(RunError::Attacker(format!(
                "attacker model `{}` gave no JSON {{text, details}} reply in {ATTACKER_ATTEMPTS} attempts ({last_problem})",
                self.endpoint.model
            )))
        })
    }

    fn kind(&self) -> &'static str {
        "llm"
    }

    fn endpoint(&self) -> Option<&Endpoint> {
        Some(&self.endpoint)
    }
}

/// Replays recorded attacker messages, in order, against a new assistant.
pub struct ScriptedAttacker {
    lines: std::vec::IntoIter<String>,
    source: Option<String>,
}

impl ScriptedAttacker {
    pub fn new(lines: Vec<String>) -> Self {
        ScriptedAttacker { lines: lines.into_iter(), source: None }
    }

    /// Names the file the lines were read from (recorded in the journal's header).
    pub fn from_file(lines: Vec<String>, path: &str) -> Self {
        ScriptedAttacker { source: Some(path.to_string()), ..ScriptedAttacker::new(lines) }
    }
}

impl Attacker for ScriptedAttacker {
    fn next<'a>(&'a mut self, _ctx: AttackerContext<'a>) -> BoxFuture<'a, Result<AttackerMove, RunError>> {
        let step = match self.lines.next() {
            Some(text) => {
                AttackerMove::Say { text, raw: None, model: None, usage: None, by: Some("script".into()) }
            }
            None => AttackerMove::Done,
        };
        Box::pin(async move { Ok(step) })
    }

    fn kind(&self) -> &'static str {
        "scripted"
    }

    fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }
}

/// What the person playing the attacker sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HumanInput {
    Message(String),
    /// End the episode.
    End,
}

/// The person at the composer: waits for their message.
pub struct HumanAttacker {
    pub input: mpsc::Receiver<HumanInput>,
}

impl Attacker for HumanAttacker {
    fn next<'a>(&'a mut self, ctx: AttackerContext<'a>) -> BoxFuture<'a, Result<AttackerMove, RunError>> {
        Box::pin(async move {
            ctx.emitter.phase(Phase::AwaitingHuman);
            let input = tokio::select! {
                input = self.input.recv() => input,
                _ = ctx.caller.gate.aborted() => return Err(RunError::Aborted),
            };
            Ok(match input {
                Some(HumanInput::Message(text)) => {
                    AttackerMove::Say { text, raw: None, model: None, usage: None, by: Some("human".into()) }
                }
                Some(HumanInput::End) | None => AttackerMove::Done,
            })
        })
    }

    fn kind(&self) -> &'static str {
        "human"
    }
}

fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}
