//! The results of a search across episodes: the hits in path order, the one selected, and the
//! one opened on the inspector (which `NextHit` / `PrevHit` step from).

use crate::core::search::{Hit, Query};

use crate::config::keymap::Layer;

pub struct HitList {
    pub query: Query,
    /// Empty while the search runs.
    pub hits: Vec<Hit>,
    /// The search is still running off the UI thread.
    pub running: bool,
    /// Files searched.
    pub files: usize,
    /// Files that could not be read (`path:line: problem`).
    pub errors: Vec<String>,
    pub selected: usize,
    /// The hit shown on the inspector (or being loaded for it).
    pub opened: Option<usize>,
    /// The opened hit's episode is being loaded from its file.
    pub loading: bool,
    /// The screen the search was started from, where `Esc` goes back to.
    pub back: Layer,
}

impl HitList {
    pub fn running(query: Query, back: Layer) -> Self {
        HitList {
            query,
            hits: Vec::new(),
            running: true,
            files: 0,
            errors: Vec::new(),
            selected: 0,
            opened: None,
            loading: false,
            back,
        }
    }

    pub fn select_by(&mut self, delta: isize) {
        if self.hits.is_empty() {
            return;
        }
        self.selected = (self.selected as isize + delta).clamp(0, self.hits.len() as isize - 1) as usize;
    }

    /// How many distinct episodes the hits are in.
    pub fn episodes(&self) -> usize {
        let mut n = 0;
        let mut last: Option<(&std::path::Path, &str)> = None;
        for hit in &self.hits {
            let key = (hit.path.as_path(), hit.episode.as_str());
            if last != Some(key) {
                n += 1;
                last = Some(key);
            }
        }
        n
    }

    /// The text the pattern matched in hit `index` (its first match), for highlighting.
    pub fn matched(&self, index: usize) -> Option<&str> {
        let hit = self.hits.get(index)?;
        hit.spans.first().and_then(|s| hit.line.get(s.clone()))
    }
}
