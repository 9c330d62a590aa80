//! One row of the browser: its cells, column by column, and where its episode comes from.

use std::path::PathBuf;

use crate::core::corpus::filter::haystack;
use crate::core::corpus::{CorpusRow, SourceVerdict};
use crate::core::episode::{Episode, Judge, Outcome};
use crate::core::sanitize::single_line;

use super::super::view::severity;

/// A column of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    Model,
    Defence,
    Domain,
    Persona,
    Category,
    Attack,
    Turns,
    Events,
    /// One judge's verdicts (index into `Browser::judges`).
    Judge(usize),
    /// The file (relative to the folder all share), or the id of an episode in memory.
    Path,
}

/// What one browser row shows.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserEntry {
    pub row: CorpusRow,
    /// The episode's id, one line.
    pub id: String,
    /// The path shown: relative to the folder every row shares; the id for episodes in memory.
    pub path: String,
    /// How deep in a fork tree (0 for an original episode).
    pub depth: usize,
    /// Lower-cased text free words match against ([`haystack`]).
    pub(super) haystack: String,
}

impl BrowserEntry {
    pub fn of(episode: &Episode) -> Self {
        Self::from_row(CorpusRow::of(episode, PathBuf::from(&episode.origin), &[]))
    }

    pub fn from_row(row: CorpusRow) -> Self {
        let id = single_line(&row.id).into_owned();
        let path = single_line(&row.path.to_string_lossy()).into_owned();
        let haystack = haystack(&row);
        BrowserEntry { id, path, depth: 0, haystack, row }
    }

    /// The cell of `column` (one line, inert).
    pub fn cell(&self, column: Column, judges: &[Judge]) -> String {
        let text = |v: &Option<String>| single_line(v.as_deref().unwrap_or("-")).into_owned();
        let r = &self.row;
        match column {
            Column::Model => text(&r.model),
            Column::Defence => text(&r.defence),
            Column::Domain => text(&r.domain),
            Column::Persona => text(&r.persona),
            Column::Category => text(&r.category.clone().or_else(|| r.attack_type.clone())),
            Column::Attack => text(&r.attack.clone().or_else(|| r.task_id.clone())),
            Column::Turns => r.turns.map_or_else(|| "?".into(), |n| n.to_string()),
            Column::Events => r.events.map_or_else(|| "?".into(), |n| n.to_string()),
            Column::Judge(j) if r.unjudged().as_ref() == Some(&judges[j]) => "unjudged".into(),
            Column::Judge(j) => r.verdict_cell(verdict_cell(r.verdicts_of(&judges[j]))),
            Column::Path => self.path.clone(),
        }
    }

    /// The worst outcome of one judge's verdicts (for the colour of its cell).
    pub fn judge_outcome(&self, judge: &Judge) -> Option<Outcome> {
        self.row.verdicts_of(judge).map(|v| v.outcome).max_by_key(|o| severity(*o))
    }

    pub fn worst(&self) -> Option<Outcome> {
        self.row.verdicts.iter().map(|v| v.outcome).max_by_key(|o| severity(*o))
    }
}

/// One symbol per source (two judge models: `✗✓`), then the first score.
fn verdict_cell<'a>(verdicts: impl Iterator<Item = &'a SourceVerdict>) -> String {
    let mut symbols = String::new();
    let mut score = None;
    for v in verdicts {
        symbols.push_str(outcome_symbol(v.outcome));
        score = score.or(v.score);
    }
    match (symbols.is_empty(), score) {
        (true, _) => "-".into(),
        (false, Some(s)) => format!("{symbols} {s:.2}"),
        (false, None) => symbols,
    }
}

/// A one-character outcome, so a row's verdicts fit a narrow screen.
pub fn outcome_symbol(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "✓",
        Outcome::Fail => "✗",
        Outcome::Partial => "◐",
        Outcome::Error => "⚠",
        Outcome::Skipped => "·",
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
