//! One episode on the inspector: its view (cursor, panes, verdicts, redaction), the focused pane
//! and its notes. The inspector screen holds one, the compare screen two.

use std::path::PathBuf;

use crate::core::annotate::notes_path;
use crate::core::episode::Episode;

use super::layout::{InspectorLayout, PaneId, TextArea};
use super::loading::Loading;
use super::notes::Notes;
use super::transcript::Transcript;
use super::view::EpisodeView;

pub struct Inspector {
    pub view: EpisodeView,
    pub focus: PaneId,
    pub notes: Notes,
    /// The transcript layout's column (entries name events; the text stays in the view).
    pub transcript: Transcript,
    /// The rest of its journal is still being read (issue 14).
    pub loading: Option<Loading>,
    /// A bad line stopped the reading: the events before it are all there is.
    pub partial: bool,
}

impl Inspector {
    pub fn new(episode: Episode) -> Self {
        Inspector {
            view: EpisodeView::new(episode),
            focus: PaneId::Assistant,
            notes: Notes::default(),
            transcript: Transcript::new(),
            loading: None,
            partial: false,
        }
    }

    /// The notes file of an episode that has a file (the bundled demos have none).
    pub fn notes_file(&self) -> Option<PathBuf> {
        self.view.episode.file().map(notes_path)
    }

    /// Sizes the panes (and the transcript column while it is shown) to `layout`.
    pub fn fit(&mut self, layout: &InspectorLayout, transcript: bool) {
        for (id, mut pane) in self.view.panes_mut() {
            // Above the reply streaming into it, if one is; two columns of indent under each header.
            let (text, _) = layout.text(TextArea::Pane(id));
            pane.set_size(text.width.saturating_sub(2) as usize, text.height as usize);
        }
        // Wrapped only while shown: the panes layout never pays for it.
        if transcript {
            let (column, _) = layout.text(TextArea::Transcript);
            self.transcript.set_size(column.width as usize, column.height as usize);
            self.transcript.settle(&self.view);
        }
    }

    /// Moves the cursor so that `event` is revealed and selects it in its pane (and in the
    /// transcript once it has been laid out; it is settled again after the action).
    pub fn jump_to_event(&mut self, event: usize) {
        let view = &mut self.view;
        if event > view.cursor {
            view.set_cursor(event);
            view.follow_tail = false;
        }
        if self.transcript.viewport > 0 {
            self.transcript.settle(view);
            if let Some(entry) = self.transcript.entry_of_event(event) {
                self.transcript.select(view, entry);
            }
        }
        for id in [PaneId::Attacker, PaneId::Assistant, PaneId::Tools] {
            if let Some(mut pane) = view.pane_mut(id)
                && let Some(item) = pane.item_of_event(event)
            {
                pane.selected = Some(item);
                pane.scroll_to_item(item);
                self.focus = id;
            }
        }
    }
}
