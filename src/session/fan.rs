//! A fan run for the screen: the attempts of an attempt fan started `concurrency` at a time from
//! one [`Launch`] (its rate limits shared by every attempt), each a fork journal in the fan's
//! folder, their events reported on one channel tagged with the attempt's number. Pausing holds
//! the attempts not started yet and every running one's next model call (their step gates); a
//! step lets each running attempt make one call. Each attempt that ends (not aborted) is appended
//! to the folder's `runs.jsonl` as `fan` records it, and the fan's plan is kept beside them, so a
//! stopped fan can be finished: on screen (its recorded attempts are read back and not run again)
//! or by `fan --resume --out <folder>`.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use crate::core::episode::{EndReason, Episode, Event};
use crate::core::fan::plan::{FanPlan, attempt_journal, fan_case};
use crate::core::fan::{FanMode, fan_attacker};
use crate::core::sim::fork::Resume;
use crate::core::sim::runner::{RunnerHandle, Start};

use super::launch::Launch;

/// What the screen asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct FanRequest {
    pub task_id: String,
    pub episode_id: String,
    pub turn: u32,
    pub mode: FanMode,
    pub attempts: u32,
    /// The episode's events up to the turn's message (see `core::fan::fan_start`).
    pub resume: Resume,
    /// The episode's folder (a new fan's folder goes under its `fans/`), or when `resuming`, the
    /// stopped fan's own folder.
    pub dir: PathBuf,
    /// Finishing a stopped fan: the attempts its runs files hold are read back, not run again.
    pub resuming: bool,
    /// A floor under each attempt's `max_turns` (see [`Start::max_turns_at_least`]).
    pub max_turns_at_least: Option<u32>,
}

/// What a fan reports, attempt by attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum FanUpdate {
    /// Attempt `index` started: its journal and episode id.
    Started { index: u32, journal: PathBuf, episode: String },
    /// Attempt `index` of the stopped fan being resumed, as its journal and the runs file have it.
    Recorded { index: u32, journal: PathBuf, events: Vec<Event>, reason: String, error: Option<String> },
    /// An event of attempt `index`, already in its journal.
    Event { index: u32, event: Box<Event> },
    /// Attempt `index` ended (`reason` as its journal's `end` says; `error` why, for an error).
    Ended { index: u32, reason: String, error: Option<String> },
    /// Attempt `index` could not start; the fan starts no more.
    NotStarted { index: u32, problem: String },
    /// Something went wrong beside the attempts (the runs file could not be written).
    Problem(String),
    /// Every attempt has ended (or the fan was stopped).
    Done,
}

/// The state the fan is held in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FanControl {
    Run,
    Paused,
    /// Paused, and the running attempts let one more model call through each (the n-th step).
    Step(u32),
    Stopped,
}

/// A running fan: its reports, and the switch that pauses, resumes or stops it.
pub struct FanHandle {
    pub updates: mpsc::Receiver<FanUpdate>,
    control: watch::Sender<FanControl>,
    runner: tokio::task::JoinHandle<()>,
}

impl FanHandle {
    pub fn set(&self, control: FanControl) {
        // Once stopped, stays stopped.
        if *self.control.borrow() != FanControl::Stopped {
            let _ = self.control.send(control);
        }
    }

    /// Stops the fan (running attempts are aborted, their journals end `aborted`) and waits up to
    /// `grace` for their journals to be closed.
    pub async fn stop(self, grace: std::time::Duration) {
        let _ = self.control.send(FanControl::Stopped);
        let _ = tokio::time::timeout(grace, self.runner).await;
    }
}

