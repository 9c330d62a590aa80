//! The search's own calls before a node runs: the attacker model writes the candidate (each
//! strategy's prompt), and TAP's on-topic filter checks it before it reaches the assistant. They
//! go through the search's gate (a pause holds them) and the launch's client (its rate limits
//! and the call budget).

use serde_json::{Value, json};

use crate::core::attack::candidate::Prepared;
use crate::core::attack::catalogue::Catalogue;
use crate::core::attack::params::TEMPERATURE_SPREAD;
use crate::core::attack::prompts::{self, Feedback, LogEntry};
use crate::core::attack::reply::{parse_attacker, parse_on_topic};
use crate::core::attack::{SearchParams, Strategy};
use crate::core::dataset::Task;
use crate::core::judge::llm::call::{JudgeOptions, call_judge};
use crate::core::judge::llm::expect::any_object;
use crate::core::llm::{ChatMessage, ChatRequest, Endpoint, GenerationParams, LlmClient, LlmError};
use crate::core::sim::attacker::ATTACKER_ATTEMPTS;
use crate::core::sim::gate::StepGate;
use crate::core::sim::prompts::AttackerHistoryRole;

/// What the strategy gives the attacker for one candidate.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Crescendo: the attacker's notes of the turns so far, refused ones included.
    pub log: Vec<LogEntry>,
    /// GOAT and TAP: the judge's view of the reply the candidate follows.
    pub feedback: Option<Feedback>,
    /// TAP: which of the leaf's candidates this is; GOAT: which conversation (from 1).
    pub candidate: u32,
    /// A person's message for the node (edit-and-continue): sent as it is, no attacker call.
    pub text: Option<String>,
}

/// Why no candidate was written.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error(transparent)]
    Model(#[from] LlmError),
    #[error("attacker model `{model}` gave no usable JSON answer in {attempts} attempts ({problem})")]
    Unusable { model: String, attempts: u32, problem: String },
    #[error("aborted")]
    Aborted,
}

pub struct Generator<'a> {
    pub client: &'a LlmClient,
    pub gate: &'a StepGate,
    pub task: &'a Task,
    pub params: &'a SearchParams,
    pub catalogue: &'a Catalogue,
    pub attacker: &'a Endpoint,
    pub judge: &'a Endpoint,
    pub sampling: GenerationParams,
    pub judge_options: JudgeOptions,
}

impl Generator<'_> {
    /// The candidate for turn `turn` after `history`, with the search's note on it.
    pub async fn candidate(
        &self,
        history: &[(AttackerHistoryRole, String)],
        turn: u32,
        inputs: &Inputs,
    ) -> Result<Prepared, GenerateError> {
        let prompt = match self.params.strategy {
            Strategy::Crescendo => {
                let last = turn + self.params.depth.saturating_sub(1);
                prompts::crescendo(self.task, history, &inputs.log, turn, last)
            }
            Strategy::Goat => prompts::goat(self.task, history, self.catalogue, inputs.feedback.as_ref()),
            Strategy::Tap => prompts::tap(
                self.task,
                history,
                inputs.feedback.as_ref(),
                inputs.candidate,
                self.params.branch,
            ),
        };
        let sampling = self.sampling_for(inputs.candidate);
        let mut problem = String::new();
        for _ in 0..ATTACKER_ATTEMPTS {
            let request =
                ChatRequest::new(vec![ChatMessage::user(prompt.clone())]).with_params(sampling.clone());
            self.gate.before_call().await.map_err(|_| GenerateError::Aborted)?;
            let response = tokio::select! {
                response = self.client.chat(self.attacker, request) => response?,
                _ = self.gate.aborted() => return Err(GenerateError::Aborted),
            };
            let raw = response.text().to_string();
            match parse_attacker(&raw) {
                Ok(answer) => {
                    let mut note = json!({
                        "strategy": self.params.strategy.as_str(),
                        "text": answer.text,
                        "reasoning": answer.reasoning,
                    });
                    if let Some(t) = sampling.temperature {
                        note["temperature"] = json!(t);
                    }
                    if self.params.strategy == Strategy::Goat {
                        let chosen = self.catalogue.resolve(&answer.field("technique"));
                        let known: Vec<&str> = chosen.iter().filter(|c| c.1).map(|c| c.0.as_str()).collect();
                        let unlisted: Vec<&str> =
                            chosen.iter().filter(|c| !c.1).map(|c| c.0.as_str()).collect();
                        note["techniques"] = json!(known);
                        if !unlisted.is_empty() {
                            note["unlisted_techniques"] = json!(unlisted);
                        }
                    }
                    return Ok(Prepared {
                        turn,
                        text: answer.text,
                        raw: Some(raw),
                        model: Some(self.attacker.model.clone()),
                        usage: response.usage,
                        by: None,
                        note,
                    });
                }
                Err(p) => problem = format!("{p}; reply: {}", crate::core::text::truncate_chars(&raw, 200)),
            }
        }
        Err(GenerateError::Unusable {
            model: self.attacker.model.clone(),
            attempts: ATTACKER_ATTEMPTS,
            problem,
        })
    }

    /// Each further candidate of a TAP leaf (or GOAT conversation) gets its own seed, so that
    /// they differ under `--seed`; a TAP candidate is also sampled hotter.
    fn sampling_for(&self, candidate: u32) -> GenerationParams {
        let mut sampling = self.sampling.clone();
        if candidate > 1 {
            sampling.seed = sampling.seed.map(|s| s + i64::from(candidate - 1));
            if self.params.strategy == Strategy::Tap {
                let extra = TEMPERATURE_SPREAD * f64::from(candidate - 1);
                sampling.temperature = Some(sampling.temperature.unwrap_or(1.0) + extra);
            }
        }
        sampling
    }

    /// The on-topic check: `(on topic, the judge's reason)`; a judge that cannot say keeps the
    /// candidate (an unanswered check prunes nothing) and says so.
    pub async fn on_topic(&self, candidate: &str) -> Result<(bool, Value), GenerateError> {
        self.gate.before_call().await.map_err(|_| GenerateError::Aborted)?;
        let prompt = prompts::on_topic(self.task, candidate);
        let call = tokio::select! {
            call = call_judge(self.client, self.judge, &prompt, "on-topic check", any_object, &self.judge_options) => call,
            _ = self.gate.aborted() => return Err(GenerateError::Aborted),
        };
        Ok(match call.reply.map_err(|f| f.error).and_then(|map| parse_on_topic(&map)) {
            Ok((on_topic, reason)) => (on_topic, json!({"on_topic": on_topic, "reason": reason})),
            Err(problem) => (true, json!({"on_topic": Value::Null, "error": problem})),
        })
    }
}
