//! One episode on the inspector screen: the replay cursor and everything
//! derived from it (pane contents, verdict rows, the turn timeline).
//!
//! Events are only ever appended (live runs), so every index here is built
//! incrementally in [`EpisodeView::push`].

mod episode_view;
mod pane_body;
mod search;
mod verdict_row;
mod verdicts;

pub use episode_view::{EpisodeView, TurnMark};
pub use search::SearchHit;
pub use verdict_row::{VerdictRow, assistant_held, severity};
