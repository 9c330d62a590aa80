//! Everything the screen shows, and nothing the terminal owns.

use ratatui::layout::Rect;

use crate::config::Keymap;
use crate::core::episode::Episode;

use super::autoplay::Autoplay;
use super::browser::Browser;
use super::detail::Detail;
use super::layout::{InspectorLayout, PaneId, popup, text_area};
use super::view::EpisodeView;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Inspector,
    Browser,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    JumpToTurn,
    Search,
    Filter,
}

impl PromptKind {
    pub fn label(self) -> &'static str {
        match self {
            PromptKind::JumpToTurn => "jump to turn",
            PromptKind::Search => "search",
            PromptKind::Filter => "filter",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub input: String,
}

pub enum Overlay {
    Help { scroll: usize },
    Detail(Detail),
    Prompt(Prompt),
}

pub struct AppState {
    pub screen: Screen,
    pub overlay: Option<Overlay>,
    pub view: Option<EpisodeView>,
    pub browser: Option<Browser>,
    pub focus: PaneId,
    pub autoplay: Autoplay,
    pub keymap: Keymap,
    /// The terminal area; set by `Action::Resize`.
    pub area: Rect,
    pub layout: InspectorLayout,
    /// A transient note for the status line ("no match", "no turn 12").
    pub message: Option<String>,
    /// The last search, so `/` Enter repeats it.
    pub last_search: String,
    pub quit: bool,
}

impl AppState {
    fn empty(keymap: Keymap) -> Self {
        AppState {
            screen: Screen::Inspector,
            overlay: None,
            view: None,
            browser: None,
            focus: PaneId::Assistant,
            autoplay: Autoplay::default(),
            keymap,
            area: Rect::default(),
            layout: InspectorLayout::default(),
            message: None,
            last_search: String::new(),
            quit: false,
        }
    }

    /// One episode on the inspector screen.
    pub fn with_episode(episode: Episode, keymap: Keymap) -> Self {
        let mut state = AppState::empty(keymap);
        state.view = Some(EpisodeView::new(episode));
        state
    }

    /// A browser over several episodes; `open_first` also opens the first on the inspector.
    pub fn with_browser(browser: Browser, keymap: Keymap, open_first: bool) -> Self {
        let mut state = AppState::empty(keymap);
        state.screen = Screen::Browser;
        if open_first && let Some(first) = browser.episodes.first() {
            state.view = Some(EpisodeView::new(first.clone()));
            state.screen = Screen::Inspector;
        }
        state.browser = Some(browser);
        state
    }

    /// Recomputes geometry for a new terminal size and rewraps what depends on it.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.area = Rect::new(0, 0, width, height);
        self.layout = InspectorLayout::new(self.area);
        let layout = self.layout;
        if let Some(view) = &mut self.view {
            for (id, pane) in view.panes_mut() {
                let text = text_area(layout.pane(id));
                // Two columns of indent under each item header.
                pane.set_size(text.width.saturating_sub(2) as usize, text.height as usize);
            }
        }
        let detail_width = self.detail_area().width.saturating_sub(3) as usize;
        if let Some(Overlay::Detail(detail)) = &mut self.overlay {
            detail.set_width(detail_width);
        }
    }

    /// The area of the detail and help overlays.
    pub fn detail_area(&self) -> Rect {
        popup(self.area, 90, 90)
    }

    /// Rows of text the detail overlay shows.
    pub fn detail_viewport(&self) -> usize {
        self.detail_area().height.saturating_sub(2) as usize
    }
}
