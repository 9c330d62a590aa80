//! The episode browser: every episode of a corpus, one row each with its model,
//! defence, domain, persona, category, attack and one verdict column per judge.
//!
//! - **Filter** (`/`): the syntax of [`crate::core::corpus::filter`]: fields
//!   (`model=gemini* privacy=fail turns>5`) and free words, every term must hold.
//! - **Sort** (`s` next column, `S` reverse): by any column; unsorted, rows keep
//!   the index order with forks under their parents.
//! - **Grouped view** (`z`): model → defence → domain, with counts and the
//!   rate of `fail` per judge per group; Enter folds and unfolds a group.
//! - **Agreement review** (`A`): the questions two verdict sources answered
//!   differently; Enter opens the episode at the disputed turn, `a` opens it
//!   with the annotate form there (the label becomes a `human` verdict).
//!
//! Rows are built from corpus rows; an episode indexed from a file is loaded
//! only when opened (through an effect, as `update` does no I/O).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use unicode_width::UnicodeWidthStr;

use crate::core::corpus::agreement::{Disagreement, disagreements};
use crate::core::corpus::filter::{Filter, JUDGES, haystack};
use crate::core::corpus::index::IndexProgress;
use crate::core::corpus::row::severity as attack_severity;
use crate::core::corpus::series::{CHARTED, ChartSeries, Heatmap, chart_series};
use crate::core::corpus::{CorpusRow, SourceVerdict, common_dir};
use crate::core::episode::source_label;
use crate::core::episode::{Episode, Outcome, VerdictMethod};
use crate::core::sanitize::single_line;

use super::view::severity;

/// Rows of the list area that are not lines: its two borders and the header.
pub const LIST_CHROME: u16 = 3;

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
    /// One judge's verdicts (index into [`Browser::judges`]).
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
    haystack: String,
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
    pub fn cell(&self, column: Column, judges: &[String]) -> String {
        let text = |v: &Option<String>| single_line(v.as_deref().unwrap_or("-")).into_owned();
        let r = &self.row;
        match column {
            Column::Model => text(&r.model),
            Column::Defence => text(&r.defence),
            Column::Domain => text(&r.domain),
            Column::Persona => text(&r.persona),
            Column::Category => text(&r.category.clone().or_else(|| r.attack_type.clone())),
            Column::Attack => text(&r.attack.clone().or_else(|| r.task_id.clone())),
            Column::Turns => r.turns.to_string(),
            Column::Events => r.events.to_string(),
            Column::Judge(j) => verdict_cell(r.verdicts_of(&judges[j])),
            Column::Path => self.path.clone(),
        }
    }

    /// The worst outcome of one judge's verdicts (for the colour of its cell).
    pub fn judge_outcome(&self, judge: &str) -> Option<Outcome> {
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

/// One line of the list: an episode, or a group of the grouped view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListLine {
    Row(usize),
    Group(usize),
}

/// The fields of the grouped view, outermost first.
pub const GROUP_BY: [Column; 3] = [Column::Model, Column::Defence, Column::Domain];

/// A group of the grouped view.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The values of [`GROUP_BY`] down to this level (its depth is `key.len() - 1`).
    pub key: Vec<String>,
    pub episodes: usize,
    /// Per judge (as [`Browser::judges`]), from the selected verdict source only.
    pub rates: Vec<GroupRate>,
    /// Episodes of the group kept out of the rates (aborted, errored, forks, human-played).
    pub kept_out: usize,
}

/// What one verdict source says of a group on one judge's question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GroupRate {
    /// The source judged none of the group's episodes.
    None,
    /// `failed` of `judged` (a leak, a successful attack): the rate the benchmark publishes.
    Rate { failed: usize, judged: usize },
    /// The utility judge: the mean coverage of the `judged` episodes.
    Coverage { mean: f64, judged: usize },
}

