//! `--data-dir` for the commands that read episodes (`dump`, `judge`,
//! `export`, `summary`, `replay`): the dataset in which an imported episode's
//! task is looked up, so its header carries the whole task.

use std::io::Write;
use std::path::Path;

use crate::config::Paths;
use crate::core::dataset::{DatasetSource, Enriched, TaskLookup, holds_data, lacks_task_fields};
use crate::core::episode::Episode;
use crate::core::sanitize::single_line;

/// The tasks of `--data-dir`, else of the cache; empty when neither holds
/// data (the bundled sample's tasks are fictional: no imported run is one).
pub fn open(data_dir: Option<&Path>, paths: &Paths) -> anyhow::Result<TaskLookup> {
    let dir = match data_dir {
        Some(dir) => dir,
        None if holds_data(&paths.dataset_dir) => paths.dataset_dir.as_path(),
        None => return Ok(TaskLookup::default()),
    };
    // The dataset's errors name the file (or the folder) already.
    Ok(TaskLookup::load(&DatasetSource::Dir(dir.to_path_buf()))?)
}

/// Adds each episode's task from `tasks`; returns what could not be found,
/// said once for all the episodes (a line each).
pub fn enrich<'a>(tasks: &TaskLookup, episodes: impl IntoIterator<Item = &'a mut Episode>) -> Vec<String> {
    let mut lacking = 0;
    let mut not_found: Vec<String> = Vec::new();
    for episode in episodes {
        if !lacks_task_fields(episode) {
            continue;
        }
        match tasks.enrich(episode) {
            Enriched::Found | Enriched::NoTaskId => {}
            Enriched::NotFound if tasks.is_empty() => lacking += 1,
            Enriched::NotFound => not_found.push(episode.header().task.id.clone().unwrap_or_default()),
        }
    }
    let mut notes = Vec::new();
    if lacking > 0 {
        notes.push(format!(
            "no CONVERSE dataset: {lacking} episode(s) name a task but not its fields (the rule judges and \
             redaction need them); pass --data-dir DIR or run `converse-tui data fetch`"
        ));
    }
    if let Some(first) = not_found.first() {
        let source = tasks.source.as_ref().map_or_else(String::new, |s| format!(" ({s})"));
        notes.push(format!(
            "{} episode(s) name a task that is not in the dataset{source}, e.g. {}",
            not_found.len(),
            single_line(first)
        ));
    }
    notes
}

/// [`enrich`], the notes written to `err` (best effort: a closed stderr must
/// not stop the command).
pub fn enrich_noting<'a>(
    tasks: &TaskLookup,
    episodes: impl IntoIterator<Item = &'a mut Episode>,
    err: &mut dyn Write,
) {
    for note in enrich(tasks, episodes) {
        let _ = writeln!(err, "note: {note}");
    }
}
