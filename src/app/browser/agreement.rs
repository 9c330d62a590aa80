//! The agreement review opened over the shown rows, and the reviewer's own verdicts placed in
//! the rows when an episode's notes change.

use std::path::Path;

use crate::core::corpus::agreement::{Disagreement, disagreements};
use crate::core::corpus::filter::haystack;
use crate::core::corpus::{CorpusRow, SourceVerdict};
use crate::core::episode::VerdictMethod;

use super::entry::EntrySource;
use super::list::Browser;
use super::review::Review;

impl Browser {
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
}