/// The grouped view drawn as charts: which judge's page, and the series of the groups listed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartView {
    /// An index into [`CHARTED`] (privacy, security).
    pub judge: usize,
    /// The attacks × groups heatmap rather than the rates and curves.
    pub heatmap: bool,
    /// The heatmap's selected cell (row, column).
    pub cursor: (usize, usize),
    pub series: ChartSeries,
}

impl ChartView {
    /// The heatmap shown, if the page is one.
    pub fn shown_heatmap(&self) -> Option<&Heatmap> {
        let judge = CHARTED.get(self.judge)?.0;
        self.heatmap.then(|| self.series.heatmaps.iter().find(|h| h.judge == judge)).flatten()
    }
}

/// A verdict source: who gave verdicts (`rule`, `llm:MODEL`, `imported:MODEL`, `human`).
pub type Source = (VerdictMethod, Option<String>);

impl Group {
    pub fn depth(&self) -> usize {
        self.key.len() - 1
    }
}

/// The agreement review list.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    /// The disagreements shown: those of `all` the filter keeps. Rows index [`Browser::entries`].
    pub items: Vec<Disagreement>,
    /// Every disagreement of the shown episodes.
    pub all: Vec<Disagreement>,
    /// Words every shown disagreement's judge or sources hold (`/`: `privacy`, `gpt-5`, `rule`).
    pub filter: String,
    pub selected: usize,
    pub offset: usize,
}

impl Review {
    /// Keeps the disagreements whose judge and sources hold every word of `filter`.
    pub fn set_filter(&mut self, filter: String) {
        let words: Vec<String> = filter.split_whitespace().map(str::to_lowercase).collect();
        self.items = self
            .all
            .iter()
            .filter(|d| {
                let text = format!(
                    "{} {} {}",
                    d.judge,
                    source_label(d.a.method, d.a.model.as_deref()),
                    source_label(d.b.method, d.b.model.as_deref())
                )
                .to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .cloned()
            .collect();
        self.filter = filter;
        self.selected = 0;
        self.offset = 0;
    }
}

/// What to do once an episode opened from the browser is loaded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AfterOpen {
    /// Put the cursor at the end of this turn.
    pub turn: Option<u32>,
    /// Open the annotate form there.
    pub annotate: bool,
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
    pub judges: Vec<String>,
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
    pub verdict_sources: Vec<Source>,
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
        let mut judges: Vec<String> = JUDGES
            .iter()
            .filter(|j| entries.iter().any(|e| e.row.verdicts_of(j).next().is_some()))
            .map(|j| j.to_string())
            .collect();
        let mut others: Vec<String> = entries
            .iter()
            .flat_map(|e| e.row.verdicts.iter().map(|v| v.judge.clone()))
            .filter(|j| !JUDGES.contains(&j.as_str()))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        others.sort();
        judges.extend(others.into_iter().map(|j| single_line(&j).into_owned()));
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

    /// The verdict source the grouped view counts, as one word (`imported:gpt-5`), if any.
    pub fn source_label(&self) -> Option<String> {
        let (method, model) = self.verdict_sources.get(self.source)?;
        Some(source_label(*method, model.as_deref()))
    }

    /// The next verdict source for the grouped view's rates.
    pub fn next_source(&mut self) {
        if !self.verdict_sources.is_empty() {
            self.source = (self.source + 1) % self.verdict_sources.len();
            let current = self.current_line();
            self.rebuild(current);
        }
    }

    /// Counts `label`'s verdicts in the grouped view, when some row has that source.
    pub fn prefer_source(&mut self, label: &str) {
        let Some(at) = self
            .verdict_sources
            .iter()
            .position(|(method, model)| source_label(*method, model.as_deref()) == label)
        else {
            return;
        };
        if at != self.source {
            self.source = at;
            let current = self.current_line();
            self.rebuild(current);
        }
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
            Column::Judge(j) => self.judges[j].clone(),
            Column::Path => if self.sources.iter().any(|s| matches!(s, EntrySource::File { .. })) {
                "path"
            } else {
                "episode"
            }
            .into(),
        }
    }

