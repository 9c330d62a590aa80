//! The episode browser: every episode of a directory or multi-episode file,
//! with a one-line summary each, filtered by typing.
//!
//! Rows are built from summaries; an episode read from a directory index is
//! loaded only when opened (through an effect, as `update` does no I/O).

use std::collections::HashMap;
use std::path::PathBuf;

use crate::core::episode::index::EpisodeSummary;
use crate::core::episode::{Episode, Outcome};
use crate::core::sanitize::single_line;

use super::view::severity;

/// What one browser row shows.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserEntry {
    pub id: String,
    pub domain: String,
    pub attack: String,
    pub turns: u32,
    /// Events after the header, as the inspector's `event k/N` counts them;
    /// `None` when the index could not count them cheaply.
    pub events: Option<usize>,
    /// Latest verdict per judge: (judge, outcome, score).
    pub verdicts: Vec<(String, Outcome, Option<f64>)>,
    pub origin: String,
    /// The episode this one was forked from, if any.
    pub parent: Option<String>,
    /// How deep in a fork tree (0 for an original episode).
    pub depth: usize,
    /// Lower-cased text the filter matches against.
    haystack: String,
}

impl BrowserEntry {
    pub fn of(episode: &Episode) -> Self {
        Self::from_summary(&EpisodeSummary::of(episode))
    }

    pub fn from_summary(summary: &EpisodeSummary) -> Self {
        let attack =
            [summary.attack_type.as_deref(), summary.category.as_deref(), summary.data_item.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" · ");
        let id = single_line(&summary.id).into_owned();
        let domain = single_line(summary.domain.as_deref().unwrap_or("-")).into_owned();
        let attack = single_line(&attack).into_owned();
        let origin = single_line(&summary.path.to_string_lossy()).into_owned();
        // "privacy fail" and "privacy:fail" both find a judge's outcome.
        let verdict_text: Vec<String> =
            summary.verdicts.iter().map(|(j, o, _)| format!("{j} {o} {j}:{o}", o = o.as_str())).collect();
        let haystack = format!(
            "{id} {domain} {attack} {} {} {} {}",
            summary.task_id.as_deref().unwrap_or(""),
            verdict_text.join(" "),
            summary.end_reason.map(|r| r.as_str()).unwrap_or(""),
            origin
        )
        .to_lowercase();
        BrowserEntry {
            id,
            domain,
            attack,
            turns: summary.turns,
            events: summary.events.map(|n| n.saturating_sub(1)),
            verdicts: summary.verdicts.clone(),
            origin,
            parent: summary.parent.clone(),
            depth: 0,
            haystack,
        }
    }

    /// Every word of the filter must occur somewhere in the entry.
    pub fn matches(&self, filter: &str) -> bool {
        filter.to_lowercase().split_whitespace().all(|word| self.haystack.contains(word))
    }

    pub fn worst(&self) -> Option<Outcome> {
        self.verdicts.iter().map(|(_, o, _)| *o).max_by_key(|o| severity(*o))
    }
}

/// Where a row's episode comes from when opened.
#[derive(Debug, Clone, PartialEq)]
pub enum EntrySource {
    /// Already in memory (demo episodes, a file of many reports).
    Loaded(Box<Episode>),
    /// Indexed from a file: loaded on demand.
    File { path: PathBuf, id: String },
}

pub struct Browser {
    /// Parallel to `entries`.
    pub sources: Vec<EntrySource>,
    pub entries: Vec<BrowserEntry>,
    /// Files that could not be read, shown under the list.
    pub errors: Vec<String>,
    pub filter: String,
    /// Indices into `entries` that pass the filter.
    pub shown: Vec<usize>,
    /// Position in `shown`.
    pub selected: usize,
    /// What was opened, to describe the list (a directory, a file, "demo episodes").
    pub title: String,
    /// Rows marked for comparing (indices into `entries`, at most two, in marking order).
    pub marked: Vec<usize>,
}

impl Browser {
    /// A browser over episodes in memory.
    pub fn new(title: impl Into<String>, episodes: Vec<Episode>, errors: Vec<String>) -> Self {
        let items =
            episodes.into_iter().map(|e| (BrowserEntry::of(&e), EntrySource::Loaded(Box::new(e)))).collect();
        Self::from_items(title, items, errors)
    }

    /// A browser over indexed episodes, each loaded from its file when opened.
    pub fn from_summaries(
        title: impl Into<String>,
        summaries: Vec<EpisodeSummary>,
        errors: Vec<String>,
    ) -> Self {
        let items = summaries
            .into_iter()
            .map(|s| {
                let entry = BrowserEntry::from_summary(&s);
                (entry, EntrySource::File { path: s.path, id: s.id })
            })
            .collect();
        Self::from_items(title, items, errors)
    }