/// Starts the fan on the current tokio runtime (`concurrency` attempts at a time), `request.dir`
/// being the fan's own folder.
pub fn spawn(launch: Launch, request: FanRequest, concurrency: usize) -> anyhow::Result<FanHandle> {
    std::fs::create_dir_all(&request.dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot create the fan's folder: {e}", request.dir.display()))?;
    if !request.resuming {
        let plan = FanPlan {
            episode: request.episode_id.clone(),
            turn: request.turn,
            mode: request.mode,
            attempts: request.attempts,
        };
        plan.write(&request.dir)?;
    }
    let runs_path = request.dir.join(crate::core::runs::RUNS_FILE);
    let (runs, _torn) = crate::core::runs::open_for_append(&runs_path)?;
    let (tx, updates) = mpsc::channel(1024);
    let (control, control_rx) = watch::channel(FanControl::Run);
    let runs = Arc::new(Mutex::new(runs));
    let runner = tokio::spawn(run(Arc::new(launch), request, concurrency.max(1), tx, control_rx, runs));
    Ok(FanHandle { updates, control, runner })
}

async fn run(
    launch: Arc<Launch>,
    request: FanRequest,
    concurrency: usize,
    tx: mpsc::Sender<FanUpdate>,
    mut control: watch::Receiver<FanControl>,
    runs: Arc<Mutex<File>>,
) {
    let recorded = fan_attacker(request.mode, &request.episode_id, request.turn);
    let done = if request.resuming {
        match report_recorded(&request, &tx).await {
            Some(done) => done,
            None => {
                let _ = tx.send(FanUpdate::Done).await;
                return;
            }
        }
    } else {
        BTreeSet::new()
    };
    let mut running = JoinSet::new();
    let mut next = 1;
    // The last step that started an attempt.
    let mut stepped = 0;
    'start: while next <= request.attempts {
        // A recorded attempt is skipped before waiting, so that no step or slot goes to it.
        if done.contains(&next) {
            next += 1;
            continue;
        }
        // A pause holds the attempts not started yet; a step with none running starts one (its
        // first call let through by the same step).
        loop {
            match *control.borrow_and_update() {
                FanControl::Stopped => break 'start,
                FanControl::Run if running.len() < concurrency => break,
                FanControl::Step(n) if n != stepped && running.is_empty() => {
                    stepped = n;
                    break;
                }
                _ => {}
            }
            tokio::select! {
                changed = control.changed() => if changed.is_err() { break 'start },
                Some(_) = running.join_next(), if !running.is_empty() => {}
            }
        }
        let journal = request.dir.join(attempt_journal(&request.episode_id, request.turn, next));
        // What an attempt stopped part way had written is kept aside, as `batch --resume` does.
        if journal.exists()
            && let Err(e) = crate::core::runs::set_aside(&journal)
        {
            let _ = tx.send(FanUpdate::NotStarted { index: next, problem: format!("{e:#}") }).await;
            break;
        }
        let start = Start {
            resume: Some(request.resume.clone()),
            recorded: recorded.clone(),
            max_turns_at_least: request.max_turns_at_least,
            ..Start::default()
        };
        match launch.start_at(&request.task_id, start, Some(journal.clone())) {
            Ok(handle) => {
                let started = FanUpdate::Started { index: next, journal, episode: handle.episode_id.clone() };
                if tx.send(started).await.is_err() {
                    break;
                }
                let record = RecordTo { runs: runs.clone(), case: fan_case(request.turn) };
                running.spawn(follow(next, handle, tx.clone(), control.clone(), record));
            }
            Err(e) => {
                let _ = tx.send(FanUpdate::NotStarted { index: next, problem: format!("{e:#}") }).await;
                break;
            }
        }
        next += 1;
    }
    while running.join_next().await.is_some() {}
    let _ = tx.send(FanUpdate::Done).await;
}

/// Reads back the attempts of the stopped fan being resumed (their journals as its runs files
/// name them) and reports them: the attempts not to run again. `None` when its runs files cannot
/// be read (nothing runs: it could run a recorded attempt twice) or the screen went away. A
/// journal that cannot be read is reported as a problem, its attempt still not run again (as
/// `fan --resume`).
async fn report_recorded(request: &FanRequest, tx: &mpsc::Sender<FanUpdate>) -> Option<BTreeSet<u32>> {
    let (dir, turn, planned) = (request.dir.clone(), request.turn, request.attempts);
    let read = tokio::task::spawn_blocking(move || read_recorded(&dir, turn, planned)).await;
    let problem = match read {
        Ok(Ok((done, updates))) => {
            for update in updates {
                tx.send(update).await.ok()?;
            }
            return Some(done);
        }
        Ok(Err(e)) => format!("{e:#}"),
        Err(e) => format!("reading the recorded attempts failed: {e}"),
    };
    let _ = tx.send(FanUpdate::Problem(format!("{problem}; no attempt is run"))).await;
    None
}

fn read_recorded(
    dir: &std::path::Path,
    turn: u32,
    planned: u32,
) -> anyhow::Result<(BTreeSet<u32>, Vec<FanUpdate>)> {
    let records = crate::core::fan::stopped::recorded(dir, turn, planned)?;
    let done = records.iter().map(|r| r.repeat).collect();
    let mut updates = Vec::new();
    for record in records {
        let journal = dir.join(&record.journal);
        match crate::core::episode::read_journal(&journal) {
            Ok((events, _)) => updates.push(FanUpdate::Recorded {
                index: record.repeat,
                journal,
                events,
                reason: record.status,
                error: record.error,
            }),
            Err(e) => updates.push(FanUpdate::Problem(format!("{}: {e}", journal.display()))),
        }
    }
    Ok((done, updates))
}

/// Where an ended attempt is recorded: the fan's runs file, under the case `fan` keys it on.
struct RecordTo {
    runs: Arc<Mutex<File>>,
    case: String,
}

/// Forwards one attempt's events until it ends; its gate follows the fan's pause and stop.
async fn follow(
    index: u32,
    mut handle: RunnerHandle,
    tx: mpsc::Sender<FanUpdate>,
    control: watch::Receiver<FanControl>,
    record_to: RecordTo,
) {
    let started = Instant::now();
    let steer = |state: FanControl, gate: &crate::core::sim::gate::StepGate| match state {
        FanControl::Run => gate.resume(),
        FanControl::Paused => gate.pause(),
        FanControl::Step(_) => gate.step_call(),
        FanControl::Stopped => gate.abort(),
    };
    // The screen going away stops the attempt.
    let wrap = |event| FanUpdate::Event { index, event };
    let events = super::follow::follow_runner(&mut handle, control, steer, &tx, wrap).await;
    let (reason, error) = match handle.task.await {
        Ok(outcome) => (outcome.reason.as_str().to_string(), outcome.error),
        Err(e) => (EndReason::Error.as_str().to_string(), Some(format!("the runner task failed: {e}"))),
    };
    // An aborted attempt is not recorded: `fan --resume` runs it again (as `batch` does).
    if reason != EndReason::Aborted.as_str() {
        let name =
            handle.journal_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let episode = Episode::new(events, handle.journal_path.display().to_string());
        let mut record = crate::core::runs::record_from_episode(&episode, &name);
        record.case = Some(record_to.case);
        record.repeat = index;
        record.status = reason.clone();
        record.error = error.clone();
        record.warnings = std::mem::take(&mut handle.warnings);
        record.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let written = match record_to.runs.lock() {
            Ok(mut file) => crate::core::runs::append(&mut file, &record),
            Err(_) => Err(anyhow::anyhow!("a writer of the runs file failed")),
        };
        if let Err(e) = written {
            let _ = tx
                .send(FanUpdate::Problem(format!("attempt {index}: cannot record it in runs.jsonl: {e:#}")))
                .await;
        }
    }
    let _ = tx.send(FanUpdate::Ended { index, reason, error }).await;
}
