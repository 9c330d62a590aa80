//! The search engine: runs one node after another as the strategy asks (`strategies.rs`), each a
//! fork journal in the search folder written by a runner of the launch. A node whose journal is
//! complete is read back, not run again, so that `--resume` (after a stop or a crash) replays the
//! strategy over the nodes on disk and runs only the missing ones: the same search, no node run
//! twice, none lost. Calls are counted on disk before they are made (`core::attack::meter`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot, watch};

use crate::core::attack::candidate::{CandidateAttacker, Hold, Prepared, Report, Scoring};
use crate::core::attack::catalogue::Catalogue;
use crate::core::attack::meter::{CallCounts, FileMeter};
use crate::core::attack::node::{BY_SEARCH, NodeId, NodeRecord};
use crate::core::attack::plan::{AttackPlan, Best, HandOp, Status};
use crate::core::attack::{SearchParams, Strategy};
use crate::core::dataset::Task;
use crate::core::episode::{
    Control, ControlAction, End, EndReason, Event, EventBody, JournalWriter, ParentRef, Party, read_journal,
};
use crate::core::judge::llm::call::JudgeOptions;
use crate::core::llm::Endpoint;
use crate::core::sim::fork::{Resume, attacker_view};
use crate::core::sim::gate::StepGate;
use crate::core::sim::runner::RunnerHandle;

use super::generate::{GenerateError, Generator, Inputs};
use crate::session::follow::follow_runner;
use crate::session::launch::Launch;

/// How the search is held: running, paused (no node starts, running nodes hold before their
/// next call), stepping (the n-th step lets one more node start and run its turn), stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchControl {
    Run,
    Paused,
    Step(u32),
    Stopped,
}

/// What the search reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum SearchUpdate {
    NodeStarted {
        id: NodeId,
        journal: PathBuf,
    },
    /// An event of a running node, already in its journal.
    Event {
        id: NodeId,
        event: Box<Event>,
    },
    /// A node's journal is complete (or was read back on a resume).
    NodeEnded(Box<NodeRecord>),
    Calls(CallCounts),
    /// Something the user must hear that does not stop the search.
    Problem(String),
    /// The search is over (the last update; nodes of an unfinished TAP turn may still wait).
    Finished(Box<AttackOutcome>),
}

/// How a search ended, and every node it has.
#[derive(Debug, Clone, PartialEq)]
pub struct AttackOutcome {
    pub status: Status,
    /// Every node with a complete journal, in tree order.
    pub records: Vec<NodeRecord>,
    pub best: Option<NodeId>,
    pub calls: CallCounts,
    pub budget: Option<u64>,
    /// Why the search stopped short (a node that failed, an attacker that gave nothing usable).
    pub problem: Option<String>,
}

/// What a strategy asks of one node.
#[derive(Default)]
pub struct NodeSpec {
    pub id: NodeId,
    pub inputs: Inputs,
    /// Crescendo: the node that retries this turn if the assistant refuses it.
    pub retry: Option<NodeId>,
    /// TAP: report the score, wait for the turn's pruning.
    pub hold: Option<(oneshot::Sender<Report>, oneshot::Receiver<Option<Value>>)>,
}

impl Default for NodeId {
    fn default() -> Self {
        NodeId::root()
    }
}

/// What became of a node.
pub enum NodeRun {
    /// Its journal is complete.
    Done(NodeRecord),
    /// Read back scored but without its `end` (a TAP node that was waiting for its turn's
    /// pruning when the search stopped): the strategy finishes it with [`Search::finish_held`].
    Held(NodeRecord),
    /// Not run: the search stops with this status (the budget, a stop, a failure).
    Stop(Status, Option<String>),
}

/// A running node's concurrency slot and the calls set aside for it, given back when it ends
/// (a TAP node: when it reports its score and waits).
pub struct Place {
    _slot: OwnedSemaphorePermit,
    cost: u64,
    reserved: Arc<Mutex<u64>>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut reserved = self.reserved.lock().unwrap_or_else(|p| p.into_inner());
        *reserved = reserved.saturating_sub(self.cost);
    }
}

/// Where every node continues from: the root's events up to its last complete turn.
pub struct Root {
    pub file: PathBuf,
    pub events: Vec<Event>,
}

