//! Which CONVERSE tasks a command works on, and loading them: the dataset
//! directory given, else the downloaded cache, else the bundled sample.

use std::path::PathBuf;

use crate::config::Paths;
use crate::core::dataset::{Domain, LoadedTasks, Split, TaskFilter, load_tasks, resolve_source};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskSelection {
    /// A dataset directory (cache or upstream layout); default: the cache, else the sample.
    pub data_dir: Option<PathBuf>,
    /// A domain name, `travel` or `all`; `None` means all.
    pub domain: Option<String>,
    /// `all`, `privacy` or `security`; `None` means all.
    pub split: Option<String>,
    pub persona: Option<u8>,
    pub limit: Option<usize>,
    /// Skip malformed attack files with a warning.
    pub lenient: bool,
}

/// Parses `domain` (`None` or `all` → every domain).
pub fn parse_domains(domain: Option<&str>) -> anyhow::Result<Vec<Domain>> {
    match domain.map(str::trim) {
        None | Some("all") | Some("") => Ok(Vec::new()),
        Some(d) => Ok(vec![d.parse::<Domain>()?]),
    }
}

/// Builds the filter from the arguments.
pub fn filter_from(selection: &TaskSelection) -> anyhow::Result<TaskFilter> {
    Ok(TaskFilter {
        domains: parse_domains(selection.domain.as_deref())?,
        split: match &selection.split {
            Some(s) => s.parse::<Split>()?,
            None => Split::All,
        },
        persona: selection.persona,
        limit: selection.limit,
        lenient: selection.lenient,
    })
}

/// Loads the selected tasks.
pub fn load(selection: &TaskSelection, paths: &Paths) -> anyhow::Result<LoadedTasks> {
    let filter = filter_from(selection)?;
    let source = resolve_source(selection.data_dir.as_deref(), &paths.dataset_dir);
    Ok(load_tasks(&source, &filter)?)
}
