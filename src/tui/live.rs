//! The live runner the screen steers, and how the screen starts one.

use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::core::sim::attacker::HumanInput;
use crate::core::sim::emitter::RunnerUpdate;
use crate::core::sim::gate::{GateMode, StepGate};
use crate::core::sim::runner::{RunOutcome, RunnerHandle, Start};

/// How long quitting waits for an aborted runner to write its `end` event.
const ABORT_GRACE: Duration = Duration::from_secs(5);

/// Starts a live episode of a task (chosen in the picker, or a fork); built by `main`.
pub type Launcher = Box<dyn FnMut(&str, Start) -> anyhow::Result<RunnerHandle>>;

pub(super) struct Live {
    pub(super) gate: StepGate,
    /// The gate's own reports of its state (a step consumed, a pause taken).
    pub(super) gate_changes: watch::Receiver<GateMode>,
    pub(super) updates: mpsc::Receiver<RunnerUpdate>,
    pub(super) task: JoinHandle<RunOutcome>,
    pub(super) edits: mpsc::Sender<String>,
    pub(super) human: Option<mpsc::Sender<HumanInput>>,
}

impl Live {
    pub(super) fn new(handle: RunnerHandle) -> Self {
        Live {
            gate_changes: handle.gate.subscribe(),
            gate: handle.gate,
            updates: handle.updates,
            task: handle.task,
            edits: handle.edits,
            human: handle.human,
        }
    }

    /// Aborts (if still running) and waits for the runner to close its journal.
    pub(super) async fn stop(self) {
        self.gate.abort();
        let _ = tokio::time::timeout(ABORT_GRACE, self.task).await;
    }
}