pub struct Search {
    pub(super) launch: Launch,
    pub(super) dir: PathBuf,
    pub(super) task: Task,
    pub(super) params: SearchParams,
    pub(super) catalogue: Catalogue,
    attacker: Endpoint,
    judge: Endpoint,
    meter: Arc<FileMeter>,
    gate: StepGate,
    control: watch::Receiver<SearchControl>,
    /// The last step that let a node start.
    stepped: AtomicU32,
    updates: mpsc::Sender<SearchUpdate>,
    slots: Arc<Semaphore>,
    /// Calls the running nodes may still spend (see [`Search::take_place`]).
    reserved: Arc<Mutex<u64>>,
    root: Root,
    records: Mutex<BTreeMap<NodeId, NodeRecord>>,
    plan: Mutex<AttackPlan>,
    pub(super) judge_options: JudgeOptions,
    /// Rounds of decisions the strategy made (see [`HandOp::Prune`]).
    rounds: AtomicU32,
    /// The branches a person asked for, running.
    pub(super) by_hand: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

/// What the engine is built from.
pub struct SearchParts {
    pub launch: Launch,
    pub dir: PathBuf,
    pub task: Task,
    pub params: SearchParams,
    pub catalogue: Catalogue,
    pub meter: Arc<FileMeter>,
    pub plan: AttackPlan,
    pub root: Root,
    pub concurrency: usize,
    pub judge_options: JudgeOptions,
}

impl Search {
    pub fn new(
        parts: SearchParts,
        control: watch::Receiver<SearchControl>,
        updates: mpsc::Sender<SearchUpdate>,
    ) -> anyhow::Result<Search> {
        let attacker = match parts.launch.attacker_endpoint() {
            Ok(endpoint) => endpoint.clone(),
            Err(problem) => bail!("{problem}"),
        };
        let Some(judge) = parts.launch.judge_endpoint().cloned() else {
            bail!("an attack search needs a judge model (--judge-model)");
        };
        Ok(Search {
            launch: parts.launch,
            dir: parts.dir,
            task: parts.task,
            params: parts.params,
            catalogue: parts.catalogue,
            attacker,
            judge,
            meter: parts.meter,
            gate: StepGate::new(false),
            control,
            stepped: AtomicU32::new(0),
            updates,
            slots: Arc::new(Semaphore::new(parts.concurrency.max(1))),
            reserved: Arc::new(Mutex::new(0)),
            root: parts.root,
            records: Mutex::new(BTreeMap::new()),
            plan: Mutex::new(parts.plan),
            judge_options: parts.judge_options,
            rounds: AtomicU32::new(0),
            by_hand: Mutex::new(Vec::new()),
        })
    }

    /// Ends the search as the strategy says: the plan, the outcome, the last update.
    pub async fn finish(&self, status: Status, problem: Option<String>) -> AttackOutcome {
        self.save_plan(Some(status));
        let mut records = self.records();
        records.sort_by_key(|r| r.id.path());
        let outcome = AttackOutcome {
            status,
            best: best(&records).map(|r| r.id.clone()),
            records,
            calls: self.meter.counts(),
            budget: self.meter.limit(),
            problem,
        };
        let _ = self.updates.send(SearchUpdate::Finished(Box::new(outcome.clone()))).await;
        outcome
    }

    /// Every node with a record so far.
    pub fn records(&self) -> Vec<NodeRecord> {
        self.records.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect()
    }

    /// Tells the user `problem`, if there is one, without stopping the search.
    pub fn tell(&self, problem: Option<String>) {
        if let Some(problem) = problem {
            let _ = self.updates.try_send(SearchUpdate::Problem(problem));
        }
    }

    /// The node's record, once it has run (or was read back).
    pub fn record(&self, id: &NodeId) -> Option<NodeRecord> {
        self.records.lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned()
    }

    /// Runs node `spec.id` (or reads it back, when its journal is complete).
    pub async fn run_node(self: &Arc<Self>, spec: NodeSpec) -> NodeRun {
        let journal = self.dir.join(spec.id.journal_name());
        if journal.exists() {
            match self.read_back(&spec.id, &journal) {
                Ok(Some(run)) => return run,
                Ok(None) => {}
                Err(e) => return NodeRun::Stop(Status::Stopped, Some(format!("{e:#}"))),
            }
        }
        if let Some(stop) = self.wait_for_turn().await {
            return stop;
        }
        let slot = match self.slots.clone().acquire_owned().await {
            Ok(slot) => slot,
            Err(_) => return NodeRun::Stop(Status::Stopped, None),
        };
        let Some(place) = self.take_place(slot, spec.id.is_root()) else {
            return NodeRun::Stop(Status::BudgetSpent, None);
        };
        match self.run_new(spec, &journal, place).await {
            Ok(run) => run,
            Err(e) => NodeRun::Stop(Status::Stopped, Some(format!("node {}: {e:#}", journal.display()))),
        }
    }

