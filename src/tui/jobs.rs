//! The work effects ask for that is done off the loop (a thread or a blocking task): loads,
//! searches, the index, attack cases, the fork family; each answers through the inbox.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::mpsc;

use crate::app::Action;
use crate::app::browser::EntrySource;
use crate::core::annotate::{Annotation, NotesFile};
use crate::core::dataset::TaskLookup;
use crate::core::episode::Episode;
use crate::session::journal_load::{JournalLoad, LoadId};
use crate::session::loader::{LoadStep, open_in_background, read_in_background};

use super::inbox::Outbox;

/// Batches of a journal read ahead of the screen: each holds a few megabytes of events on their
/// way (peak RSS), so one (the screen folds one in milliseconds).
const LOAD_QUEUE: usize = 1;

/// Files indexed per batch the browser shows while the rest is read.
const INDEX_BATCH: usize = 200;

/// The loads `update` said nobody reads for any more ([`crate::app::Effect::StopLoad`]): their
/// thread stops at its next batch.
#[derive(Clone, Default)]
pub struct StoppedLoads(Arc<Mutex<Vec<LoadId>>>);

impl StoppedLoads {
    pub fn stop(&self, load: LoadId) {
        if let Ok(mut stopped) = self.0.lock() {
            stopped.push(load);
        }
    }

    fn wanted(&self, step: &LoadStep) -> bool {
        let load = match step {
            LoadStep::Whole(_) => return true,
            LoadStep::Opening { load, .. } | LoadStep::Batch { load, .. } | LoadStep::Ended { load, .. } => {
                load
            }
        };
        self.0.lock().is_ok_and(|stopped| !stopped.contains(load))
    }
}

/// Opens episode `id` of `path` in steps (`over`: over the screen on top), answering with
/// [`Action::EpisodeLoaded`] or [`Action::EpisodeOpening`], batches and its end.
pub fn open_episode(inbox: Outbox, stopped: StoppedLoads, path: PathBuf, id: String, over: bool) {
    open_in_background(path, id, relay(inbox, stopped, over));
}

/// Reads the rest of a journal whose start is on screen.
pub fn read_rest(inbox: Outbox, stopped: StoppedLoads, rest: JournalLoad) {
    read_in_background(rest, relay(inbox, stopped, false));
}

/// Hands a load's steps to the inbox as actions, one batch ahead of the screen at most; the
/// loader stops once nobody reads them (a stopped load, or the user quit).
fn relay(inbox: Outbox, stopped: StoppedLoads, over: bool) -> impl FnMut(LoadStep) -> bool + Send + 'static {
    let (tx, mut rx) = mpsc::channel::<LoadStep>(LOAD_QUEUE);
    tokio::spawn(async move {
        while let Some(step) = rx.recv().await {
            if !stopped.wanted(&step) || inbox.send(load_answer(step, over)).await.is_err() {
                return;
            }
        }
    });
    move |step| tx.blocking_send(step).is_ok()
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

/// A browser row's episode, loaded whole if it is not in memory.
fn load_source(source: EntrySource) -> Result<Episode, String> {
    match source {
        EntrySource::Loaded(episode) => Ok(*episode),
        EntrySource::File { path, id } => crate::session::loader::load(&path, &id).map_err(|e| e.to_string()),
    }
}

/// Runs `job` on a blocking thread and hands what it answers to the inbox.
fn answer(inbox: Outbox, job: impl FnOnce() -> Action + Send + 'static) {
    tokio::task::spawn_blocking(move || {
        let _ = inbox.blocking_send(job());
    });
}

/// Loads two browser rows (those in memory are taken as they are).
pub fn open_compare(inbox: Outbox, [a, b]: [EntrySource; 2]) {
    answer(inbox, move || {
        Action::CompareLoaded(load_source(a).and_then(|a| Ok(Box::new([a, load_source(b)?]))))
    });
}

/// Writes the attack cases (the dataset's tasks give each its task hash); answers with what was
/// kept, for the status line.
pub fn keep_cases(inbox: Outbox, suite: PathBuf, sources: Vec<EntrySource>, tasks: Arc<TaskLookup>) {
    answer(inbox, move || {
        let episodes = sources.into_iter().map(load_source);
        match crate::core::suite::store::keep(&suite, episodes, &tasks) {
            Ok(said) => Action::Done(said),
            Err(e) => Action::Problem(format!("{e:#}")),
        }
    });
}

/// Searches files (in parallel) and episodes in memory; answers with the hits.
pub fn search_episodes(
    inbox: Outbox,
    query: crate::core::search::Query,
    files: Vec<PathBuf>,
    loaded: Vec<Episode>,
) {
    use crate::core::search::{Matcher, search_events, search_files};
    answer(inbox, move || {
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
        Action::SearchDone { query, result }
    });
}

/// Looks for a stopped fan of `episode` from `turn` under `dir`.
pub fn find_stopped_fan(inbox: Outbox, dir: PathBuf, episode: String, turn: u32) {
    answer(inbox, move || {
        Action::StoppedFanFound(
            crate::core::fan::stopped::find_stopped(&dir, &episode, turn).map_err(|e| format!("{e:#}")),
        )
    });
}

/// Looks for the fork family of `root` (its journal `journal`).
pub fn find_forks(inbox: Outbox, journal: PathBuf, root: String) {
    answer(inbox, move || {
        let family = crate::core::fan::forks::find_family(&journal, &root);
        Action::ForksFound { root, family }
    });
}

/// Indexes a corpus on a thread of its own, its rows reaching the browser batch by batch. The
/// thread stops at its next batch once nobody listens (the user quit).
pub fn index_in_steps(inbox: Outbox, paths: Vec<PathBuf>, cache: Option<PathBuf>) {
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
                inbox.blocking_send(action).is_ok()
            },
        );
        let done = Action::Indexed {
            rows: Vec::new(),
            errors: Vec::new(),
            progress: last,
            elapsed: started.elapsed(),
            done: true,
        };
        let _ = inbox.blocking_send(done);
    });
}

/// An episode's notes as they stand in its notes file.
pub fn read_notes(path: &std::path::Path) -> Result<Vec<Annotation>, String> {
    let file = NotesFile::open(path).map_err(|e| e.to_string())?;
    Ok(file.current().into_iter().cloned().collect())
}

/// Appends to the notes file (one fsynced line) and returns its new state.
pub fn write_note(
    path: &std::path::Path,
    change: impl FnOnce(&mut NotesFile) -> Result<(), crate::core::annotate::NotesError>,
) -> Result<Vec<Annotation>, String> {
    let mut file = NotesFile::open(path).map_err(|e| e.to_string())?;
    change(&mut file).map_err(|e| e.to_string())?;
    Ok(file.current().into_iter().cloned().collect())
}
