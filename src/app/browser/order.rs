//! Which rows the browser shows and in what order: the filter (`/`) and the sort (`s`, `S`).

use crate::core::corpus::SourceVerdict;
use crate::core::corpus::filter::Filter;
use crate::core::episode::{Judge, Outcome};

use super::entry::{BrowserEntry, Column};
use super::list::Browser;

impl Browser {
    /// Filters by `filter` (fields and free words); a filter that does not parse, or names a
    /// verdict source that gave no verdict here, keeps the list as it was and says why in
    /// `filter_error` (shown on the status line, the prompt open or not).
    pub fn set_filter(&mut self, filter: String) {
        let current = self.current_line();
        self.filter = filter;
        // As the command line does: a term naming a source that gave no verdict here is an error,
        // never an empty list.
        let checked = |f: Filter| f.check_sources(&self.verdict_sources).map(|()| f);
        match Filter::parse(&self.filter, &self.judges).and_then(checked) {
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

    pub(super) fn sort_shown(&mut self) {
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
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum SortKey {
    Text(String),
    Number(u64),
    /// Severity of the worst outcome; whether every source says it (a disputed row is less sure);
    /// then the score in thousandths, negated: a lower score is a worse leak (none: least).
    Verdict(u8, bool, i64),
}

fn sort_key(entry: &BrowserEntry, column: Column, judges: &[Judge]) -> SortKey {
    match column {
        // Not known sorts before any number.
        Column::Turns => SortKey::Number(entry.row.turns.map_or(0, |n| u64::from(n) + 1)),
        Column::Events => SortKey::Number(entry.row.events.map_or(0, |n| n as u64 + 1)),
        Column::Judge(j) => {
            let verdicts: Vec<&SourceVerdict> = entry.row.verdicts_of(&judges[j]).collect();
            let rank = |v: &&SourceVerdict| v.outcome.severity() + u8::from(v.outcome == Outcome::Error);
            let worst = verdicts.iter().map(rank).max();
            let unanimous = verdicts.iter().all(|v| Some(rank(v)) == worst);
            let score = verdicts.iter().find_map(|v| v.score).map_or(i64::MIN, |s| -(s * 1000.0) as i64);
            SortKey::Verdict(worst.unwrap_or(0), unanimous, score)
        }
        column => SortKey::Text(entry.cell(column, judges).to_lowercase()),
    }
}