    /// A node journal found on disk: complete (read back), scored and waiting for its turn's
    /// pruning (`Held`), or partial (set aside: the node runs again).
    fn read_back(&self, id: &NodeId, journal: &Path) -> anyhow::Result<Option<NodeRun>> {
        let events = match read_journal(journal) {
            Ok((events, warnings)) if warnings.is_empty() => Some(events),
            // A torn last line: a node killed mid-write; it runs again.
            Ok(_) => None,
            Err(e) => bail!("{}: {e}", journal.display()),
        };
        if let Some(events) = events {
            let record = NodeRecord::read(id.clone(), journal, &events);
            if record.complete() {
                self.remember(record.clone());
                return Ok(Some(NodeRun::Done(record)));
            }
            if !record.finished() && record.score.is_some() && self.params.strategy == Strategy::Tap {
                return Ok(Some(NodeRun::Held(record)));
            }
        }
        crate::core::runs::set_aside(journal)?;
        Ok(None)
    }

    /// Waits while the search is paused; `Some` when it was stopped.
    async fn wait_for_turn(&self) -> Option<NodeRun> {
        let mut control = self.control.clone();
        loop {
            let state = *control.borrow_and_update();
            match state {
                SearchControl::Stopped => return Some(NodeRun::Stop(Status::Stopped, None)),
                SearchControl::Run => break,
                SearchControl::Step(n) if self.stepped.fetch_max(n, Ordering::SeqCst) < n => break,
                _ => {}
            }
            if control.changed().await.is_err() {
                return Some(NodeRun::Stop(Status::Stopped, None));
            }
        }
        None
    }

    /// The node's place among the running ones, if the budget pays for it: the calls left, less
    /// what the running nodes may still spend, cover its fewest calls (so that the budget stops
    /// the search between nodes rather than cut one short).
    fn take_place(&self, slot: OwnedSemaphorePermit, root: bool) -> Option<Place> {
        let cost = self.node_cost(root);
        let mut reserved = self.reserved.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(left) = self.meter.remaining()
            && left.saturating_sub(*reserved) < cost
        {
            return None;
        }
        *reserved += cost;
        Some(Place { _slot: slot, cost, reserved: self.reserved.clone() })
    }

    /// The fewest calls a node takes: its candidate, TAP's on-topic check, the assistant's reply
    /// (an external agent's replayed turns too), the LLM judges and the score; the root only
    /// the reply and the judges.
    fn node_cost(&self, root: bool) -> u64 {
        if root {
            return 1 + 2;
        }
        let on_topic = u64::from(self.params.strategy == Strategy::Tap && self.params.on_topic);
        let replayed = if self.launch.external().is_some() { u64::from(self.params.depth) } else { 0 };
        1 + on_topic + 1 + replayed + 2 + 1
    }

