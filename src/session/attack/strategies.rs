//! The three strategies as walks over the fork tree. Each asks the engine for nodes by their
//! place in the tree (`NodeId`) and decides from what the nodes' journals say (score, refusal,
//! leak), nothing else, so that the same walk over the same journals makes the same decisions:
//! that is what lets `--resume` continue a search exactly.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::core::attack::Strategy;
use crate::core::attack::candidate::Report;
use crate::core::attack::node::{Decision, NodeId, NodeRecord};
use crate::core::attack::plan::{HandOp, Status};
use crate::core::attack::prompts::{Feedback, LogEntry};

use super::engine::{AttackOutcome, NodeRun, NodeSpec, Search};
use super::generate::Inputs;

/// How a strategy ended, and why it stopped short if it did.
type Ended = (Status, Option<String>);

/// Runs the search's strategy to its end, and the branches a person asked for (those of the
/// plan again on a resume) to theirs; the plan says how it ended.
pub async fn run(search: Arc<Search>) -> AttackOutcome {
    let (mut status, problem) = match start(&search).await {
        Some(ended) => ended,
        None => {
            for op in search.hand_ops() {
                if let HandOp::Expand { child, text, pin, .. } = op {
                    run_by_hand(&search, child, text, pin);
                }
            }
            match search.params.strategy {
                Strategy::Tap => tap(&search).await,
                Strategy::Crescendo => crescendo(&search).await,
                Strategy::Goat => goat(&search).await,
            }
        }
    };
    loop {
        let running = std::mem::take(&mut *search.by_hand.lock().unwrap_or_else(|p| p.into_inner()));
        if running.is_empty() {
            break;
        }
        for task in running {
            let _ = task.await;
        }
    }
    let leaked = search.records().iter().any(|r| r.leak.is_some());
    if leaked && matches!(status, Status::NothingFound | Status::AllPruned) {
        status = Status::Leak;
    }
    search.finish(status, problem).await
}

/// Runs the branch a person asked for from `id` (see [`HandOp::Expand`]) beside the strategy.
pub fn run_by_hand(search: &Arc<Search>, id: NodeId, text: Option<String>, pin: bool) {
    let task = tokio::spawn(by_hand(search.clone(), id, text, pin));
    search.by_hand.lock().unwrap_or_else(|p| p.into_inner()).push(task);
}

async fn by_hand(search: Arc<Search>, mut id: NodeId, mut text: Option<String>, pin: bool) {
    loop {
        let parent = id.parent().unwrap_or_else(NodeId::root);
        let inputs = Inputs {
            feedback: feedback(&search, &parent),
            candidate: 1,
            text: text.take(),
            ..Inputs::default()
        };
        let record = match search.run_node(NodeSpec { id: id.clone(), inputs, ..NodeSpec::default() }).await {
            NodeRun::Done(r) | NodeRun::Held(r) => r,
            NodeRun::Stop(_, problem) => return search.tell(problem),
        };
        let on = record.complete() && record.leak.is_none() && !search.pruned(&id);
        if !pin || !on || id.depth() >= search.params.depth {
            return;
        }
        id = id.hand_child(1);
    }
}

/// Runs the root when the search starts from a task (its first turn); `Some` when the search
/// ends there.
async fn start(search: &Arc<Search>) -> Option<Ended> {
    if !search.root_events().is_empty() {
        return None;
    }
    match search.run_node(NodeSpec::default()).await {
        NodeRun::Done(r) if r.leak.is_some() => Some((Status::Leak, None)),
        NodeRun::Done(r) if !r.complete() => Some((Status::Stopped, failure(&r))),
        NodeRun::Done(_) | NodeRun::Held(_) => None,
        NodeRun::Stop(status, problem) => Some((status, problem)),
    }
}

/// Why a node that did not complete stopped the search.
fn failure(r: &NodeRecord) -> Option<String> {
    let why = r.error.clone().unwrap_or_else(|| r.end.clone().unwrap_or_else(|| "unfinished".into()));
    Some(format!("node {} ended without a result: {why}", r.id))
}

/// The judge's view of the node a candidate follows (none for the root).
fn feedback(search: &Search, id: &NodeId) -> Option<Feedback> {
    let r = search.record(id).filter(|_| !id.is_root())?;
    Some(Feedback { score: r.score, reason: r.reason })
}

