//! `converse-tui batch`: many episodes at once, bounded concurrency on one
//! runtime, one journal per task and repeat, and `runs.jsonl` for finished ones.
//!
//! Decisions (also in `--help`):
//! - Shards: tasks are sorted by id; the i-th (0-based) goes to shard `i % n + 1`;
//!   every repeat of a task stays in its task's shard. Shard k of n appends to its
//!   own `runs-<k>-of-<n>.jsonl`; readers merge every runs file of the directory.
//! - Journals: `<task id>__r<k>.jsonl` (k from 1), characters outside
//!   `[A-Za-z0-9._-]` replaced by `_`.
//! - Resume: an episode is done when a runs file has its (task, repeat), whatever
//!   its status (errors included: delete their lines to run them again). An
//!   unfinished one is run again from the start; its partial journal is kept as
//!   `<journal>.aborted-<n>` (not `.jsonl`, so readers of the directory skip it).
//!   A torn last line of the runs file is cut off (kept as `<runs file>.torn-<n>`).
//! - Stop (SIGINT/SIGTERM/SIGHUP): no new episodes; the running ones are aborted,
//!   their journals end with `end: aborted`, and they are not written to `runs.jsonl`.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::config::Paths;
use crate::core::dataset::Task;
use crate::core::episode::{EndReason, EventBody};
use crate::core::llm::Role;
use crate::core::run_with::RunWith;
use crate::core::sim::emitter::RunnerUpdate;
use crate::core::sim::runner::{RunnerHandle, Start};
use crate::core::usage_error::UsageError;

use super::runs::{self, RunRecord};
use crate::session::launch::{Launch, RunArgs};

pub use super::shard::Shard;

#[derive(Debug, Clone)]
pub struct BatchArgs {
    /// Tasks, models and limits as for `run` (`out` is the batch directory).
    pub run: RunArgs,
    pub out: PathBuf,
    pub concurrency: usize,
    pub rpm: crate::session::RpmFlags,
    pub repeat: u32,
    pub shard: Option<Shard>,
    pub resume: bool,
    pub dry_run: bool,
    /// Draw an indicatif bar (else one plain line per finished episode).
    pub progress_bar: bool,
}

impl BatchArgs {
    pub fn new(run: RunArgs, out: PathBuf) -> BatchArgs {
        BatchArgs {
            run,
            out,
            concurrency: 4,
            rpm: crate::session::RpmFlags::default(),
            repeat: 1,
            shard: None,
            resume: false,
            dry_run: false,
            progress_bar: std::io::stderr().is_terminal(),
        }
    }
}

/// One episode to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub task: String,
    pub repeat: u32,
    pub journal: String,
    /// The attack case it runs (`test`); resume and runs files key on it instead of the task.
    pub case: Option<String>,
}

impl Planned {
    /// `task` alone when there is one repeat, else `task#k` (for `--dry-run`).
    pub fn label(&self, repeats: u32) -> String {
        if repeats > 1 { format!("{}#{}", self.key(), self.repeat) } else { self.key().to_string() }
    }

    /// What a runs file records it under: the case, else the task.
    pub fn key(&self) -> &str {
        self.case.as_deref().unwrap_or(&self.task)
    }
}

/// The episodes of this shard, in order: tasks sorted by id, each repeated.
pub fn plan(tasks: &[Task], repeat: u32, shard: Option<Shard>) -> Vec<Planned> {
    let mut ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut out = Vec::new();
    for (i, id) in ids.into_iter().enumerate() {
        if shard.is_some_and(|s| i % s.n + 1 != s.k) {
            continue;
        }
        for k in 1..=repeat.max(1) {
            out.push(Planned { task: id.to_string(), repeat: k, journal: journal_name(id, k), case: None });
        }
    }
    out
}

pub fn journal_name(task: &str, repeat: u32) -> String {
    let safe: String =
        task.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    format!("{safe}__r{repeat}.jsonl")
}

/// What a batch did.
#[derive(Debug, Clone, Default)]
pub struct BatchReport {
    pub planned: usize,
    /// Already in `runs.jsonl` (with `--resume`).
    pub skipped: usize,
    pub finished: usize,
    pub errors: usize,
    /// Aborted by a stop signal (not in `runs.jsonl`).
    pub aborted: usize,
    pub stopped: bool,
}

