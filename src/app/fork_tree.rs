//! An episode's forks and fans as a tree: the episode, under it the turns where forks branched,
//! under a turn its forks and its fans (a fan's attempts under it), a fork's own forks under the
//! fork. The forks found on disk are merged with the attempts of the fan running on screen, so
//! the tree fills as they run.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::core::episode::Episode;
use crate::core::fan::forks::Fork;
use crate::core::fan::{Attempt, SourceTally, tally};

use super::fan::FanView;

pub struct ForkTree {
    /// The episode the tree was opened on (the root until its family's top is found).
    pub focus: String,
    pub root_id: String,
    pub root_origin: PathBuf,
    /// The episode's own verdicts.
    pub root: Attempt,
    /// The forks found on disk (every level), while they are being looked for: `None`.
    pub found: Option<Vec<Fork>>,
    /// Journals that could not be read.
    pub problems: Vec<String>,
    /// The attempts each fan folder's plan asked for.
    pub planned: BTreeMap<PathBuf, u32>,
    pub selected: usize,
}

/// One line of the tree.
#[derive(Debug, Clone)]
pub enum Node {
    /// The episode itself.
    Root,
    /// Forks of `parent` branched at `turn`.
    Turn { depth: usize, turn: u32, forks: usize },
    /// A fan's folder, its attempts' tallies (ended attempts only), how many are running and how
    /// many its plan asked for (if it has one).
    Fan {
        depth: usize,
        dir: PathBuf,
        attempts: usize,
        running: usize,
        planned: Option<u32>,
        tallies: Vec<SourceTally>,
    },
    /// A fork (an attempt of a fan, or a single fork).
    Fork { depth: usize, fork: Box<Fork> },
}

impl ForkTree {
    pub fn new(episode: &Episode) -> ForkTree {
        let root = Attempt::of(0, PathBuf::from(&episode.origin), String::new(), &episode.events, 0);
        ForkTree {
            focus: episode.id().to_string(),
            root_id: episode.id().to_string(),
            root_origin: PathBuf::from(&episode.origin),
            root,
            found: None,
            problems: Vec::new(),
            planned: BTreeMap::new(),
            selected: 0,
        }
    }

    /// Roots the tree at the episode the family descends from (the one in `journal`).
    pub fn reroot(&mut self, journal: PathBuf, events: &[crate::core::episode::Event]) {
        let id = events.first().and_then(|e| match &e.body {
            crate::core::episode::EventBody::Episode(header) => Some(header.id.clone()),
            _ => None,
        });
        if let Some(id) = id {
            self.root = Attempt::of(0, journal.clone(), String::new(), events, 0);
            self.root_id = id;
            self.root_origin = journal;
        }
    }

    /// Every fork known: those on disk, with the running fan's attempts in place of what the disk
    /// said of them (their journals are still being written).
    pub fn forks(&self, fan: Option<&FanView>) -> Vec<Fork> {
        let mut forks: Vec<Fork> = self.found.clone().unwrap_or_default();
        if let Some(fan) = fan {
            forks.retain(|f| fan.attempts.iter().all(|a| a.journal != f.journal));
            forks.extend(fan.attempts.iter().filter_map(|a| {
                let mut fork = Fork::of(a.journal.clone(), &a.events)?;
                fork.attempt.end = a.end.clone().unwrap_or_else(|| "running".into());
                Some(fork)
            }));
        }
        forks
    }

    /// The lines of the tree, depth first.
    pub fn nodes(&self, fan: Option<&FanView>) -> Vec<Node> {
        let forks = self.forks(fan);
        // The running fan's own count, else what its folder's plan says.
        let planned = |dir: &PathBuf| match fan {
            Some(f) if &f.dir == dir => Some(f.planned),
            _ => self.planned.get(dir).copied(),
        };
        let mut nodes = vec![Node::Root];
        children(&self.root_id, 1, &forks, &planned, &mut nodes);
        nodes
    }

    pub fn select_by(&mut self, delta: isize, count: usize) {
        self.selected = self.selected.saturating_add_signed(delta).min(count.saturating_sub(1));
    }
}

/// The forks of `parent` grouped by turn, then by fan folder (single forks first).
fn children(
    parent: &str,
    depth: usize,
    forks: &[Fork],
    planned: &dyn Fn(&PathBuf) -> Option<u32>,
    out: &mut Vec<Node>,
) {
    let mut by_turn: BTreeMap<u32, Vec<&Fork>> = BTreeMap::new();
    for fork in forks.iter().filter(|f| f.parent.episode == parent) {
        by_turn.entry(fork.turn).or_default().push(fork);
    }
    for (turn, here) in by_turn {
        out.push(Node::Turn { depth, turn, forks: here.len() });
        let mut fans: BTreeMap<Option<PathBuf>, Vec<&Fork>> = BTreeMap::new();
        for fork in here {
            fans.entry(fork.fan.clone()).or_default().push(fork);
        }
        for (dir, members) in fans {
            let fork_depth = match dir {
                Some(dir) => {
                    let ended: Vec<Attempt> = members
                        .iter()
                        .filter(|f| f.attempt.end != "running")
                        .map(|f| f.attempt.clone())
                        .collect();
                    out.push(Node::Fan {
                        depth: depth + 1,
                        planned: planned(&dir),
                        dir,
                        attempts: members.len(),
                        running: members.len() - ended.len(),
                        tallies: tally(&ended, turn),
                    });
                    depth + 2
                }
                None => depth + 1,
            };
            for fork in members {
                out.push(Node::Fork { depth: fork_depth, fork: Box::new(fork.clone()) });
                children(&fork.id, fork_depth + 1, forks, planned, out);
            }
        }
    }
}