    async fn run_new(
        self: &Arc<Self>,
        spec: NodeSpec,
        journal: &Path,
        slot: Place,
    ) -> anyhow::Result<NodeRun> {
        let parent_id = spec.id.parent().unwrap_or_else(NodeId::root);
        let parent_events = if spec.id.is_root() { Vec::new() } else { self.events_of(&parent_id)? };
        if spec.id.is_root() {
            return self.follow(&spec.id, journal, None, None, 2, Box::new(slot)).await;
        }
        let (prefix, parent) = continue_from(&parent_events)?;
        let history = attacker_view(&prefix);
        let turn = prefix.iter().rev().find_map(|e| e.body.turn()).unwrap_or(0) + 1;
        let generator = self.generator();
        let written = match spec.inputs.text.clone() {
            Some(text) => Ok(Prepared::by_hand(turn, text)),
            None => generator.candidate(&history, turn, &spec.inputs).await,
        };
        let mut prepared = match written {
            Ok(p) => p,
            Err(GenerateError::Aborted) => return Ok(NodeRun::Stop(Status::Stopped, None)),
            Err(GenerateError::Model(e)) if matches!(e.kind, crate::core::llm::LlmErrorKind::Budget(_)) => {
                return Ok(NodeRun::Stop(Status::BudgetSpent, None));
            }
            Err(e) => return Ok(NodeRun::Stop(Status::Stopped, Some(format!("node {}: {e}", spec.id)))),
        };
        prepared.note["node"] = json!(spec.id);
        prepared.note["parent"] = json!(parent_id);
        if let Some(retry_of) =
            retried(&spec.id, &parent_id).filter(|_| self.params.strategy == Strategy::Crescendo)
        {
            prepared.note["retry_of"] = json!(retry_of);
        }
        if self.params.strategy == Strategy::Tap && self.params.on_topic && prepared.by.is_none() {
            let (on_topic, check) = match generator.on_topic(&prepared.text).await {
                Ok(checked) => checked,
                Err(GenerateError::Aborted) => return Ok(NodeRun::Stop(Status::Stopped, None)),
                Err(e) => return Ok(NodeRun::Stop(Status::Stopped, Some(e.to_string()))),
            };
            prepared.note["on_topic"] = check.clone();
            if !on_topic {
                let record = self.write_off_topic(
                    &spec.id,
                    journal,
                    &parent_events,
                    &prefix,
                    parent,
                    &prepared,
                    &check,
                )?;
                return Ok(NodeRun::Done(record));
            }
        }
        let (hold, slot): (Option<Hold>, Box<dyn Send + Sync>) = match spec.hold {
            Some((report, decision)) => {
                (Some(Hold { report, decision, slot: Some(Box::new(slot)) }), Box::new(()))
            }
            None => (None, Box::new(slot)),
        };
        let scoring =
            Scoring { judge: self.judge.clone(), retry: spec.retry, hold, options: self.judge_options };
        let resume = Resume { parent, prefix };
        self.follow(&spec.id, journal, Some(resume), Some((prepared, scoring)), turn + 1, slot).await
    }

    fn generator(&self) -> Generator<'_> {
        Generator {
            client: self.launch.client(),
            gate: &self.gate,
            task: &self.task,
            params: &self.params,
            catalogue: &self.catalogue,
            attacker: &self.attacker,
            judge: &self.judge,
            sampling: self.launch.settings.params(),
            judge_options: self.judge_options,
        }
    }

    /// Starts the node's runner and follows it to the end of its journal.
    async fn follow(
        self: &Arc<Self>,
        id: &NodeId,
        journal: &Path,
        resume: Option<Resume>,
        candidate: Option<(Prepared, Scoring)>,
        max_turns: u32,
        _slot: Box<dyn Send + Sync>,
    ) -> anyhow::Result<NodeRun> {
        let (prepared, scoring) = match candidate {
            Some((p, s)) => (Some(p), Some(s)),
            None => (None, None),
        };
        let attacker = CandidateAttacker::new(prepared, Some(self.attacker.clone()), scoring);
        let handle = self.launch.start_node(
            &self.task.id,
            resume,
            journal.to_path_buf(),
            Box::new(attacker),
            max_turns,
        )?;
        let _ = self
            .updates
            .send(SearchUpdate::NodeStarted { id: id.clone(), journal: journal.to_path_buf() })
            .await;
        let events = self.watch(id, handle).await;
        let record = NodeRecord::read(id.clone(), journal, &events);
        if record.cut_by_budget() {
            return Ok(NodeRun::Stop(Status::BudgetSpent, None));
        }
        self.remember(record.clone());
        Ok(NodeRun::Done(record))
    }

    /// Forwards a node's events until its runner ends; its gate follows the search's control.
    async fn watch(&self, id: &NodeId, mut handle: RunnerHandle) -> Vec<Event> {
        let steer = |state: SearchControl, gate: &StepGate| match state {
            SearchControl::Run => gate.resume(),
            SearchControl::Paused => gate.pause(),
            SearchControl::Step(_) => gate.step_turn(),
            SearchControl::Stopped => gate.abort(),
        };
        let wrap = |event| SearchUpdate::Event { id: id.clone(), event };
        let events = follow_runner(&mut handle, self.control.clone(), steer, &self.updates, wrap).await;
        let _ = (&mut handle.task).await;
        events
    }

