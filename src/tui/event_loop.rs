//! The UI loop: terminal input, runner updates, ticks and signals in;
//! `update`, effects, `draw` out.

use std::time::{Duration, Instant};

use std::collections::VecDeque;

use crossterm::event::EventStream;
use futures_util::StreamExt;
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::app::input::route;
use crate::app::live::RunnerControl;
use crate::app::{Action, AppState, Effect, update};
use crate::config::Theme;
use crate::core::annotate::{Annotation, NotesFile};
use crate::core::sim::attacker::HumanInput;
use crate::core::sim::emitter::RunnerUpdate;
use crate::core::sim::gate::{GateMode, StepGate};
use crate::core::sim::runner::Start;
use crate::core::sim::runner::{RunOutcome, RunnerHandle};
use crate::session::journal_load::{self, JournalLoad};

use super::terminal::TerminalGuard;

/// How often time advances for autoplay and the live clock.
const TICK: Duration = Duration::from_millis(50);
/// Most runner updates folded into one frame (a fork's catch-up, a fast stream).
const MAX_FOLD: usize = 4096;
/// Batches of a journal read ahead of the screen: each holds a few megabytes of events on their
/// way (peak RSS), so one (the screen folds one in milliseconds).
const LOAD_QUEUE: usize = 1;
/// How long quitting waits for an aborted runner to write its `end` event.
const ABORT_GRACE: Duration = Duration::from_secs(5);

/// Starts a live episode of a task (chosen in the picker, or a fork); built by `main`.
pub type Launcher = Box<dyn FnMut(&str, Start) -> anyhow::Result<RunnerHandle>>;

struct Live {
    gate: StepGate,
    /// The gate's own reports of its state (a step consumed, a pause taken).
    gate_changes: watch::Receiver<GateMode>,
    updates: mpsc::Receiver<RunnerUpdate>,
    task: JoinHandle<RunOutcome>,
    edits: mpsc::Sender<String>,
    human: Option<mpsc::Sender<HumanInput>>,
}

impl Live {
    fn new(handle: RunnerHandle) -> Self {
        Live {
            gate_changes: handle.gate.subscribe(),
            gate: handle.gate,
            updates: handle.updates,
            task: handle.task,
            edits: handle.edits,
            human: handle.human,
        }
    }

    /// Aborts (if still running) and waits for the runner to close its journal.
    async fn stop(self) {
        self.gate.abort();
        let _ = tokio::time::timeout(ABORT_GRACE, self.task).await;
    }
}

