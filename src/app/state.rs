//! Everything the screen shows, and nothing the terminal owns.

use ratatui::layout::Rect;

use crate::config::Keymap;
use crate::config::keymap::Layer;
use crate::config::ui_state::LayoutMode;
use crate::core::episode::Episode;
use crate::core::llm::Role;
use crate::core::redact::Redactor;
use crate::core::redact_episode::redactor_from_episode;

use super::action::{Effect, FollowUp};
use super::autoplay::Autoplay;
use super::browser::{Browser, EntrySource};
use super::composer::Composer;
use super::inspector::Inspector;
use super::layout::{InspectorLayout, PaneId, TextArea, popup, task_columns, text_area};
use super::live::{LiveState, RunnerControl};
use super::task_picker::TaskPicker;
use super::view::EpisodeView;

pub use super::screen::{Overlay, Prompt, PromptKind, Screen};

pub struct AppState {
    pub screen: Screen,
    /// The modal stack: the last one has the keys.
    pub overlays: Vec<Overlay>,
    /// The episodes on the inspector; `active` is the one keys go to.
    pub inspectors: Vec<Inspector>,
    pub active: usize,
    pub browser: Option<Browser>,
    pub picker: Option<TaskPicker>,
    /// The last search across episodes, while it runs and after.
    pub hits: Option<super::hits::HitList>,
    /// Set while a live episode is on screen.
    pub live: Option<LiveState>,
    pub composer: Composer,
    /// Recorded as the author of annotations.
    pub author: String,
    pub autoplay: Autoplay,
    pub keymap: Keymap,
    /// The terminal area; set by `Action::Resize`.
    pub area: Rect,
    pub layout: InspectorLayout,
    /// A transient note for the status line ("no match", "no turn 12").
    pub message: Option<String>,
    /// The last search, so `/` Enter repeats it.
    pub last_search: String,
    /// The suite the last attack case was kept in (`K`), offered again.
    pub last_suite: String,
    /// Where each episode opened from the browser was left (by [`position_key`]), to return there.
    pub left_at: std::collections::HashMap<String, usize>,
    pub quit: bool,
    /// Effects queued by the handlers of the current action.
    pub effects: Vec<Effect>,
    /// Requests of one handler to another, carried out by `update` after the current action.
    pub follow_ups: std::collections::VecDeque<FollowUp>,
    /// The dataset in which an imported episode's task is looked up when it is opened.
    pub tasks: std::sync::Arc<crate::core::dataset::TaskLookup>,
    /// Panes or transcript (`v`), remembered in `ui_state_file`.
    pub layout_mode: LayoutMode,
    /// Where the layout choice is written (none in tests and demos that should not write).
    pub ui_state_file: Option<std::path::PathBuf>,
    /// The verdict source last chosen in the browser (`J`), remembered in `ui_state_file`.
    pub verdict_source: Option<String>,
    /// The comparison on the compare screen.
    pub compare: Option<super::compare::Compare>,
    /// The inspectors (and the active one) the compare screen replaced, restored when it closes.
    pub compared_from: Option<(Vec<Inspector>, usize)>,
    /// The last attempt fan started on screen (`f`), filling or done.
    pub fan: Option<super::fan::FanView>,
    /// A stopped fan of the episode and turn `f` asks about, found while it asks: Enter alone
    /// finishes it.
    pub stopped_fan: Option<crate::core::fan::stopped::StoppedFan>,
    /// The fork tree on screen (`B`).
    pub fork_tree: Option<super::fork_tree::ForkTree>,
    /// The episode opened from the fan or the fork tree, and that screen (Esc goes back).
    pub return_to: Option<(String, Screen)>,
    /// The screen that asked for the comparison on screen (the fan, the fork tree), where closing
    /// it goes back.
    pub compare_back: Option<Screen>,
}

