//! The demo episodes shown on the first screen (`assets/episodes/*.jsonl`).
//!
//! They are embedded in the binary, so `converse-tui` with no argument has
//! something worth watching. They are our own assets: one that does not parse
//! is a bug, and panics naming the file.

use super::episode::{Episode, read_journal_from};

#[derive(rust_embed::Embed)]
#[folder = "assets/episodes/"]
#[include = "*.jsonl"]
struct DemoAssets;

/// Every embedded demo episode, in file-name order; origin `demo:<file name>`.
pub fn demo_episodes() -> Vec<Episode> {
    let mut names: Vec<String> = DemoAssets::iter().map(|name| name.into_owned()).collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let file = DemoAssets::get(&name)
                .unwrap_or_else(|| panic!("demo episode {name} is listed but not embedded"));
            let origin = format!("demo:{name}");
            let (events, warnings) = read_journal_from(file.data.as_ref(), &origin)
                .unwrap_or_else(|e| panic!("demo episode {name} does not parse: {e}"));
            let mut episode = Episode::new(events, origin);
            episode.warnings = warnings.iter().map(ToString::to_string).collect();
            episode
        })
        .collect()
}
