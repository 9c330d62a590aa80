//! Imported episodes name their task (`task.id`) but carry little of it: a
//! ConVerse log knows its domain and persona from its path, a MASEval report
//! only its `task_id`. The judges, the task detail and redaction need the
//! whole task, so it is looked up in the dataset by id and written into the
//! episode header.

use std::collections::HashMap;

use serde_json::Value;

use super::error::DatasetError;
use super::load::{Split, TaskFilter, load_tasks};
use super::store::{DatasetSource, SourceInfo};
use super::task::Task;
use crate::core::email_address::find_emails;
use crate::core::episode::{Episode, EventBody, TaskInfo};

/// The tasks of one dataset, by id.
#[derive(Debug, Default, PartialEq)]
pub struct TaskLookup {
    tasks: HashMap<String, Task>,
    /// Where the tasks came from; `None` for an empty lookup.
    pub source: Option<SourceInfo>,
}

/// What [`TaskLookup::enrich`] did to one episode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enriched {
    /// The task was found and its fields added to the header.
    Found,
    /// The header names a task that is not in the dataset.
    NotFound,
    /// The header names no task (a benign run, a file outside any layout).
    NoTaskId,
}

impl TaskLookup {
    /// Every task of `source` (malformed attack files are skipped, as `data verify` does).
    pub fn load(source: &DatasetSource) -> Result<Self, DatasetError> {
        let filter = TaskFilter { split: Split::All, lenient: true, ..TaskFilter::default() };
        let loaded = load_tasks(source, &filter)?;
        let mut lookup = Self::from_tasks(loaded.tasks);
        lookup.source = Some(loaded.source);
        Ok(lookup)
    }

    pub fn from_tasks(tasks: impl IntoIterator<Item = Task>) -> Self {
        TaskLookup { tasks: tasks.into_iter().map(|t| (t.id.clone(), t)).collect(), source: None }
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.get(id)
    }

    /// Adds the dataset's task to the episode's header. What the episode
    /// already says is kept (it is what the run was given); only what it lacks
    /// is filled in.
    pub fn enrich(&self, episode: &mut Episode) -> Enriched {
        let Some(EventBody::Episode(header)) = episode.events.first_mut().map(|e| &mut e.body) else {
            return Enriched::NoTaskId;
        };
        let Some(id) = header.task.id.clone() else {
            return Enriched::NoTaskId;
        };
        let Some(task) = self.tasks.get(&id) else {
            return Enriched::NotFound;
        };
        fill_missing(&mut header.task, task);
        Enriched::Found
    }
}

/// True when the header names a task but lacks what the judges, redaction and forks need: the
/// user's task, the attacker's strategy, or the task's evaluation fields, which every task of the
/// dataset carries. A MASEval report carries its query (issue 23) and may carry the attacker's
/// profile, strategy included, but never the evaluation fields (issue 35).
pub fn lacks_task_fields(episode: &Episode) -> bool {
    let header = episode.header();
    let task = &header.task;
    // An Inspect sample's task is its log's, never one of the CONVERSE dataset.
    let inspect = header.source.as_ref().is_some_and(|s| s.format.starts_with("inspect-eval"));
    !inspect
        && task.id.is_some()
        && (task.user_task.is_none()
            || !task.extra.contains_key("attack_strategy")
            || !has_evaluation_fields(task))
}

/// The fields the attack judges read: a privacy task's data item and its snippets (or raw data),
/// a security task's responsibility flag. A task of no known attack type has none.
fn has_evaluation_fields(task: &TaskInfo) -> bool {
    let has = |key: &str| task.extra.contains_key(key);
    match task.attack_type.as_deref() {
        Some("privacy") => {
            task.data_item.is_some()
                && (has("ground_truth_snippets") || has("extraction_snippets") || has("raw_data"))
        }
        Some("security") => has("responsibility_flag"),
        _ => false,
    }
}

fn fill_missing(info: &mut TaskInfo, task: &Task) {
    let full = task.to_task_info();
    fn keep<T>(slot: &mut Option<T>, value: Option<T>) {
        if slot.is_none() {
            *slot = value;
        }
    }
    keep(&mut info.domain, full.domain);
    keep(&mut info.persona, full.persona);
    keep(&mut info.attack_type, full.attack_type);
    keep(&mut info.category, full.category);
    keep(&mut info.data_item, full.data_item);
    keep(&mut info.user_task, full.user_task);
    keep(&mut info.attack_goal, full.attack_goal);
    for (key, value) in full.extra {
        info.extra.entry(key).or_insert(value);
    }
    // The judges tell mail to the user from mail to a third party by this.
    if let Some(email) = find_emails(&task.environment.general_info).into_iter().next() {
        info.extra.entry("user_email").or_insert(Value::String(email));
    }
}
