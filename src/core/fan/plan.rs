//! Where a fan's attempts go: the journal of attempt k, the directory the screen puts a fan in
//! (beside its episode, under `fans/`, where the fork tree looks for it), and the plan kept in it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::start::FanMode;
use crate::core::batch_files::FAN_PLAN_FILE;

/// Characters outside `[A-Za-z0-9._-]` become `_` (a file name from an id).
pub fn safe_name(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect()
}

/// `<episode>__t<turn>`: what every file of a fan of `episode` at `turn` starts with.
pub fn fan_stem(episode_id: &str, turn: u32) -> String {
    format!("{}__t{turn}", safe_name(episode_id))
}

/// `<episode>__t<turn>__a<k>.jsonl`, the journal of attempt `k` (from 1).
pub fn attempt_journal(episode_id: &str, turn: u32, k: u32) -> String {
    format!("{}__a{k}.jsonl", fan_stem(episode_id, turn))
}

/// The case a fan's attempts are recorded under in its runs file (`fan --resume` looks them up).
pub fn fan_case(turn: u32) -> String {
    format!("turn {turn}")
}

/// What a fan was asked for, kept in its folder so that a fan stopped part way can be finished as
/// it was asked for (the screen's `f` offers it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FanPlan {
    pub episode: String,
    pub turn: u32,
    pub mode: FanMode,
    pub attempts: u32,
}

impl FanPlan {
    /// Writes the plan into the fan's folder (atomically: a reader never sees half of it).
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        crate::core::plan_file::write(&dir.join(FAN_PLAN_FILE), self, "fan plan")
    }

    /// The plan in the fan's folder (`None` when it has none: a fan from before plans were kept).
    pub fn read(dir: &Path) -> anyhow::Result<Option<FanPlan>> {
        crate::core::plan_file::read(&dir.join(FAN_PLAN_FILE), "fan plan")
    }
}

/// The folder under an episode's directory that holds the fans started on screen.
pub const FANS_DIR: &str = "fans";

/// `<dir>/fans/<episode>__t<turn>`, or with `-2`, `-3`… when an earlier fan is there.
pub fn free_fan_dir(episode_dir: &Path, episode_id: &str, turn: u32) -> PathBuf {
    crate::core::plan_file::free_dir(&episode_dir.join(FANS_DIR), &fan_stem(episode_id, turn))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_and_a_second_fan_gets_a_fresh_folder() {
        assert_eq!(attempt_journal("ep/1 x", 3, 7), "ep_1_x__t3__a7.jsonl");
        let dir = tempfile::tempdir().unwrap();
        let first = free_fan_dir(dir.path(), "ep", 2);
        assert_eq!(first, dir.path().join("fans/ep__t2"));
        std::fs::create_dir_all(&first).unwrap();
        assert_eq!(free_fan_dir(dir.path(), "ep", 2), dir.path().join("fans/ep__t2-2"));
    }

    #[test]
    fn a_plan_reads_back_and_a_broken_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(FanPlan::read(dir.path()).unwrap(), None);
        let plan = FanPlan { episode: "ep\u{1b}[2J".into(), turn: 3, mode: FanMode::Rest, attempts: 20 };
        plan.write(dir.path()).unwrap();
        assert_eq!(FanPlan::read(dir.path()).unwrap(), Some(plan));
        let written = std::fs::read_to_string(dir.path().join(FAN_PLAN_FILE)).unwrap();
        assert!(written.contains(r#""mode":"rest""#) && !written.contains('\u{1b}'), "{written}");
        std::fs::write(dir.path().join(FAN_PLAN_FILE), "{\"turn\": 3").unwrap();
        let problem = FanPlan::read(dir.path()).unwrap_err().to_string();
        assert!(problem.contains("fan.json: not a fan plan"), "{problem}");
    }
}
