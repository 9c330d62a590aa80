//! A search asked for on screen: where it starts (a turn of the episode on the inspector, or a
//! task chosen in the picker), its strategy and budget, and the folder it goes in.

use std::path::{Path, PathBuf};

use crate::core::attack::Strategy;
use crate::core::episode::EpisodeHeader;
use crate::core::fan::plan::{fan_stem, safe_name};

use super::setup::Start;

/// The folder under an episode's directory (or the episodes directory) that holds the searches
/// started on screen.
pub const ATTACKS_DIR: &str = "attacks";

#[derive(Debug, Clone, PartialEq)]
pub struct AttackRequest {
    pub start: Start,
    /// The header of the episode it starts from: its nodes run with the models it recorded
    /// (a flag names another).
    pub header: Option<Box<EpisodeHeader>>,
    pub strategy: Strategy,
    pub budget: Option<u64>,
    /// The folder whose `attacks/` the search's own goes in: the episode's; none, the
    /// episodes directory.
    pub under: Option<PathBuf>,
}

/// `<base>/attacks/<episode>__t<turn>__<strategy>` (or the task's name for a task), or with
/// `-2`, `-3`… when an earlier search is there.
pub fn free_attack_dir(base: &Path, start: &Start, strategy: Strategy) -> PathBuf {
    let stem = match start {
        Start::Episode { turn, id: Some(id), .. } => fan_stem(id, *turn),
        Start::Episode { turn, file, id: None } => fan_stem(&file.display().to_string(), *turn),
        Start::Task(task) => safe_name(task),
    };
    crate::core::plan_file::free_dir(&base.join(ATTACKS_DIR), &format!("{stem}__{}", strategy.as_str()))
}

/// `tap 60` → TAP with a budget of 60 calls; the budget may be left out (no limit), the strategy
/// too (TAP).
pub fn parse_request(input: &str) -> Result<(Strategy, Option<u64>), String> {
    let mut strategy = Strategy::Tap;
    let mut budget = None;
    for word in input.split_whitespace() {
        if let Ok(n) = word.parse::<u64>() {
            if n == 0 || budget.is_some() {
                return Err(format!("'{word}': one budget, a number of calls from 1"));
            }
            budget = Some(n);
        } else {
            strategy = <Strategy as clap::ValueEnum>::from_str(word, true).map_err(|_| {
                format!("'{word}': a strategy (tap, crescendo, goat), then a budget of calls")
            })?;
        }
    }
    Ok((strategy, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_a_strategy_and_a_budget() {
        assert_eq!(parse_request("tap 60"), Ok((Strategy::Tap, Some(60))));
        assert_eq!(parse_request("crescendo"), Ok((Strategy::Crescendo, None)));
        assert_eq!(parse_request(" 40 goat "), Ok((Strategy::Goat, Some(40))));
        assert!(parse_request("pair 10").unwrap_err().contains("'pair'"));
        assert!(parse_request("tap 0").is_err());
        assert!(parse_request("tap 5 6").is_err());
    }

    #[test]
    fn a_second_search_of_a_turn_gets_a_fresh_folder() {
        let dir = tempfile::tempdir().unwrap();
        let start = Start::Episode { file: "x.jsonl".into(), id: Some("ep 1".into()), turn: 2 };
        let first = free_attack_dir(dir.path(), &start, Strategy::Tap);
        assert_eq!(first, dir.path().join("attacks/ep_1__t2__tap"));
        std::fs::create_dir_all(&first).unwrap();
        let second = free_attack_dir(dir.path(), &start, Strategy::Tap);
        assert_eq!(second, dir.path().join("attacks/ep_1__t2__tap-2"));
        let task = free_attack_dir(dir.path(), &Start::Task("t/1".into()), Strategy::Goat);
        assert_eq!(task, dir.path().join("attacks/t_1__goat"));
    }
}
