//! Indexing every episode under some paths into [`CorpusRow`]s, both cores at work.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::cache::{self, FolderStamp};
use super::row::CorpusRow;
use crate::core::annotate::{NotesFile, notes_path};
use crate::core::import::{LoadError, episode_files, load_path_without_texts};

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
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(episode_files(path, &mut corpus.errors));
        } else {
            files.push(path.clone());
        }
    }
    let Some(cache_dir) = cache_dir else {
        let results: Vec<Result<FileRows, LoadError>> =
            files.par_iter().map(|file| index_file(file)).collect();
        collect(&mut corpus, results);
        return corpus;
    };
    let cache_file = cache::cache_file(cache_dir, paths);
    let mut cached = cache::read(&cache_file);
    // Each file under the canonical form of the path it was found under: the cache's key.
    let roots: Vec<(&PathBuf, PathBuf)> = paths.iter().map(|p| (p, cache::canonical(p))).collect();
    let key_of = |file: &Path| -> PathBuf {
        roots
            .iter()
            .find_map(|(typed, canonical)| file.strip_prefix(typed).ok().map(|rest| canonical.join(rest)))
            .unwrap_or_else(|| file.to_path_buf())
    };
    // One listing per folder: the stamps of every file in it.
    let mut folders: Vec<&Path> = files.iter().map(|f| f.parent().unwrap_or(Path::new(""))).collect();
    folders.sort_unstable();
    folders.dedup();
    let stamps: HashMap<&Path, FolderStamp> = folders.par_iter().map(|d| (*d, FolderStamp::of(d))).collect();
    let stamp_of =
        |file: &Path| stamps.get(file.parent().unwrap_or(Path::new(""))).and_then(|s| s.stamp(file));
    // Hits are taken out of the cache; misses are read in parallel.
    let mut slots: Vec<(Option<u64>, Option<FileResult>)> = files
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
    let misses = slots.iter().filter(|(_, hit)| hit.is_none()).count();
    slots.par_iter_mut().zip(files.par_iter()).for_each(|((_, slot), file)| {
        if slot.is_none() {
            *slot = Some(index_file(file));
        }
    });
    let results: Vec<(Option<u64>, FileResult)> =
        slots.into_iter().map(|(stamp, result)| (stamp, result.expect("every slot read"))).collect();
    // Rewritten when a file was read or one went away.
    if misses > 0 || !cached.is_empty() {
        let entries = results
            .iter()
            .zip(&files)
            .filter_map(|((stamp, result), path)| match (stamp, result) {
                (Some(stamp), Ok((rows, warnings))) => Some(cache::Entry {
                    path: key_of(path),
                    stamp: *stamp,
                    rows: rows.clone(),
                    warnings: warnings.clone(),
                }),
                _ => None,
            })
            .collect();
        cache::write(&cache_file, entries);
    }
    collect(&mut corpus, results.into_iter().map(|(_, r)| r).collect());
    corpus
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
    let mut warnings = Vec::new();
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
    let rows = episodes
        .iter()
        .map(|episode| {
            let labels: Vec<_> = notes.iter().flat_map(|n| n.for_episode(episode.id())).collect();
            CorpusRow::of(episode, path.to_path_buf(), &labels)
        })
        .collect();
    Ok((rows, warnings))
}
