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
        let entries: Vec<BrowserEntry> = episodes.iter().map(BrowserEntry::of).collect();
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