/// Runs the inspector until the user quits or a signal asks us to stop.
/// With a runner, its episode streams in; with a launcher, the task picker can start runs;
/// with a journal load, the rest of the episode on screen is read once its start is drawn.
pub async fn run(
    mut state: AppState,
    theme: Theme,
    runner: Option<RunnerHandle>,
    mut launcher: Option<Launcher>,
    mut rest: Option<JournalLoad>,
    fan_launcher: Option<super::fan::FanLauncher>,
) -> anyhow::Result<()> {
    let mut fans = super::fan::Fans { launcher: fan_launcher, running: None };
    let mut guard = TerminalGuard::new()?;
    let size = guard.terminal.size()?;
    // Answers of effects done off the loop (an episode loaded from the browser).
    let (answers_tx, mut answers) = mpsc::channel::<Action>(16);
    // An answer read past a run of index batches (see `merge_indexed`), handled next.
    let mut held: Option<Action> = None;
    // No polling: the terminal's events arrive as a stream, and nothing wakes the loop while idle.
    let mut terminal_events = EventStream::new();
    let mut live = runner.map(Live::new);
    // A journal being read off the loop (issue 14): its batches, then its end, as actions.
    let mut loader: Option<mpsc::Receiver<Action>> = None;
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut ticking = false;
    let mut last_tick = Instant::now();
    let mut stop = crate::core::signals::stop_signals()?;
    let mut frames = Frames::default();
    let first = update(&mut state, Action::Resize(size.width, size.height));
    let mut pending: VecDeque<Effect> = first.into();
    loop {
        // Effects, and the actions they answer with, until none is left.
        while let Some(effect) = pending.pop_front() {
            match effect {
                Effect::Quit => {
                    if let Some(l) = live.take() {
                        l.stop().await;
                    }
                    fans.stop().await;
                    drop(guard);
                    return Ok(());
                }
                Effect::HandOff { text, editor } => {
                    // The pager reads the keys meanwhile: stop reading them (the stream's reader
                    // thread leaves its poll when the stream is dropped), then read anew.
                    drop(std::mem::replace(&mut terminal_events, EventStream::new()));
                    let problem = super::handoff::hand_off(&mut guard, &text, editor);
                    if let Some(problem) = problem {
                        pending.extend(update(&mut state, Action::Problem(problem)));
                    }
                    frames.dirty = true;
                }
                // The dataset's tasks give each case its task hash.
                Effect::KeepCases { suite, sources } => {
                    keep_cases(answers_tx.clone(), suite, sources, state.tasks.clone())
                }
                Effect::StartFan(request) => {
                    let answer = fans.start(*request).await;
                    pending.extend(update(&mut state, answer));
                    frames.dirty = true;
                }
                Effect::FanControl(control) => fans.control(control),
                Effect::FindForks { dir, root } => super::fan::find_forks(answers_tx.clone(), dir, root),
                effect => {
                    let answer = carry_out(effect, &mut live, &mut launcher, &answers_tx, &mut loader).await;
                    if let Some(action) = answer {
                        pending.extend(update(&mut state, action));
                    }
                    frames.dirty = true;
                }
            }
        }
        frames.draw_if_due(&mut guard, &state, &theme)?;
        // The start of the journal is on screen: now read the rest (not before, so the first
        // frame has the cores to itself).
        if let Some(load) = rest.take() {
            let origin = state.view().map(|v| v.episode.origin.clone()).unwrap_or_default();
            loader = Some(load_in_steps(load, origin));
        }
        // Time only flows while it matters (autoplay, a live clock): an idle screen sleeps.
        let wants_ticks = state.wants_ticks();
        if wants_ticks && !ticking {
            ticks.reset();
            last_tick = Instant::now();
        }
        ticking = wants_ticks;
        let action = if let Some(action) = held.take() {
            action
        } else {
            tokio::select! {
                event = terminal_events.next() => match event {
                    Some(Ok(event)) => match route(&state, event) {
                        Some(action) => action,
                        None => continue,
                    },
                    Some(Err(_)) | None => break,
                },
                Some(action) = answers.recv() => merge_indexed(action, &mut answers, &mut held),
                loaded = async {
                    match loader.as_mut() {
                        Some(rx) => rx.recv().await,
                        None => std::future::pending().await,
                    }
                } => match loaded {
                    Some(action) => action,
                    None => {
                        loader = None;
                        continue;
                    }
                },
                Some(from_runner) = async {
                    match live.as_mut() {
                        Some(l) => tokio::select! {
                            update = l.updates.recv() => update.map(Action::Runner),
                            changed = l.gate_changes.changed() => {
                                changed.ok().map(|()| Action::Gate(*l.gate_changes.borrow_and_update()))
                            }
                        },
                        None => std::future::pending().await,
                    }
                } => from_runner,
                report = fans.next() => match report {
                    Some(report) => Action::Fan(report),
                    None => {
                        fans.finished();
                        continue;
                    }
                },
                _ = ticks.tick(), if ticking => {
                    let now = Instant::now();
                    let dt = now - last_tick;
                    last_tick = now;
                    Action::Tick(dt)
                }
                // A change waits for the next frame slot.
                _ = frames.next_frame(), if frames.dirty => continue,
                _ = stop.recv() => break,
            }
        };
        let runner_update = matches!(action, Action::Runner(_));
        let fan_report = matches!(action, Action::Fan(_));
        let loaded = matches!(action, Action::Loaded { .. } | Action::LoadEnded { .. });
        pending.extend(update(&mut state, action));
        // Fold the updates already waiting (a runner's, a journal's batches) into the same frame.
        if let (true, Some(l)) = (runner_update, live.as_mut()) {
            fold_waiting(&mut state, &mut pending, || l.updates.try_recv().ok().map(Action::Runner));
        }
        if fan_report {
            fold_waiting(&mut state, &mut pending, || fans.waiting().map(Action::Fan));
        }
        if let (true, Some(rx)) = (loaded, loader.as_mut()) {
            fold_waiting(&mut state, &mut pending, || rx.try_recv().ok());
        }
        // Nothing reads that journal any more (it ended, or another episode replaced it).
        if loaded && !state.loading() {
            loader = None;
        }
        frames.dirty = true;
    }
    if let Some(l) = live.take() {
        l.stop().await;
    }
    fans.stop().await;
    drop(guard);
    Ok(())
}

