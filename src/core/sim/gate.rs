//! The step gate: the runner waits here before every model call, so a paused
//! episode makes no calls and the user can step one call or one turn.

use tokio::sync::watch;

/// What the user asked the runner to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateMode {
    Running,
    Paused,
    /// Let this many more model calls through, then pause.
    StepCalls(u32),
    /// Run to the end of the current turn, then pause.
    StepTurn,
    Aborted,
}

/// Returned when the episode was aborted while waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("aborted")]
pub struct Aborted;

/// Shared between the runner (which waits) and whoever controls it.
#[derive(Debug, Clone)]
pub struct StepGate {
    tx: watch::Sender<GateMode>,
}

impl StepGate {
    pub fn new(paused: bool) -> Self {
        let (tx, _) = watch::channel(if paused { GateMode::Paused } else { GateMode::Running });
        StepGate { tx }
    }

    pub fn mode(&self) -> GateMode {
        *self.tx.borrow()
    }

    pub fn set(&self, mode: GateMode) {
        // An abort is final.
        self.tx.send_if_modified(|m| {
            let changed = *m != mode && *m != GateMode::Aborted;
            if changed {
                *m = mode;
            }
            changed
        });
    }

    pub fn pause(&self) {
        self.set(GateMode::Paused);
    }

    pub fn resume(&self) {
        self.set(GateMode::Running);
    }

    pub fn step_call(&self) {
        self.set(GateMode::StepCalls(1));
    }

    pub fn step_turn(&self) {
        self.set(GateMode::StepTurn);
    }

    pub fn abort(&self) {
        self.set(GateMode::Aborted);
    }

    pub fn is_aborted(&self) -> bool {
        self.mode() == GateMode::Aborted
    }

    /// Waits until one model call may be made, and consumes a step if stepping.
    pub async fn before_call(&self) -> Result<(), Aborted> {
        let mut rx = self.tx.subscribe();
        loop {
            let mode = *rx.borrow_and_update();
            match mode {
                GateMode::Aborted => return Err(Aborted),
                GateMode::Running | GateMode::StepTurn => return Ok(()),
                GateMode::StepCalls(n) => {
                    let next = if n <= 1 { GateMode::Paused } else { GateMode::StepCalls(n - 1) };
                    self.tx.send_replace(next);
                    return Ok(());
                }
                GateMode::Paused => {
                    if rx.changed().await.is_err() {
                        return Err(Aborted);
                    }
                }
            }
        }
    }

    /// Called by the runner when a turn ends: a turn step pauses here.
    pub fn turn_ended(&self) {
        self.tx.send_if_modified(|m| {
            let stepping = *m == GateMode::StepTurn;
            if stepping {
                *m = GateMode::Paused;
            }
            stepping
        });
    }

    /// Waits while paused, without consuming a step (holding a message for an edit).
    pub async fn released(&self) -> Result<(), Aborted> {
        let mut rx = self.tx.subscribe();
        loop {
            match *rx.borrow_and_update() {
                GateMode::Aborted => return Err(Aborted),
                GateMode::Paused => {}
                _ => return Ok(()),
            }
            if rx.changed().await.is_err() {
                return Err(Aborted);
            }
        }
    }

    /// Resolves when the episode is aborted (to cancel a model call in flight).
    pub async fn aborted(&self) {
        let mut rx = self.tx.subscribe();
        while *rx.borrow_and_update() != GateMode::Aborted {
            if rx.changed().await.is_err() {
                return;
            }
        }
    }

    /// A receiver to watch the mode (status line).
    pub fn subscribe(&self) -> watch::Receiver<GateMode> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn paused_gate_blocks_until_resumed() {
        let gate = StepGate::new(true);
        let waiter = gate.clone();
        let task = tokio::spawn(async move { waiter.before_call().await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!task.is_finished());
        gate.resume();
        assert_eq!(task.await.unwrap(), Ok(()));
    }

    #[tokio::test]
    async fn a_step_lets_exactly_one_call_through() {
        let gate = StepGate::new(true);
        gate.step_call();
        gate.before_call().await.unwrap();
        assert_eq!(gate.mode(), GateMode::Paused);
        let waiter = gate.clone();
        let task = tokio::spawn(async move { waiter.before_call().await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!task.is_finished());
        gate.abort();
        assert_eq!(task.await.unwrap(), Err(Aborted));
    }

    #[tokio::test]
    async fn a_turn_step_runs_to_the_end_of_the_turn() {
        let gate = StepGate::new(true);
        gate.step_turn();
        gate.before_call().await.unwrap();
        gate.before_call().await.unwrap();
        gate.turn_ended();
        assert_eq!(gate.mode(), GateMode::Paused);
        gate.abort();
        gate.resume();
        assert!(gate.is_aborted(), "abort is final");
    }
}