impl BatchReport {
    /// Exit status: every episode run ended without error and nothing was left undone.
    pub fn ok(&self) -> bool {
        self.errors == 0 && !self.stopped
    }
}

/// Runs the batch (or prints the plan with `dry_run`). `out` gets the plan or
/// the final line; `err` the plain progress lines when there is no bar.
pub async fn batch(
    args: &BatchArgs,
    paths: &Paths,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<BatchReport> {
    let mut run = args.run.clone();
    run.out = Some(args.out.clone());
    let mut launch = Launch::new(&run, paths)?;
    let all = plan(&launch.tasks, args.repeat, args.shard);
    if args.dry_run {
        for p in &all {
            writeln!(out, "{}", p.label(args.repeat))?;
        }
        out.flush()?;
        return Ok(BatchReport { planned: all.len(), ..BatchReport::default() });
    }
    launch.set_rate_limits(args.rpm.limits());
    execute(args, &launch, &all, &|_| Start::default(), out, err).await
}

/// Runs the planned episodes not done yet (all of them without `--resume`), `start_of` saying
/// how each starts, `args.concurrency` at a time, each finished one appended to the runs file.
pub async fn execute(
    args: &BatchArgs,
    launch: &Launch,
    all: &[Planned],
    start_of: &(dyn Fn(&Planned) -> Start + Sync),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<BatchReport> {
    // One fixed endpoint (and launched agent) per episode that runs at once.
    launch.serve_agents(args.concurrency.max(1), err)?;
    let report = run_pending(args, launch, all, start_of, out, err).await;
    launch.stop_agents().await;
    report
}

async fn run_pending(
    args: &BatchArgs,
    launch: &Launch,
    all: &[Planned],
    start_of: &(dyn Fn(&Planned) -> Start + Sync),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<BatchReport> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("{}: cannot create the batch directory", args.out.display()))?;
    let todo = pending(args, all, launch, start_of)?;
    let mut report =
        BatchReport { planned: all.len(), skipped: all.len() - todo.len(), ..Default::default() };
    let runs_path = args.out.join(runs::runs_file_name(args.shard));
    let (mut runs_file, torn) = runs::open_for_append(&runs_path)?;

    let progress = Progress::new(todo.len(), args.progress_bar);
    if let Some(aside) = torn {
        progress.note(
            &format!("{}: cut off a torn last line, kept as {}", runs_path.display(), aside.display()),
            err,
        );
    }
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut signals = crate::core::signals::stop_signals()?;
    let mut queue = todo.into_iter();
    let mut running: JoinSet<Finished> = JoinSet::new();
    let mut start_error = None;
    let concurrency = args.concurrency.max(1);
    loop {
        while !*stop_rx.borrow() && start_error.is_none() && running.len() < concurrency {
            let Some(p) = queue.next() else { break };
            let path = args.out.join(&p.journal);
            let start = start_of(&p);
            let started = launch
                .run_with(&start)
                .and_then(|with| Ok((with, launch.start_at(&p.task, start, Some(path))?)));
            match started {
                Ok((with, handle)) => {
                    for warning in &handle.warnings {
                        progress.note(&format!("warning: {}#{}: {warning}", p.key(), p.repeat), err);
                    }
                    running.spawn(watch_episode(p, with, handle, stop_rx.clone()));
                }
                // A start failure is a setup problem (e.g. no attacker model) that every episode would
                // hit: stop the batch rather than fill runs.jsonl with errors that --resume would skip.
                Err(e) => {
                    start_error = Some(e.context(format!("cannot start {}", p.key())));
                    let _ = stop_tx.send(true);
                }
            }
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            joined = running.join_next() => {
                let Some(joined) = joined else { continue };
                let finished = joined.context("an episode task failed")?;
                for warning in &finished.said {
                    progress.note(&format!("warning: {}#{}: {warning}", finished.record.key(), finished.record.repeat), err);
                }
                if finished.outcome_aborted && *stop_rx.borrow() {
                    report.aborted += 1;
                    progress.aborted(&finished.record, err);
                    continue;
                }
                runs::append(&mut runs_file, &finished.record)
                    .with_context(|| format!("{}: cannot append", runs_path.display()))?;
                report.finished += 1;
                if finished.record.status == EndReason::Error.as_str() {
                    report.errors += 1;
                }
                progress.finished(&finished.record, err);
            }
            _ = signals.recv() => {
                if !*stop_rx.borrow() {
                    progress.note("stopping: aborting the running episodes…", err);
                }
                let _ = stop_tx.send(true);
            }
        }
    }
    progress.done();
    if let Some(e) = start_error {
        return Err(e);
    }
    report.stopped = *stop_rx.borrow();
    // Aborted episodes are among those left to do: the counts add up to the planned ones.
    let to_run = report.planned - report.skipped - report.finished;
    let not_started = to_run.saturating_sub(report.aborted);
    if report.stopped {
        writeln!(
            out,
            "stopped: {} finished, {} aborted and {not_started} not started of {} to run; `--resume` runs those {to_run} in {}",
            report.finished,
            report.aborted,
            report.planned - report.skipped,
            args.out.display()
        )?;
    } else {
        writeln!(
            out,
            "{} episodes finished ({} errors, {} already done); runs in {}",
            report.finished,
            report.errors,
            report.skipped,
            runs_path.display()
        )?;
    }
    out.flush()?;
    Ok(report)
}

/// The planned episodes still to run. Without `--resume`, a directory that
/// already holds any of them is refused (nothing is overwritten by accident); with it, so is one
/// whose finished episodes were run with another assistant, attacker or judge
/// ([`UsageError`]), before anything is run.
fn pending(
    args: &BatchArgs,
    all: &[Planned],
    launch: &Launch,
    start_of: &(dyn Fn(&Planned) -> Start + Sync),
) -> anyhow::Result<Vec<Planned>> {
    // Every shard's runs file counts: only this shard's planned episodes are looked up.
    let done: HashMap<(String, u32), RunRecord> = match runs::read_runs(&args.out)? {
        Some(merged) => merged.records.into_iter().map(|r| ((r.key().to_string(), r.repeat), r)).collect(),
        None => HashMap::new(),
    };
    let mut todo = Vec::new();
    for p in all {
        let path = args.out.join(&p.journal);
        let finished = done.get(&(p.key().to_string(), p.repeat));
        if !args.resume && (finished.is_some() || path.exists()) {
            bail!(
                "{} already holds {} from an earlier batch: pass --resume to continue it, or use a new --out directory",
                args.out.display(),
                p.journal
            );
        }
        if let Some(record) = finished {
            let ours = launch.run_with(&start_of(p))?;
            recorded_run_with(&args.out, record)?.check_same(&ours, &args.out)?;
            continue;
        }
        if path.exists() {
            runs::set_aside(&path)?;
        }
        todo.push(p.clone());
    }
    Ok(todo)
}

/// What a finished episode was run with: its record says, or (a runs file of an older version)
/// its journal's header; a resume with neither is refused, as nothing says it is the same experiment.
fn recorded_run_with(dir: &std::path::Path, record: &RunRecord) -> anyhow::Result<RunWith> {
    if let Some(with) = &record.run_with {
        return Ok(with.clone());
    }
    let journal = dir.join(&record.journal);
    let header = crate::core::import::load_path(&journal)
        .ok()
        .and_then(|mut e| (!e.is_empty()).then(|| e.swap_remove(0)));
    match header.as_ref().and_then(|e| RunWith::from_header(e.header())) {
        Some(with) => Ok(with),
        None => Err(UsageError(format!(
            "--resume: {} does not record what {} was run with (its runs file is of an older version and its journal {} names no assistant): give another --out",
            dir.display(),
            record.key(),
            journal.display()
        ))
        .into()),
    }
}

struct Finished {
    record: RunRecord,
    /// What the runner warned of while it ran (also in the record's warnings).
    said: Vec<String>,
    /// Ended `aborted` (a stop signal's doing when the batch is stopping).
    outcome_aborted: bool,
}

/// Follows one episode to its end, gathering what `runs.jsonl` records.
async fn watch_episode(
    p: Planned,
    with: RunWith,
    mut handle: RunnerHandle,
    mut stop: watch::Receiver<bool>,
) -> Finished {
    let started = Instant::now();
    let mut record = RunRecord {
        case: p.case,
        task: p.task,
        repeat: p.repeat,
        episode: handle.episode_id.clone(),
        journal: p.journal,
        warnings: std::mem::take(&mut handle.warnings),
        run_with: Some(with),
        ..RunRecord::default()
    };
    let mut verdicts = Vec::new();
    let mut said = Vec::new();
    let mut stopping = *stop.borrow();
    if stopping {
        handle.gate.abort();
    }
    loop {
        let update = tokio::select! {
            update = handle.updates.recv() => update,
            changed = stop.changed(), if !stopping => {
                // A dropped sender also means stop: the batch is going away.
                if changed.is_err() || *stop.borrow() {
                    stopping = true;
                    handle.gate.abort();
                }
                continue;
            }
        };
        let Some(update) = update else { break };
        match update {
            RunnerUpdate::Usage { role, usage } => {
                record.tokens.entry(role_name(role).into()).or_default().add(&usage)
            }
            RunnerUpdate::Event(event) => match event.body {
                EventBody::Episode(h) => {
                    record.settings = runs::Settings::of(&h);
                    record.domain = h.task.domain.unwrap_or_default();
                    record.category = h.task.category.unwrap_or_default();
                    record.persona = h.task.persona.as_ref().map(runs::persona_text).unwrap_or_default();
                    record.attack_type = h.task.attack_type.unwrap_or_default();
                }
                EventBody::Verdict(v) => verdicts.push(v),
                _ => {}
            },
            RunnerUpdate::Warning(text) => said.push(text),
            _ => {}
        }
    }
    let outcome = match handle.task.await {
        Ok(outcome) => outcome,
        Err(e) => crate::core::sim::runner::RunOutcome {
            reason: EndReason::Error,
            turns: 0,
            error: Some(format!("the runner task failed: {e}")),
        },
    };
    (record.verdicts, record.judge_errors) = runs::final_verdicts(verdicts.iter().map(|v| &**v));
    record.status = outcome.reason.as_str().into();
    record.turns = outcome.turns;
    record.error = outcome.error;
    record.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    record.warnings.extend(said.iter().cloned());
    Finished { record, said, outcome_aborted: outcome.reason == EndReason::Aborted }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Attacker => "attacker",
        Role::Assistant => "assistant",
        Role::Judge => "judge",
    }
}