/// Folds the updates already waiting into the state, up to [`MAX_FOLD`], so that they make one
/// frame (a fork's catch-up, a fast stream, a journal's batches).
fn fold_waiting(
    state: &mut AppState,
    pending: &mut VecDeque<Effect>,
    mut next: impl FnMut() -> Option<Action>,
) {
    for _ in 1..MAX_FOLD {
        let Some(more) = next() else { break };
        pending.extend(update(state, more));
    }
}

/// Reads a journal's rest on a thread of its own (see [`read_rest`]).
fn load_in_steps(load: JournalLoad, origin: String) -> mpsc::Receiver<Action> {
    let (tx, rx) = mpsc::channel(LOAD_QUEUE);
    std::thread::spawn(move || read_rest(load, origin, &tx));
    rx
}

/// Sends a journal's rest batch by batch, then its end. Runs on a plain thread: quitting never
/// waits for it, and it stops at its next batch once nobody listens.
fn read_rest(mut load: JournalLoad, origin: String, tx: &mpsc::Sender<Action>) {
    let pause = journal_load::batch_pause();
    while let Some(events) = load.next_batch() {
        let (read, _) = load.progress();
        if tx.blocking_send(Action::Loaded { origin: origin.clone(), events, read }).is_err() {
            return;
        }
        std::thread::sleep(pause);
    }
    let _ = tx.blocking_send(Action::LoadEnded { origin, end: load.finish() });
}

/// An index batch with the batches already waiting behind it, as one: the browser rebuilds its
/// list once for them all, so the indexer is not held up by one rebuild per batch. An answer of
/// another kind read meanwhile is `held` for the next turn of the loop.
fn merge_indexed(action: Action, answers: &mut mpsc::Receiver<Action>, held: &mut Option<Action>) -> Action {
    let Action::Indexed { mut rows, mut errors, mut progress, mut elapsed, mut done } = action else {
        return action;
    };
    while !done {
        match answers.try_recv() {
            Ok(Action::Indexed { rows: more, errors: more_errors, progress: p, elapsed: e, done: d }) => {
                rows.extend(more);
                errors.extend(more_errors);
                (progress, elapsed, done) = (p, e, d);
            }
            Ok(other) => {
                *held = Some(other);
                break;
            }
            Err(_) => break,
        }
    }
    Action::Indexed { rows, errors, progress, elapsed, done }
}

/// Files indexed per batch the browser shows while the rest is read.
const INDEX_BATCH: usize = 200;

/// Indexes a corpus on a thread of its own, its rows reaching the browser batch by batch. The
/// thread stops at its next batch once nobody listens (the user quit).
fn index_in_steps(
    answers: mpsc::Sender<Action>,
    paths: Vec<std::path::PathBuf>,
    cache: Option<std::path::PathBuf>,
) {
    std::thread::spawn(move || {
        let started = Instant::now();
        let mut last = crate::core::corpus::index::IndexProgress::default();
        crate::core::corpus::index::index_in_batches(
            &paths,
            cache.as_deref(),
            INDEX_BATCH,
            &mut |batch, progress| {
                last = progress;
                let errors = batch.errors.iter().map(ToString::to_string).collect();
                let action = Action::Indexed {
                    rows: batch.rows,
                    errors,
                    progress,
                    elapsed: started.elapsed(),
                    done: false,
                };
                answers.blocking_send(action).is_ok()
            },
        );
        let done = Action::Indexed {
            rows: Vec::new(),
            errors: Vec::new(),
            progress: last,
            elapsed: started.elapsed(),
            done: true,
        };
        let _ = answers.blocking_send(done);
    });
}

