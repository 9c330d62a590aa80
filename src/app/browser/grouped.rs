//! The grouped view (`z`): groups folded and unfolded, their cells, the verdict source their
//! rates count, and the same groups drawn as charts (`c`) and a heatmap.

use std::collections::{BTreeMap, HashMap};

use crate::core::corpus::CorpusRow;
use crate::core::corpus::series::{CHARTED, ChartSeries, chart_series};
use crate::core::episode::JudgeSource;

use super::entry::Column;
use super::group::{ChartView, GROUP_BY, Group, GroupRate, group_key, group_rate, pools};
use super::list::{Browser, ListLine};

impl Browser {
    /// The verdict source the grouped view counts, if any.
    pub fn source(&self) -> Option<&JudgeSource> {
        self.verdict_sources.get(self.source)
    }

    /// The next verdict source for the grouped view's rates.
    pub fn next_source(&mut self) {
        if !self.verdict_sources.is_empty() {
            self.source = (self.source + 1) % self.verdict_sources.len();
            let current = self.current_line();
            self.rebuild(current);
        }
    }

    /// Counts `source`'s verdicts in the grouped view, when some row has that source.
    pub fn prefer_source(&mut self, source: &JudgeSource) {
        let Some(at) = self.verdict_sources.iter().position(|s| s == source) else {
            return;
        };
        if at != self.source {
            self.source = at;
            let current = self.current_line();
            self.rebuild(current);
        }
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
        let key = self.groups.iter().find(|g| &g.label() == label).map(|g| g.key.clone())?;
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
    pub(super) fn build_groups(&mut self) {
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
            let entries: Vec<_> = rows.iter().map(|&i| &self.entries[i]).collect();
            let pools = pools(&entries, key.len() - 1, &self.judges);
            let unjudged = self
                .judges
                .iter()
                .map(|judge| entries.iter().filter(|e| e.row.unjudged().as_ref() == Some(judge)).count())
                .collect();
            self.groups.push(Group {
                key: key.clone(),
                episodes: rows.len(),
                rates,
                kept_out,
                pools,
                unjudged,
            });
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
            // The groups the table lists that are not opened into others (so that no episode is
            // charted twice, in a group and in its parent), each with its episodes and named with
            // what it pools: charted once, here.
            let groups: Vec<(String, Vec<&CorpusRow>)> = self
                .groups
                .iter()
                .filter(|g| g.key.len() == depth || !self.unfolded.contains(&g.key))
                .map(|g| (g.label(), members[&g.key].iter().map(|&i| &self.entries[i].row).collect()))
                .collect();
            view.series = match self.verdict_sources.get(self.source) {
                Some(source) => chart_series(&groups, &[], source, false),
                None => ChartSeries::default(),
            };
            if let Some(map) = view.shown_heatmap() {
                let (rows, columns) = (map.rows.len(), map.columns.len());
                view.cursor =
                    (view.cursor.0.min(rows.saturating_sub(1)), view.cursor.1.min(columns.saturating_sub(1)));
            }
        }
    }
    /// Whether a chart is shown and hides the rows `command` acts on (sort, mark, compare, and
    /// Enter on an episode; Enter still unfolds the selected group, whose parts are then charted,
    /// and on the heatmap lists a cell's episodes).
    pub fn chart_hides(&self, command: crate::config::keymap::Command) -> bool {
        use crate::config::keymap::Command;
        let Some(chart) = &self.chart else { return false };
        match command {
            Command::SortNext | Command::SortReverse | Command::Mark | Command::CompareMarked => true,
            Command::OpenDetail => chart.shown_heatmap().is_none() && self.selected_episode().is_some(),
            _ => false,
        }
    }

    /// A group's path cell in `width` columns: [`Browser::group_cell`]'s, else shorter forms
    /// (`17 ep · pools 4 def, 3 dom`, `17 · pools 4def,3dom`), since that its rates pool
    /// defences or domains must still show.
    pub fn group_path(&self, group: &Group, width: usize) -> String {
        use unicode_width::UnicodeWidthStr;
        let full = self.group_cell(group, Column::Path);
        if full.width() <= width {
            return full;
        }
        let short = |unit: &str, out: &str, tight: bool| {
            let count = match group.kept_out {
                0 => format!("{}{unit}", group.episodes),
                n => format!("{}{unit} ({n} {out})", group.episodes),
            };
            match group.pooled_short(tight) {
                Some(pooled) => format!("{count} · pools {pooled}"),
                None => count,
            }
        };
        let medium = short(" ep", "kept out", false);
        if medium.width() <= width { medium } else { short("", "out", true) }
    }

    /// The text of a group's cell in `column`: its name in the column of its level,
    /// the count in the path column, the rate in each judge's.
    pub fn group_cell(&self, group: &Group, column: Column) -> String {
        match column {
            Column::Path => {
                let count = match group.kept_out {
                    0 => format!("{} episodes", group.episodes),
                    out => format!("{} episodes ({out} kept out)", group.episodes),
                };
                match group.pooled() {
                    Some(pooled) => format!("{count} · pools {pooled}"),
                    None => count,
                }
            }
            Column::Judge(j) => {
                let rate = match group.rates[j] {
                    GroupRate::None => "-".into(),
                    GroupRate::Rate { failed, judged } => {
                        format!("{failed}/{judged} {:.1}%", 100.0 * failed as f64 / judged as f64)
                    }
                    GroupRate::Coverage { mean, judged } => format!("cov {mean:.2} n={judged}"),
                };
                match group.unjudged[j] {
                    0 => rate,
                    n => format!("{rate} +{n} unjudged"),
                }
            }
            c => match GROUP_BY.iter().position(|&g| g == c) {
                Some(level) if level == group.depth() => {
                    let fold = if self.unfolded.contains(&group.key) { "▾" } else { "▸" };
                    format!("{fold} {}", group.key[level])
                }
                _ => String::new(),
            },
        }
    }
}