    /// An off-topic candidate never reaches the assistant: its journal is the parent's copied
    /// turns, the search's note on the candidate, the pruning, and the end.
    #[allow(clippy::too_many_arguments)]
    fn write_off_topic(
        &self,
        id: &NodeId,
        journal: &Path,
        parent_events: &[Event],
        prefix: &[Event],
        parent: ParentRef,
        prepared: &Prepared,
        check: &Value,
    ) -> anyhow::Result<NodeRecord> {
        let mut header = match parent_events.first().map(|e| &e.body) {
            Some(EventBody::Episode(h)) => (**h).clone(),
            _ => bail!("the parent of node {id} has no header"),
        };
        header.id = crate::core::sim::runner::new_episode_id();
        header.parent = Some(parent);
        let reason = format!("off topic: {}", check.get("reason").and_then(Value::as_str).unwrap_or(""));
        let mut note = Control::new(ControlAction::Candidate, BY_SEARCH, Some(prepared.turn));
        note.details = prepared.note.clone();
        let mut prune = Control::new(ControlAction::Prune, BY_SEARCH, Some(prepared.turn));
        prune.details = json!({"reason": reason, "by": "on-topic filter"});
        let mut writer = JournalWriter::create(journal)
            .with_context(|| format!("{}: cannot create the node's journal", journal.display()))?;
        let mut events = vec![writer.append(EventBody::Episode(Box::new(header)))?];
        for event in prefix.iter().skip(1) {
            let copy = Event { seq: writer.next_seq(), at: event.at.clone(), body: event.body.clone() };
            writer.write_event(&copy)?;
            events.push(copy);
        }
        for body in [
            EventBody::Control(note),
            EventBody::Control(prune),
            EventBody::End(End { reason: EndReason::AttackerDone, turns: prepared.turn - 1 }),
        ] {
            events.push(writer.append(body)?);
        }
        writer.sync()?;
        let record = NodeRecord::read(id.clone(), journal, &events);
        self.remember(record.clone());
        Ok(record)
    }

    /// Ends a node read back while it waited for its turn's pruning: the decision and the `end`
    /// its runner would have written.
    pub fn finish_held(&self, record: &NodeRecord, decision: Option<Value>) -> anyhow::Result<NodeRecord> {
        let (events, _) = read_journal(&record.journal)
            .map_err(|e| anyhow::anyhow!("{}: {e}", record.journal.display()))?;
        let mut writer = JournalWriter::append_to(&record.journal, &events)?;
        let mut appended = events;
        if let Some(details) = decision {
            let mut prune = Control::new(ControlAction::Prune, BY_SEARCH, Some(record.turn));
            prune.details = details;
            appended.push(writer.append(EventBody::Control(prune))?);
        }
        appended
            .push(writer.append(EventBody::End(End { reason: EndReason::MaxTurns, turns: record.turn }))?);
        writer.sync()?;
        let record = NodeRecord::read(record.id.clone(), &record.journal, &appended);
        self.remember(record.clone());
        Ok(record)
    }