/// Opens an episode off the loop: a journal in steps (its start answered at once, the rest
/// through `loader`), anything else whole.
fn open_episode(
    answers: mpsc::Sender<Action>,
    loader: &mut Option<mpsc::Receiver<Action>>,
    path: std::path::PathBuf,
    id: String,
) {
    if !crate::core::episode::is_journal(&path) {
        tokio::task::spawn_blocking(move || {
            let loaded =
                crate::core::import::load_episode(&path, &id).map(Box::new).map_err(|e| e.to_string());
            let _ = answers.blocking_send(Action::EpisodeLoaded(loaded));
        });
        return;
    }
    let (tx, rx) = mpsc::channel(LOAD_QUEUE);
    *loader = Some(rx);
    std::thread::spawn(move || {
        let opened = JournalLoad::open(&path, journal_load::batch_bytes()).map_err(|e| e.to_string());
        let opened = opened.and_then(|(episode, rest)| match episode.id() == id {
            true => Ok((episode, rest)),
            false => Err(format!("{}: no episode '{id}' in this file any more", path.display())),
        });
        match opened {
            Ok((episode, Some(rest))) => {
                let (read, total) = rest.progress();
                let origin = episode.origin.clone();
                let first = Action::EpisodeOpening { episode: Box::new(episode), read, total };
                if tx.blocking_send(first).is_ok() {
                    read_rest(rest, origin, &tx);
                }
            }
            Ok((episode, None)) => {
                let _ = tx.blocking_send(Action::EpisodeLoaded(Ok(Box::new(episode))));
            }
            Err(problem) => {
                let _ = tx.blocking_send(Action::EpisodeLoaded(Err(problem)));
            }
        }
    });
}

/// At most one frame per tick, drawn only when something changed, inside a synchronized update
/// (the terminal shows it whole, never half-drawn).
struct Frames {
    dirty: bool,
    last: Instant,
}

impl Default for Frames {
    fn default() -> Self {
        Frames { dirty: true, last: Instant::now() - TICK }
    }
}

impl Frames {
    fn draw_if_due(
        &mut self,
        guard: &mut TerminalGuard,
        state: &AppState,
        theme: &Theme,
    ) -> anyhow::Result<()> {
        if !self.dirty || self.last.elapsed() < TICK {
            return Ok(());
        }
        let terminal = &mut guard.terminal;
        ratatui::crossterm::queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
        terminal.draw(|frame| crate::ui::draw(frame, state, theme))?;
        ratatui::crossterm::execute!(terminal.backend_mut(), EndSynchronizedUpdate)?;
        self.dirty = false;
        self.last = Instant::now();
        Ok(())
    }

    async fn next_frame(&self) {
        tokio::time::sleep_until((self.last + TICK).into()).await
    }
}