    /// Rows in any mix of sources; forks are moved under their parents.
    pub fn from_items(
        title: impl Into<String>,
        items: Vec<(BrowserEntry, EntrySource)>,
        errors: Vec<String>,
    ) -> Self {
        let ordered = forks_under_parents(items, |(entry, _)| (entry.id.as_str(), entry.parent.as_deref()));
        let mut entries = Vec::with_capacity(ordered.len());
        let mut sources = Vec::with_capacity(ordered.len());
        for ((entry, source), depth) in ordered {
            entries.push(BrowserEntry { depth, ..entry });
            sources.push(source);
        }
        let shown = (0..entries.len()).collect();
        Browser {
            sources,
            entries,
            errors,
            filter: String::new(),
            shown,
            selected: 0,
            title: title.into(),
            marked: Vec::new(),
        }
    }

    pub fn set_filter(&mut self, filter: String) {
        let current = self.shown.get(self.selected).copied();
        self.filter = filter;
        self.shown = (0..self.entries.len()).filter(|&i| self.entries[i].matches(&self.filter)).collect();
        self.selected = current.and_then(|c| self.shown.iter().position(|&i| i == c)).unwrap_or(0);
    }

    pub fn select_by(&mut self, delta: isize) {
        if self.shown.is_empty() {
            return;
        }
        self.selected = (self.selected as isize + delta).clamp(0, self.shown.len() as isize - 1) as usize;
    }

    /// Marks (or unmarks) the selected row for comparing; a third mark replaces the oldest.
    /// Returns what happened, for the status line.
    pub fn toggle_mark(&mut self) -> Option<String> {
        let row = self.selected_episode()?;
        let id = &self.entries[row].id;
        Some(if let Some(at) = self.marked.iter().position(|&m| m == row) {
            self.marked.remove(at);
            format!("unmarked {id}")
        } else {
            if self.marked.len() == 2 {
                self.marked.remove(0);
            }
            self.marked.push(row);
            match self.marked.len() {
                1 => format!("marked {id}: mark another with m, then = compares them"),
                _ => format!("marked {id}: = compares the two marked episodes"),
            }
        })
    }

    /// The mark of row `entry` (1 or 2), if marked.
    pub fn mark_of(&self, entry: usize) -> Option<usize> {
        self.marked.iter().position(|&m| m == entry).map(|i| i + 1)
    }

    /// Index into `entries` and `sources` of the selected row.
    pub fn selected_episode(&self) -> Option<usize> {
        self.shown.get(self.selected).copied()
    }
}

/// Orders items so that each fork follows its parent (depth-first, in the
/// original order otherwise); a fork whose parent is not here stays a root.
/// `ids` gives an item's (id, parent id).
fn forks_under_parents<T>(items: Vec<T>, ids: impl Fn(&T) -> (&str, Option<&str>)) -> Vec<(T, usize)> {
    // Maps, not scans: a directory index has thousands of rows. The first of equal ids is the parent.
    let mut index_of: HashMap<&str, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        index_of.entry(ids(item).0).or_insert(i);
    }
    let parent_of: Vec<Option<usize>> =
        items.iter().map(|item| ids(item).1.and_then(|p| index_of.get(p).copied())).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    for (child, parent) in parent_of.iter().enumerate() {
        if let Some(parent) = parent {
            children[*parent].push(child);
        }
    }
    let mut order = Vec::with_capacity(items.len());
    let mut seen = vec![false; items.len()];
    // Depth-first with an explicit stack, so a long chain of forks cannot overflow the call stack.
    let mut visit = |root: usize, order: &mut Vec<(usize, usize)>| {
        let mut stack = vec![(root, 0)];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            order.push((i, depth));
            stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
        }
    };
    for (i, parent) in parent_of.iter().enumerate() {
        // Roots: no parent here (or a parent cycle, broken at the first seen).
        if parent.is_none() {
            visit(i, &mut order);
        }
    }
    for i in 0..items.len() {
        visit(i, &mut order);
    }
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|(i, depth)| slots[i].take().map(|e| (e, depth))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::*;

    fn episode(id: &str, parent: Option<&str>) -> Episode {
        let mut header = EpisodeHeader::new(id, TaskInfo::default(), EpisodeConfig::default());
        header.parent = parent.map(|p| ParentRef { episode: p.into(), seq: 3 });
        Episode::new(stamp_events(vec![EventBody::Episode(Box::new(header))], "t"), id)
    }

    #[test]
    fn forks_are_listed_under_their_parent() {
        let b = Browser::new(
            "t",
            vec![
                episode("fork-b", Some("a")),
                episode("a", None),
                episode("c", None),
                episode("fork-of-fork", Some("fork-b")),
            ],
            vec![],
        );
        let rows: Vec<(String, usize)> = b.entries.iter().map(|e| (e.id.clone(), e.depth)).collect();
        assert_eq!(
            rows,
            [("a".into(), 0), ("fork-b".into(), 1), ("fork-of-fork".into(), 2), ("c".into(), 0)]
        );
        assert!(matches!(&b.sources[1], EntrySource::Loaded(e) if e.id() == "fork-b"));
    }
}
