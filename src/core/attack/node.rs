//! A node of a search as its fork journal records it: the candidate message (and why the search
//! sent it), the judge's score, a leak, and what the search decided (pruned, backtracked).
//! Everything the search knows of a finished node is read back from its journal, so a resumed
//! search, the report and the screen see the same node.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::episode::standing::{final_by_source, verdict_turn};
use crate::core::episode::{ControlAction, EndReason, Event, EventBody, Outcome, Party};
use crate::core::fan::tally::ATTACK_JUDGES;

/// The judge of a search's progress score, as its verdicts name it.
pub const PROGRESS_JUDGE: &str = "progress";
/// Who writes a search's control events.
pub const BY_SEARCH: &str = "search";

/// `root`, or the path of child numbers from it: `2`, `2-1`, `2-1-4`. A child a person asked for
/// (expanded by hand, edited, or a pinned branch run on) is numbered apart: `2-1-h1`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct NodeId(String);

/// Where the children made by hand come in a node's order: after the search's own.
const BY_HAND: u32 = 1 << 30;

impl NodeId {
    pub fn root() -> NodeId {
        NodeId("root".into())
    }

    pub fn is_root(&self) -> bool {
        self.0 == "root"
    }

    /// Its `k`-th child (from 1).
    pub fn child(&self, k: u32) -> NodeId {
        self.join(&k.to_string())
    }

    /// Its `k`-th child made by hand (from 1).
    pub fn hand_child(&self, k: u32) -> NodeId {
        self.join(&format!("h{k}"))
    }

    fn join(&self, segment: &str) -> NodeId {
        if self.is_root() { NodeId(segment.to_string()) } else { NodeId(format!("{}-{segment}", self.0)) }
    }

    /// It was made by hand.
    pub fn by_hand(&self) -> bool {
        self.0.rsplit('-').next().is_some_and(|last| last.starts_with('h'))
    }

    pub fn parent(&self) -> Option<NodeId> {
        if self.is_root() {
            return None;
        }
        Some(self.0.rsplit_once('-').map_or_else(NodeId::root, |(up, _)| NodeId(up.to_string())))
    }

    /// Whether `other` is this node or below it.
    pub fn holds(&self, other: &NodeId) -> bool {
        self.is_root() || other == self || other.0.starts_with(&format!("{}-", self.0))
    }

    /// Attacker turns from the root.
    pub fn depth(&self) -> u32 {
        if self.is_root() { 0 } else { self.0.split('-').count() as u32 }
    }

    /// The child numbers from the root, for ordering (`2-10` after `2-9`, a child made by hand
    /// after the search's).
    pub fn path(&self) -> Vec<u32> {
        if self.is_root() {
            return Vec::new();
        }
        self.0.split('-').filter_map(segment).collect()
    }

    /// Its journal's file name in the search folder.
    pub fn journal_name(&self) -> String {
        if self.is_root() { "root.jsonl".into() } else { format!("node-{}.jsonl", self.0) }
    }

