//! One model call as the runner makes it: through the step gate, streamed to
//! the watcher, cancelled at once by an abort.

use crate::core::llm::{ChatRequest, ChatResponse, Delta, Endpoint, LlmClient, LlmError};

use super::emitter::{Emitter, Phase, RunnerUpdate};
use super::gate::{Aborted, GateMode, StepGate};

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("aborted")]
    Aborted,
    #[error(transparent)]
    Llm(#[from] LlmError),
}

impl From<Aborted> for CallError {
    fn from(_: Aborted) -> Self {
        CallError::Aborted
    }
}

/// What every model call of an episode shares.
pub struct Caller<'a> {
    pub client: &'a LlmClient,
    pub gate: &'a StepGate,
    pub stream: bool,
}

impl Caller<'_> {
    pub async fn call(
        &self,
        endpoint: &Endpoint,
        request: ChatRequest,
        emitter: &Emitter,
    ) -> Result<ChatResponse, CallError> {
        let role = endpoint.role;
        if self.gate.mode() == GateMode::Paused {
            emitter.phase(Phase::Paused(role));
        }
        self.gate.before_call().await?;
        emitter.phase(Phase::Waiting(role));
        let call = async {
            if self.stream {
                let mut masker = emitter.stream_masker();
                let on_delta = |delta: Delta| {
                    if let Delta::Text(text) = delta {
                        let text = masker.push(&text);
                        if !text.is_empty() {
                            emitter.notify(RunnerUpdate::Delta { role, text });
                        }
                    }
                };
                self.client.chat_stream(endpoint, request, on_delta).await
            } else {
                self.client.chat(endpoint, request).await
            }
        };
        let response = tokio::select! {
            response = call => response?,
            _ = self.gate.aborted() => return Err(CallError::Aborted),
        };
        if let Some(usage) = response.usage {
            emitter.notify(RunnerUpdate::Usage { role, usage });
        }
        Ok(response)
    }
}
