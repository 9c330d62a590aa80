//! Loading an episode for the screen: the one path for every episode a screen shows. The journal
//! `replay` opens and a row opened from the browser (or the fan, the fork tree, a search hit)
//! come in steps: the first at once ([`open_journal`], [`open`]), then the rest of a journal
//! batch by batch on a thread of its own ([`read_in_background`], [`open_in_background`]); each
//! step is reported with its load's [`LoadId`] and the event loop turns it into an action. What
//! must be whole at once (the two sides of a comparison, attack cases, `compare A B`, a file
//! listed in the browser) is [`load`], [`load_file`] and [`load_one`]. No terminal code.

use std::path::{Path, PathBuf};

use crate::core::dataset::TaskLookup;
use crate::core::episode::{Episode, Event};
use crate::core::import::LoadError;

use super::journal_load::{self, JournalLoad, LoadEnd, LoadId};

/// One step of a load, as the screen learns of it.
#[derive(Debug)]
pub enum LoadStep {
    /// The episode whole (not a journal, or a journal of one batch), or why it could not be read.
    Whole(Result<Box<Episode>, String>),
    /// The start of a journal: `Batch`es of the same load follow, then its `Ended`.
    Opening { load: LoadId, episode: Box<Episode>, read: u64, total: u64 },
    /// The next events of the journal, in the episode's order, and the bytes read so far.
    Batch { load: LoadId, events: Vec<Event>, read: u64 },
    /// The journal was read to its end (or to a bad line).
    Ended { load: LoadId, end: LoadEnd },
}

/// The first batch of the journal at `path` (see [`crate::core::episode::is_journal`]), and the
/// rest to read unless that was the whole file. An error in the first batch is an error here.
pub fn open_journal(path: &Path) -> Result<(Episode, Option<JournalLoad>), LoadError> {
    JournalLoad::open(path, journal_load::batch_bytes())
}

/// Episode `id` of `path`, whole.
pub fn load(path: &Path, id: &str) -> Result<Episode, LoadError> {
    crate::core::import::load_episode(path, id)
}

/// Every episode of the file at `path`, whole.
pub fn load_file(path: &Path) -> Result<Vec<Episode>, LoadError> {
    crate::core::import::load_path(path)
}

/// The one episode of a file (`compare` takes one per side), its task looked up in `tasks`.
/// An attack case (`.toml`) stands for the episode it was made from.
pub fn load_one(path: &Path, tasks: &TaskLookup) -> anyhow::Result<Episode> {
    let mut episodes = if path.extension().is_some_and(|e| e == crate::core::suite::case::CASE_EXTENSION) {
        let case = crate::core::suite::Case::read(path)?.case;
        let origin = Path::new(&case.origin.path);
        vec![
            load(origin, &case.origin.episode)
                .map_err(|e| anyhow::anyhow!("{}: its source episode cannot be read: {e}", path.display()))?,
        ]
    } else {
        load_file(path)?
    };
    if episodes.len() != 1 {
        anyhow::bail!(
            "{}: holds {} episodes; compare takes a file of one episode per side (`dump` lists them)",
            path.display(),
            episodes.len()
        );
    }
    for note in super::episode_tasks::enrich(tasks, &mut episodes) {
        tracing::info!("{note}");
    }
    Ok(episodes.remove(0))
}

/// The first step of opening episode `id` of `path`: a journal's first batch and the rest still
/// to read; anything else whole.
pub fn open(path: &Path, id: &str) -> Result<(Episode, Option<JournalLoad>), String> {
    if !crate::core::episode::is_journal(path) {
        return Ok((load(path, id).map_err(|e| e.to_string())?, None));
    }
    let (episode, rest) = open_journal(path).map_err(|e| e.to_string())?;
    match episode.id() == id {
        true => Ok((episode, rest)),
        false => Err(format!("{}: no episode '{id}' in this file any more", path.display())),
    }
}

