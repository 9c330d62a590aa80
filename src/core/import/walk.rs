//! Loading every episode file under a directory.

use std::path::{Path, PathBuf};

use super::{LoadError, converse_judges::is_judge_file, load_path};
use crate::core::batch_files::is_runs_file;
use crate::core::episode::Episode;

/// Loads every episode file under `dir`, recursively, in sorted path order.
///
/// Judge files (attached to their episodes), annotation and verdict sidecars,
/// a batch's runs files and files that are not `.json`/`.jsonl` (such as a
/// batch's `.aborted-N` partial journals) are skipped. One bad file does not stop the
/// walk: its error is collected and the rest still load.
pub fn load_dir(dir: &Path) -> (Vec<Episode>, Vec<LoadError>) {
    let mut errors = Vec::new();
    let files = episode_files(dir, &mut errors);
    let mut episodes = Vec::new();
    for file in files {
        match load_path(&file) {
            Ok(mut loaded) => episodes.append(&mut loaded),
            Err(e) => errors.push(e),
        }
    }
    (episodes, errors)
}

/// Every episode file under `dir`, recursively, in sorted path order; what
/// could not be listed goes to `errors`.
pub(crate) fn episode_files(dir: &Path, errors: &mut Vec<LoadError>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect(dir, &mut files, errors);
    files.sort();
    files
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<LoadError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(LoadError::new(dir, 0, format!("cannot list directory: {e}")));
            return;
        }
    };
    let mut paths: Vec<(PathBuf, bool)> = Vec::new();
    for entry in entries {
        match entry {
            // file_type() does not follow symlinks, so a link loop cannot recurse forever.
            Ok(entry) => match entry.file_type() {
                Ok(t) if t.is_dir() => paths.push((entry.path(), true)),
                Ok(_) => paths.push((entry.path(), false)),
                Err(e) => errors.push(LoadError::new(&entry.path(), 0, e.to_string())),
            },
            Err(e) => errors.push(LoadError::new(dir, 0, format!("cannot list directory: {e}"))),
        }
    }
    paths.sort();
    for (path, is_dir) in paths {
        if is_dir {
            collect(&path, files, errors);
        } else if is_episode_candidate(&path) {
            files.push(path);
        }
    }
}

fn is_episode_candidate(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let json = name.ends_with(".json") || name.ends_with(".jsonl");
    let sidecar = name.ends_with(".notes.jsonl") || name.ends_with(".verdicts.jsonl");
    json && !sidecar && !is_runs_file(&name) && !is_judge_file(path) && path.is_file()
}
