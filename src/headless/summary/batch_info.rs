//! The settings (models per role, limits) the episodes of a path ran with, to warn when two
//! compared corpora differ in them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::super::runs::{self, Settings};

/// Every distinct setting the episodes of `path` ran with: from a batch's runs files, else from
/// each episode's header (episodes that record none are left out).
pub fn settings(path: &Path) -> BTreeSet<Settings> {
    let recorded: Vec<Settings> = match runs::read_runs(path) {
        Ok(Some(merged)) => merged.records.into_iter().map(|r| r.settings).collect(),
        _ => {
            let mut errors = Vec::new();
            let files = if path.is_dir() {
                crate::core::import::episode_files(path, &mut errors)
            } else {
                vec![path.to_path_buf()]
            };
            files
                .iter()
                .filter_map(|f| crate::core::import::load_path_without_texts(f).ok())
                .flatten()
                .map(|e| Settings::of(e.header()))
                .collect()
        }
    };
    recorded.into_iter().filter(|s| *s != Settings::default()).collect()
}

/// What A used that B did not, and the other way round, one line per setting.
pub fn differences(a: &BTreeSet<Settings>, b: &BTreeSet<Settings>) -> Vec<String> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    // setting name → values seen in A, values seen in B.
    let mut seen: BTreeMap<String, [BTreeSet<String>; 2]> = BTreeMap::new();
    for (side, set) in [a, b].into_iter().enumerate() {
        for settings in set {
            for (name, value) in named(settings) {
                seen.entry(name).or_default()[side].insert(value);
            }
        }
    }
    let list = |v: &BTreeSet<String>| {
        if v.is_empty() { "unset".into() } else { v.iter().cloned().collect::<Vec<_>>().join(", ") }
    };
    seen.into_iter()
        .filter(|(_, [x, y])| x != y)
        .map(|(name, [x, y])| format!("{name} {} in A, {} in B", list(&x), list(&y)))
        .collect()
}

fn named(s: &Settings) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        s.models.iter().map(|(role, m)| (format!("{role} model"), m.clone())).collect();
    out.extend(s.max_turns.map(|n| ("max turns".to_string(), n.to_string())));
    out.extend(s.max_tool_calls.map(|n| ("max tool calls".to_string(), n.to_string())));
    out
}
