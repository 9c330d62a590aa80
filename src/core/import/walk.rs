//! Loading every episode file under a directory.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::converse_judges::is_judge_file;
use super::error::LoadError;
use super::load::load_path;
use crate::core::batch_files::is_batch_file;
use crate::core::episode::Episode;

/// Loads every episode file under `dir`, recursively, in sorted path order.
///
/// Judge files (attached to their episodes), annotation and verdict sidecars,
/// a batch's runs files, a fan's plan and files that are not `.json`/`.jsonl`/`.eval` (such as a
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
/// could not be listed goes to `errors`. Symlinked directories are not
/// followed, so a link loop cannot recurse forever.
pub(crate) fn episode_files(dir: &Path, errors: &mut Vec<LoadError>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in WalkDir::new(dir).sort_by_file_name() {
        match entry {
            Ok(entry) if entry.file_type().is_dir() => {}
            Ok(entry) if is_episode_candidate(entry.path()) => files.push(entry.into_path()),
            Ok(_) => {}
            Err(e) => {
                let at = e.path().unwrap_or(dir).to_path_buf();
                let cause = e.io_error().map_or_else(|| e.to_string(), ToString::to_string);
                errors.push(LoadError::new(&at, 0, format!("cannot list directory: {cause}")));
            }
        }
    }
    files.sort();
    files
}

/// A sidecar's name (`<episode>.notes.jsonl`, `<episode>.verdicts.jsonl`): never an episode.
pub fn is_sidecar_name(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    name.ends_with(".notes.jsonl") || name.ends_with(".verdicts.jsonl")
}

/// A file that may hold episodes: `.json`, `.jsonl` or `.eval`, not a sidecar, a batch's or a
/// fan's own file, a judge file or an Inspect eval set's own file.
pub(crate) fn is_episode_candidate(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let json = name.ends_with(".json") || name.ends_with(".jsonl") || name.ends_with(".eval");
    json && !is_sidecar_name(path)
        && !is_batch_file(&name)
        && !is_judge_file(path)
        && !is_eval_set_file(path, &name)
        && path.is_file()
}

/// What `inspect_ai.eval_set` writes beside its logs: `eval-set.json` (the set's tasks) and
/// `logs.json` (its listing of the logs), never episodes.
fn is_eval_set_file(path: &Path, name: &str) -> bool {
    (name == EVAL_SET || name == "logs.json") && path.parent().is_some_and(|dir| dir.join(EVAL_SET).is_file())
}

const EVAL_SET: &str = "eval-set.json";