/// Opens episode `id` of `path` on a thread of its own (see [`open`]) and reports its steps to
/// `report`: the episode whole, or the start of a journal and then its rest. Stops once `report`
/// answers `false` (nobody listens any more).
pub fn open_in_background(
    path: PathBuf,
    id: String,
    mut report: impl FnMut(LoadStep) -> bool + Send + 'static,
) {
    std::thread::spawn(move || match open(&path, &id) {
        Ok((episode, Some(rest))) => {
            let (read, total) = rest.progress();
            let first = LoadStep::Opening { load: rest.id(), episode: Box::new(episode), read, total };
            if report(first) {
                read_rest(rest, &mut report);
            }
        }
        Ok((episode, None)) => {
            report(LoadStep::Whole(Ok(Box::new(episode))));
        }
        Err(problem) => {
            report(LoadStep::Whole(Err(problem)));
        }
    });
}

/// Reads the rest of a journal whose start is on screen on a thread of its own, reporting each
/// batch and then its end (see [`open_in_background`]).
pub fn read_in_background(rest: JournalLoad, mut report: impl FnMut(LoadStep) -> bool + Send + 'static) {
    std::thread::spawn(move || read_rest(rest, &mut report));
}

/// Reports a journal's rest batch by batch, then its end. Runs on a plain thread: quitting never
/// waits for it, and it stops at its next batch once nobody listens.
fn read_rest(mut rest: JournalLoad, report: &mut impl FnMut(LoadStep) -> bool) {
    let pause = journal_load::batch_pause();
    let load = rest.id();
    while let Some(events) = rest.next_batch() {
        let (read, _) = rest.progress();
        if !report(LoadStep::Batch { load, events, read }) {
            return;
        }
        std::thread::sleep(pause);
    }
    report(LoadStep::Ended { load, end: rest.finish() });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::journal_load::tests::journal;

    /// Every step of a load opened in the background, in the order reported.
    fn steps(path: &Path, id: &str) -> Vec<LoadStep> {
        let (tx, rx) = std::sync::mpsc::channel();
        open_in_background(path.to_path_buf(), id.into(), move |step| tx.send(step).is_ok());
        rx.iter().collect()
    }

    #[test]
    fn the_rest_of_a_load_comes_in_batches_and_an_end_under_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = journal(dir.path(), "e", 30, None);
        // Batches of a few lines, so that the rest takes several.
        let (episode, rest) = JournalLoad::open(&path, 300).unwrap();
        let rest = rest.expect("more than one batch");
        let load = rest.id();
        let mut steps = Vec::new();
        read_rest(rest, &mut |step| {
            steps.push(step);
            true
        });
        assert!(steps.len() >= 3, "several batches: {steps:?}");
        let mut events = episode.events.len();
        for step in &steps[..steps.len() - 1] {
            let LoadStep::Batch { load: of, events: batch, .. } = step else { panic!("{step:?}") };
            assert_eq!(*of, load);
            events += batch.len();
        }
        let Some(LoadStep::Ended { load: of, end }) = steps.last() else { panic!("{:?}", steps.last()) };
        assert_eq!((*of, end.error.as_ref()), (load, None));
        assert_eq!(events + end.events.len(), 31, "every event once");
        // Another load of the same file has another id.
        let (_, again) = JournalLoad::open(&path, 300).unwrap();
        assert_ne!(again.unwrap().id(), load);
    }

    #[test]
    fn a_small_journal_is_whole_and_a_missing_episode_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = journal(dir.path(), "e", 3, None);
        let steps = steps(&path, "e");
        assert!(matches!(&steps[..], [LoadStep::Whole(Ok(e))] if e.events.len() == 4), "{steps:?}");
        let steps = self::steps(&path, "gone");
        let [LoadStep::Whole(Err(problem))] = &steps[..] else { panic!("{steps:?}") };
        assert!(problem.ends_with("e.jsonl: no episode 'gone' in this file any more"), "{problem}");
    }
}
