//! The episode browser: every episode of a directory or multi-episode file,
//! with a one-line summary each, filtered by typing.

use crate::core::episode::{Episode, EventBody, Outcome};
use crate::core::sanitize::single_line;

use super::view::severity;

/// What one browser row shows.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserEntry {
    pub id: String,
    pub domain: String,
    pub attack: String,
    pub turns: u32,
    pub events: usize,
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
        let header = episode.header();
        let task = &header.task;
        let attack = [task.attack_type.as_deref(), task.category.as_deref(), task.data_item.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" · ");
        let mut verdicts: Vec<(String, Outcome, Option<f64>)> = Vec::new();
        for event in &episode.events {
            if let EventBody::Verdict(v) = &event.body {
                match verdicts.iter_mut().find(|(judge, ..)| *judge == v.judge) {
                    Some(slot) => *slot = (v.judge.clone(), v.outcome, v.score),
                    None => verdicts.push((v.judge.clone(), v.outcome, v.score)),
                }
            }
        }
        let id = single_line(&header.id).into_owned();
        let domain = single_line(task.domain.as_deref().unwrap_or("-")).into_owned();
        let attack = single_line(&attack).into_owned();
        let verdict_text: Vec<String> =
            verdicts.iter().map(|(j, o, _)| format!("{j} {}", o.as_str())).collect();
        let haystack = format!(
            "{id} {domain} {attack} {} {} {}",
            task.id.as_deref().unwrap_or(""),
            verdict_text.join(" "),
            episode.origin
        )
        .to_lowercase();
        BrowserEntry {
            id,
            domain,
            attack,
            turns: episode.turns(),
            events: episode.events.len(),
            verdicts,
            origin: single_line(&episode.origin).into_owned(),
            parent: header.parent.as_ref().map(|p| p.episode.clone()),
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

pub struct Browser {
    pub episodes: Vec<Episode>,
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
}

impl Browser {
    pub fn new(title: impl Into<String>, episodes: Vec<Episode>, errors: Vec<String>) -> Self {
        let episodes = forks_under_parents(episodes);
        let entries: Vec<BrowserEntry> = episodes
            .iter()
            .map(|(episode, depth)| BrowserEntry { depth: *depth, ..BrowserEntry::of(episode) })
            .collect();
        let episodes: Vec<Episode> = episodes.into_iter().map(|(e, _)| e).collect();
        let shown = (0..entries.len()).collect();
        Browser { episodes, entries, errors, filter: String::new(), shown, selected: 0, title: title.into() }
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

    /// Index into `episodes` of the selected row.
    pub fn selected_episode(&self) -> Option<usize> {
        self.shown.get(self.selected).copied()
    }
}

/// Orders episodes so that each fork follows its parent (depth-first, in the
/// original order otherwise); a fork whose parent is not here stays a root.
fn forks_under_parents(episodes: Vec<Episode>) -> Vec<(Episode, usize)> {
    let ids: Vec<String> = episodes.iter().map(|e| e.id().to_string()).collect();
    let parent_of: Vec<Option<usize>> = episodes
        .iter()
        .map(|e| e.header().parent.as_ref().and_then(|p| ids.iter().position(|id| *id == p.episode)))
        .collect();
    let mut order = Vec::with_capacity(episodes.len());
    let mut seen = vec![false; episodes.len()];
    fn visit(
        i: usize,
        depth: usize,
        parent_of: &[Option<usize>],
        seen: &mut [bool],
        order: &mut Vec<(usize, usize)>,
    ) {
        if seen[i] {
            return;
        }
        seen[i] = true;
        order.push((i, depth));
        for child in (0..parent_of.len()).filter(|&c| parent_of[c] == Some(i)) {
            visit(child, depth + 1, parent_of, seen, order);
        }
    }
    for i in 0..episodes.len() {
        // Roots: no parent here (or a parent cycle, broken at the first seen).
        if parent_of[i].is_none() {
            visit(i, 0, &parent_of, &mut seen, &mut order);
        }
    }
    for i in 0..episodes.len() {
        visit(i, 0, &parent_of, &mut seen, &mut order);
    }
    let mut slots: Vec<Option<Episode>> = episodes.into_iter().map(Some).collect();
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
        assert_eq!(b.episodes[1].id(), "fork-b");
    }
}
