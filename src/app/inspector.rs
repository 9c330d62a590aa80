//! One episode on the inspector: its view (cursor, panes, verdicts), the focused pane, its notes
//! and its redaction. A screen may hold several (side by side); `AppState` keeps them in a list.

use std::path::PathBuf;

use crate::core::annotate::notes_path;
use crate::core::episode::Episode;
use crate::core::redact::Redactor;

use super::layout::PaneId;
use super::notes::Notes;
use super::view::EpisodeView;

pub struct Inspector {
    pub view: EpisodeView,
    pub focus: PaneId,
    pub notes: Notes,
    /// While redaction is on: the masker, and the episode as it really is.
    pub redaction: Option<(Redactor, Episode)>,
}

impl Inspector {
    pub fn new(episode: Episode) -> Self {
        Inspector {
            view: EpisodeView::new(episode),
            focus: PaneId::Assistant,
            notes: Notes::default(),
            redaction: None,
        }
    }

    /// The notes file of an episode that has a file (the bundled demos have none).
    pub fn notes_file(&self) -> Option<PathBuf> {
        let origin = &self.view.episode.origin;
        (!origin.is_empty() && !origin.starts_with("demo:")).then(|| notes_path(std::path::Path::new(origin)))
    }
}
