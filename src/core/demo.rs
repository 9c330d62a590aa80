//! The demo episodes shown on the first screen (`assets/episodes/*.jsonl`).
//!
//! They are embedded in the binary, so `converse-tui` with no argument has
//! something worth watching. They are our own assets: one that does not parse
//! is a bug, and panics naming the file.

use std::path::Path;

use super::episode::{Episode, read_journal_from};

/// How a demo episode is named where a file is expected: `demo:01-travel-privacy-leak`.
pub const SCHEME: &str = "demo:";

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

/// The demo episode `path` names, when it is no file and reads `demo:NAME`: NAME its file name,
/// with or without `.jsonl`, or the start of one name only (`demo:01`). An error lists the names.
pub fn named(path: &Path) -> Option<Result<Episode, String>> {
    let name = path.to_str()?.strip_prefix(SCHEME)?;
    if path.exists() {
        return None;
    }
    let mut episodes = demo_episodes();
    let matching: Vec<usize> = (0..episodes.len())
        .filter(|&i| file_name(&episodes[i]).starts_with(name) && !name.is_empty())
        .collect();
    let exact = matching.iter().find(|&&i| [file_name(&episodes[i]), stem(&episodes[i])].contains(&name));
    Some(match (exact, matching.as_slice()) {
        (Some(&i), _) | (None, &[i]) => Ok(episodes.swap_remove(i)),
        _ => {
            let names: Vec<&str> = episodes.iter().map(stem).collect();
            Err(format!("no demo episode is named {name:?} (one of {})", names.join(", ")))
        }
    })
}

fn file_name(episode: &Episode) -> &str {
    episode.origin.strip_prefix(SCHEME).unwrap_or(&episode.origin)
}

fn stem(episode: &Episode) -> &str {
    file_name(episode).trim_end_matches(".jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_demo_is_found_by_its_name_or_the_start_of_one() {
        let id = |name: &str| named(Path::new(name)).map(|r| r.map(|e| e.id().to_string()));
        let travel = Some(Ok("demo-travel-privacy-leak".to_string()));
        assert_eq!(id("demo:01-travel-privacy-leak"), travel);
        assert_eq!(id("demo:01-travel-privacy-leak.jsonl"), travel);
        assert_eq!(id("demo:01"), travel);
        let unknown = id("demo:0").unwrap().unwrap_err();
        assert!(unknown.contains("01-travel-privacy-leak, 02-"), "{unknown}");
        assert!(id("demo:").unwrap().is_err());
        assert_eq!(id("runs/demo.jsonl"), None, "a path");
    }

    /// So every journey (a fork, a fan) works on a demo without a download: its task is in the
    /// bundled sample, the same task, and its persona's profile holds what its tools returned.
    #[test]
    fn every_demo_task_is_in_the_bundled_sample() {
        use crate::core::dataset::lookup::TaskLookup;
        use crate::core::dataset::store::DatasetSource;
        use crate::core::episode::EventBody;
        let tasks = TaskLookup::load(&DatasetSource::Sample).unwrap();
        for episode in demo_episodes() {
            let task = &episode.header().task;
            let id = task.id.as_deref().unwrap();
            let found = tasks.get(id).unwrap_or_else(|| panic!("{id} is not in the bundled sample"));
            assert_eq!(Some(found.user_task.as_str()), task.user_task.as_deref(), "{id}");
            assert_eq!(Some(found.category.as_str()), task.category.as_deref(), "{id}");
            assert_eq!(found.user_data.attack_strategy, task.extra["attack_action"], "{id}");
            let profile = &found.environment.persona_text;
            for event in &episode.events {
                let EventBody::ToolResult(result) = &event.body else { continue };
                if !result.ok {
                    continue;
                }
                let said = result.output.split("\n").filter(|l| l.contains(": ") && !l.starts_with("Found "));
                for line in said.flat_map(|l| l.split(" Travel preferences")) {
                    assert!(profile.contains(line.trim()), "{id}: the profile lacks {line:?}");
                }
            }
        }
    }
}
