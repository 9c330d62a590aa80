//! The live runner the screen steers, how the screen starts one, and its reports forwarded to
//! the inbox.

use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::app::Action;
use crate::app::live::RunnerControl;
use crate::core::sim::attacker::HumanInput;
use crate::core::sim::emitter::RunnerUpdate;
use crate::core::sim::gate::{GateMode, StepGate};
use crate::core::sim::runner::{RunOutcome, RunnerHandle};

use super::inbox::Outbox;

/// How long quitting waits for an aborted runner to write its `end` event.
const ABORT_GRACE: Duration = Duration::from_secs(5);

/// Starts a live episode of a task (chosen in the picker, or a fork); built by `main`.
pub type Launcher = Box<dyn FnMut(&str, crate::core::sim::runner::Start) -> anyhow::Result<RunnerHandle>>;

pub(super) struct Live {
    gate: StepGate,
    task: JoinHandle<RunOutcome>,
    edits: mpsc::Sender<String>,
    human: Option<mpsc::Sender<HumanInput>>,
    /// Hands the runner's reports to the inbox.
    forward: JoinHandle<()>,
}

impl Live {
    /// Steers the runner of `handle`; its reports go to the inbox, after `started` if given.
    pub(super) fn new(handle: RunnerHandle, inbox: Outbox, started: Option<Action>) -> Self {
        let forward = forward(inbox, started, handle.updates, handle.gate.subscribe());
        Live { gate: handle.gate, task: handle.task, edits: handle.edits, human: handle.human, forward }
    }

    pub(super) fn control(&self, control: RunnerControl) {
        match control {
            RunnerControl::Pause => self.gate.pause(),
            RunnerControl::Resume => self.gate.resume(),
            RunnerControl::StepCall => self.gate.step_call(),
            RunnerControl::StepTurn => self.gate.step_turn(),
            RunnerControl::Abort => self.gate.abort(),
        }
    }

    /// The human attacker's message, or the end of the episode.
    pub(super) async fn human(&self, input: HumanInput) {
        if let Some(tx) = &self.human {
            let _ = tx.send(input).await;
        }
    }

    /// The attacker model's held message, edited.
    pub(super) async fn edit(&self, text: String) {
        let _ = self.edits.send(text).await;
    }

    /// Aborts (if still running) and waits for the runner to close its journal; nothing it
    /// reports after this reaches the screen.
    pub(super) async fn stop(self) {
        self.forward.abort();
        self.gate.abort();
        let _ = tokio::time::timeout(ABORT_GRACE, self.task).await;
    }
}

/// Sends `started` (what the screen learns first), then each of the runner's updates and each
/// state its step gate reports, until the run's channel closes.
fn forward(
    inbox: Outbox,
    started: Option<Action>,
    mut updates: mpsc::Receiver<RunnerUpdate>,
    mut gate: watch::Receiver<GateMode>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        if let Some(started) = started
            && inbox.send(started).await.is_err()
        {
            return;
        }
        // The gate's state now, first: a run started paused (a take-over of a `--paused` run)
        // must not say it is running.
        gate.mark_changed();
        let mut gate_open = true;
        loop {
            let action = tokio::select! {
                update = updates.recv() => match update {
                    Some(update) => Action::Runner(update),
                    None => return,
                },
                changed = gate.changed(), if gate_open => match changed {
                    Ok(()) => Action::Gate(*gate.borrow_and_update()),
                    Err(_) => {
                        gate_open = false;
                        continue;
                    }
                },
            };
            if inbox.send(action).await.is_err() {
                return;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::inbox::Inbox;

    /// Issue 37 D2: a take-over of a `--paused` run started gated while the screen said running.
    #[tokio::test]
    async fn the_screen_learns_the_state_a_run_starts_in() {
        let (mut inbox, outbox) = Inbox::new();
        let (_updates_tx, updates) = mpsc::channel(1);
        let gate = StepGate::new(true);
        let task = forward(outbox, Some(Action::Done("started".into())), updates, gate.subscribe());
        assert!(matches!(inbox.next().await, Some(Action::Done(_))));
        let next = tokio::time::timeout(Duration::from_secs(2), inbox.next()).await;
        assert!(matches!(next, Ok(Some(Action::Gate(GateMode::Paused)))), "the gate's state: {next:?}");
        task.abort();
    }
}
