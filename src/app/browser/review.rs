//! The agreement review (`A`): the questions two verdict sources answered differently, and what
//! to do once an episode opened from it is loaded.

use crate::core::corpus::agreement::Disagreement;

/// The agreement review list.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    /// The disagreements shown: those of `all` the filter keeps. Rows index `Browser::entries`.
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
                let text = format!("{} {} {}", d.judge, d.a.source(), d.b.source()).to_lowercase();
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