    /// Filters by `filter` (fields and free words); a filter that does not parse
    /// keeps the list as it was and says why in `filter_error`.
    pub fn set_filter(&mut self, filter: String) {
        let current = self.current_line();
        self.filter = filter;
        match Filter::parse(&self.filter, &self.judges) {
            Ok(parsed) => {
                self.filter_error = None;
                self.shown = (0..self.entries.len())
                    .filter(|&i| parsed.matches_with(&self.entries[i].row, &self.entries[i].haystack))
                    .collect();
                self.sort_shown();
                self.rebuild(current);
            }
            Err(problem) => self.filter_error = Some(problem),
        }
    }

    /// Sorts by the next column (unsorted after the last), ascending.
    pub fn sort_next(&mut self) {
        let at = self.sort.and_then(|(c, _)| self.columns.iter().position(|&x| x == c));
        self.sort = match at {
            None => self.columns.first().map(|&c| (c, false)),
            Some(i) => self.columns.get(i + 1).map(|&c| (c, false)),
        };
        self.resort();
    }

    /// Reverses the sort (sorting by the first column if unsorted).
    pub fn sort_reverse(&mut self) {
        self.sort = match self.sort {
            Some((c, descending)) => Some((c, !descending)),
            None => self.columns.first().map(|&c| (c, true)),
        };
        self.resort();
    }

    /// Sorts by `column`.
    pub fn sort_by(&mut self, column: Column, descending: bool) {
        self.sort = Some((column, descending));
        self.resort();
    }

    /// A new order starts at the top (the leaks first, when sorted so).
    fn resort(&mut self) {
        self.sort_shown();
        self.rebuild(None);
        self.offset = 0;
    }

