//! A search's call budget, kept on disk as it is spent: one byte per call appended to the
//! search folder's `attack.calls` (`a` attacker, `s` assistant or agent, `j` judge) before the
//! call goes out. A search killed mid-call has counted it, and `--resume` starts from the count
//! the file holds: the budget holds across a crash.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::core::llm::{BudgetSpent, CallMeter, Role};

/// Calls made, per role.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallCounts {
    pub attacker: u64,
    pub assistant: u64,
    pub judge: u64,
}

impl CallCounts {
    pub fn total(&self) -> u64 {
        self.attacker + self.assistant + self.judge
    }

    fn add(&mut self, role: Role) {
        match role {
            Role::Attacker => self.attacker += 1,
            Role::Assistant => self.assistant += 1,
            Role::Judge => self.judge += 1,
        }
    }
}

fn mark(role: Role) -> u8 {
    match role {
        Role::Attacker => b'a',
        Role::Assistant => b's',
        Role::Judge => b'j',
    }
}

pub struct FileMeter {
    path: PathBuf,
    limit: Option<u64>,
    state: Mutex<(File, CallCounts)>,
}

impl FileMeter {
    /// Opens (or creates) the count in `path`; `limit` is the budget (`None`: count only).
    pub fn open(path: &Path, limit: Option<u64>) -> anyhow::Result<FileMeter> {
        let counts = read_counts(path)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("{}: cannot open the call count", path.display()))?;
        Ok(FileMeter { path: path.to_path_buf(), limit, state: Mutex::new((file, counts)) })
    }

    pub fn counts(&self) -> CallCounts {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).1
    }

    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// Calls left (`None`: no budget).
    pub fn remaining(&self) -> Option<u64> {
        self.limit.map(|l| l.saturating_sub(self.counts().total()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl CallMeter for FileMeter {
    fn take(&self, role: Role) -> Result<(), BudgetSpent> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(limit) = self.limit
            && state.1.total() >= limit
        {
            return Err(BudgetSpent { limit });
        }
        // Counted on disk before the call goes out; a count that cannot be written stops the
        // call rather than let it go uncounted.
        state.0.write_all(&[mark(role)]).map_err(|_| BudgetSpent { limit: state.1.total() })?;
        state.1.add(role);
        Ok(())
    }
}

/// The counts in a calls file (none when it does not exist).
pub fn read_counts(path: &Path) -> anyhow::Result<CallCounts> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(CallCounts::default()),
        Err(e) => anyhow::bail!("{}: cannot read the call count: {e}", path.display()),
    };
    let mut counts = CallCounts::default();
    for (i, b) in bytes.iter().enumerate() {
        match b {
            b'a' => counts.attacker += 1,
            b's' => counts.assistant += 1,
            b'j' => counts.judge += 1,
            other => anyhow::bail!(
                "{}: byte {} is {other:#04x}, not a call (a, s or j): not a call count",
                path.display(),
                i + 1
            ),
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_on_disk_and_refused_past_the_limit_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attack.calls");
        let meter = FileMeter::open(&path, Some(3)).unwrap();
        meter.take(Role::Attacker).unwrap();
        meter.take(Role::Judge).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"aj");
        drop(meter);
        let meter = FileMeter::open(&path, Some(3)).unwrap();
        assert_eq!(meter.remaining(), Some(1));
        meter.take(Role::Assistant).unwrap();
        assert_eq!(meter.take(Role::Assistant), Err(BudgetSpent { limit: 3 }));
        assert_eq!(meter.counts(), CallCounts { attacker: 1, assistant: 1, judge: 1 });
        std::fs::write(&path, "ax").unwrap();
        let problem = read_counts(&path).unwrap_err().to_string();
        assert!(problem.contains("byte 2 is 0x78"), "{problem}");
    }
}
