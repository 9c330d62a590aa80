//! The selected line, the marks for comparing (`m`) and the lines on screen.

use super::list::{Browser, ListLine};

impl Browser {
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
    /// The rows the list (or the review) has on a terminal `area_height` rows high: what its
    /// frame, title, status line and up to three error lines leave.
    pub fn list_height(&self, area_height: u16) -> usize {
        let errors = self.errors.len().min(3) as u16;
        area_height.saturating_sub(super::LIST_CHROME + errors + 1).max(1) as usize
    }

    /// Keeps the selection within `height` lines from `offset`.
    pub fn scroll_into_view(&mut self, height: usize) {
        self.offset = visible_offset(self.offset, self.selected, height);
        if let Some(review) = &mut self.review {
            review.offset = visible_offset(review.offset, review.selected, height);
        }
    }
}

/// The first line shown so that `selected` is within `height` lines, moving as little as possible.
fn visible_offset(offset: usize, selected: usize, height: usize) -> usize {
    let height = height.max(1);
    if selected < offset {
        selected
    } else if selected >= offset + height {
        selected + 1 - height
    } else {
        offset
    }
}
