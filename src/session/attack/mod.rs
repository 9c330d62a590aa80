//! Running an attack search (issue 40): made ready from the user's flags or a folder's plan
//! (`setup`), the attacker's and the on-topic filter's calls (`generate`), the nodes run as fork
//! journals (`engine`), the three strategies as walks over the tree (`strategies`). The pure
//! parts (prompts, the node records, the plan, the call count) are `core::attack`.

pub mod engine;
pub mod generate;
pub mod request;
pub mod setup;
mod strategies;

use std::sync::Arc;

use tokio::sync::{mpsc, watch};

use crate::core::attack::node::NodeId;

pub use engine::{AttackOutcome, NodeRun, Search, SearchControl, SearchUpdate};
pub use request::{AttackRequest, free_attack_dir, parse_request};
pub use setup::{AttackArgs, ShapeFlags, Start, prepare};

/// A search running on the current tokio runtime.
pub struct SearchHandle {
    pub updates: mpsc::Receiver<SearchUpdate>,
    pub control: watch::Sender<SearchControl>,
    pub task: tokio::task::JoinHandle<AttackOutcome>,
    search: Arc<Search>,
}

/// A person's hand on the running search, from the screen.
#[derive(Debug, Clone, PartialEq)]
pub enum HandRequest {
    Prune(NodeId),
    /// One more child of `node`: the attacker's, or `text`; with `pin`, its branch runs on.
    Expand {
        node: NodeId,
        text: Option<String>,
        pin: bool,
    },
}

impl SearchHandle {
    /// Carries out `request`; says what it did (the child an expansion made).
    pub fn hand(&self, request: HandRequest) -> anyhow::Result<String> {
        match request {
            HandRequest::Prune(node) => {
                self.prune(&node)?;
                Ok(format!("node {node} pruned: the search leaves its branch"))
            }
            HandRequest::Expand { node, text, pin } => {
                let child = self.expand(&node, text, pin)?;
                let how = if pin { ", its branch runs on" } else { "" };
                Ok(format!("node {child} asked for after {node}{how}"))
            }
        }
    }

    /// A person prunes `node` and its branch (see `core::attack::plan::HandOp`).
    pub fn prune(&self, node: &NodeId) -> anyhow::Result<()> {
        self.search.prune_by_hand(node)
    }

    /// A person asks for one more child of `node`: the attacker's, or `text` (edit-and-continue);
    /// with `pin`, its branch runs on to the search's depth. Returns the child's id.
    pub fn expand(&self, node: &NodeId, text: Option<String>, pin: bool) -> anyhow::Result<NodeId> {
        let child = self.search.expand_by_hand(node, text.clone(), pin)?;
        strategies::run_by_hand(&self.search, child.clone(), text, pin);
        Ok(child)
    }
}

/// Starts the search `parts` describe.
pub fn spawn(parts: engine::SearchParts) -> anyhow::Result<SearchHandle> {
    let (control, control_rx) = watch::channel(SearchControl::Run);
    let (tx, updates) = mpsc::channel(1024);
    let search = Arc::new(Search::new(parts, control_rx, tx)?);
    let task = tokio::spawn(strategies::run(search.clone()));
    Ok(SearchHandle { updates, control, task, search })
}