/// Carries out one effect (I/O, the runner); what it answers is fed back to `update`.
async fn carry_out(
    effect: Effect,
    live: &mut Option<Live>,
    launcher: &mut Option<Launcher>,
    answers: &mpsc::Sender<Action>,
    loader: &mut Option<mpsc::Receiver<Action>>,
) -> Option<Action> {
    match effect {
        Effect::Quit => None,
        Effect::Control(control) => {
            if let Some(l) = live {
                apply(&l.gate, control);
            }
            None
        }
        Effect::RunTask(id) => {
            let started = launcher.as_mut().map(|launch| launch(&id, Start::default()));
            Some(switch_to(live, started, &id).await)
        }
        Effect::Fork { task_id, resume, human, beside } => {
            let start = Start { human, resume: Some(resume), journal_dir: beside, ..Start::default() };
            let started = launcher.as_mut().map(|launch| launch(&task_id, start));
            Some(switch_to(live, started, &task_id).await)
        }
        Effect::LoadNotes(path) => {
            let result = read_notes(&path);
            Some(Action::NotesLoaded { path, result })
        }
        Effect::SaveNote { path, draft, author } => {
            let result = write_note(&path, |file| file.add(draft, &author).map(|_| ()));
            Some(Action::NotesLoaded { path, result })
        }
        Effect::DeleteNote { path, id, author } => {
            let result = write_note(&path, |file| file.delete(&id, &author));
            Some(Action::NotesLoaded { path, result })
        }
        Effect::HumanSay(text) => {
            if let Some(tx) = live.as_ref().and_then(|l| l.human.as_ref()) {
                let _ = tx.send(HumanInput::Message(text)).await;
            }
            None
        }
        Effect::HumanEnd => {
            if let Some(tx) = live.as_ref().and_then(|l| l.human.as_ref()) {
                let _ = tx.send(HumanInput::End).await;
            }
            None
        }
        Effect::OpenEpisode { path, id } => {
            open_episode(answers.clone(), loader, path, id);
            None
        }
        Effect::IndexCorpus { paths, cache } => {
            index_in_steps(answers.clone(), paths, cache);
            None
        }
        Effect::OpenCompare(sources) => {
            open_compare(answers.clone(), *sources);
            None
        }
        Effect::SaveUiState { path, contents } => {
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| crate::core::atomic_file::write_atomic(&path, contents.as_bytes()));
            written.err().map(|e| Action::Problem(format!("cannot save {}: {e}", path.display())))
        }
        Effect::SearchEpisodes { query, files, loaded } => {
            search_episodes(answers.clone(), query, files, loaded);
            None
        }
        Effect::Copy(text) => match super::handoff::copy(&text) {
            Ok(()) => None,
            Err(e) => Some(Action::Problem(format!("cannot copy: {e}"))),
        },
        // Carried out in the loop (which owns the terminal, the tasks and the fan).
        Effect::HandOff { .. }
        | Effect::KeepCases { .. }
        | Effect::StartFan(_)
        | Effect::FanControl(_)
        | Effect::FindForks { .. } => None,
        Effect::EditAttacker(text) => {
            if let Some(l) = live {
                let _ = l.edits.send(text).await;
            }
            None
        }
    }
}

/// Starts the new episode's runner (stopping the one that ran); `update` puts it on screen.
async fn switch_to(
    live: &mut Option<Live>,
    started: Option<anyhow::Result<RunnerHandle>>,
    what: &str,
) -> Action {
    match started {
        Some(Ok(handle)) => {
            if let Some(previous) = live.take() {
                previous.stop().await;
            }
            let action = Action::LiveStarted {
                journal: handle.journal_path.display().to_string(),
                human: handle.human.is_some(),
                warnings: handle.warnings.clone(),
            };
            *live = Some(Live::new(handle));
            action
        }
        Some(Err(e)) => Action::Problem(format!("cannot start {what}: {e:#}")),
        None => Action::Problem("live runs are started with `converse-tui run`".into()),
    }
}

fn read_notes(path: &std::path::Path) -> Result<Vec<Annotation>, String> {
    let file = NotesFile::open(path).map_err(|e| e.to_string())?;
    Ok(file.current().into_iter().cloned().collect())
}

/// Appends to the notes file (one fsynced line) and returns its new state.
fn write_note(
    path: &std::path::Path,
    change: impl FnOnce(&mut NotesFile) -> Result<(), crate::core::annotate::NotesError>,
) -> Result<Vec<Annotation>, String> {
    let mut file = NotesFile::open(path).map_err(|e| e.to_string())?;
    change(&mut file).map_err(|e| e.to_string())?;
    Ok(file.current().into_iter().cloned().collect())
}

