//! Everything the screen shows, and nothing the terminal owns: the navigation stack of screens,
//! each with its own state, and the chrome they share. Only `app` changes it: the entry points
//! build it with the constructors here, `update` does the rest.

use std::path::PathBuf;

use crate::config::Keymap;
use crate::config::keymap::Layer;
use crate::config::ui_state::{LayoutMode, UiState};
use crate::core::dataset::TaskLookup;
use crate::core::episode::Episode;
use crate::session::journal_load::LoadId;

use super::action::Effect;
use super::browser::{Browser, EntrySource};
use super::chrome::{Chrome, position_key};
use super::compare::CompareScreen;
use super::fan::FanView;
use super::hits::HitList;
use super::inspector::Inspector;
use super::inspector_screen::InspectorScreen;
use super::layout::{InspectorLayout, PaneId};
use super::live::LiveState;
use super::overlay::Overlay;
use super::screen::Screen;
use super::stack::Stack;
use super::task_picker::TaskPicker;
use super::view::EpisodeView;

pub struct AppState {
    pub(super) stack: Stack,
    pub(super) chrome: Chrome,
}

/// Constructors, one per way a screen starts.
impl AppState {
    fn of(first: Screen, chrome: Chrome) -> Self {
        AppState { stack: Stack::new(first), chrome }
    }

    /// One episode on the inspector screen (its load warnings on the status line).
    pub fn with_episode(episode: Episode, keymap: Keymap) -> Self {
        let mut chrome = Chrome::new(keymap);
        let mut screen = InspectorScreen::new(&chrome.keymap);
        screen.show(episode, &mut chrome);
        AppState::of(Screen::Inspector(Box::new(screen)), chrome)
    }

    /// A browser over several episodes; `open_first` also opens the first on the inspector.
    pub fn with_browser(browser: Browser, keymap: Keymap, open_first: bool) -> Self {
        // Only an episode in memory: construction does no I/O.
        let first = match browser.sources.first() {
            Some(EntrySource::Loaded(first)) if open_first => Some((**first).clone()),
            _ => None,
        };
        let mut state = AppState::of(Screen::Browser(Box::new(browser)), Chrome::new(keymap));
        if let Some(first) = first {
            state.open_episode(first);
        }
        state
    }

    /// A browser that fills as the corpus under `paths` is indexed (its cache in `cache`).
    pub fn indexing(browser: Browser, keymap: Keymap, paths: Vec<PathBuf>, cache: Option<PathBuf>) -> Self {
        let mut state = AppState::with_browser(browser, keymap, false);
        state.chrome.effect(Effect::IndexCorpus { paths, cache });
        state
    }

    /// A live episode of the journal `journal`: the view appears with the runner's first event;
    /// `human`, the person at the keyboard plays the attacker.
    pub fn live(keymap: Keymap, journal: impl Into<String>, paused: bool, human: bool) -> Self {
        let chrome = Chrome::new(keymap);
        let mut live = LiveState::new(journal, paused);
        live.human = human;
        AppState::of(Screen::Inspector(Box::new(InspectorScreen::live(&chrome.keymap, live))), chrome)
    }

    /// Two episodes side by side on the compare screen, as `compare A B` opens them.
    pub fn comparing(a: Episode, b: Episode, keymap: Keymap) -> Self {
        let mut chrome = Chrome::new(keymap);
        let compare = CompareScreen::new(a, b, &mut chrome);
        AppState::of(Screen::Compare(Box::new(compare)), chrome)
    }

    /// With the task picker (`t`), kept under the screens until shown; its tasks' profiles are
    /// those redaction masks.
    pub fn with_picker(mut self, picker: TaskPicker) -> Self {
        self.chrome.dataset.tasks = picker.tasks.clone();
        self.stack.retain(|s| s.kind() != Layer::Picker);
        self.stack.put_under(Screen::Tasks(Box::new(picker)));
        self
    }

    /// With the task picker shown.
    pub fn picking(mut self) -> Self {
        self.stack.show(Layer::Picker);
        self
    }

