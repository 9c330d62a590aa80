//! The verdict rows at the cursor (the latest verdict of each judge, the reviewers' labels,
//! disagreements) and the evidence they quote, highlighted in the panes.

use crate::core::episode::{EventBody, Outcome, Verdict};
use crate::core::judge::standing::supersedes;
use crate::core::sanitize::{inert, single_line};
use crate::core::text::byte_of_char;

use super::episode_view::EpisodeView;
use super::pane_body::pane_body;
use super::verdict_row::{VerdictRow, assistant_held, worse};

impl EpisodeView {
    pub(super) fn refresh_verdicts(&mut self) {
        let mut rows: Vec<VerdictRow> = Vec::new();
        let events = &self.episode.events;
        for (i, event) in events[..=self.cursor.min(self.last())].iter().enumerate() {
            if let EventBody::Verdict(v) = &event.body {
                match rows
                    .iter_mut()
                    .find(|r| r.judge == v.judge && r.method == v.method && r.model == v.model)
                {
                    // An `error` or `skipped` verdict never hides an answer (a re-judge that failed).
                    Some(row) => {
                        if let EventBody::Verdict(old) = &events[row.event].body
                            && supersedes((v.outcome, v.method), (old.outcome, old.method))
                        {
                            row.event = i;
                        }
                    }
                    None => rows.push(VerdictRow {
                        event: i,
                        judge: v.judge.clone(),
                        method: v.method,
                        model: v.model.clone(),
                        disagrees: false,
                        human: None,
                        summary: String::new(),
                    }),
                }
            }
        }
        for (target, verdict) in self.human.iter().filter(|(target, _)| *target <= self.cursor) {
            let row = VerdictRow {
                event: *target,
                judge: verdict.judge.clone(),
                method: verdict.method,
                model: verdict.model.clone(),
                disagrees: false,
                human: Some(verdict.clone()),
                summary: String::new(),
            };
            match rows.iter_mut().find(|r| r.human.is_some() && r.judge == verdict.judge) {
                Some(existing) => *existing = row,
                None => rows.push(row),
            }
        }
        // Rows on the same question (judge name) whose methods reach opposite conclusions.
        let held: Vec<Option<bool>> =
            rows.iter().map(|r| self.row_verdict(r).and_then(|v| assistant_held(v.outcome))).collect();
        for i in 0..rows.len() {
            rows[i].disagrees = held[i].is_some()
                && (0..rows.len())
                    .any(|j| rows[j].judge == rows[i].judge && held[j].is_some() && held[j] != held[i]);
        }
        for row in &mut rows {
            let summary = self.row_verdict(row).and_then(|v| v.summary.as_deref()).unwrap_or("");
            row.summary = single_line(&self.masked(summary)).into_owned();
        }
        self.verdict_rows = rows;
        self.verdict_selected = self.verdict_selected.min(self.verdict_rows.len().saturating_sub(1));
        self.refresh_highlights();
    }

    /// Marks the evidence spans of the verdicts shown at the cursor.
    fn refresh_highlights(&mut self) {
        for pane in &mut self.panes {
            for item in &mut pane.items {
                item.clear_highlights();
            }
        }
        // Evidence spans index the real text; the masks shift it.
        if self.mask.is_some() {
            return;
        }
        for row in &self.verdict_rows {
            let EventBody::Verdict(v) = &self.episode.events[row.event].body else {
                continue;
            };
            let Some(evidence) = &v.evidence else {
                continue;
            };
            let (Some(start), Some(end)) = (evidence.start, evidence.end) else {
                continue;
            };
            let Some(target) = self.episode.position_of(evidence.seq) else {
                continue;
            };
            let Some(text) = self.episode.events.get(target).and_then(|e| e.body.text()) else {
                continue;
            };
            let Some((slot, _)) = pane_body(&self.episode.events[target].body, None) else {
                continue;
            };
            let pane = &mut self.panes[slot];
            if let Some(item) = pane.item_of_event(target) {
                let range = sanitized_byte_range(text, start, end);
                pane.items[item].add_highlight(range);
            }
        }
    }

    /// Reviewers' labels to show with the judges' verdicts.
    pub fn set_human_verdicts(&mut self, verdicts: Vec<(usize, Verdict)>) {
        self.human = verdicts
            .into_iter()
            .filter(|(target, _)| *target < self.episode.events.len())
            .map(|(target, mut v)| {
                v.turn = Some(self.turn_at(target));
                (target, v)
            })
            .collect();
        self.refresh_verdicts();
    }

    /// The verdict a row shows.
    pub fn row_verdict<'a>(&'a self, row: &'a VerdictRow) -> Option<&'a Verdict> {
        match (&row.human, &self.episode.events[row.event].body) {
            (Some(v), _) => Some(v),
            (None, EventBody::Verdict(v)) => Some(v),
            _ => None,
        }
    }

    /// The worst outcome among the verdict rows at the cursor.
    pub fn worst_outcome(&self) -> Option<Outcome> {
        self.verdict_rows.iter().fold(None, |acc, row| match &self.episode.events[row.event].body {
            EventBody::Verdict(v) => Some(worse(acc, v.outcome)),
            _ => acc,
        })
    }
}

/// Maps a char span of the original text to a byte span of its sanitized form.
fn sanitized_byte_range(text: &str, start: usize, end: usize) -> std::ops::Range<usize> {
    let (start, end) = (byte_of_char(text, start), byte_of_char(text, end.max(start)));
    // Sanitizing works char by char, so the sanitized prefix gives the offset.
    let s = inert(&text[..start]).len();
    s..s + inert(&text[start..end]).len()
}
