//! The forks of an episode as its fork journals record them: every journal beside the episode,
//! or in a fan's folder under `fans/`, whose header names a parent. A fork of a fork is found the
//! same way, so the whole tree comes from one walk; from a fork, the walk starts at its family's
//! folder and the tree at the episode the family descends from.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use crate::core::episode::{EpisodeHeader, Event, EventBody, ParentRef, position_of};

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

/// An episode's fork family as found on disk.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Family {
    /// Every fork under the family's folder (every level).
    pub forks: Vec<Fork>,
    /// Journals that could not be read (`path: problem`), and an ancestor that was not found.
    pub problems: Vec<String>,
    /// The episode the family descends from, when the one asked about is a fork: its journal and
    /// its events.
    pub top: Option<(PathBuf, Vec<Event>)>,
    /// The attempts each fan folder's plan asked for (a fan with fewer stopped part way).
    pub planned: BTreeMap<PathBuf, u32>,
}

/// The folder of the family of the episode in `journal`: its own, or for a fan's attempt
/// (`<dir>/fans/<fan>/…`, a fan of an attempt further down) the folder above the outermost `fans/`.
pub fn family_dir(journal: &Path) -> PathBuf {
    let mut dir = journal.parent().unwrap_or(Path::new("")).to_path_buf();
    while let Some(above) = dir.parent().filter(|fans| fans.file_name().is_some_and(|n| n == FANS_DIR)) {
        dir = above.parent().unwrap_or(Path::new("")).to_path_buf();
    }
    dir
}

/// The family of episode `id`, whose journal is `journal`: the forks under its family's folder and,
/// if it is a fork, the episode it descends from (up its parents as far as the forks found go).
pub fn find_family(journal: &Path, id: &str) -> Family {
    let dir = family_dir(journal);
    let (mut forks, mut problems) = find_forks(&dir);
    forks.extend(forks_in_file(journal, &mut problems));
    let mut top = id;
    let mut seen = HashSet::new();
    while let Some(fork) = forks.iter().find(|f| f.id == top) {
        // A cycle of parents (hand-edited journals) stops the walk.
        if !seen.insert(top) {
            break;
        }
        top = &fork.parent.episode;
    }
    let found = (top != id).then(|| episode_of(&dir, top)).flatten();
    if top != id && found.is_none() {
        problems.push(format!("{}: no journal of {top}, the episode its forks descend from", dir.display()));
    }
    let planned = forks
        .iter()
        .filter_map(|f| f.fan.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter_map(|fan| match super::plan::FanPlan::read(&fan) {
            Ok(plan) => plan.map(|p| (fan, p.attempts)),
            Err(e) => {
                problems.push(format!("{e:#}"));
                None
            }
        })
        .collect();
    Family { forks, problems, top: found, planned }
}

/// The forks a file of several episodes holds beside the episode (an Inspect sample's branches,
/// the forks in a log we exported): none for a journal, which holds one episode.
fn forks_in_file(file: &Path, problems: &mut Vec<String>) -> Vec<Fork> {
    if file.extension().is_some_and(|e| e == "jsonl") {
        return Vec::new();
    }
    match crate::core::import::load_path_without_texts(file) {
        Ok(episodes) => episodes.iter().filter_map(|e| Fork::of(file.to_path_buf(), &e.events)).collect(),
        Err(e) => {
            problems.push(e.to_string());
            Vec::new()
        }
    }
}

/// The episode `id` among the files in `dir` (not below it), its file and its events (texts
/// left out): a journal, found by its header line alone, else any other episode file — a
/// benchmark run, a MASEval report, an Inspect log (from its summaries) — a fan may start from.
fn episode_of(dir: &Path, id: &str) -> Option<(PathBuf, Vec<Event>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).collect();
    paths.retain(|p| crate::core::import::is_episode_candidate(p));
    paths.sort();
    let (mut journal, mut others) = (None, Vec::new());
    for path in paths {
        match header_of(&path) {
            Some(header) if header.id == id && journal.is_none() => journal = Some(path),
            Some(_) => {}
            None => others.push(path),
        }
    }
    journal.into_iter().chain(others).find_map(|path| {
        let episodes = crate::core::import::load_path_without_texts(&path).ok()?;
        let episode = episodes.into_iter().find(|e| e.id() == id)?;
        Some((path, episode.events))
    })
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
    header_of(path).is_some_and(|h| h.parent.is_some())
}

/// The header on the file's first line, if it is a journal's.
fn header_of(path: &Path) -> Option<EpisodeHeader> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut first = String::new();
    std::io::BufReader::new(file).read_line(&mut first).ok()?;
    match serde_json::from_str::<Event>(&first).ok()?.body {
        EventBody::Episode(header) => Some(*header),
        _ => None,
    }
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

    /// A journal of episode `id` (forked from `parent` after its first message, if any) at `path`.
    fn journal(path: &Path, id: &str, parent: Option<&str>) {
        let mut header = EpisodeHeader::new(id, TaskInfo::default(), EpisodeConfig::default());
        header.parent = parent.map(|p| ParentRef { episode: p.into(), seq: 1 });
        let events = crate::core::episode::stamp_events(
            vec![
                EventBody::Episode(Box::new(header)),
                EventBody::Message(Message::new(1, Party::User, Party::Assistant, "task")),
            ],
            "t",
        );
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        crate::core::episode::journal::write_journal(path, &events).unwrap();
    }

    #[test]
    fn from_a_fork_the_family_is_found_up_to_the_episode_it_descends_from() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        journal(&d.join("root.jsonl"), "root", None);
        journal(&d.join("other.jsonl"), "other", None);
        let attempt = d.join("fans/root__t1/root__t1__a1.jsonl");
        journal(&attempt, "a1", Some("root"));
        let nested = d.join("fans/root__t1/fans/a1__t1/a1__t1__a1.jsonl");
        journal(&nested, "a1a1", Some("a1"));
        journal(&d.join("single.jsonl"), "single", Some("root"));

        assert_eq!(family_dir(&nested), d);
        assert_eq!(family_dir(&attempt), d);
        assert_eq!(family_dir(&d.join("single.jsonl")), d);
        let family = find_family(&nested, "a1a1");
        let (top, events) = family.top.unwrap();
        assert_eq!(top, d.join("root.jsonl"));
        assert_eq!(events.len(), 2);
        let mut ids: Vec<&str> = family.forks.iter().map(|f| f.id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, ["a1", "a1a1", "single"]);
        assert!(family.problems.is_empty(), "{:?}", family.problems);
        assert!(family.planned.is_empty(), "no fan wrote a plan");
        let plan = super::super::plan::FanPlan {
            episode: "root".into(),
            turn: 1,
            mode: super::super::FanMode::Reply,
            attempts: 4,
        };
        plan.write(&d.join("fans/root__t1")).unwrap();
        let planned = find_family(&nested, "a1a1").planned;
        assert_eq!(planned.into_iter().collect::<Vec<_>>(), [(d.join("fans/root__t1"), 4)]);
        // The episode itself: no ancestor to look for.
        assert_eq!(find_family(&d.join("root.jsonl"), "root").top, None);
        // An ancestor whose journal is not there is said.
        std::fs::remove_file(d.join("root.jsonl")).unwrap();
        let family = find_family(&attempt, "a1");
        assert_eq!(family.top, None);
        assert!(family.problems[0].contains("no journal of root"), "{:?}", family.problems);
    }
}