/// Loads two browser rows off the UI thread (those in memory are taken as they are).
fn open_compare(tx: mpsc::Sender<Action>, sources: [crate::app::browser::EntrySource; 2]) {
    use crate::app::browser::EntrySource;
    tokio::task::spawn_blocking(move || {
        let load = |source: EntrySource| match source {
            EntrySource::Loaded(episode) => Ok(*episode),
            EntrySource::File { path, id } => {
                crate::core::import::load_episode(&path, &id).map_err(|e| e.to_string())
            }
        };
        let [a, b] = sources;
        let loaded = load(a).and_then(|a| Ok(Box::new([a, load(b)?])));
        let _ = tx.blocking_send(Action::CompareLoaded(loaded));
    });
}

/// Writes the attack cases off the UI thread; answers with what was kept for the status line.
fn keep_cases(
    tx: mpsc::Sender<Action>,
    suite: std::path::PathBuf,
    sources: Vec<crate::app::browser::EntrySource>,
    tasks: std::sync::Arc<crate::core::dataset::TaskLookup>,
) {
    use crate::app::browser::EntrySource;
    tokio::task::spawn_blocking(move || {
        let episodes = sources.into_iter().map(|source| match source {
            EntrySource::Loaded(episode) => Ok(*episode),
            EntrySource::File { path, id } => {
                crate::core::import::load_episode(&path, &id).map_err(|e| e.to_string())
            }
        });
        let answer = match crate::core::suite::store::keep(&suite, episodes, &tasks) {
            Ok(said) => Action::Done(said),
            Err(e) => Action::Problem(format!("{e:#}")),
        };
        let _ = tx.blocking_send(answer);
    });
}

/// Searches files (in parallel) and episodes in memory off the UI thread; answers with the hits.
fn search_episodes(
    tx: mpsc::Sender<Action>,
    query: crate::core::search::Query,
    files: Vec<std::path::PathBuf>,
    loaded: Vec<crate::core::episode::Episode>,
) {
    use crate::core::search::{Matcher, search_events, search_files};
    tokio::task::spawn_blocking(move || {
        let result = Matcher::new(&query).map(|matcher| {
            let found = search_files(&files, &matcher, None);
            let mut hits = found.hits;
            for episode in &loaded {
                let path = std::path::Path::new(&episode.origin);
                hits.extend(search_events(&episode.events, path, episode.id(), &matcher));
            }
            let errors = found.errors.iter().map(ToString::to_string).collect();
            crate::app::action::SearchResult { hits, files: found.files + loaded.len(), errors }
        });
        let _ = tx.blocking_send(Action::SearchDone { query, result });
    });
}

fn apply(gate: &StepGate, control: RunnerControl) {
    match control {
        RunnerControl::Pause => gate.pause(),
        RunnerControl::Resume => gate.resume(),
        RunnerControl::StepCall => gate.step_call(),
        RunnerControl::StepTurn => gate.step_turn(),
        RunnerControl::Abort => gate.abort(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::corpus::index::IndexProgress;

    fn batch(files_done: usize, errors: &[&str], done: bool) -> Action {
        Action::Indexed {
            rows: Vec::new(),
            errors: errors.iter().map(|e| e.to_string()).collect(),
            progress: IndexProgress { files_done, files_total: 30, bytes_done: 0 },
            elapsed: Duration::from_millis(files_done as u64),
            done,
        }
    }

    #[test]
    fn waiting_index_batches_are_merged_and_another_answer_is_held() {
        let (tx, mut rx) = mpsc::channel(8);
        for action in [batch(20, &["b"], false), Action::Problem("p".into()), batch(30, &[], true)] {
            tx.try_send(action).unwrap();
        }
        let mut held = None;
        let merged = merge_indexed(batch(10, &["a"], false), &mut rx, &mut held);
        assert_eq!(merged, batch(20, &["a", "b"], false));
        assert_eq!(held, Some(Action::Problem("p".into())));
        // The last batch ends the run: nothing after it is read.
        let mut held = None;
        tx.try_send(Action::Problem("q".into())).unwrap();
        assert_eq!(merge_indexed(rx.try_recv().unwrap(), &mut rx, &mut held), batch(30, &[], true));
        assert_eq!(held, None);
        assert_eq!(rx.try_recv().unwrap(), Action::Problem("q".into()));
    }
}
