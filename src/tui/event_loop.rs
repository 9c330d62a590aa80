//! The UI loop: terminal input, runner updates, ticks and signals in;
//! `update`, effects, `draw` out.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{self, Event as TermEvent};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::app::live::{LiveState, RunnerControl};
use crate::app::state::Screen;
use crate::app::{Action, AppState, Effect, update};
use crate::config::Theme;
use crate::core::annotate::{Annotation, NotesFile};
use crate::core::sim::attacker::HumanInput;
use crate::core::sim::emitter::RunnerUpdate;
use crate::core::sim::gate::StepGate;
use crate::core::sim::runner::Start;
use crate::core::sim::runner::{RunOutcome, RunnerHandle};

use super::terminal::TerminalGuard;

/// How often time advances for autoplay and the live clock.
const TICK: Duration = Duration::from_millis(50);
/// Most runner updates folded into one frame (a fork's catch-up, a fast stream).
const MAX_FOLD: usize = 4096;
/// How long quitting waits for an aborted runner to write its `end` event.
const ABORT_GRACE: Duration = Duration::from_secs(5);

/// Starts a live episode of a task (chosen in the picker, or a fork); built by `main`.
pub type Launcher = Box<dyn FnMut(&str, Start) -> anyhow::Result<RunnerHandle>>;

struct Live {
    gate: StepGate,
    updates: mpsc::Receiver<RunnerUpdate>,
    task: JoinHandle<RunOutcome>,
    edits: mpsc::Sender<String>,
    human: Option<mpsc::Sender<HumanInput>>,
}

