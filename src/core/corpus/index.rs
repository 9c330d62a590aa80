//! Indexing every episode under some paths into [`CorpusRow`]s, both cores at work.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

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
    let mut corpus = Corpus::default();
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(episode_files(path, &mut corpus.errors));
        } else {
            files.push(path.clone());
        }
    }
    let results: Vec<Result<FileRows, LoadError>> = files.par_iter().map(|file| index_file(file)).collect();
    for result in results {
        match result {
            Ok((mut rows, mut warnings)) => {
                corpus.rows.append(&mut rows);
                corpus.warnings.append(&mut warnings);
            }
            Err(e) => corpus.errors.push(e),
        }
    }
    corpus
}

/// The rows of one file and the warnings reading it.
pub type FileRows = (Vec<CorpusRow>, Vec<String>);

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
