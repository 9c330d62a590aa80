//! The effects `update` asks for, carried out off the UI thread (file I/O, searches, loads, the
//! runner), each answering with an action the loop feeds back to `update`.

use std::time::Instant;

use tokio::sync::mpsc;

use crate::app::live::RunnerControl;
use crate::app::{Action, Effect};
use crate::core::annotate::{Annotation, NotesFile};
use crate::core::sim::attacker::HumanInput;
use crate::core::sim::gate::StepGate;
use crate::core::sim::runner::{RunnerHandle, Start};
use crate::session::journal_load::JournalLoad;
use crate::session::loader::{LoadStep, open_in_background, read_in_background};

use super::live::{Launcher, Live};

/// Batches of a journal read ahead of the screen: each holds a few megabytes of events on their
/// way (peak RSS), so one (the screen folds one in milliseconds).
const LOAD_QUEUE: usize = 1;

/// Carries out one effect (I/O, the runner); what it answers is fed back to `update`.
pub(super) async fn carry_out(
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
        Effect::StopLoad(_) => {
            *loader = None;
            None
        }
        Effect::OpenEpisode { path, id, over } => {
            let (steps, report) = load_channel(over);
            open_in_background(path, id, report);
            *loader = Some(steps);
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
        | Effect::FindStoppedFan { .. }
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
pub(super) fn keep_cases(
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

/// Reads the rest of a journal whose start is on screen (see [`open_in_background`]); its steps
/// arrive on the receiver as actions.
pub(super) fn read_rest(rest: JournalLoad) -> mpsc::Receiver<Action> {
    let (steps, report) = load_channel(false);
    read_in_background(rest, report);
    steps
}

/// A channel for the steps of one load, as actions, and what the loader reports them with
/// (it stops once the receiver is dropped: another load replaced it, or the user quit).
fn load_channel(over: bool) -> (mpsc::Receiver<Action>, impl FnMut(LoadStep) -> bool + Send + 'static) {
    let (tx, rx) = mpsc::channel(LOAD_QUEUE);
    (rx, move |step| tx.blocking_send(load_answer(step, over)).is_ok())
}

/// What one step of a load tells `update` (`over`: the episode goes over the screen on top).
fn load_answer(step: LoadStep, over: bool) -> Action {
    match step {
        LoadStep::Whole(episode) => Action::EpisodeLoaded { episode, over },
        LoadStep::Opening { load, episode, read, total } => {
            Action::EpisodeOpening { load, episode, read, total, over }
        }
        LoadStep::Batch { load, events, read } => Action::Loaded { load, events, read },
        LoadStep::Ended { load, end } => Action::LoadEnded { load, end },
    }
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
