//! Indexing every episode under some paths into [`CorpusRow`]s, both cores at work.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::cache::{self, FolderStamp};
use super::leak_turn;
use super::row::{CorpusRow, SourceVerdict};
use crate::core::annotate::{NotesFile, notes_path};
use crate::core::episode::{Episode, EventBody, Verdict};
use crate::core::import::{LoadError, episode_files, load_path, load_path_without_texts};

/// The rows of a corpus and what could not be read.
#[derive(Debug, Default)]
pub struct Corpus {
    /// In path order (episodes of one file in file order).
    pub rows: Vec<CorpusRow>,
    /// Files that could not be read, `path:line: problem`; the rest is indexed.
    pub errors: Vec<LoadError>,
    /// What was forgiven (an unreadable notes file).
    pub warnings: Vec<String>,
}

/// Every episode file under `paths` (files, or directories walked as the
/// browser walks them), indexed in parallel.
pub fn index(paths: &[PathBuf]) -> Corpus {
    index_cached(paths, None)
}

/// [`index`], reusing and then refreshing the rows cached under `cache_dir`
/// (see [`cache`]): only files that changed, or whose folder changed, are read.
pub fn index_cached(paths: &[PathBuf], cache_dir: Option<&Path>) -> Corpus {
    let mut corpus = Corpus::default();
    index_in_batches(paths, cache_dir, usize::MAX, &mut |mut batch, _| {
        corpus.rows.append(&mut batch.rows);
        corpus.errors.append(&mut batch.errors);
        corpus.warnings.append(&mut batch.warnings);
        true
    });
    corpus
}

/// How far an index has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexProgress {
    pub files_done: usize,
    pub files_total: usize,
    /// Bytes of the files done.
    pub bytes_done: u64,
}

/// Every episode file under `paths`, and the paths that could not be walked.
pub fn episode_files_of(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<LoadError>) {
    let mut errors = Vec::new();
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(episode_files(path, &mut errors));
        } else {
            files.push(path.clone());
        }
    }
    (files, errors)
}

/// [`index_cached`], handing the rows over `batch` files at a time, in path order, as they are
/// indexed (a browser shows them while the rest is read); `on_batch` returns false to stop. The
/// cache is written once every file is done.
pub fn index_in_batches(
    paths: &[PathBuf],
    cache_dir: Option<&Path>,
    batch: usize,
    on_batch: &mut dyn FnMut(Corpus, IndexProgress) -> bool,
) {
    let (files, walk_errors) = episode_files_of(paths);
    let mut walk_errors = Some(walk_errors);
    let cache_file = cache_dir.map(|dir| cache::cache_file(dir, paths));
    let mut cached = cache_file.as_deref().map(cache::read).unwrap_or_default();
    // Each file by its place under the opened path it was found under: the cache's key.
    let key_of = |file: &Path| -> PathBuf {
        paths
            .iter()
            .enumerate()
            .find_map(|(root, typed)| file.strip_prefix(typed).ok().map(|rest| cache::key(root, rest)))
            .unwrap_or_else(|| file.to_path_buf())
    };
    // One listing per folder: the stamps of every file in it.
    let stamps: HashMap<&Path, FolderStamp> = if cache_dir.is_some() {
        let mut folders: Vec<&Path> = files.iter().map(|f| f.parent().unwrap_or(Path::new(""))).collect();
        folders.sort_unstable();
        folders.dedup();
        folders.par_iter().map(|d| (*d, FolderStamp::of(d))).collect()
    } else {
        HashMap::new()
    };
    let stamp_of =
        |file: &Path| stamps.get(file.parent().unwrap_or(Path::new(""))).and_then(|s| s.stamp(file));
    let mut progress = IndexProgress { files_total: files.len(), ..IndexProgress::default() };
    let mut entries = Vec::new();
    let mut misses = 0;
    for chunk in files.chunks(batch.max(1)) {
        // Hits are taken out of the cache; misses are read in parallel.
        let mut slots: Vec<(Option<u64>, Option<FileResult>)> = chunk
            .iter()
            .map(|file| {
                let stamp = stamp_of(file);
                let hit = stamp.and_then(|s| cached.remove(&key_of(file)).filter(|e| e.stamp == s));
                let with_path = |mut rows: Vec<CorpusRow>| {
                    rows.iter_mut().for_each(|row| row.path = file.clone());
                    rows
                };
                (stamp, hit.map(|e| Ok((with_path(e.rows), e.warnings))))
            })
            .collect();
        misses += slots.iter().filter(|(_, hit)| hit.is_none()).count();
        slots.par_iter_mut().zip(chunk.par_iter()).for_each(|((_, slot), file)| {
            if slot.is_none() {
                *slot = Some(index_file(file));
            }
        });
        let results: Vec<(Option<u64>, FileResult)> =
            slots.into_iter().map(|(stamp, result)| (stamp, result.expect("every slot read"))).collect();
        if cache_dir.is_some() {
            entries.extend(results.iter().zip(chunk).filter_map(|((stamp, result), path)| {
                match (stamp, result) {
                    (Some(stamp), Ok((rows, warnings))) => Some(cache::Entry {
                        path: key_of(path),
                        stamp: *stamp,
                        rows: rows.clone(),
                        warnings: warnings.clone(),
                    }),
                    _ => None,
                }
            }));
        }
        progress.files_done += chunk.len();
        progress.bytes_done +=
            chunk.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum::<u64>();
        let mut corpus = Corpus { errors: walk_errors.take().unwrap_or_default(), ..Corpus::default() };
        collect(&mut corpus, results.into_iter().map(|(_, r)| r).collect());
        if !on_batch(corpus, progress) {
            return;
        }
    }
    if files.is_empty()
        && let Some(errors) = walk_errors.take()
    {
        on_batch(Corpus { errors, ..Corpus::default() }, progress);
    }
    // Rewritten when a file was read or one went away.
    if let Some(file) = cache_file
        && (misses > 0 || !cached.is_empty())
    {
        cache::write(&file, entries);
    }
}