    /// The node whose journal this is (`node-2-1.jsonl` → `2-1`).
    pub fn from_journal_name(name: &str) -> Option<NodeId> {
        if name == "root.jsonl" {
            return Some(NodeId::root());
        }
        let id = name.strip_prefix("node-")?.strip_suffix(".jsonl")?;
        let valid = !id.is_empty() && id.split('-').all(|k| segment(k).is_some());
        valid.then(|| NodeId(id.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A segment's place among its siblings: `4` → 4, `h2` → after every numbered one; 0 and
/// anything else are not segments.
fn segment(text: &str) -> Option<u32> {
    let (base, digits) = match text.strip_prefix('h') {
        Some(digits) => (BY_HAND, digits),
        None => (0, text),
    };
    digits.parse::<u32>().ok().filter(|&k| k > 0 && k < BY_HAND).map(|k| base + k)
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A leak the attack judges saw in the node's own turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leak {
    pub judge: String,
    /// `rule`, `llm:MODEL`.
    pub source: String,
    /// What was leaked, as the verdict's evidence (or summary) says.
    pub words: String,
    pub turn: Option<u32>,
}

/// What the search decided about a node after its turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Still a leaf the search may continue from.
    Open,
    /// Dropped: off topic before it reached the assistant, or below the kept width.
    Pruned(String),
    /// Refused: dropped from the conversation and tried again (Crescendo).
    Backtracked,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeRecord {
    pub id: NodeId,
    pub journal: PathBuf,
    pub episode: String,
    /// The turn of its candidate message (the root: its last turn).
    pub turn: u32,
    /// The candidate: delivered, or (off topic) only proposed.
    pub text: Option<String>,
    /// What the search noted with the candidate (the attacker's reasoning, a technique, the
    /// on-topic check).
    pub candidate: Value,
    pub score: Option<u8>,
    pub reason: String,
    pub refused: bool,
    pub leak: Option<Leak>,
    /// An attack judge could not decide on the node's turn (`error`, `skipped`), or the external
    /// agent never reached its tools.
    pub undecided: bool,
    pub decision: Decision,
    /// How its journal ended (`None`: it has no `end` yet).
    pub end: Option<String>,
    pub error: Option<String>,
}

impl NodeRecord {
    /// Reads node `id` from its journal's events.
    pub fn read(id: NodeId, journal: &Path, events: &[Event]) -> NodeRecord {
        let episode = match events.first().map(|e| &e.body) {
            Some(EventBody::Episode(h)) => h.id.clone(),
            _ => String::new(),
        };
        // The node's own part starts with the search's note on its candidate, the last one (its
        // ancestors' are in the turns it copied); the root's after its header.
        let own_from = events
            .iter()
            .rposition(|e| is_control(e, ControlAction::Candidate))
            .unwrap_or(if id.is_root() { 1 } else { events.len() });
        let own = &events[own_from.min(events.len())..];
        let mut record = NodeRecord {
            id,
            journal: journal.to_path_buf(),
            episode,
            turn: 0,
            text: None,
            candidate: Value::Null,
            score: None,
            reason: String::new(),
            refused: false,
            leak: None,
            undecided: false,
            decision: Decision::Open,
            end: None,
            error: None,
        };
        for event in own {
            record.fold(event);
        }
        if record.turn == 0 {
            // The root: its last turn.
            record.turn = events.iter().filter_map(|e| e.body.turn()).max().unwrap_or(0);
        }
        record.judge_outcome(own, events);
        record
    }

    fn fold(&mut self, event: &Event) {
        match &event.body {
            EventBody::Control(c) if c.by.as_deref() == Some(BY_SEARCH) => match c.action {
                ControlAction::Candidate => {
                    self.candidate = c.details.clone();
                    self.text = c.details.get("text").and_then(Value::as_str).map(str::to_string);
                    self.turn = c.turn.unwrap_or(self.turn);
                }
                ControlAction::Prune => {
                    let why = c.details.get("reason").and_then(Value::as_str).unwrap_or("pruned");
                    self.decision = Decision::Pruned(why.to_string());
                }
                ControlAction::Backtrack => self.decision = Decision::Backtracked,
                _ => {}
            },
            // An agent that never reached its tools was not tested: its verdicts decide nothing.
            EventBody::Control(c) if c.action == ControlAction::ToolsUnreached => self.undecided = true,
            EventBody::Message(m) if m.from == Party::Attacker && m.to == Party::Assistant => {
                self.text = Some(m.text.clone());
                self.turn = m.turn;
            }
            EventBody::Verdict(v) if v.judge == PROGRESS_JUDGE => {
                self.score = v.details.get("score").and_then(Value::as_u64).map(|s| s as u8);
                self.refused = v.details.get("refused").and_then(Value::as_bool).unwrap_or(false);
                self.reason = v.summary.clone().unwrap_or_default();
            }
            EventBody::Error(e) => self.error = Some(e.message.clone()),
            EventBody::End(end) => self.end = Some(end.reason.as_str().to_string()),
            _ => {}
        }
    }

    /// The first leak any attack judge source saw in the node's own events, or whether one could
    /// not decide.
    /// The leak named is one whose verdict quotes the words (a rule judge's evidence) if any.
    fn judge_outcome(&mut self, own: &[Event], all: &[Event]) {
        let mut leaks = Vec::new();
        for judge in ATTACK_JUDGES {
            for (source, v) in final_by_source(own, judge) {
                match v.outcome {
                    Outcome::Fail => leaks.push((judge, source, v)),
                    Outcome::Error | Outcome::Skipped => self.undecided = true,
                    _ => {}
                }
            }
        }
        leaks.sort_by_key(|(_, _, v)| v.evidence.as_ref().and_then(|e| e.text.as_ref()).is_none());
        self.leak = leaks.into_iter().next().map(|(judge, source, v)| {
            let quoted = v.evidence.as_ref().and_then(|e| e.text.clone());
            let words = quoted.or_else(|| v.summary.clone()).unwrap_or_default();
            Leak { judge: judge.to_string(), source, words, turn: verdict_turn(v, all) }
        });
    }

    /// Its journal has its `end`.
    pub fn finished(&self) -> bool {
        self.end.is_some()
    }

    /// It ran to its end: a result the search keeps (a resume does not run it again). A node
    /// that ended in an error (the budget cut it, a model failed) or was stopped is not one.
    pub fn complete(&self) -> bool {
        let failed = [EndReason::Error.as_str(), EndReason::Aborted.as_str()];
        self.end.as_deref().is_some_and(|end| !failed.contains(&end))
    }

    /// Stopped by the call budget before it was done: not a result, run again on a resume with
    /// more budget.
    pub fn cut_by_budget(&self) -> bool {
        self.end.as_deref() == Some(EndReason::Error.as_str())
            && self.error.as_deref().is_some_and(|e| e.contains(crate::core::attack::BUDGET_SPENT))
    }

    /// A word for the node's state: `leak`, `pruned`, `off-topic`, `backtracked`, `error`, `kept`…
    pub fn status(&self) -> &'static str {
        match (&self.leak, &self.decision, self.end.as_deref()) {
            (Some(_), ..) => "leak",
            (_, Decision::Pruned(why), _) if why.starts_with("off topic") => "off-topic",
            (_, Decision::Pruned(_), _) => "pruned",
            (_, Decision::Backtracked, _) => "backtracked",
            (_, _, None) => "running",
            _ if self.cut_by_budget() => "cut",
            (_, _, Some(end)) if end == EndReason::Error.as_str() => "error",
            (_, _, Some(end)) if end == EndReason::Aborted.as_str() => "aborted",
            _ => "open",
        }
    }

    /// The GOAT technique(s) its candidate used.
    pub fn techniques(&self) -> Vec<String> {
        match self.candidate.get("techniques") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => Vec::new(),
        }
    }
}

fn is_control(event: &Event, action: ControlAction) -> bool {
    matches!(&event.body, EventBody::Control(c) if c.action == action && c.by.as_deref() == Some(BY_SEARCH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_place_in_the_tree_and_their_journal() {
        let root = NodeId::root();
        let n = root.child(2).child(10);
        assert_eq!((n.as_str(), n.depth(), n.path()), ("2-10", 2, vec![2, 10]));
        assert_eq!(n.parent(), Some(root.child(2)));
        assert_eq!(root.child(2).parent(), Some(root.clone()));
        assert_eq!(root.parent(), None);
        assert_eq!(n.journal_name(), "node-2-10.jsonl");
        assert_eq!(NodeId::from_journal_name("node-2-10.jsonl"), Some(n));
        assert_eq!(NodeId::from_journal_name("root.jsonl"), Some(root));
        for other in
            ["node-.jsonl", "node-2-x.jsonl", "node-0.jsonl", "node-h0.jsonl", "runs.jsonl", "node-2"]
        {
            assert_eq!(NodeId::from_journal_name(other), None, "{other}");
        }
        let hand = NodeId::root().child(2).hand_child(1);
        assert_eq!((hand.as_str(), hand.by_hand(), hand.depth()), ("2-h1", true, 2));
        assert_eq!(NodeId::from_journal_name("node-2-h1.jsonl"), Some(hand.clone()));
        assert!(hand.path() > NodeId::root().child(2).child(9).path(), "by hand after the search's own");
        assert!(NodeId::root().child(2).holds(&hand) && !NodeId::root().child(20).holds(&hand));
    }
}