    /// With the dataset an imported episode's task is looked up in.
    pub fn with_tasks(mut self, tasks: TaskLookup) -> Self {
        self.chrome.dataset.lookup = std::sync::Arc::new(tasks);
        self
    }

    /// With who annotations are recorded as.
    pub fn with_author(mut self, author: String) -> Self {
        self.chrome.prefs.author = author;
        self
    }

    /// With what was remembered last time (the layout, the browser's verdict source), written
    /// back to `file` when it changes.
    pub fn with_ui_state(mut self, remembered: UiState, file: Option<PathBuf>) -> Self {
        if let (Some(label), Some(browser)) = (&remembered.verdict_source, self.stack.find_mut::<Browser>()) {
            browser.prefer_source(label);
        }
        self.chrome.prefs.ui = remembered;
        self.chrome.prefs.file = file;
        self
    }

    /// With the inspector's layout (panes or transcript).
    pub fn with_layout(mut self, layout: LayoutMode) -> Self {
        self.chrome.prefs.ui.layout = layout;
        self
    }

    /// With this on the status line.
    pub fn with_message(mut self, message: Option<String>) -> Self {
        self.chrome.message = message;
        self
    }

    /// Autoplay on (the demo).
    pub fn playing(mut self) -> Self {
        if let Some(screen) = self.stack.find_mut::<InspectorScreen>() {
            screen.autoplay.toggle();
        }
        self
    }

    /// The browser on its agreement review (when there is a browser).
    pub fn reviewing(mut self) -> Self {
        if let Some(browser) = self.stack.find_mut::<Browser>() {
            browser.open_review();
            self.stack.show(Layer::Browser);
        }
        self
    }

    /// The episode on screen is the start of a journal whose rest is still being read by `load`
    /// (`read` of `total` bytes so far): it arrives as [`super::Action::Loaded`] batches.
    pub fn loading_rest(&mut self, load: LoadId, read: u64, total: u64) {
        if let Some(inspector) = self.inspector_mut() {
            inspector.loading =
                Some(super::loading::Loading { load, ..super::loading::Loading::new(read, total) });
        }
    }
}

/// What is on screen, for the loop, the drawing and the tests.
impl AppState {
    pub fn stack(&self) -> &Stack {
        &self.stack
    }

    pub fn chrome(&self) -> &Chrome {
        &self.chrome
    }

    /// The screen on top.
    pub fn screen(&self) -> Layer {
        self.stack.kind()
    }

    /// The layer that has the keys now: the top overlay, else the screen on top (the composer
    /// when it has focus).
    pub fn layer(&self) -> Layer {
        match self.overlay() {
            Some(Overlay::Prompt(_) | Overlay::Annotate(_)) => Layer::Form,
            Some(Overlay::ConfirmQuit { .. } | Overlay::ConfirmDelete) => Layer::Confirm,
            Some(Overlay::TakeOver { .. }) => Layer::TakeOver,
            Some(Overlay::Help { .. } | Overlay::Detail(_) | Overlay::Annotations { .. }) => Layer::Overlay,
            None => self.stack.top().layer(),
        }
    }

    /// The top of the modal stack.
    pub fn overlay(&self) -> Option<&Overlay> {
        self.chrome.overlay()
    }

    pub fn overlays(&self) -> &[Overlay] {
        &self.chrome.overlays
    }

    /// The note on the status line.
    pub fn message(&self) -> Option<&str> {
        self.chrome.message.as_deref()
    }

    pub fn layout_mode(&self) -> LayoutMode {
        self.chrome.layout_mode()
    }

    /// The last search in an episode (`/`).
    pub fn last_search(&self) -> &str {
        &self.chrome.recall.last_search
    }

    pub fn browser(&self) -> Option<&Browser> {
        self.stack.find()
    }

    pub fn browser_mut(&mut self) -> Option<&mut Browser> {
        self.stack.find_mut()
    }

    pub fn hits(&self) -> Option<&HitList> {
        self.stack.find()
    }

    pub fn fan(&self) -> Option<&FanView> {
        self.stack.find()
    }

    pub fn compare(&self) -> Option<&CompareScreen> {
        self.stack.find()
    }

    /// The topmost inspector screen.
    pub fn inspector_screen(&self) -> Option<&InspectorScreen> {
        self.stack.find()
    }