    fn sort_shown(&mut self) {
        let Some((column, descending)) = self.sort else {
            self.shown.sort_unstable();
            return;
        };
        let entries = &self.entries;
        let judges = &self.judges;
        let key = |i: usize| sort_key(&entries[i], column, judges);
        let mut keyed: Vec<(SortKey, usize)> = self.shown.iter().map(|&i| (key(i), i)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        if descending {
            // Reversed keys, equal keys still in index order.
            keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        }
        self.shown = keyed.into_iter().map(|(_, i)| i).collect();
    }

    /// Shows or leaves the grouped view (groups folded at first).
    pub fn toggle_grouped(&mut self) {
        let current = self.current_line();
        self.grouped = !self.grouped;
        if !self.grouped {
            self.chart = None;
        }
        self.rebuild(current);
    }

    /// The grouped view's table, then its charts judge by judge (privacy, security), then the
    /// table again; from the plain list, the grouped view's first chart.
    pub fn cycle_chart(&mut self) {
        let current = self.current_line();
        self.grouped = true;
        self.chart = match self.chart.take() {
            None => Some(ChartView::default()),
            Some(view) if view.judge + 1 < CHARTED.len() => Some(ChartView { judge: view.judge + 1, ..view }),
            Some(view) if !view.heatmap => {
                Some(ChartView { judge: 0, heatmap: true, cursor: (0, 0), ..view })
            }
            Some(_) => None,
        };
        self.rebuild(current);
    }

    /// Moves the heatmap's selected cell, kept inside the grid.
    pub fn move_heat_cursor(&mut self, rows: isize, columns: isize) {
        let Some(view) = &mut self.chart else { return };
        let Some((height, width)) = view.shown_heatmap().map(|h| (h.rows.len(), h.columns.len())) else {
            return;
        };
        let step = |at: usize, by: isize, len: usize| {
            (at as isize + by).clamp(0, len.saturating_sub(1) as isize) as usize
        };
        view.cursor = (step(view.cursor.0, rows, height), step(view.cursor.1, columns, width));
    }

    /// Lists the episodes of the heatmap's selected cell: the filter of its group and attack, the
    /// plain list; `None` when no heatmap is shown.
    pub fn open_heat_cell(&mut self) -> Option<String> {
        let view = self.chart.as_ref()?;
        let map = view.shown_heatmap()?;
        let (row, column) = view.cursor;
        // A column is a listed group, labelled by its key.
        let label = map.columns.get(column)?;
        let key = self.groups.iter().find(|g| &g.key.join(" / ") == label).map(|g| g.key.clone())?;
        let attack = map.rows.get(row)?.clone();
        let mut terms: Vec<String> =
            GROUP_BY.iter().zip(key).map(|(c, value)| format!("{}={value}", self.header(*c))).collect();
        let field = if self.entries.iter().any(|e| e.row.attack.as_deref() == Some(attack.as_str())) {
            "attack"
        } else {
            "task"
        };
        terms.push(format!("{field}={attack}"));
        let filter = terms.join(" ");
        self.chart = None;
        self.grouped = false;
        self.set_filter(filter.clone());
        Some(filter)
    }

    /// Folds or unfolds the selected group; on a row, folds the group it is in.
    pub fn toggle_fold(&mut self) {
        let key = match self.lines.get(self.selected) {
            Some(ListLine::Group(g)) => self.groups[*g].key.clone(),
            Some(ListLine::Row(i)) if self.grouped => {
                group_key(&self.entries[*i], GROUP_BY.len(), &self.judges)
            }
            _ => return,
        };
        let target = if self.unfolded.remove(&key) {
            Some(ListLine::Group(usize::MAX))
        } else if matches!(self.lines.get(self.selected), Some(ListLine::Group(_))) {
            self.unfolded.insert(key.clone());
            Some(ListLine::Group(usize::MAX))
        } else {
            None
        };
        self.rebuild(None);
        if target.is_some() {
            self.selected = self
                .lines
                .iter()
                .position(|l| matches!(l, ListLine::Group(g) if self.groups[*g].key == key))
                .unwrap_or(0);
        }
    }

    pub fn select_by(&mut self, delta: isize) {
        if self.lines.is_empty() {
            return;
        }
        self.selected = (self.selected as isize + delta).clamp(0, self.lines.len() as isize - 1) as usize;
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

    /// Index into `entries` and `sources` of the selected row (none on a group).
    pub fn selected_episode(&self) -> Option<usize> {
        match self.lines.get(self.selected)? {
            ListLine::Row(i) => Some(*i),
            ListLine::Group(_) => None,
        }
    }

    /// Keeps the selection within `height` lines from `offset`.
    pub fn scroll_into_view(&mut self, height: usize) {
        self.offset = visible_offset(self.offset, self.selected, height);
        if let Some(review) = &mut self.review {
            review.offset = visible_offset(review.offset, review.selected, height);
        }
    }

    /// Replaces the reviewer's verdicts of the episode `id` of `file` (its notes changed): the
    /// row's cells and text, and the review when it is open (the selection keeps its place).
    pub fn set_human_verdicts(&mut self, file: &Path, id: &str, human: Vec<SourceVerdict>) {
        let found = self.sources.iter().position(|s| match s {
            EntrySource::File { path, id: i } => path == file && i == id,
            EntrySource::Loaded(e) => e.id() == id && Path::new(&e.origin) == file,
        });
        let Some(i) = found else { return };
        let row = &mut self.entries[i].row;
        row.verdicts.retain(|v| v.method != VerdictMethod::Human);
        row.verdicts.extend(human);
        self.entries[i].haystack = haystack(&self.entries[i].row);
        if let Some(selected) = self.review.as_ref().map(|r| r.selected) {
            self.open_review();
            if let Some(review) = &mut self.review {
                review.selected = selected.min(review.items.len().saturating_sub(1));
            }
        }
        let current = self.current_line();
        self.rebuild(current);
    }

    /// Opens the agreement review over the shown rows.
    pub fn open_review(&mut self) {
        let rows: Vec<CorpusRow> = self.shown.iter().map(|&i| self.entries[i].row.clone()).collect();
        let items =
            disagreements(&rows).into_iter().map(|d| Disagreement { row: self.shown[d.row], ..d }).collect();
        let items: Vec<Disagreement> = items;
        self.review =
            Some(Review { all: items.clone(), items, filter: String::new(), selected: 0, offset: 0 });
    }

    fn current_line(&self) -> Option<Current> {
        match self.lines.get(self.selected)? {
            ListLine::Row(i) => Some(Current::Row(*i)),
            ListLine::Group(g) => Some(Current::Group(self.groups[*g].key.clone())),
        }
    }

    /// Lines, groups and widths again after the shown rows, their order or the view changed;
    /// the selection stays on `current` when it is still listed.
    fn rebuild(&mut self, current: Option<Current>) {
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

    fn build_groups(&mut self) {
        // Each group's rows, in the shown order; groups in the order of their first row
        // when sorted, by name otherwise.
        let depth = GROUP_BY.len();
        let mut members: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
        let mut first_seen: HashMap<Vec<String>, usize> = HashMap::new();
        for (position, &i) in self.shown.iter().enumerate() {
            let full = group_key(&self.entries[i], depth, &self.judges);
            for level in 1..=depth {
                let key = full[..level].to_vec();
                first_seen.entry(key.clone()).or_insert(position);
                members.entry(key).or_default().push(i);
            }
        }
        let mut children: BTreeMap<Vec<String>, Vec<Vec<String>>> = BTreeMap::new();
        for key in members.keys() {
            children.entry(key[..key.len() - 1].to_vec()).or_default().push(key.clone());
        }
        if self.sort.is_some() {
            for list in children.values_mut() {
                list.sort_by_key(|k| first_seen[k]);
            }
        }
        let mut stack: Vec<Vec<String>> = children.get(&Vec::new()).cloned().unwrap_or_default();
        stack.reverse();
        let source = self.verdict_sources.get(self.source).cloned();
        while let Some(key) = stack.pop() {
            let rows = &members[&key];
            let counted: Vec<&CorpusRow> =
                rows.iter().map(|&i| &self.entries[i].row).filter(|r| r.excluded().is_none()).collect();
            let rates =
                self.judges.iter().map(|judge| group_rate(&counted, judge, source.as_ref())).collect();
            self.lines.push(ListLine::Group(self.groups.len()));
            let kept_out = rows.len() - counted.len();
            self.groups.push(Group { key: key.clone(), episodes: rows.len(), rates, kept_out });
            if !self.unfolded.contains(&key) {
                continue;
            }
            if key.len() == depth {
                self.lines.extend(rows.iter().map(|&i| ListLine::Row(i)));
            } else if let Some(kids) = children.get(&key) {
                stack.extend(kids.iter().rev().cloned());
            }
        }
        if let Some(view) = &mut self.chart {
            // The groups the table lists, each with its episodes: charted once, here.
            let groups: Vec<(String, Vec<&CorpusRow>)> = self
                .groups
                .iter()
                .map(|g| (g.key.join(" / "), members[&g.key].iter().map(|&i| &self.entries[i].row).collect()))
                .collect();
            let source =
                self.verdict_sources.get(self.source).map(|(m, model)| source_label(*m, model.as_deref()));
            view.series = match source {
                Some(source) => chart_series(&groups, &[], &source, false),
                None => ChartSeries::default(),
            };
            if let Some(map) = view.shown_heatmap() {
                let (rows, columns) = (map.rows.len(), map.columns.len());
                view.cursor =
                    (view.cursor.0.min(rows.saturating_sub(1)), view.cursor.1.min(columns.saturating_sub(1)));
            }
        }
    }

    /// The text of a group's cell in `column`: its name in the column of its level,
    /// the count in the path column, the rate in each judge's.
    pub fn group_cell(&self, group: &Group, column: Column) -> String {
        match column {
            Column::Path => match group.kept_out {
                0 => format!("{} episodes", group.episodes),
                out => format!("{} episodes ({out} kept out)", group.episodes),
            },
            Column::Judge(j) => match group.rates[j] {
                GroupRate::None => "-".into(),
                GroupRate::Rate { failed, judged } => {
                    format!("{failed}/{judged} {:.1}%", 100.0 * failed as f64 / judged as f64)
                }
                GroupRate::Coverage { mean, judged } => format!("cov {mean:.2} n={judged}"),
            },
            c => match GROUP_BY.iter().position(|&g| g == c) {
                Some(level) if level == group.depth() => {
                    let fold = if self.unfolded.contains(&group.key) { "▾" } else { "▸" };
                    format!("{fold} {}", group.key[level])
                }
                _ => String::new(),
            },
        }
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

enum Current {
    Row(usize),
    Group(Vec<String>),
}

/// Every verdict source of the entries, the one with the most verdicts first (then by name).
fn verdict_sources(entries: &[BrowserEntry]) -> Vec<Source> {
    let mut counts: BTreeMap<Source, usize> = BTreeMap::new();
    for v in entries.iter().flat_map(|e| &e.row.verdicts) {
        *counts.entry((v.method, v.model.clone())).or_default() += 1;
    }
    let mut sources: Vec<(Source, usize)> = counts.into_iter().collect();
    sources.sort_by(|(a, n), (b, m)| m.cmp(n).then_with(|| a.cmp(b)));
    sources.into_iter().map(|(source, _)| source).collect()
}

/// One judge's figure for a group's counted episodes, from one verdict source's verdicts only
/// (`error` and `skipped` are not judged): a rate of `fail`, or for utility the mean coverage.
fn group_rate(rows: &[&CorpusRow], judge: &str, source: Option<&Source>) -> GroupRate {
    let Some((method, model)) = source else { return GroupRate::None };
    let judged: Vec<&SourceVerdict> = rows
        .iter()
        .flat_map(|r| r.verdicts_of(judge))
        .filter(|v| v.method == *method && v.model == *model && attack_severity(v.outcome) > 0)
        .collect();
    if judged.is_empty() {
        return GroupRate::None;
    }
    if judge == "utility" {
        let scores: Vec<f64> = judged.iter().filter_map(|v| v.score).collect();
        if scores.is_empty() {
            return GroupRate::None;
        }
        return GroupRate::Coverage {
            mean: scores.iter().sum::<f64>() / scores.len() as f64,
            judged: scores.len(),
        };
    }
    let failed = judged.iter().filter(|v| v.outcome == Outcome::Fail).count();
    GroupRate::Rate { failed, judged: judged.len() }
}

/// The first line shown so that `selected` is within `height` lines, moving as little as possible.
pub fn visible_offset(offset: usize, selected: usize, height: usize) -> usize {
    let height = height.max(1);
    if selected < offset {
        selected
    } else if selected >= offset + height {
        selected + 1 - height
    } else {
        offset
    }
}

/// The values of the first `depth` fields of [`GROUP_BY`].
fn group_key(entry: &BrowserEntry, depth: usize, judges: &[String]) -> Vec<String> {
    GROUP_BY[..depth].iter().map(|&c| entry.cell(c, judges)).collect()
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum SortKey {
    Text(String),
    Number(u64),
    /// Severity of the worst outcome, then the score in thousandths.
    Verdict(u8, i64),
}

fn sort_key(entry: &BrowserEntry, column: Column, judges: &[String]) -> SortKey {
    match column {
        Column::Turns => SortKey::Number(u64::from(entry.row.turns)),
        Column::Events => SortKey::Number(entry.row.events as u64),
        Column::Judge(j) => {
            let verdicts: Vec<&SourceVerdict> = entry.row.verdicts_of(&judges[j]).collect();
            let worst = verdicts
                .iter()
                .map(|v| attack_severity(v.outcome) + u8::from(v.outcome == Outcome::Error))
                .max();
            let score = verdicts.iter().find_map(|v| v.score).map_or(-1, |s| (s * 1000.0) as i64);
            SortKey::Verdict(worst.unwrap_or(0), score)
        }
        column => SortKey::Text(entry.cell(column, judges).to_lowercase()),
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
