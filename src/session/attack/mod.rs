//! Running an attack search (issue 40): made ready from the user's flags or a folder's plan
//! (`setup`), the attacker's and the on-topic filter's calls (`generate`), the nodes run as fork
//! journals (`engine`), the three strategies as walks over the tree (`strategies`). The pure
//! parts (prompts, the node records, the plan, the call count) are `core::attack`.

pub mod engine;
pub mod generate;
pub mod setup;
mod strategies;

use std::sync::Arc;

use tokio::sync::{mpsc, watch};

pub use engine::{AttackOutcome, NodeRun, Search, SearchControl, SearchUpdate};
pub use setup::{AttackArgs, ShapeFlags, Start, prepare};

/// A search running on the current tokio runtime.
pub struct SearchHandle {
    pub updates: mpsc::Receiver<SearchUpdate>,
    pub control: watch::Sender<SearchControl>,
    pub task: tokio::task::JoinHandle<AttackOutcome>,
}

/// Starts the search `parts` describe.
pub fn spawn(parts: engine::SearchParts) -> anyhow::Result<SearchHandle> {
    let (control, control_rx) = watch::channel(SearchControl::Run);
    let (tx, updates) = mpsc::channel(1024);
    let search = Arc::new(Search::new(parts, control_rx, tx)?);
    let task = tokio::spawn(strategies::run(search));
    Ok(SearchHandle { updates, control, task })
}