/// TAP (Mehrotra et al.): per kept leaf and turn, `branch` candidates; the off-topic ones are
/// dropped before they reach the assistant; the rest are scored and the best `width` leaves
/// survive. Stops at a turn where a node leaked, when every branch is pruned, or at `depth`.
async fn tap(search: &Arc<Search>) -> Ended {
    let p = search.params.clone();
    let mut leaves = vec![NodeId::root()];
    for depth in 1..=p.depth {
        let mut pending = Vec::new();
        for leaf in leaves.iter().filter(|leaf| !search.pruned(leaf)) {
            let feedback = feedback(search, leaf);
            for k in 1..=p.branch {
                let id = leaf.child(k);
                let (report_tx, report) = oneshot::channel();
                let (decision, decision_rx) = oneshot::channel();
                let inputs = Inputs { feedback: feedback.clone(), candidate: k, ..Inputs::default() };
                let spec =
                    NodeSpec { id: id.clone(), inputs, hold: Some((report_tx, decision_rx)), retry: None };
                let s = search.clone();
                let task = tokio::spawn(async move { s.run_node(spec).await });
                pending.push(Pending { id, report, decision, task });
            }
        }
        let level = match gather(pending).await {
            Ok(level) => level,
            // The turn is not whole: its scored nodes wait undecided (a resume finishes them).
            Err(ended) => return ended,
        };
        // A person's prune takes a node out of the ranking (a leak it found still counts).
        let (pruned, mut ranked): (Vec<_>, Vec<_>) =
            level.ranked.into_iter().partition(|(id, _)| search.pruned(id));
        search.next_round();
        ranked.sort_by(|a, b| key(b).cmp(&key(a)).then_with(|| a.0.path().cmp(&b.0.path())));
        let of = ranked.len();
        let mut kept = Vec::new();
        let mut leak = pruned.iter().any(|(_, report)| report.leak);
        let by_hand = json!({"reason": "pruned by hand", "by": "human"});
        let mut decisions: Vec<(NodeId, Option<Value>)> =
            pruned.iter().map(|(id, _)| (id.clone(), Some(by_hand.clone()))).collect();
        for (rank, (id, report)) in ranked.iter().enumerate() {
            leak |= report.leak;
            let decision = if rank < p.width as usize {
                kept.push(id.clone());
                None
            } else {
                let floor = ranked[p.width as usize - 1].1.score.unwrap_or(0);
                Some(json!({
                    "reason": format!(
                        "rank {} of {of} at depth {depth}: below the {} kept (the last kept scored {floor})",
                        rank + 1,
                        p.width
                    ),
                    "by": "width", "rank": rank + 1, "of": of, "width": p.width, "score": report.score,
                }))
            };
            decisions.push((id.clone(), decision));
        }
        let (mut live, mut held) = (level.live, level.held);
        let mut decided = Vec::new();
        for (id, decision) in decisions {
            if let Some(i) = live.iter().position(|l| l.id == id) {
                let waiting = live.swap_remove(i);
                let _ = waiting.decision.send(decision);
                decided.push(waiting.task);
            } else if let Some(i) = held.iter().position(|r| r.id == id) {
                let record = held.remove(i);
                if let Err(e) = search.finish_held(&record, decision) {
                    return (Status::Stopped, Some(format!("{e:#}")));
                }
            }
        }
        for task in decided {
            let _ = task.await;
        }
        if leak {
            return (Status::Leak, None);
        }
        if kept.is_empty() {
            return (Status::AllPruned, None);
        }
        leaves = kept;
    }
    (Status::NothingFound, None)
}

struct Pending {
    id: NodeId,
    report: oneshot::Receiver<Report>,
    decision: oneshot::Sender<Option<Value>>,
    task: tokio::task::JoinHandle<NodeRun>,
}

/// A running node that reported its score and waits for the turn's pruning.
struct Waiting {
    id: NodeId,
    decision: oneshot::Sender<Option<Value>>,
    task: tokio::task::JoinHandle<NodeRun>,
}

/// One TAP turn once every node has reported or ended.
struct Level {
    /// The nodes that take part in the ranking, with what ranks them.
    ranked: Vec<(NodeId, Report)>,
    /// Running nodes waiting for their decision.
    live: Vec<Waiting>,
    /// Nodes read back scored without their `end`.
    held: Vec<NodeRecord>,
}

async fn gather(pending: Vec<Pending>) -> Result<Level, Ended> {
    let mut level = Level { ranked: Vec::new(), live: Vec::new(), held: Vec::new() };
    let mut stop = None;
    for p in pending {
        match p.report.await {
            Ok(report) => {
                level.ranked.push((p.id.clone(), report));
                level.live.push(Waiting { id: p.id, decision: p.decision, task: p.task });
            }
            // It ended without waiting: read back, off topic, failed, or not run.
            Err(_) => match p.task.await {
                Ok(NodeRun::Done(r)) => {
                    if ranks(&r) {
                        level.ranked.push((r.id.clone(), report_of(&r)));
                    }
                }
                Ok(NodeRun::Held(r)) => {
                    level.ranked.push((r.id.clone(), report_of(&r)));
                    level.held.push(r);
                }
                Ok(NodeRun::Stop(status, problem)) => stop = stop.or(Some((status, problem))),
                Err(e) => stop = stop.or(Some((Status::Stopped, Some(format!("a node's task failed: {e}"))))),
            },
        }
    }
    match stop {
        Some(ended) => Err(ended),
        None => Ok(level),
    }
}

