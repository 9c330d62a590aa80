//! Searching the episode's text (`/`): the next match after the cursor, and every match
//! highlighted in the panes.

use crate::core::episode::EventBody;

use super::episode_view::EpisodeView;

/// Where a search landed: event index, and which match of how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchHit {
    pub event: usize,
    /// 1-based.
    pub nth: usize,
    pub of: usize,
    /// Past the last match: started again from the top.
    pub wrapped: bool,
}

impl EpisodeView {
    /// The next event after the cursor whose text contains `query` (any case),
    /// wrapping around; and highlights the matches in the panes.
    pub fn search(&mut self, query: &str) -> Option<SearchHit> {
        let needle = query.to_lowercase();
        self.highlight_matches(&needle);
        self.search = Some(needle.clone());
        let hits: Vec<usize> = (0..self.episode.events.len())
            .filter(|&i| event_search_text(&self.episode.events[i].body).to_lowercase().contains(&needle))
            .collect();
        let after = hits.iter().position(|&i| i > self.cursor);
        let index = after.unwrap_or(0);
        let &event = hits.get(index)?;
        Some(SearchHit { event, nth: index + 1, of: hits.len(), wrapped: after.is_none() })
    }

    pub(super) fn highlight_matches(&mut self, needle: &str) {
        let events = &self.episode.events;
        for pane in &mut self.panes {
            for item in &mut pane.items {
                item.set_matches(find_ignoring_case(item.text(events), needle));
            }
        }
    }

    /// Marks the search's matches in the last item of pane `slot`, just added.
    pub(super) fn match_last_item(&mut self, slot: usize) {
        let events = &self.episode.events;
        if let (Some(query), Some(item)) = (&self.search, self.panes[slot].items.last_mut()) {
            item.set_matches(find_ignoring_case(item.text(events), query));
        }
    }
}

fn event_search_text(body: &EventBody) -> String {
    match body {
        EventBody::Message(m) => m.text.clone(),
        EventBody::ToolCall(c) => format!("{} {}", c.tool, c.args),
        EventBody::ToolResult(r) => format!("{} {}", r.tool, r.output),
        EventBody::Verdict(v) => format!("{} {}", v.judge, v.summary.as_deref().unwrap_or("")),
        EventBody::Error(e) => e.message.clone(),
        _ => String::new(),
    }
}

/// Byte ranges of `text` where `needle` (lowercase) occurs in any case. Where
/// lowercasing changes byte lengths, only exact-case matches are found.
fn find_ignoring_case(text: &str, needle: &str) -> Vec<std::ops::Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    let lower = text.to_lowercase();
    let haystack = if lower.len() == text.len() { lower.as_str() } else { text };
    haystack.match_indices(needle).map(|(at, m)| at..at + m.len()).collect()
}
