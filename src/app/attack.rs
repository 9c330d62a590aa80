//! An attack search on screen (issue 40): its nodes as they start and end, each a candidate
//! attacker message with its judge score, what the search (or a person) decided about it, the
//! best path and the leaks; whether it is paused, the calls used. No terminal, no I/O: the
//! search's reports are folded in by [`AttackView::apply`].

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::core::attack::Strategy;
use crate::core::attack::node::{NodeId, NodeRecord};
use crate::core::attack::plan::Status;
use crate::core::episode::{EventBody, Party};
use crate::core::sanitize::inert;
use crate::session::attack::SearchUpdate;
use crate::session::attack::engine::best;

/// One node of the tree.
#[derive(Debug, Clone)]
pub struct AttackNode {
    pub id: NodeId,
    pub journal: PathBuf,
    /// Its candidate message, made inert (known once its attacker has spoken).
    pub text: Option<String>,
    /// What its journal says, once it has ended.
    pub record: Option<NodeRecord>,
    /// The root of a search from an episode: that episode's turn, which every first-level node
    /// continues (nothing runs for it; `+` on it adds a first-level node by hand).
    pub episode_turn: Option<u32>,
}

impl AttackNode {
    fn new(id: NodeId) -> AttackNode {
        AttackNode { id, journal: PathBuf::new(), text: None, record: None, episode_turn: None }
    }

    pub fn ended(&self) -> bool {
        self.episode_turn.is_some() || self.record.as_ref().is_some_and(NodeRecord::finished)
    }

    pub fn score(&self) -> Option<u8> {
        self.record.as_ref().and_then(|r| r.score)
    }

    /// The words an attack judge saw leaked, made inert.
    pub fn leak(&self) -> Option<String> {
        self.record.as_ref().and_then(|r| r.leak.as_ref()).map(|l| inert(&l.words).into_owned())
    }
}

/// Where the search started, for the way back.
#[derive(Debug, Clone, PartialEq)]
pub enum AttackOrigin {
    /// A turn of this episode (the inspector showed it).
    Episode { path: PathBuf, id: String, turn: u32 },
    /// A task of the picker.
    Task(String),
}

pub struct AttackView {
    pub origin: AttackOrigin,
    pub strategy: Strategy,
    pub budget: Option<u64>,
    pub dir: PathBuf,
    /// The loop said it started: reports before that are another search's.
    pub started: bool,
    /// In tree order (`NodeId::path`).
    pub nodes: Vec<AttackNode>,
    pub selected: usize,
    pub paused: bool,
    /// Steps taken while paused (each lets one more node start).
    pub steps: u32,
    pub calls: u64,
    pub best: Option<NodeId>,
    /// The nodes a person pruned (their branches are greyed).
    pub pruned: BTreeSet<NodeId>,
    /// How it ended (`None` while it runs).
    pub status: Option<Status>,
    pub problem: Option<String>,
}

impl AttackView {
    pub fn new(origin: AttackOrigin, strategy: Strategy, budget: Option<u64>, dir: PathBuf) -> AttackView {
        // A search from an episode's turn shows that turn as its root.
        let nodes = match &origin {
            AttackOrigin::Episode { path, id, turn } => vec![AttackNode {
                journal: path.clone(),
                text: Some(format!("turn {turn} of {}", inert(id))),
                episode_turn: Some(*turn),
                ..AttackNode::new(NodeId::root())
            }],
            AttackOrigin::Task(_) => Vec::new(),
        };
        AttackView {
            origin,
            strategy,
            budget,
            dir,
            started: false,
            nodes,
            selected: 0,
            paused: false,
            steps: 0,
            calls: 0,
            best: None,
            pruned: BTreeSet::new(),
            status: None,
            problem: None,
        }
    }

    /// Folds one report of the search in.
    pub fn apply(&mut self, update: SearchUpdate) {
        match update {
            SearchUpdate::NodeStarted { id, journal } => {
                self.node_mut(&id).journal = journal;
            }
            SearchUpdate::Event { id, event } => {
                if let EventBody::Message(m) = &event.body
                    && m.from == Party::Attacker
                {
                    self.node_mut(&id).text = Some(inert(&m.text).into_owned());
                }
            }
            SearchUpdate::NodeEnded(record) => {
                let record = *record;
                let node = self.node_mut(&record.id);
                node.journal = record.journal.clone();
                if let Some(text) = &record.text {
                    node.text = Some(inert(text).into_owned());
                }
                node.record = Some(record);
                let records: Vec<NodeRecord> = self.nodes.iter().filter_map(|n| n.record.clone()).collect();
                self.best = best(&records).map(|r| r.id.clone());
            }
            SearchUpdate::Calls(counts) => self.calls = counts.total(),
            SearchUpdate::Problem(problem) => self.problem = Some(problem),
            SearchUpdate::Finished(outcome) => {
                self.calls = outcome.calls.total();
                self.best = outcome.best.clone();
                self.problem = outcome.problem.clone().or(self.problem.take());
                self.status = Some(outcome.status);
            }
        }
    }

    /// The node `id`, added in its place in the tree if it is new (the selection stays on the
    /// node it was on).
    fn node_mut(&mut self, id: &NodeId) -> &mut AttackNode {
        let at = match self.nodes.binary_search_by(|n| n.id.path().cmp(&id.path())) {
            Ok(at) => at,
            Err(at) => {
                self.nodes.insert(at, AttackNode::new(id.clone()));
                if at <= self.selected && self.nodes.len() > 1 {
                    self.selected += 1;
                }
                at
            }
        };
        &mut self.nodes[at]
    }

    pub fn done(&self) -> bool {
        self.status.is_some()
    }

    /// The nodes the search ran (an episode's turn at the root is not one).
    pub fn node_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.episode_turn.is_none()).count()
    }

    pub fn leaks(&self) -> usize {
        self.nodes.iter().filter(|n| n.leak().is_some()).count()
    }

    pub fn best_score(&self) -> Option<u8> {
        let best = self.best.as_ref()?;
        self.nodes.iter().find(|n| &n.id == best).and_then(AttackNode::score)
    }

    /// Whether `id` is on the path from the root to the best node.
    pub fn on_best_path(&self, id: &NodeId) -> bool {
        self.best.as_ref().is_some_and(|best| id.holds(best))
    }

    /// Pruned: by the search (width, off topic), backtracked, or by a person (or under a node
    /// a person pruned).
    pub fn greyed(&self, node: &AttackNode) -> bool {
        let by_search = node
            .record
            .as_ref()
            .is_some_and(|r| !matches!(r.decision, crate::core::attack::node::Decision::Open));
        by_search || self.pruned.iter().any(|p| p.holds(&node.id))
    }

    pub fn select_by(&mut self, delta: isize) {
        let last = self.nodes.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }

    pub fn selected_node(&self) -> Option<&AttackNode> {
        self.nodes.get(self.selected)
    }
}
