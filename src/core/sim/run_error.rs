//! Why a runner stopped early: the runner, the assistant loop and the
//! attackers all return it, so it lives apart from each of them.

use crate::core::llm::LlmError;

use super::emitter::JournalFailed;
use super::model_call::CallError;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("aborted")]
    Aborted,
    #[error(transparent)]
    Journal(#[from] JournalFailed),
    #[error(transparent)]
    Model(LlmError),
    #[error("{0}")]
    Attacker(String),
    /// An external assistant (issue 26) failed: it exited, answered garbage or could not start.
    #[error("{0}")]
    Agent(String),
}

impl From<CallError> for RunError {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Aborted => RunError::Aborted,
            CallError::Llm(e) => RunError::Model(e),
        }
    }
}