impl AppState {
    /// What a prompt asks, as the status line shows it: `f`'s question names a stopped fan of the
    /// turn, which Enter alone finishes.
    pub fn prompt_label(&self, prompt: &Prompt) -> std::borrow::Cow<'static, str> {
        match (&self.stopped_fan, prompt.kind) {
            (Some(stopped), PromptKind::FanAttempts) => {
                let rest =
                    if stopped.plan.mode == crate::core::fan::FanMode::Rest { " (rest live)" } else { "" };
                // Short enough that what is typed shows at 80 columns.
                let (ended, planned) = (stopped.recorded.len(), stopped.plan.attempts);
                format!("a fan{rest} stopped here at {ended}/{planned}: Enter runs the rest, or N (N r) anew")
                    .into()
            }
            _ => prompt.kind.label().into(),
        }
    }

    /// Nothing on screen yet: the first action (an episode loaded, two to compare…) puts it there.
    pub fn new(keymap: Keymap) -> Self {
        AppState {
            screen: Screen::Inspector,
            overlays: Vec::new(),
            inspectors: Vec::new(),
            active: 0,
            browser: None,
            picker: None,
            hits: None,
            live: None,
            composer: Composer::new(&keymap),
            author: String::from("unknown"),
            autoplay: Autoplay::default(),
            keymap,
            area: Rect::default(),
            layout: InspectorLayout::default(),
            message: None,
            last_search: String::new(),
            last_suite: String::new(),
            left_at: std::collections::HashMap::new(),
            quit: false,
            effects: Vec::new(),
            follow_ups: std::collections::VecDeque::new(),
            tasks: std::sync::Arc::default(),
            layout_mode: LayoutMode::Panes,
            ui_state_file: None,
            verdict_source: None,
            compare: None,
            compared_from: None,
            fan: None,
            stopped_fan: None,
            fork_tree: None,
            return_to: None,
            compare_back: None,
        }
    }

    /// One episode on the inspector screen (its load warnings on the status line).
    pub fn with_episode(episode: Episode, keymap: Keymap) -> Self {
        let mut state = AppState::new(keymap);
        state.show(episode);
        state
    }

    /// Puts an episode on the inspector in place of the active one (its load warnings on the
    /// status line), and asks for its notes.
    pub fn show(&mut self, episode: Episode) {
        self.message = load_warnings(&episode);
        let inspector = Inspector::new(episode);
        if let Some(path) = inspector.notes_file() {
            self.effects.push(Effect::LoadNotes(path));
        }
        match self.inspectors.get_mut(self.active) {
            Some(slot) => *slot = inspector,
            None => {
                self.inspectors.push(inspector);
                self.active = self.inspectors.len() - 1;
            }
        }
    }

    /// The episode on screen is the start of a journal whose rest is still being read by `load`
    /// (`read` of `total` bytes so far): it arrives as [`super::Action::Loaded`] batches.
    pub fn loading_rest(&mut self, load: crate::session::journal_load::LoadId, read: u64, total: u64) {
        if let Some(inspector) = self.inspector_mut() {
            inspector.loading =
                Some(super::loading::Loading { load, ..super::loading::Loading::new(read, total) });
        }
    }

    /// Whether a journal is still being read for any episode held (behind the compare too).
    pub fn loading(&self) -> bool {
        let behind = self.compared_from.iter().flat_map(|(list, _)| list.iter());
        self.inspectors.iter().chain(behind).any(|i| i.loading.is_some())
    }

    pub fn inspector(&self) -> Option<&Inspector> {
        self.inspectors.get(self.active)
    }

    pub fn inspector_mut(&mut self) -> Option<&mut Inspector> {
        self.inspectors.get_mut(self.active)
    }

    /// The active episode's view.
    pub fn view(&self) -> Option<&EpisodeView> {
        self.inspector().map(|i| &i.view)
    }

    pub fn view_mut(&mut self) -> Option<&mut EpisodeView> {
        self.inspector_mut().map(|i| &mut i.view)
    }

    /// The focused pane of the active episode.
    pub fn focus(&self) -> PaneId {
        self.inspector().map_or(PaneId::Assistant, |i| i.focus)
    }

    /// The layer that has the keys now: the top overlay, else the composer when it has focus,
    /// else the screen.
    pub fn layer(&self) -> Layer {
        match self.overlay() {
            Some(Overlay::Prompt(_) | Overlay::Annotate(_)) => Layer::Form,
            Some(Overlay::ConfirmQuit | Overlay::ConfirmDelete) => Layer::Confirm,
            Some(Overlay::TakeOver { .. }) => Layer::TakeOver,
            Some(Overlay::Help { .. } | Overlay::Detail(_) | Overlay::Annotations { .. }) => Layer::Overlay,
            None => match self.screen {
                Screen::Browser if self.browser.is_some() => Layer::Browser,
                Screen::Tasks if self.picker.is_some() => Layer::Picker,
                Screen::Compare if self.compare.is_some() => Layer::Compare,
                Screen::Hits if self.hits.is_some() => Layer::Hits,
                Screen::Fan if self.fan.is_some() => Layer::Fan,
                Screen::ForkTree if self.fork_tree.is_some() => Layer::ForkTree,
                _ if self.composer.has_focus() => Layer::Composer,
                _ => Layer::Inspector,
            },
        }
    }

    /// The top of the modal stack.
    pub fn overlay(&self) -> Option<&Overlay> {
        self.overlays.last()
    }

    pub fn overlay_mut(&mut self) -> Option<&mut Overlay> {
        self.overlays.last_mut()
    }

    /// Notes where the episode on screen was left, before another one replaces it.
    pub fn remember_position(&mut self) {
        if let Some(view) = self.view()
            && self.live.is_none()
        {
            let key = position_key(&view.episode);
            let cursor = view.cursor;
            self.left_at.insert(key, cursor);
        }
    }

    /// A live episode: the view appears with the runner's first event.
    pub fn live(keymap: Keymap, journal: impl Into<String>, paused: bool) -> Self {
        let mut state = AppState::new(keymap);
        state.live = Some(LiveState::new(journal, paused));
        state
    }

    /// Whether time matters now (autoplay, or the elapsed clock of a live run).
    pub fn wants_ticks(&self) -> bool {
        self.autoplay.playing || self.live.as_ref().is_some_and(LiveState::clock_runs)
    }

    /// Width of the pane (or the transcript column) a streamed reply shows in.
    pub fn stream_width(&self) -> usize {
        match self.layout_mode {
            LayoutMode::Panes => text_area(self.layout.assistant).width.saturating_sub(2) as usize,
            LayoutMode::Transcript => text_area(self.layout.main).width.saturating_sub(2) as usize,
        }
    }

    /// The text area a reply streams into (the attacker's pane for the attacker, the assistant's
    /// for the others, or the transcript column) and the rows it takes at its bottom.
    fn stream_split(&self) -> Option<(TextArea, u16)> {
        let stream = self.live.as_ref()?.streaming.as_ref()?;
        let target = match (self.layout_mode, stream.role) {
            (LayoutMode::Transcript, _) => TextArea::Transcript,
            (LayoutMode::Panes, Role::Attacker) => TextArea::Pane(PaneId::Attacker),
            (LayoutMode::Panes, _) => TextArea::Pane(PaneId::Assistant),
        };
        let height = self.layout.text(target).0.height;
        Some((target, stream_rows(stream.lines.len(), height)))
    }

    /// Writes the layout and the verdict source to the state file (if there is one).
    pub fn save_ui_state(&mut self) {
        if let Some(path) = &self.ui_state_file {
            let remembered = crate::config::ui_state::UiState {
                layout: self.layout_mode,
                verdict_source: self.verdict_source.clone(),
            };
            self.effects.push(Effect::SaveUiState { path: path.clone(), contents: remembered.to_toml() });
        }
    }

    /// A browser over several episodes; `open_first` also opens the first on the inspector.
    pub fn with_browser(browser: Browser, keymap: Keymap, open_first: bool) -> Self {
        let mut state = AppState::new(keymap);
        state.screen = Screen::Browser;
        // Only an episode in memory: construction does no I/O.
        if open_first && let Some(EntrySource::Loaded(first)) = browser.sources.first() {
            state.show((**first).clone());
            state.screen = Screen::Inspector;
        }
        state.browser = Some(browser);
        state
    }

    /// Recomputes geometry (terminal size, composer shown or not) and rewraps what depends on
    /// it; `update` calls it once, after every action. Cheap when nothing changed.
    pub fn relayout(&mut self) {
        let height = self.area.height;
        let composer_rows = if self.composer.is_open() { (height / 5).clamp(5, 9) } else { 0 };
        self.layout = InspectorLayout::new(self.area, composer_rows);
        self.layout.stream = self.stream_split();
        // On a small terminal the annotate form takes most of it, so every label is listed.
        let (w, h) = if self.area.width < 120 || self.area.height < 36 { (92, 92) } else { (70, 60) };
        self.layout.form = popup(self.area, w, h);
        self.layout.picker = task_columns(self.area);
        let layout = self.layout;
        let (transcript, _) = layout.text(TextArea::Transcript);
        let transcript_rows = transcript.height;
        for inspector in &mut self.inspectors {
            for (id, mut pane) in inspector.view.panes_mut() {
                // Above the reply streaming into it, if one is.
                let (text, _) = layout.text(TextArea::Pane(id));
                // Two columns of indent under each item header.
                pane.set_size(text.width.saturating_sub(2) as usize, text.height as usize);
            }
            // Wrapped only while shown: the panes layout never pays for it.
            if self.layout_mode == LayoutMode::Transcript && self.screen != Screen::Compare {
                inspector.transcript.set_size(transcript.width as usize, transcript_rows as usize);
                inspector.transcript.settle(&inspector.view);
            }
        }
        if self.screen == Screen::Compare
            && let (Some(compare), [a, b, ..]) = (&mut self.compare, self.inspectors.as_slice())
        {
            compare.settle(self.area, [&a.view, &b.view]);
        }
        // The browser's first line shown keeps its selection in view, whatever moved it.
        if let Some(browser) = &mut self.browser {
            browser.scroll_into_view(browser.list_height(self.area.height));
        }
        let stream_width = self.stream_width();
        if let Some(live) = &mut self.live {
            live.set_stream_width(stream_width);
        }
        if let Some(picker) = &mut self.picker {
            picker.set_detail_width(self.layout.picker[1].width.saturating_sub(3) as usize);
        }
        let detail = self.detail_area();
        let (detail_width, detail_rows) =
            (detail.width.saturating_sub(3) as usize, detail.height.saturating_sub(2));
        for overlay in &mut self.overlays {
            if let Overlay::Detail(detail) = overlay {
                detail.set_size(detail_width, detail_rows as usize);
            }
        }
    }

    /// Asks another screen's handler for something once the current action is done.
    pub fn follow_up(&mut self, request: FollowUp) {
        self.follow_ups.push_back(request);
    }

    /// Quit, or ask first while an episode still runs.
    /// Whether the fan's attempts are still running.
    pub fn fan_running(&self) -> bool {
        self.fan.as_ref().is_some_and(|f| !f.done)
    }

    /// The quit question: what quitting aborts.
    pub fn quit_question(&self) -> &'static str {
        if self.live.as_ref().is_some_and(|l| !l.finished) {
            "The episode is still running. Abort it and quit?"
        } else {
            "The fan's attempts are still running. Abort them and quit?"
        }
    }

    /// Where Esc on the inspector goes back to: the fan or the fork tree the episode on screen
    /// was opened from.
    pub fn opened_from(&self) -> Option<Screen> {
        let (id, screen) = self.return_to.as_ref()?;
        (self.view()?.episode.id() == id).then_some(*screen)
    }

    /// Compares two episodes for the fan or the fork tree (`from`), to which closing it comes back.
    pub fn compare_from(&mut self, from: Screen, pair: [super::browser::EntrySource; 2]) {
        self.compare_back = Some(from);
        self.effects.push(Effect::OpenCompare(Box::new(pair)));
    }

    /// Opens an episode from the fan or the fork tree (`from`), to which Esc comes back.
    pub fn open_from(&mut self, from: Screen, path: std::path::PathBuf, id: String) {
        self.return_to = Some((id.clone(), from));
        self.effects.push(Effect::OpenEpisode { path, id });
    }

    pub fn request_quit(&mut self) {
        if self.live.as_ref().is_some_and(|l| !l.finished) || self.fan_running() {
            self.overlays.push(Overlay::ConfirmQuit);
        } else {
            self.quit = true;
        }
    }

    /// The task picker, or a note that there is none.
    pub fn show_task_picker(&mut self) {
        if self.picker.is_none() {
            self.message = Some("no CONVERSE tasks loaded".into());
        }
        self.open_picker(None);
    }

    /// Shows an episode on the inspector in place of the one there (opened from the browser or a
    /// search hit), where it was left if it was open before.
    pub fn open_episode(&mut self, mut episode: Episode) {
        self.remember_position();
        // An imported run names its task; the dataset gives the rest (in memory, no I/O).
        if crate::core::dataset::lacks_task_fields(&episode) {
            self.tasks.enrich(&mut episode);
        }
        let left_at = self.left_at.get(&position_key(&episode)).copied();
        self.show(episode);
        self.screen = Screen::Inspector;
        self.autoplay.playing = false;
        if let (Some(cursor), Some(view)) = (left_at, self.view_mut()) {
            view.set_cursor(cursor);
        }
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
    pub fn control_runner(&mut self, control: RunnerControl) {
        if self.live.as_ref().is_some_and(|l| !l.finished) {
            self.effects.push(Effect::Control(control));
        }
    }

    /// The masker of `episode`: the persona's whole profile when the task is in the dataset, else
    /// what the journal's task says.
    pub fn redactor_for(&self, episode: &Episode) -> Redactor {
        let task_id = episode.header().task.id.as_deref();
        let task = self.picker.as_ref().and_then(|p| p.tasks.iter().find(|t| Some(t.id.as_str()) == task_id));
        match task {
            Some(task) => Redactor::from_environment(&task.environment),
            None => redactor_from_episode(episode),
        }
    }

    /// Opens the task picker (kept across visits, so filters stay as left).
    pub fn open_picker(&mut self, picker: Option<TaskPicker>) {
        if picker.is_some() {
            self.picker = picker;
        }
        if self.picker.is_some() {
            self.screen = Screen::Tasks;
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

/// What loading the episode warned about (a truncated last line…), for the status line.
pub fn load_warnings(episode: &Episode) -> Option<String> {
    warning_line(&episode.warnings)
}

/// Rows a streaming reply of `lines` lines takes at the bottom of a text area `height` rows high.
fn stream_rows(lines: usize, height: u16) -> u16 {
    (lines.min(usize::from(u16::MAX) - 1) as u16 + 1).min(height / 2).max(2).min(height)
}

/// Warnings (of a load or a launch) as one status-line message: the first, and how many more.
pub fn warning_line(warnings: &[String]) -> Option<String> {
    match warnings {
        [] => None,
        [one] => Some(format!("⚠ {one}")),
        [first, rest @ ..] => Some(format!("⚠ {first} (and {} more warnings)", rest.len())),
    }
}

/// Identifies an episode across loads: where it came from and its id.
pub fn position_key(episode: &Episode) -> String {
    format!("{}#{}", episode.origin, episode.id())
}
