//! A suite directory being added to: each new case written atomically as `<task>-<fingerprint>.toml`
//! (a file is never replaced), the same attack (task and attacker turns) recognised and not
//! written twice.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::case::{Case, read_suite};

pub struct Suite {
    pub dir: PathBuf,
    /// Fingerprint → case id.
    known: HashMap<String, String>,
}

/// What became of a case given to [`Suite::add`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    New(String),
    /// The suite has this attack already, as this case.
    Duplicate(String),
}

impl Suite {
    /// Opens (and creates) a suite directory, reading the cases it holds.
    pub fn open(dir: &Path) -> anyhow::Result<Suite> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("{}: cannot create the suite directory", dir.display()))?;
        let known = read_suite(dir)?.into_iter().map(|c| (c.case.fingerprint(), c.id)).collect();
        Ok(Suite { dir: dir.to_path_buf(), known })
    }

    pub fn add(&mut self, case: &Case) -> anyhow::Result<Added> {
        let fingerprint = case.fingerprint();
        if let Some(same) = self.known.get(&fingerprint) {
            return Ok(Added::Duplicate(same.clone()));
        }
        let id = case_id(&case.task, &fingerprint);
        let path = self.dir.join(format!("{id}.{}", super::case::CASE_EXTENSION));
        if path.exists() {
            anyhow::bail!("{}: already exists; not replaced", path.display());
        }
        crate::core::atomic_file::write_atomic(&path, case.to_toml()?.as_bytes())
            .with_context(|| format!("{}: cannot write", path.display()))?;
        self.known.insert(fingerprint, id.clone());
        Ok(Added::New(id))
    }
}

/// `<task>-<first 8 of the fingerprint>`, with characters a file name should not hold replaced.
fn case_id(task: &str, fingerprint: &str) -> String {
    let safe: String =
        task.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    format!("{safe}-{}", &fingerprint[..8.min(fingerprint.len())])
}

/// Makes and adds the case of each episode (or says why not), for the TUI's `K`: one line saying
/// what became of them.
pub fn keep(
    dir: &Path,
    episodes: impl IntoIterator<Item = Result<crate::core::episode::Episode, String>>,
    tasks: &crate::core::dataset::TaskLookup,
) -> anyhow::Result<String> {
    let mut suite = Suite::open(dir)?;
    let (mut added, mut duplicates, mut problems) = (Vec::new(), Vec::new(), Vec::new());
    for episode in episodes {
        let made = episode.map_err(anyhow::Error::msg).and_then(|episode| {
            let task = episode.header().task.id.as_deref().and_then(|id| tasks.get(id));
            let case = super::from_episode::case_of(&episode, &episode.origin, task)?;
            Ok((suite.add(&case)?, case))
        });
        match made {
            Ok((Added::New(id), case)) => added.push(format!("{id} ({})", describe(&case))),
            Ok((Added::Duplicate(of), _)) => duplicates.push(of),
            Err(e) => problems.push(e.to_string()),
        }
    }
    let mut said = Vec::new();
    match added.as_slice() {
        [] => {}
        [one] => said.push(format!("kept {one} in {}", dir.display())),
        many => said.push(format!("kept {} cases in {}", many.len(), dir.display())),
    }
    if !duplicates.is_empty() {
        said.push(format!("already there: {}", duplicates.join(", ")));
    }
    if let Some(first) = problems.first() {
        said.push(format!("{} not kept: {first}", problems.len()));
    }
    Ok(crate::core::sanitize::single_line(&said.join("; ")).into_owned())
}

/// How a case reads in one line: `4 attacker turns (runs to turn 5), expect privacy: pass`.
pub fn describe(case: &Case) -> String {
    let expect: Vec<String> = case.expect.iter().map(ToString::to_string).collect();
    let turns = case.turns.len();
    let last = super::run_length::last_recorded_turn(case);
    format!("{turns} attacker turn(s) (runs to turn {last}), expect {}", expect.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::suite::{Continuation, Origin};

    fn case(turn: &str) -> Case {
        Case {
            task: "a/b task".into(),
            task_hash: None,
            continuation: Continuation::Replay,
            attacker_model: None,
            expect: vec!["privacy: pass".parse().unwrap()],
            turns: vec![turn.into()],
            replies: vec![],
            origin: Origin::default(),
        }
    }

    #[test]
    fn a_new_attack_is_written_once_and_known_again_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let mut suite = Suite::open(&dir.path().join("s")).unwrap();
        let Added::New(id) = suite.add(&case("x")).unwrap() else { panic!() };
        assert!(id.starts_with("a_b_task-") && dir.path().join("s").join(format!("{id}.toml")).is_file());
        assert_eq!(suite.add(&case(" x ")).unwrap(), Added::Duplicate(id.clone()));
        let mut again = Suite::open(&dir.path().join("s")).unwrap();
        assert_eq!(again.add(&case("x")).unwrap(), Added::Duplicate(id));
        assert!(matches!(again.add(&case("y")).unwrap(), Added::New(_)));
    }
}
