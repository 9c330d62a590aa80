//! The inspector screen: one episode's view (replayed, loading, or live), the live run's state,
//! the composer of a human attacker, autoplay, and the geometry of its panes.

use crate::config::Keymap;
use crate::config::ui_state::LayoutMode;
use crate::core::episode::Episode;
use crate::core::llm::Role;

use super::action::Effect;
use super::autoplay::Autoplay;
use super::chrome::Chrome;
use super::composer::Composer;
use super::inspector::Inspector;
use super::layout::{InspectorLayout, PaneId, TextArea, text_area};
use super::live::{LiveState, RunnerControl};
use super::view::EpisodeView;

pub struct InspectorScreen {
    /// The episode shown; none yet while a live run waits for its first event.
    pub inspector: Option<Inspector>,
    /// Set while the episode is a live one.
    pub live: Option<LiveState>,
    pub composer: Composer,
    pub autoplay: Autoplay,
    pub layout: InspectorLayout,
    /// Opened over the fan or the fork tree (an attempt, a fork): Esc closes it, back to them.
    pub over: bool,
}

impl InspectorScreen {
    pub fn new(keymap: &Keymap) -> Self {
        InspectorScreen {
            inspector: None,
            live: None,
            composer: Composer::new(keymap),
            autoplay: Autoplay::default(),
            layout: InspectorLayout::default(),
            over: false,
        }
    }

    /// A live episode: the view appears with the runner's first event.
    pub fn live(keymap: &Keymap, live: LiveState) -> Self {
        InspectorScreen { live: Some(live), ..InspectorScreen::new(keymap) }
    }

    /// Puts `episode` on screen in place of the one there (its load warnings on the status line),
    /// and asks for its notes.
    pub fn show(&mut self, episode: Episode, chrome: &mut Chrome) {
        chrome.message = super::chrome::warning_line(&episode.warnings);
        let inspector = Inspector::new(episode);
        if let Some(path) = inspector.notes_file() {
            chrome.effect(Effect::LoadNotes(path));
        }
        self.inspector = Some(inspector);
    }

    /// The episode's view.
    pub fn view(&self) -> Option<&EpisodeView> {
        self.inspector.as_ref().map(|i| &i.view)
    }

    pub fn view_mut(&mut self) -> Option<&mut EpisodeView> {
        self.inspector.as_mut().map(|i| &mut i.view)
    }

    /// The episode on screen is `id`.
    pub fn shows(&self, id: &str) -> bool {
        self.view().is_some_and(|v| v.episode.id() == id)
    }

    /// A live run that has not ended.
    pub fn running(&self) -> bool {
        self.live.as_ref().is_some_and(|l| !l.finished)
    }

    /// Moves the replay cursor; a manual move stops autoplay.
    pub fn move_cursor(&mut self, cursor: usize) {
        if let Some(view) = self.view_mut() {
            if cursor < view.last() {
                view.follow_tail = false;
            }
            view.set_cursor(cursor);
        }
        self.autoplay.playing = false;
    }

    /// Steers the runner (through the loop); the gate reports back what it became.
    pub fn control_runner(&self, control: RunnerControl, chrome: &mut Chrome) {
        if self.running() {
            chrome.effect(Effect::Control(control));
        }
    }

    /// Whether time matters here (autoplay, or the elapsed clock of a live run).
    pub fn wants_ticks(&self) -> bool {
        self.autoplay.playing || self.live.as_ref().is_some_and(LiveState::clock_runs)
    }

    /// Width of the pane (or the transcript column) a streamed reply shows in.
    pub fn stream_width(&self, mode: LayoutMode) -> usize {
        let area = match mode {
            LayoutMode::Panes => self.layout.assistant,
            LayoutMode::Transcript => self.layout.main,
        };
        text_area(area).width.saturating_sub(2) as usize
    }

    /// The text area a reply streams into (the attacker's pane for the attacker, the assistant's
    /// for the others, or the transcript column) and the rows it takes at its bottom.
    fn stream_split(&self, mode: LayoutMode) -> Option<(TextArea, u16)> {
        let stream = self.live.as_ref()?.streaming.as_ref()?;
        let target = match (mode, stream.role) {
            (LayoutMode::Transcript, _) => TextArea::Transcript,
            (LayoutMode::Panes, Role::Attacker) => TextArea::Pane(PaneId::Attacker),
            (LayoutMode::Panes, _) => TextArea::Pane(PaneId::Assistant),
        };
        let height = self.layout.text(target).0.height;
        Some((target, stream_rows(stream.lines.len(), height)))
    }

    /// Recomputes the geometry (terminal size, composer shown or not) and rewraps what depends on it.
    pub fn relayout(&mut self, chrome: &Chrome) {
        let height = chrome.area.height;
        let composer_rows = if self.composer.is_open() { (height / 5).clamp(5, 9) } else { 0 };
        let mode = chrome.layout_mode();
        self.layout = InspectorLayout::new(chrome.area, composer_rows);
        self.layout.stream = self.stream_split(mode);
        if let Some(inspector) = &mut self.inspector {
            inspector.fit(&self.layout, mode == LayoutMode::Transcript);
        }
        let stream_width = self.stream_width(mode);
        if let Some(live) = &mut self.live {
            live.set_stream_width(stream_width);
        }
    }
}

/// Rows a streaming reply of `lines` lines takes at the bottom of a text area `height` rows high.
fn stream_rows(lines: usize, height: u16) -> u16 {
    (lines.min(usize::from(u16::MAX) - 1) as u16 + 1).min(height / 2).max(2).min(height)
}
