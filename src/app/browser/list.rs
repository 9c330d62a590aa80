//! The browser's list: its rows, the lines shown (rows, or groups and the rows of unfolded
//! groups), the columns and their widths; built from corpus rows or episodes in memory.

use std::collections::HashSet;
use std::path::Path;

use unicode_width::UnicodeWidthStr;

use crate::core::corpus::index::IndexProgress;
use crate::core::corpus::{CorpusRow, common_dir};
use crate::core::episode::{Episode, JUDGES, Judge, JudgeSource};
use crate::core::sanitize::single_line;

use super::entry::{BrowserEntry, Column, EntrySource};
use super::forks::forks_under_parents;
use super::group::{ChartView, Group, verdict_sources};
use super::review::{AfterOpen, Review};

/// Rows of the list area that are not lines: its two borders and the header.
pub const LIST_CHROME: u16 = 3;

/// One line of the list: an episode, or a group of the grouped view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListLine {
    Row(usize),
    Group(usize),
}

pub struct Browser {
    /// Parallel to `entries`.
    pub sources: Vec<EntrySource>,
    pub entries: Vec<BrowserEntry>,
    /// Files that could not be read, shown under the list.
    pub errors: Vec<String>,
    pub filter: String,
    /// Why the filter as typed does not parse (the list keeps the last one that did).
    pub filter_error: Option<String>,
    /// Indices into `entries` that pass the filter, in the sort order.
    pub shown: Vec<usize>,
    /// What the list shows: `shown`, or groups and the rows of unfolded groups.
    pub lines: Vec<ListLine>,
    pub groups: Vec<Group>,
    /// Position in `lines`.
    pub selected: usize,
    /// First line on screen.
    pub offset: usize,
    /// What was opened, to describe the list (a directory, a file, "demo episodes").
    pub title: String,
    /// Judge names, one column each: privacy, security, utility first, then the others found.
    pub judges: Vec<Judge>,
    /// Columns in order of display.
    pub columns: Vec<Column>,
    /// The widest cell of each column over the shown rows (and groups), header included;
    /// 0 for a column no line fills.
    pub widths: Vec<usize>,
    /// Column and descending.
    pub sort: Option<(Column, bool)>,
    pub grouped: bool,
    /// Keys of the unfolded groups.
    pub unfolded: HashSet<Vec<String>>,
    pub review: Option<Review>,
    /// Set when a row is opened from the review, used when it is loaded.
    pub after_open: Option<AfterOpen>,
    /// Rows marked for comparing (indices into `entries`, at most two, in marking order).
    pub marked: Vec<usize>,
    /// Every verdict source of the corpus, the one with the most verdicts first.
    pub verdict_sources: Vec<JudgeSource>,
    /// The source whose verdicts the grouped view's rates count (an index into `verdict_sources`).
    pub source: usize,
    /// While the corpus is being indexed: how far it has got, and in how long.
    pub indexing: Option<(IndexProgress, std::time::Duration)>,
    /// The grouped view as charts (`c`), of the groups listed, built when they change.
    pub chart: Option<ChartView>,
}

impl Browser {
    /// A browser over episodes in memory.
    pub fn new(title: impl Into<String>, episodes: Vec<Episode>, errors: Vec<String>) -> Self {
        let items =
            episodes.into_iter().map(|e| (BrowserEntry::of(&e), EntrySource::Loaded(Box::new(e)))).collect();
        Self::from_items(title, items, errors)
    }

