//! Indexing a directory for the browser, and loading one indexed episode on demand.

use std::path::Path;

use super::error::LoadError;
use super::load::load_path;
use super::walk::episode_files;
use crate::core::episode::Episode;
use crate::core::episode::index::{EpisodeSummary, summarize_journal};

/// Summaries of every episode under `dir`, walked like [`super::load_dir`].
/// Our journals are summarised from their first line and tail; other formats
/// (ConVerse logs, MASEval reports: small or rare) are loaded whole.
pub fn index_dir(dir: &Path) -> (Vec<EpisodeSummary>, Vec<LoadError>) {
    let mut errors = Vec::new();
    let files = episode_files(dir, &mut errors);
    let mut summaries = Vec::with_capacity(files.len());
    for file in files {
        match index_path(&file) {
            Ok(mut found) => summaries.append(&mut found),
            Err(e) => errors.push(e),
        }
    }
    (summaries, errors)
}

/// Summaries of the episodes in one file of any supported format.
pub fn index_path(path: &Path) -> Result<Vec<EpisodeSummary>, LoadError> {
    // Not a journal, or unreadable: the full loader detects the format and words the error.
    if let Ok(Some(summary)) = summarize_journal(path) {
        return Ok(vec![summary]);
    }
    let episodes = load_path(path)?;
    Ok(episodes
        .iter()
        .map(|e| EpisodeSummary { path: path.to_path_buf(), ..EpisodeSummary::of(e) })
        .collect())
}

/// Loads the episode `id` of the file at `path` (with its sidecar verdicts).
pub fn load_episode(path: &Path, id: &str) -> Result<Episode, LoadError> {
    if super::inspect::file_is_zip(path) {
        // An Inspect `.eval`: only that sample is read.
        return super::load::load_eval_sample(path, id);
    }
    load_path(path)?
        .into_iter()
        .find(|e| e.id() == id)
        .ok_or_else(|| LoadError::new(path, 0, format!("no episode '{id}' in this file any more")))
}