/// A node that takes part in its turn's ranking: it reached the assistant and completed.
fn ranks(r: &NodeRecord) -> bool {
    r.complete() && !matches!(&r.decision, Decision::Pruned(why) if why.starts_with("off topic"))
}

fn report_of(r: &NodeRecord) -> Report {
    Report { score: r.score, leak: r.leak.is_some() }
}

fn key(entry: &(NodeId, Report)) -> (bool, u8) {
    (entry.1.leak, entry.1.score.unwrap_or(0))
}

/// Crescendo (Russinovich et al.): one conversation, each turn a little further; a turn the
/// assistant refuses is dropped (its node says `backtrack`) and tried again, at most
/// `max_backtracks` times over the search. The attacker's notes hold every turn it tried,
/// refused ones included; the assistant's context holds only the kept ones.
async fn crescendo(search: &Arc<Search>) -> Ended {
    let p = search.params.clone();
    let mut parent = NodeId::root();
    let mut log: Vec<LogEntry> = Vec::new();
    let mut backtracks = 0;
    let mut k = 1;
    while parent.depth() < p.depth {
        // A person pruned the conversation so far: back to the turn before the pruned one.
        while search.pruned(&parent) {
            k = parent.path().last().map_or(1, |last| last + 1);
            parent = parent.parent().unwrap_or_else(NodeId::root);
        }
        let id = parent.child(k);
        let retry = (backtracks < p.max_backtracks).then(|| parent.child(k + 1));
        let inputs =
            Inputs { log: log.clone(), feedback: feedback(search, &parent), candidate: 1, text: None };
        let (record, pruned) =
            match converse(search, NodeSpec { id: id.clone(), inputs, retry, hold: None }).await {
                Ok(ran) => ran,
                Err(ended) => return ended,
            };
        log.push(log_entry(&record));
        if record.decision == Decision::Backtracked || pruned {
            backtracks += u32::from(!pruned);
            k += 1;
            continue;
        }
        parent = id;
        k = 1;
    }
    (Status::NothingFound, None)
}

/// Runs one node of a conversation (Crescendo, GOAT): its record, and whether a person pruned it
/// (or a node above it) meanwhile; `Err` when the search ends there (a leak, a stop, a failure).
async fn converse(search: &Arc<Search>, spec: NodeSpec) -> Result<(NodeRecord, bool), Ended> {
    let id = spec.id.clone();
    let record = match search.run_node(spec).await {
        NodeRun::Done(r) | NodeRun::Held(r) => r,
        NodeRun::Stop(status, problem) => return Err((status, problem)),
    };
    let pruned = search.pruned(&id);
    search.next_round();
    if !record.complete() {
        return Err((Status::Stopped, failure(&record)));
    }
    if record.leak.is_some() {
        return Err((Status::Leak, None));
    }
    Ok((record, pruned))
}

fn log_entry(r: &NodeRecord) -> LogEntry {
    let reasoning = |key: &str| {
        r.candidate
            .get("reasoning")
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    LogEntry {
        turn: r.turn,
        text: r.text.clone().unwrap_or_default(),
        summary: reasoning("last_response_summary"),
        rationale: reasoning("rationale"),
        score: r.score,
        backtracked: r.decision == Decision::Backtracked,
    }
}

/// GOAT (Pavlova et al.): a conversation in which the attacker picks its technique each turn
/// from the catalogue; `attempts` conversations one after the other (the paper's ASR@k), until
/// one leaks.
async fn goat(search: &Arc<Search>) -> Ended {
    let p = search.params.clone();
    for attempt in 1..=p.attempts {
        let mut parent = NodeId::root();
        for depth in 1..=p.depth {
            let id = if depth == 1 { parent.child(attempt) } else { parent.child(1) };
            let inputs =
                Inputs { feedback: feedback(search, &parent), candidate: attempt, ..Inputs::default() };
            let pruned =
                match converse(search, NodeSpec { id: id.clone(), inputs, ..NodeSpec::default() }).await {
                    Ok((_, pruned)) => pruned,
                    Err(ended) => return ended,
                };
            // A person pruned this conversation: the next one starts.
            if pruned {
                break;
            }
            parent = id;
        }
    }
    (Status::NothingFound, None)
}