    /// The events of a node that ran (its journal), or the root's.
    fn events_of(&self, id: &NodeId) -> anyhow::Result<Vec<Event>> {
        if id.is_root() && !self.root.events.is_empty() {
            return Ok(self.root.events.clone());
        }
        let path = self.dir.join(id.journal_name());
        read_journal(&path).map(|(events, _)| events).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    fn remember(&self, record: NodeRecord) {
        self.records.lock().unwrap_or_else(|p| p.into_inner()).insert(record.id.clone(), record.clone());
        self.save_plan(None);
        let _ = self.updates.try_send(SearchUpdate::NodeEnded(Box::new(record)));
        let _ = self.updates.try_send(SearchUpdate::Calls(self.meter.counts()));
    }

    /// The plan with the calls and the best node as they stand (`status`: how it ended).
    fn save_plan(&self, status: Option<Status>) {
        let records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        let mut plan = self.plan.lock().unwrap_or_else(|p| p.into_inner());
        plan.calls = self.meter.counts();
        plan.nodes = records.values().filter(|r| r.finished()).count();
        let all: Vec<NodeRecord> = records.values().cloned().collect();
        plan.best = best(&all).map(|r| Best { node: r.id.clone(), score: r.score, leak: r.leak.clone() });
        if let Some(status) = status {
            plan.status = status;
        }
        if let Err(e) = plan.write(&self.dir) {
            let _ = self.updates.try_send(SearchUpdate::Problem(format!("{e:#}")));
        }
    }

    /// A person prunes `node` and what is below it: the strategy leaves it from its next round of
    /// decisions on. The plan records it (a resume prunes at the same round).
    pub fn prune_by_hand(&self, node: &NodeId) -> anyhow::Result<()> {
        if node.is_root() {
            bail!("the root is the search itself: stop it instead");
        }
        let at = self.rounds.load(Ordering::SeqCst);
        self.plan_lock().hand.push(HandOp::Prune { node: node.clone(), at });
        self.save_plan(None);
        Ok(())
    }

    /// Whether a person pruned `id` or a node above it, by the strategy's current round.
    pub fn pruned(&self, id: &NodeId) -> bool {
        let round = self.rounds.load(Ordering::SeqCst);
        self.plan_lock()
            .hand
            .iter()
            .any(|op| matches!(op, HandOp::Prune { node, at } if *at <= round && node.holds(id)))
    }

    /// The strategy made one more round of decisions.
    pub(super) fn next_round(&self) {
        self.rounds.fetch_add(1, Ordering::SeqCst);
    }

    /// A person asks for one more child of `node` (the attacker's, or `text`), and with `pin` the
    /// branch run on from it; the plan records it. Returns the child's id.
    pub fn expand_by_hand(&self, node: &NodeId, text: Option<String>, pin: bool) -> anyhow::Result<NodeId> {
        let from_episode = node.is_root() && !self.root.events.is_empty();
        if !from_episode && !self.record(node).is_some_and(|r| r.complete()) {
            bail!("node {node} has not ended: nothing to continue from yet");
        }
        let mut plan = self.plan_lock();
        let made =
            plan.hand.iter().filter(|op| matches!(op, HandOp::Expand { node: n, .. } if n == node)).count();
        let child = node.hand_child(made as u32 + 1);
        plan.hand.push(HandOp::Expand { node: node.clone(), child: child.clone(), text, pin });
        drop(plan);
        self.save_plan(None);
        Ok(child)
    }

    /// What a person did to the search so far, in order.
    pub fn hand_ops(&self) -> Vec<HandOp> {
        self.plan_lock().hand.clone()
    }

    fn plan_lock(&self) -> std::sync::MutexGuard<'_, AttackPlan> {
        self.plan.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn root_events(&self) -> &[Event] {
        &self.root.events
    }

    pub fn root_file(&self) -> &Path {
        &self.root.file
    }
}

/// The best node: a leak first, then the highest score, then the shallowest, then the first.
pub fn best(records: &[NodeRecord]) -> Option<&NodeRecord> {
    records
        .iter()
        .filter(|r| !r.id.is_root() || r.leak.is_some())
        .max_by(|a, b| rank_key(a).cmp(&rank_key(b)).then_with(|| b.id.path().cmp(&a.id.path())))
}

/// What makes a node better than another: a leak, then its score, then being nearer the root.
pub fn rank_key(r: &NodeRecord) -> (bool, u8, std::cmp::Reverse<u32>) {
    (r.leak.is_some(), r.score.unwrap_or(0), std::cmp::Reverse(r.id.depth()))
}

/// The part of `events` a child continues from: up to the last reply of the assistant and the
/// rule verdicts on that turn (not the episode's closing verdicts), and where that is in it.
pub fn continue_from(events: &[Event]) -> anyhow::Result<(Vec<Event>, ParentRef)> {
    let Some(EventBody::Episode(header)) = events.first().map(|e| &e.body) else {
        bail!("the episode has no header");
    };
    let reply = events.iter().rposition(
        |e| matches!(&e.body, EventBody::Message(m) if m.from == Party::Assistant && m.to == Party::Attacker),
    );
    let Some(reply) = reply else { bail!("the assistant never answered: nothing to continue from") };
    let turn = events[reply].body.turn();
    let end = (reply + 1..events.len())
        .take_while(|&i| matches!(&events[i].body, EventBody::Verdict(v) if v.turn == turn && v.method == crate::core::episode::VerdictMethod::Rule))
        .last()
        .unwrap_or(reply);
    let parent = ParentRef { episode: header.id.clone(), seq: events[end].seq };
    Ok((events[..=end].to_vec(), parent))
}

/// For the k-th child (k > 1) of a Crescendo turn, the child it retries.
fn retried(id: &NodeId, parent: &NodeId) -> Option<NodeId> {
    let k = *id.path().last()?;
    (k > 1).then(|| parent.child(k - 1))
}
