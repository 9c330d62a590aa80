//! Building tasks from a source, with a filter (reference §1.6).

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use serde_json::Value;

use super::attacks::{parse_json, privacy_items, ratings_value, security_items};
use super::domain::{Domain, PERSONAS};
use super::error::DatasetError;
use super::persona::parse_persona_text;
use super::store::{DatasetSource, FileKind, Layout, SourceInfo, Store};
use super::task::{Environment, Task};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Split {
    #[default]
    All,
    Privacy,
    Security,
}

impl Split {
    fn privacy(self) -> bool {
        matches!(self, Split::All | Split::Privacy)
    }
    fn security(self) -> bool {
        matches!(self, Split::All | Split::Security)
    }
}

impl FromStr for Split {
    type Err = DatasetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "all" => Ok(Split::All),
            "privacy" => Ok(Split::Privacy),
            "security" => Ok(Split::Security),
            _ => Err(DatasetError::InvalidSplit(s.to_string())),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskFilter {
    /// Empty means all domains.
    pub domains: Vec<Domain>,
    pub split: Split,
    pub persona: Option<u8>,
    /// Counted over all selected domains, in order.
    pub limit: Option<usize>,
    /// Skip a malformed attack file with a warning instead of failing.
    pub lenient: bool,
}

#[derive(Debug, Clone)]
pub struct LoadedTasks {
    pub tasks: Vec<Task>,
    pub source: SourceInfo,
    /// What was forgiven (malformed ratings, skipped files, absent domains).
    pub warnings: Vec<String>,
}

/// Picks the source: the `--data-dir` flag, else the cache directory
/// (`CONVERSE_TUI_DATA` or the platform cache, `Paths::dataset_dir`) if it
/// holds data, else the bundled sample.
pub fn resolve_source(data_dir: Option<&Path>, cache_dir: &Path) -> DatasetSource {
    if let Some(dir) = data_dir {
        return DatasetSource::Dir(dir.to_path_buf());
    }
    if holds_data(cache_dir) {
        return DatasetSource::Dir(cache_dir.to_path_buf());
    }
    DatasetSource::Sample
}

/// True when `root` has the options file of some domain, in either layout.
pub fn holds_data(root: &Path) -> bool {
    [Layout::Cache, Layout::Upstream].iter().any(|layout| {
        Domain::ALL
            .iter()
            .any(|d| root.join(layout.domain_dir(*d)).join(FileKind::Options.rel_path(*layout)).is_file())
    })
}

pub fn load_tasks(source: &DatasetSource, filter: &TaskFilter) -> Result<LoadedTasks, DatasetError> {
    if let Some(p) = filter.persona
        && !PERSONAS.contains(&p)
    {
        return Err(DatasetError::InvalidPersona(p));
    }
    let store = Store::open(source)?;
    let mut out = LoadedTasks { tasks: Vec::new(), source: store.info(), warnings: Vec::new() };
    let domains: &[Domain] = if filter.domains.is_empty() { &Domain::ALL } else { &filter.domains };
    'domains: for &domain in domains {
        if !store.has_domain(domain) {
            // Only worth saying when the domain was asked for by name: a
            // partial download of other domains is normal.
            if !filter.domains.is_empty() {
                out.warnings.push(format!("{domain}: no data in {}", out.source));
            }
            continue;
        }
        // Read lazily: a domain folder with no persona needs no options file.
        let mut options: Option<String> = None;
        for n in PERSONAS {
            if filter.persona.is_some_and(|p| p != n) {
                continue;
            }
            load_persona(&store, domain, n, filter, &mut options, &mut out)?;
            // MASEval checks the limit after each persona, then truncates.
            if filter.limit.is_some_and(|l| out.tasks.len() >= l) {
                break 'domains;
            }
        }
    }
    if let Some(l) = filter.limit {
        out.tasks.truncate(l);
    }
    Ok(out)
}

fn load_persona(
    store: &Store,
    domain: Domain,
    n: u8,
    filter: &TaskFilter,
    options: &mut Option<String>,
    out: &mut LoadedTasks,
) -> Result<(), DatasetError> {
    let persona_text = store.read(domain, FileKind::Persona(n))?;
    let privacy = if filter.split.privacy() { store.read(domain, FileKind::Privacy(n))? } else { None };
    let security = if filter.split.security() { store.read(domain, FileKind::Security(n))? } else { None };
    // A persona with none of its files here is absent (the sample has one
    // per domain); one with attack files but no profile is an error.
    let Some(persona_text) = persona_text else {
        if privacy.is_some() || security.is_some() {
            return Err(DatasetError::MissingFile { file: store.display_name(domain, FileKind::Persona(n)) });
        }
        return Ok(());
    };
    if options.is_none() {
        *options = Some(store.read(domain, FileKind::Options)?.ok_or_else(|| DatasetError::MissingFile {
            file: store.display_name(domain, FileKind::Options),
        })?);
    }
    let options_text = options.clone().unwrap_or_default();

    let ratings = load_ratings(store, domain, n, out);
    let env = Arc::new(Environment::new(domain, n, parse_persona_text(&persona_text), options_text));

    if let Some(text) = privacy
        && let Some(doc) = parse_attack_file(store, domain, FileKind::Privacy(n), &text, filter, out)?
    {
        for item in privacy_items(&doc) {
            out.tasks.push(Task::privacy(&env, ratings.clone(), &item));
        }
    }
    if let Some(text) = security
        && let Some(doc) = parse_attack_file(store, domain, FileKind::Security(n), &text, filter, out)?
    {
        for item in security_items(&doc) {
            out.tasks.push(Task::security(&env, ratings.clone(), &item));
        }
    }
    Ok(())
}

/// Strict: an error naming the file and position. Lenient: `None` plus a warning.
fn parse_attack_file(
    store: &Store,
    domain: Domain,
    kind: FileKind,
    text: &str,
    filter: &TaskFilter,
    out: &mut LoadedTasks,
) -> Result<Option<Value>, DatasetError> {
    let name = store.display_name(domain, kind);
    match parse_json(&name, text) {
        Ok(doc) => {
            if !doc.is_object() {
                out.warnings.push(format!("{name}: not a JSON object, no tasks taken from it"));
            }
            Ok(Some(doc))
        }
        Err(e) if filter.lenient => {
            out.warnings.push(format!("{e} (skipped)"));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Ratings are opaque and optional: unreadable or malformed → warning, none.
fn load_ratings(store: &Store, domain: Domain, n: u8, out: &mut LoadedTasks) -> Option<Arc<Value>> {
    let name = store.display_name(domain, FileKind::Ratings(n));
    let text = match store.read(domain, FileKind::Ratings(n)) {
        Ok(Some(t)) => t,
        Ok(None) => return None,
        Err(e) => {
            out.warnings.push(format!("{e} (ratings ignored)"));
            return None;
        }
    };
    match parse_json(&name, &text) {
        Ok(doc) => ratings_value(doc).map(Arc::new),
        Err(e) => {
            out.warnings.push(format!("{e} (ratings ignored)"));
            None
        }
    }
}
