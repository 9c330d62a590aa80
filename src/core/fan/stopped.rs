//! A fan stopped part way (quit on screen, or a headless `fan` interrupted): its plan and the
//! attempts its runs files already hold, so that the rest can be run (`f` on the same turn offers
//! it) and counted with them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::plan::{FANS_DIR, FanPlan, fan_case, fan_stem};
use crate::core::runs::RunRecord;

#[derive(Debug, Clone, PartialEq)]
pub struct StoppedFan {
    /// The fan's folder.
    pub dir: PathBuf,
    pub plan: FanPlan,
    /// The attempts its runs files hold, whatever their end (as `fan --resume` counts them).
    pub recorded: BTreeSet<u32>,
}

impl StoppedFan {
    /// Attempts planned and not recorded.
    pub fn missing(&self) -> u32 {
        self.plan.attempts.saturating_sub(self.recorded.len() as u32)
    }
}

/// The records of the attempts of the fan in `dir` from `turn` that its runs files hold (numbers 1
/// to `planned`).
pub fn recorded(dir: &Path, turn: u32, planned: u32) -> anyhow::Result<Vec<RunRecord>> {
    let case = fan_case(turn);
    let records = crate::core::runs::read_runs(dir)?.map(|m| m.records).unwrap_or_default();
    Ok(records.into_iter().filter(|r| r.key() == case && (1..=planned).contains(&r.repeat)).collect())
}

/// The newest fan of `episode_id` from `turn` under `episode_dir/fans/` whose plan has attempts
/// its runs files do not hold. A folder whose plan or runs file cannot be read is an error.
pub fn find_stopped(episode_dir: &Path, episode_id: &str, turn: u32) -> anyhow::Result<Option<StoppedFan>> {
    let stem = fan_stem(episode_id, turn);
    let fans = episode_dir.join(FANS_DIR);
    let Ok(entries) = std::fs::read_dir(&fans) else { return Ok(None) };
    // `<stem>` is the first fan, `<stem>-<n>` the n-th.
    let mut folders: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let n = match name.strip_prefix(&stem)? {
                "" => 1,
                rest => rest.strip_prefix('-')?.parse().ok()?,
            };
            Some((n, entry.path()))
        })
        .collect();
    folders.sort();
    for (_, dir) in folders.into_iter().rev() {
        let Some(plan) = FanPlan::read(&dir)? else { continue };
        if plan.episode != episode_id || plan.turn != turn {
            continue;
        }
        let recorded = recorded(&dir, turn, plan.attempts)?.iter().map(|r| r.repeat).collect();
        let stopped = StoppedFan { dir, plan, recorded };
        if stopped.missing() > 0 {
            return Ok(Some(stopped));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::fan::FanMode;
    use crate::core::runs::append;

    fn record(dir: &Path, case: &str, repeat: u32) {
        let mut file =
            std::fs::OpenOptions::new().create(true).append(true).open(dir.join("runs.jsonl")).unwrap();
        let record = RunRecord {
            case: Some(case.into()),
            task: "travel_1".into(),
            repeat,
            journal: format!("a{repeat}.jsonl"),
            status: "max_turns".into(),
            ..RunRecord::default()
        };
        append(&mut file, &record).unwrap();
    }

    #[test]
    fn the_newest_fan_with_attempts_missing_is_the_stopped_one() {
        let episode_dir = tempfile::tempdir().unwrap();
        let plan = |attempts| FanPlan { episode: "ep".into(), turn: 2, mode: FanMode::Reply, attempts };
        assert_eq!(find_stopped(episode_dir.path(), "ep", 2).unwrap(), None);
        // fans/ep__t2: 3 planned, 1 and 3 recorded (and a record of another turn, one past the plan).
        let first = episode_dir.path().join("fans/ep__t2");
        std::fs::create_dir_all(&first).unwrap();
        plan(3).write(&first).unwrap();
        for (case, repeat) in [("turn 2", 1), ("turn 2", 3), ("turn 1", 2), ("turn 2", 4)] {
            record(&first, case, repeat);
        }
        // fans/ep__t2-2: done; fans/ep__t2-3: no plan; fans/ep__t3: another turn.
        let done = episode_dir.path().join("fans/ep__t2-2");
        std::fs::create_dir_all(&done).unwrap();
        plan(1).write(&done).unwrap();
        record(&done, "turn 2", 1);
        std::fs::create_dir_all(episode_dir.path().join("fans/ep__t2-3")).unwrap();
        std::fs::create_dir_all(episode_dir.path().join("fans/ep__t3")).unwrap();

        let stopped = find_stopped(episode_dir.path(), "ep", 2).unwrap().unwrap();
        assert_eq!(stopped.dir, first);
        assert_eq!(stopped.recorded, BTreeSet::from([1, 3]));
        assert_eq!(stopped.missing(), 1);
        assert_eq!(find_stopped(episode_dir.path(), "ep", 3).unwrap(), None);
        // A newer stopped fan is the one offered.
        let newer = episode_dir.path().join("fans/ep__t2-10");
        std::fs::create_dir_all(&newer).unwrap();
        plan(5).write(&newer).unwrap();
        let stopped = find_stopped(episode_dir.path(), "ep", 2).unwrap().unwrap();
        assert_eq!((stopped.missing(), stopped.dir), (5, newer.clone()));
        // A plan that cannot be read is said, not skipped.
        std::fs::write(newer.join("fan.json"), "{").unwrap();
        assert!(find_stopped(episode_dir.path(), "ep", 2).unwrap_err().to_string().contains("fan.json"));
    }
}