/// The bar on a terminal, plain lines elsewhere.
struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    done: std::cell::Cell<usize>,
    errors: std::cell::Cell<usize>,
    tokens: std::cell::Cell<u64>,
    started: Instant,
}

impl Progress {
    fn new(total: usize, bar: bool) -> Progress {
        let bar = bar.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style =
                ProgressStyle::with_template("{bar:30} {pos}/{len} episodes · {elapsed_precise} · {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        Progress { bar, total, done: 0.into(), errors: 0.into(), tokens: 0.into(), started: Instant::now() }
    }

    fn finished(&self, record: &RunRecord, err: &mut dyn Write) {
        self.done.set(self.done.get() + 1);
        if record.status == EndReason::Error.as_str() {
            self.errors.set(self.errors.get() + 1);
        }
        let tokens: u64 = record.tokens.values().map(|t| t.input + t.output).sum();
        self.tokens.set(self.tokens.get() + tokens);
        let stats = format!("{} tokens · {} errors", self.tokens.get(), self.errors.get());
        // An estimate needs a finished episode to go by: none before (issue 23: "0/9 · ETA 0s").
        let done = self.done.get();
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = format!("ETA {:.0}s", elapsed / done as f64 * self.total.saturating_sub(done) as f64);
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!("{eta} · {stats}"));
                bar.inc(1);
            }
            None => {
                let _ = writeln!(
                    err,
                    "[{done}/{}] {}#{} {} ({} turns, {:.1}s) · {stats} · {eta}",
                    self.total,
                    record.key(),
                    record.repeat,
                    record.status,
                    record.turns,
                    record.duration_ms as f64 / 1000.0
                );
            }
        }
    }

    fn aborted(&self, record: &RunRecord, err: &mut dyn Write) {
        self.note(&format!("aborted {}#{} (will run again with --resume)", record.key(), record.repeat), err);
    }

    fn note(&self, text: &str, err: &mut dyn Write) {
        let text = crate::core::sanitize::single_line(text);
        match &self.bar {
            Some(bar) => bar.println(text.as_ref()),
            None => {
                let _ = writeln!(err, "{text}");
            }
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_names_are_filesystem_safe() {
        assert_eq!(journal_name("travel_p1_a", 2), "travel_p1_a__r2.jsonl");
        assert_eq!(journal_name("a/b#c d", 1), "a_b_c_d__r1.jsonl");
    }
}
