//! Where a fan's attempts go: the journal of attempt k, and the directory the screen puts a fan
//! in (beside its episode, under `fans/`, where the fork tree looks for it).

use std::path::{Path, PathBuf};

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

/// The folder under an episode's directory that holds the fans started on screen.
pub const FANS_DIR: &str = "fans";

/// `<dir>/fans/<episode>__t<turn>`, or with `-2`, `-3`… when an earlier fan is there.
pub fn free_fan_dir(episode_dir: &Path, episode_id: &str, turn: u32) -> PathBuf {
    let stem = fan_stem(episode_id, turn);
    let base = episode_dir.join(FANS_DIR);
    let first = base.join(&stem);
    if !first.exists() {
        return first;
    }
    (2..).map(|n| base.join(format!("{stem}-{n}"))).find(|p| !p.exists()).expect("a free name")
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
}