    /// A browser over indexed rows, each episode loaded from its file when opened.
    pub fn from_rows(title: impl Into<String>, rows: Vec<CorpusRow>, errors: Vec<String>) -> Self {
        let items = rows
            .into_iter()
            .map(|row| {
                let source = EntrySource::File { path: row.path.clone(), id: row.id.clone() };
                (BrowserEntry::from_row(row), source)
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
        let ordered =
            forks_under_parents(items, |(entry, _)| (entry.row.id.as_str(), entry.row.parent.as_deref()));
        let mut entries = Vec::with_capacity(ordered.len());
        let mut sources = Vec::with_capacity(ordered.len());
        for ((entry, source), depth) in ordered {
            entries.push(BrowserEntry { depth, ..entry });
            sources.push(source);
        }
        // Paths relative to the folder all files share, so runs of one file name stay apart.
        let files: Vec<&Path> = sources
            .iter()
            .filter_map(|s| match s {
                EntrySource::File { path, .. } => Some(path.as_path()),
                EntrySource::Loaded(_) => None,
            })
            .collect();
        let prefix = common_dir(files.iter().copied());
        for (entry, source) in entries.iter_mut().zip(&sources) {
            entry.path = match source {
                EntrySource::File { path, .. } => {
                    single_line(&path.strip_prefix(&prefix).unwrap_or(path).to_string_lossy()).into_owned()
                }
                EntrySource::Loaded(_) => entry.id.clone(),
            };
        }
        let mut judges: Vec<Judge> = JUDGES
            .into_iter()
            .filter(|j| entries.iter().any(|e| e.row.verdicts_of(j).next().is_some()))
            .collect();
        let mut others: Vec<Judge> = entries
            .iter()
            .flat_map(|e| e.row.verdicts.iter().map(|v| v.judge.clone()))
            .filter(|j| !JUDGES.contains(j))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        others.sort();
        judges.extend(others);
        let verdict_sources = verdict_sources(&entries);
        let mut columns = vec![
            Column::Model,
            Column::Defence,
            Column::Domain,
            Column::Persona,
            Column::Category,
            Column::Attack,
            Column::Turns,
            Column::Events,
        ];
        columns.extend((0..judges.len()).map(Column::Judge));
        columns.push(Column::Path);
        let mut browser = Browser {
            sources,
            shown: (0..entries.len()).collect(),
            entries,
            errors,
            filter: String::new(),
            filter_error: None,
            lines: Vec::new(),
            groups: Vec::new(),
            selected: 0,
            offset: 0,
            title: title.into(),
            judges,
            columns,
            widths: Vec::new(),
            sort: None,
            grouped: false,
            unfolded: HashSet::new(),
            review: None,
            after_open: None,
            marked: Vec::new(),
            verdict_sources,
            source: 0,
            indexing: None,
            chart: None,
        };
        browser.rebuild(None);
        browser
    }
    /// Adds rows just indexed (files in path order, after those already listed), keeping the
    /// filter, sort, groups, source and the selected line as they are.
    pub fn add_rows(&mut self, rows: Vec<CorpusRow>, errors: Vec<String>) {
        let current = self.current_line();
        let mut all: Vec<CorpusRow> = self.entries.iter().map(|e| e.row.clone()).collect();
        all.extend(rows);
        let mut all_errors = std::mem::take(&mut self.errors);
        all_errors.extend(errors);
        let mut grown = Browser::from_rows(std::mem::take(&mut self.title), all, all_errors);
        grown.filter = std::mem::take(&mut self.filter);
        grown.sort = self.sort;
        grown.grouped = self.grouped;
        grown.unfolded = std::mem::take(&mut self.unfolded);
        grown.source = self.source.min(grown.verdict_sources.len().saturating_sub(1));
        grown.marked = std::mem::take(&mut self.marked);
        grown.indexing = self.indexing;
        let filter = grown.filter.clone();
        *self = grown;
        self.set_filter(filter);
        self.rebuild(current);
    }
    /// The header of a column.
    pub fn header(&self, column: Column) -> String {
        match column {
            Column::Model => "model".into(),
            Column::Defence => "defence".into(),
            Column::Domain => "domain".into(),
            Column::Persona => "persona".into(),
            Column::Category => "category".into(),
            Column::Attack => "attack".into(),
            Column::Turns => "turns".into(),
            Column::Events => "events".into(),
            Column::Judge(j) => single_line(self.judges[j].as_str()).into_owned(),
            Column::Path => if self.sources.iter().any(|s| matches!(s, EntrySource::File { .. })) {
                "path"
            } else {
                "episode"
            }
            .into(),
        }
    }
    pub(super) fn current_line(&self) -> Option<Current> {
        match self.lines.get(self.selected)? {
            ListLine::Row(i) => Some(Current::Row(*i)),
            ListLine::Group(g) => Some(Current::Group(self.groups[*g].key.clone())),
        }
    }
    /// Lines, groups and widths again after the shown rows, their order or the view changed;
    /// the selection stays on `current` when it is still listed.
    pub(super) fn rebuild(&mut self, current: Option<Current>) {
        self.groups.clear();
        self.lines.clear();
        if self.grouped {
            self.build_groups();
        } else {
            self.lines.extend(self.shown.iter().map(|&i| ListLine::Row(i)));
        }
        self.selected = current
            .and_then(|c| {
                self.lines.iter().position(|l| match (l, &c) {
                    (ListLine::Row(i), Current::Row(j)) => i == j,
                    (ListLine::Group(g), Current::Group(key)) => &self.groups[*g].key == key,
                    _ => false,
                })
            })
            .unwrap_or(0);
        self.widths = self.natural_widths();
    }
    fn natural_widths(&self) -> Vec<usize> {
        self.columns
            .iter()
            .map(|&column| {
                // Room for the sort arrow on the sorted column.
                let arrow = if self.sort.is_some_and(|(c, _)| c == column) { 2 } else { 0 };
                let header = self.header(column).width() + arrow;
                let rows = self.lines.iter().map(|line| match line {
                    ListLine::Row(i) => self.entries[*i].cell(column, &self.judges).width(),
                    ListLine::Group(g) => self.group_cell(&self.groups[*g], column).width(),
                });
                // A column no line fills (the grouped view with every group folded) is left out.
                match rows.max() {
                    Some(0) => 0,
                    widest => widest.unwrap_or(0).max(header),
                }
            })
            .collect()
    }
}

pub(super) enum Current {
    Row(usize),
    Group(Vec<String>),
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
