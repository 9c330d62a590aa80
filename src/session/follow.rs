//! Following one runner for a command that runs many (a fan, an attack search): its events
//! forwarded as they are journaled, its step gate steered by the command's own pause, step and
//! stop.

use tokio::sync::{mpsc, watch};

use crate::core::episode::Event;
use crate::core::sim::emitter::RunnerUpdate;
use crate::core::sim::gate::StepGate;
use crate::core::sim::runner::RunnerHandle;

/// Forwards the runner's events into `tx` (each made a `T` by `wrap`) until its updates end, and
/// returns them; `steer` sets its gate from `control` now and at every change. The runner is
/// aborted when `tx` or `control` is gone (whoever watched went away).
pub async fn follow_runner<C: Copy, T>(
    handle: &mut RunnerHandle,
    mut control: watch::Receiver<C>,
    steer: fn(C, &StepGate),
    tx: &mpsc::Sender<T>,
    wrap: impl Fn(Box<Event>) -> T,
) -> Vec<Event> {
    steer(*control.borrow_and_update(), &handle.gate);
    let mut events = Vec::new();
    let mut watching = true;
    loop {
        tokio::select! {
            update = handle.updates.recv() => match update {
                Some(RunnerUpdate::Event(event)) => {
                    events.push((*event).clone());
                    if tx.send(wrap(event)).await.is_err() {
                        handle.gate.abort();
                    }
                }
                Some(_) => {}
                None => break,
            },
            changed = control.changed(), if watching => match changed {
                Ok(()) => steer(*control.borrow_and_update(), &handle.gate),
                Err(_) => {
                    watching = false;
                    handle.gate.abort();
                }
            },
        }
    }
    events
}