    /// The geometry of the topmost inspector screen.
    pub fn inspector_layout(&self) -> InspectorLayout {
        self.inspector_screen().map(|s| s.layout).unwrap_or_default()
    }

    /// The episode on the topmost inspector screen.
    pub fn inspector(&self) -> Option<&Inspector> {
        self.inspector_screen()?.inspector.as_ref()
    }

    pub fn inspector_mut(&mut self) -> Option<&mut Inspector> {
        self.stack.find_mut::<InspectorScreen>()?.inspector.as_mut()
    }

    pub fn view(&self) -> Option<&EpisodeView> {
        self.inspector().map(|i| &i.view)
    }

    pub fn view_mut(&mut self) -> Option<&mut EpisodeView> {
        self.inspector_mut().map(|i| &mut i.view)
    }

    /// The focused pane of the episode on the inspector.
    pub fn focus(&self) -> PaneId {
        self.inspector().map_or(PaneId::Assistant, |i| i.focus)
    }

    /// The live run on an inspector screen, if there is one.
    pub fn live_run(&self) -> Option<&LiveState> {
        self.stack.iter().find_map(|s| match s {
            Screen::Inspector(screen) => screen.live.as_ref(),
            _ => None,
        })
    }

    /// Whether time matters now (autoplay on the screen shown, or the clock of a live run).
    pub fn wants_ticks(&self) -> bool {
        let playing = self.stack.top_state::<InspectorScreen>().is_some_and(|s| s.autoplay.playing);
        playing || self.live_run().is_some_and(LiveState::clock_runs)
    }

    /// Whether a journal is still being read for any episode held.
    pub fn loading(&self) -> bool {
        self.stack.episodes().any(|i| i.loading.is_some())
    }
}

/// Verbs of more than one screen.
impl AppState {
    /// Shows an episode on the inspector in place of the one there (opened from the browser, a
    /// search hit, or the fan's origin), where it was left if it was open before.
    pub fn open_episode(&mut self, mut episode: Episode) {
        self.chrome.enrich(&mut episode);
        let left_at = self.chrome.recall.left_at.get(&position_key(&episode)).copied();
        if !self.stack.show(Layer::Inspector) {
            self.stack.push(Screen::Inspector(Box::new(InspectorScreen::new(&self.chrome.keymap))));
        }
        let chrome = &mut self.chrome;
        let Some(screen) = self.stack.top_state_mut::<InspectorScreen>() else { return };
        remember_position(screen, chrome);
        screen.show(episode, chrome);
        screen.autoplay.playing = false;
        if let (Some(cursor), Some(view)) = (left_at, screen.view_mut()) {
            view.set_cursor(cursor);
        }
    }

    /// Opens an episode over the screen on top (the fan, the fork tree): Esc closes it.
    pub fn open_over(&mut self, mut episode: Episode) {
        self.chrome.enrich(&mut episode);
        let mut screen = InspectorScreen::new(&self.chrome.keymap);
        screen.over = true;
        screen.show(episode, &mut self.chrome);
        self.stack.push(Screen::Inspector(Box::new(screen)));
    }

    /// Recomputes geometry (terminal size, composer shown or not) and rewraps what depends on
    /// it, on every screen; `update` calls it once, after every action. Cheap when nothing changed.
    pub(super) fn relayout(&mut self) {
        for screen in self.stack.iter_mut() {
            screen.relayout(&self.chrome);
        }
        let detail = self.chrome.detail_area();
        let (detail_width, detail_rows) =
            (detail.width.saturating_sub(3) as usize, detail.height.saturating_sub(2));
        for overlay in &mut self.chrome.overlays {
            if let Overlay::Detail(detail) = overlay {
                detail.set_size(detail_width, detail_rows as usize);
            }
        }
    }
}

/// Notes where the episode on `screen` was left, before another one replaces it.
fn remember_position(screen: &InspectorScreen, chrome: &mut Chrome) {
    if let Some(view) = screen.view()
        && screen.live.is_none()
    {
        chrome.recall.left_at.insert(position_key(&view.episode), view.cursor);
    }
}