impl Live {
    fn new(handle: RunnerHandle) -> Self {
        Live {
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
/// With a runner, its episode streams in; with a launcher, the task picker can start runs.
pub async fn run(
    mut state: AppState,
    theme: Theme,
    runner: Option<RunnerHandle>,
    mut launcher: Option<Launcher>,
) -> anyhow::Result<()> {
    let mut guard = TerminalGuard::new()?;
    let size = guard.terminal.size()?;
    update(&mut state, Action::Resize(size.width, size.height));
    let (tx, mut input) = mpsc::channel::<Action>(256);
    // Weak, so the loop still ends when the input reader goes away.
    let loaded = tx.downgrade();
    spawn_input_reader(tx);
    let mut live = runner.map(Live::new);
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last_tick = Instant::now();
    let mut stop = crate::core::signals::stop_signals()?;
    let mut dirty = true;
    // Runner updates redraw at most once per tick; keys and resizes at once.
    let mut defer_draw = false;
    let mut last_draw = Instant::now() - TICK;
    let mut notes_for: Option<(std::path::PathBuf, String)> = None;
    loop {
        // The episode on screen changed: read its notes (I/O stays out of `update`).
        let wanted = state.wanted_notes();
        if wanted != notes_for {
            notes_for = wanted.clone();
            if let Some((path, _)) = wanted {
                let result = read_notes(&path);
                update(&mut state, Action::NotesLoaded { path, result });
                dirty = true;
            }
        }
        if dirty && !(defer_draw && last_draw.elapsed() < TICK) {
            guard.terminal.draw(|frame| crate::ui::draw(frame, &state, &theme))?;
            dirty = false;
            last_draw = Instant::now();
        }
        let action = tokio::select! {
            action = input.recv() => match action {
                Some(action) => action,
                None => break,
            },
            Some(runner_update) = async {
                match live.as_mut() {
                    Some(l) => l.updates.recv().await,
                    None => std::future::pending().await,
                }
            } => Action::Runner(runner_update),
            _ = ticks.tick() => {
                let now = Instant::now();
                let dt = now - last_tick;
                last_tick = now;
                if !state.wants_ticks() {
                    continue;
                }
                Action::Tick(dt)
            }
            _ = stop.recv() => break,
        };
        dirty = true;
        defer_draw = matches!(action, Action::Runner(_));
        let mut batch = vec![action];
        // Fold the updates already waiting into the same frame.
        if let (true, Some(l)) = (defer_draw, live.as_mut()) {
            while batch.len() < MAX_FOLD {
                match l.updates.try_recv() {
                    Ok(update) => batch.push(Action::Runner(update)),
                    Err(_) => break,
                }
            }
        }
        for action in batch {
            for effect in update(&mut state, action) {
                match effect {
                    Effect::Quit => {
                        if let Some(l) = live.take() {
                            l.stop().await;
                        }
                        drop(guard);
                        return Ok(());
                    }
                    Effect::Control(control) => {
                        if let Some(l) = &live {
                            apply(&l.gate, control);
                        }
                    }
                    Effect::RunTask(id) => {
                        let started = launcher.as_mut().map(|launch| launch(&id, Start::default()));
                        switch_to(&mut state, &mut live, started, &id).await;
                    }
                    Effect::Fork { task_id, resume, human, beside } => {
                        let start = Start { human, resume: Some(resume), journal_dir: beside };
                        let started = launcher.as_mut().map(|launch| launch(&task_id, start));
                        switch_to(&mut state, &mut live, started, &task_id).await;
                    }
                    Effect::SaveNote { path, draft, author } => {
                        let result = write_note(&path, |file| file.add(draft, &author).map(|_| ()));
                        update(&mut state, Action::NotesLoaded { path, result });
                    }
                    Effect::DeleteNote { path, id, author } => {
                        let result = write_note(&path, |file| file.delete(&id, &author));
                        update(&mut state, Action::NotesLoaded { path, result });
                    }
                    Effect::HumanSay(text) => {
                        if let Some(tx) = live.as_ref().and_then(|l| l.human.as_ref()) {
                            let _ = tx.send(HumanInput::Message(text)).await;
                        }
                    }
                    Effect::HumanEnd => {
                        if let Some(tx) = live.as_ref().and_then(|l| l.human.as_ref()) {
                            let _ = tx.send(HumanInput::End).await;
                        }
                    }
                    Effect::OpenEpisode { path, id } => {
                        if let Some(tx) = loaded.upgrade() {
                            open_episode(tx, path, id);
                        }
                    }
                    Effect::EditAttacker(text) => {
                        if let Some(l) = &live {
                            let _ = l.edits.send(text).await;
                        }
                    }
                }
            }
        }
    }
    if let Some(l) = live.take() {
        l.stop().await;
    }
    drop(guard);
    Ok(())
}

/// Puts a newly started episode on screen (stopping the one that ran), or says why it did not start.
async fn switch_to(
    state: &mut AppState,
    live: &mut Option<Live>,
    started: Option<anyhow::Result<RunnerHandle>>,
    what: &str,
) {
    match started {
        Some(Ok(handle)) => {
            if let Some(previous) = live.take() {
                previous.stop().await;
            }
            let mut live_state = LiveState::new(handle.journal_path.display().to_string(), false);
            live_state.human = handle.human.is_some();
            state.view = None;
            state.overlay = None;
            state.screen = Screen::Inspector;
            state.live = Some(live_state);
            state.composer_open = false;
            state.message = crate::app::state::warning_line(&handle.warnings);
            let (w, h) = (state.area.width, state.area.height);
            state.resize(w, h);
            *live = Some(Live::new(handle));
        }
        Some(Err(e)) => state.message = Some(format!("cannot start {what}: {e:#}")),
        None => state.message = Some("live runs are started with `converse-tui run`".into()),
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

/// Loads an indexed episode off the UI thread and feeds it back as an action.
fn open_episode(tx: mpsc::Sender<Action>, path: std::path::PathBuf, id: String) {
    tokio::task::spawn_blocking(move || {
        let loaded = crate::core::import::load_episode(&path, &id).map(Box::new).map_err(|e| e.to_string());
        let _ = tx.blocking_send(Action::EpisodeLoaded(loaded));
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

/// Reads terminal events on a thread of its own (crossterm's read blocks).
fn spawn_input_reader(tx: mpsc::Sender<Action>) {
    std::thread::spawn(move || {
        loop {
            if tx.is_closed() {
                return;
            }
            match event::poll(Duration::from_millis(100)) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(_) => return,
            }
            let action = match event::read() {
                Ok(TermEvent::Key(key)) => Action::Key(key),
                Ok(TermEvent::Mouse(mouse)) => Action::Mouse(mouse),
                Ok(TermEvent::Paste(text)) => Action::Paste(text),
                Ok(TermEvent::Resize(w, h)) => Action::Resize(w, h),
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.blocking_send(action).is_err() {
                return;
            }
        }
    });
}
