//! The forks of an episode as its fork journals record them: every journal beside the episode,
//! or in a fan's folder under `fans/`, whose header names a parent. A fork of a fork is found the
//! same way, so the whole tree comes from one walk.

use std::path::{Path, PathBuf};

use crate::core::episode::{Event, EventBody, ParentRef, position_of};

use super::plan::FANS_DIR;
use super::tally::Attempt;

/// One fork journal, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Fork {
    pub journal: PathBuf,
    pub id: String,
    pub parent: ParentRef,
    /// The turn of the last message it copied from its parent: where it branched.
    pub turn: u32,
    /// The fan folder it is in (`fans/<episode>__t<turn>`), if any.
    pub fan: Option<PathBuf>,
    /// Its own verdicts (not the copied ones) and how it ended (`unfinished` without an `end`:
    /// still running elsewhere, or stopped before it could write one).
    pub attempt: Attempt,
}

impl Fork {
    /// The fork the journal `events` record, or `None` for a journal that is not a fork.
    pub fn of(journal: PathBuf, events: &[Event]) -> Option<Fork> {
        let EventBody::Episode(header) = &events.first()?.body else { return None };
        let parent = header.parent.clone()?;
        // Copied events keep their `seq`: the one the header names ends the copied part.
        let copied_end = position_of(events, parent.seq).unwrap_or(0);
        let turn = events[..=copied_end]
            .iter()
            .rev()
            .find_map(|e| match &e.body {
                EventBody::Message(m) => Some(m.turn),
                _ => None,
            })
            .unwrap_or(0);
        let end = events
            .iter()
            .rev()
            .find_map(|e| match &e.body {
                EventBody::End(end) => Some(end.reason.as_str().to_string()),
                _ => None,
            })
            .unwrap_or_else(|| "unfinished".into());
        let fan = journal
            .parent()
            .filter(|dir| dir.parent().and_then(Path::file_name).is_some_and(|n| n == FANS_DIR))
            .map(Path::to_path_buf);
        let index = attempt_index(&journal).unwrap_or(0);
        let attempt = Attempt::of(index, journal.clone(), end, events, copied_end + 1);
        Some(Fork { id: header.id.clone(), parent, turn, fan, attempt, journal })
    }
}

/// `k` of `…__a<k>.jsonl`.
fn attempt_index(journal: &Path) -> Option<u32> {
    let name = journal.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    name.rsplit_once("__a")?.1.parse().ok()
}

/// Every fork journal under `dir`: its own `.jsonl` files, and those of `fans/*/` (recursively,
/// a fan of an attempt being under the attempt's folder). Files that cannot be read are skipped
/// and named in the second list (`path: problem`).
pub fn find_forks(dir: &Path) -> (Vec<Fork>, Vec<String>) {
    let mut forks = Vec::new();
    let mut problems = Vec::new();
    walk(dir, &mut forks, &mut problems);
    forks.sort_by(|a, b| {
        (a.turn, &a.fan, a.attempt.index, &a.journal).cmp(&(b.turn, &b.fan, b.attempt.index, &b.journal))
    });
    (forks, problems)
}

fn walk(dir: &Path, forks: &mut Vec<Fork>, problems: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == FANS_DIR) {
                for fan in std::fs::read_dir(&path).into_iter().flatten().flatten() {
                    walk(&fan.path(), forks, problems);
                }
            }
            continue;
        }
        // Only the header line of a journal that is not a fork is read (an episodes folder may
        // hold thousands).
        if path.extension().is_none_or(|e| e != "jsonl") || !names_a_parent(&path) {
            continue;
        }
        match crate::core::episode::journal::read_journal(&path) {
            Ok((events, _)) => forks.extend(Fork::of(path, &events)),
            Err(e) => problems.push(format!("{}: {e}", path.display())),
        }
    }
}

/// Whether the file's first line is a journal header naming a parent (a `runs.jsonl`, or a
/// journal that is no fork, is not a fork journal).
fn names_a_parent(path: &Path) -> bool {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut first = String::new();
    if std::io::BufReader::new(file).read_line(&mut first).is_err() {
        return false;
    }
    matches!(
        serde_json::from_str::<Event>(&first),
        Ok(Event { body: EventBody::Episode(header), .. }) if header.parent.is_some()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, EpisodeHeader, Message, Party, TaskInfo};

    #[test]
    fn a_fork_knows_its_turn_its_fan_and_its_attempt_number() {
        let mut header = EpisodeHeader::new("child", TaskInfo::default(), EpisodeConfig::default());
        let copied = crate::core::episode::stamp_events(
            vec![
                EventBody::Episode(Box::new(EpisodeHeader::new(
                    "root",
                    TaskInfo::default(),
                    EpisodeConfig::default(),
                ))),
                EventBody::Message(Message::new(1, Party::User, Party::Assistant, "task")),
                EventBody::Message(Message::new(1, Party::Assistant, Party::Attacker, "r1")),
                EventBody::Message(Message::new(2, Party::Attacker, Party::Assistant, "a2")),
            ],
            "t",
        );
        header.parent = Some(ParentRef { episode: "root".into(), seq: copied[3].seq });
        let mut events = vec![Event { body: EventBody::Episode(Box::new(header)), ..copied[0].clone() }];
        events.extend(copied[1..].iter().cloned());
        let journal = PathBuf::from("d/fans/root__t2/root__t2__a3.jsonl");
        let fork = Fork::of(journal, &events).unwrap();
        assert_eq!((fork.turn, fork.attempt.index, fork.attempt.end.as_str()), (2, 3, "unfinished"));
        assert_eq!(fork.fan, Some(PathBuf::from("d/fans/root__t2")));
        assert_eq!(fork.parent.episode, "root");
    }
}