fn collect(corpus: &mut Corpus, results: Vec<Result<FileRows, LoadError>>) {
    for result in results {
        match result {
            Ok((mut rows, mut warnings)) => {
                corpus.rows.append(&mut rows);
                corpus.warnings.append(&mut warnings);
            }
            Err(e) => corpus.errors.push(e),
        }
    }
}

/// The rows of one file and the warnings reading it.
pub type FileRows = (Vec<CorpusRow>, Vec<String>);

/// One file indexed, or why it could not be.
type FileResult = Result<FileRows, LoadError>;

/// The rows of one file, with the human labels of its notes sidecar.
pub fn index_file(path: &Path) -> Result<FileRows, LoadError> {
    let episodes = load_path_without_texts(path)?;
    let notes_file = notes_path(path);
    let mut warnings: Vec<String> = episodes.iter().flat_map(|e| e.warnings.iter().cloned()).collect();
    let notes = if notes_file.exists() {
        match NotesFile::open(&notes_file) {
            Ok(notes) => {
                warnings.extend(notes.warnings().iter().cloned());
                Some(notes)
            }
            Err(e) => {
                warnings.push(format!("notes ignored: {e}"));
                None
            }
        }
    } else {
        None
    };
    let mut rows: Vec<CorpusRow> = episodes
        .iter()
        .map(|episode| {
            let labels: Vec<_> = notes.iter().flat_map(|n| n.for_episode(episode.id())).collect();
            CorpusRow::of(episode, path.to_path_buf(), &labels)
        })
        .collect();
    infer_leak_turns(path, &episodes, &mut rows);
    Ok((rows, warnings))
}

/// Gives a leak whose judge named no turn the turn its quoted snippets were first said
/// ([`leak_turn`]): the file is read again with its texts, only when some episode has such a
/// leak (a few files of a corpus), and the result is cached with the rows.
fn infer_leak_turns(path: &Path, episodes: &[Episode], rows: &mut [CorpusRow]) {
    let verdict_of = |e: &Episode| -> Vec<Verdict> {
        e.events
            .iter()
            .filter_map(|event| match &event.body {
                EventBody::Verdict(v) if leak_turn::needs_turn(v) => Some((**v).clone()),
                _ => None,
            })
            .collect()
    };
    if !episodes.iter().any(|e| !verdict_of(e).is_empty()) {
        return;
    }
    let Ok(full) = load_path(path) else { return };
    for (row, episode) in rows.iter_mut().zip(episodes) {
        let Some(with_texts) = full.iter().find(|f| f.id() == episode.id()) else { continue };
        for v in verdict_of(episode) {
            let Some(turn) = leak_turn::snippet_turn(with_texts, &v) else { continue };
            let same = |s: &&mut SourceVerdict| {
                s.judge == v.judge && s.method == v.method && s.model == v.model && s.outcome == v.outcome
            };
            if let Some(slot) = row.verdicts.iter_mut().find(same).filter(|s| s.turn.is_none()) {
                slot.turn = Some(turn);
                slot.turn_inferred = true;
            }
        }
    }
}
