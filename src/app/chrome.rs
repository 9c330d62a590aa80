//! What every screen shares: the keymap, the terminal's size, the modal stack, the status line,
//! what is remembered between runs and between screens, the dataset, and the requests a handler
//! makes of the outside world (effects) and of the other screens (follow-ups). A screen's
//! handlers and its drawing get their own state and this, never the whole [`super::AppState`].

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use ratatui::layout::Rect;

use crate::config::Keymap;
use crate::config::keymap::Command;
use crate::config::ui_state::{LayoutMode, UiState};
use crate::core::dataset::{Task, TaskLookup};
use crate::core::episode::Episode;
use crate::core::redact::Redactor;
use crate::core::redact_episode::redactor_from_episode;

use super::action::{Effect, FollowUp};
use super::layout::{popup, task_columns};
use super::overlay::{Overlay, Prompt, PromptKind};
use crate::config::keymap::Layer;

pub struct Chrome {
    pub keymap: Keymap,
    /// The terminal area; set by `Action::Resize`.
    pub area: Rect,
    /// The modal stack: the last one has the keys.
    pub overlays: Vec<Overlay>,
    /// A transient note for the status line ("no match", "no turn 12").
    pub message: Option<String>,
    pub prefs: Prefs,
    pub dataset: Dataset,
    pub recall: Recall,
    /// What the handlers of the current action asked for; `update` hands it out.
    pub(super) out: Outbox,
}

/// What is remembered between runs, and who notes are recorded as.
#[derive(Debug, Clone, Default)]
pub struct Prefs {
    /// The layout (`v`) and the browser's verdict source (`J`), written to `file`.
    pub ui: UiState,
    /// Where they are written (none in tests and demos that should not write).
    pub file: Option<PathBuf>,
    /// Recorded as the author of annotations.
    pub author: String,
}

/// The CONVERSE tasks: looked up by id to complete an imported episode, and the personas'
/// profiles the masker hides (those of the task picker's tasks).
#[derive(Default)]
pub struct Dataset {
    pub lookup: Arc<TaskLookup>,
    pub tasks: Arc<[Task]>,
}

/// What one screen leaves for the next.
#[derive(Debug, Default)]
pub struct Recall {
    /// Where each episode opened from the browser was left (by [`position_key`]), to return there.
    pub left_at: HashMap<String, usize>,
    /// The last search, so `/` Enter repeats it.
    pub last_search: String,
    /// The suite the last attack case was kept in (`K`), offered again.
    pub last_suite: String,
}

#[derive(Debug, Default)]
pub(super) struct Outbox {
    pub(super) effects: Vec<Effect>,
    /// Requests of one handler to another, carried out by `update` after the current action.
    pub(super) follow_ups: VecDeque<FollowUp>,
    pub(super) quit: bool,
    /// Whether ticks were asked for last ([`Effect::Ticks`]).
    pub(super) ticks: bool,
}

impl Chrome {
    pub fn new(keymap: Keymap) -> Self {
        Chrome {
            keymap,
            area: Rect::default(),
            overlays: Vec::new(),
            message: None,
            prefs: Prefs { author: "unknown".into(), ..Prefs::default() },
            dataset: Dataset::default(),
            recall: Recall::default(),
            out: Outbox::default(),
        }
    }

    /// A note for the status line.
    pub fn say(&mut self, message: impl Into<String>) {
        self.message = Some(message.into());
    }

    /// Something for the loop to do (I/O): it answers with an action if the state must know.
    pub fn effect(&mut self, effect: Effect) {
        self.out.effects.push(effect);
    }

    /// Asks another screen's handler for something once the current action is done.
    pub fn follow_up(&mut self, request: FollowUp) {
        self.out.follow_ups.push_back(request);
    }

    /// Goes to the kept screen of `kind` (else the browser), after the current action.
    pub fn show(&mut self, kind: Layer) {
        self.follow_up(FollowUp::Show(kind));
    }

    /// Quits, or asks first while an episode or a fan still runs (after the current action).
    pub fn quit(&mut self) {
        self.follow_up(FollowUp::Quit);
    }

    /// What every screen does with `Help` and `Quit`; whether `command` was one of them.
    pub fn common_command(&mut self, command: Command) -> bool {
        match command {
            Command::Help => self.overlays.push(Overlay::Help { scroll: 0 }),
            Command::Quit => self.quit(),
            _ => return false,
        }
        true
    }

    /// Opens a prompt with `input` typed already.
    pub fn prompt(&mut self, kind: PromptKind, input: impl Into<String>) {
        self.overlays.push(Overlay::Prompt(Prompt::new(kind, input)));
    }

    /// A prompt offering `input`: Enter takes it, typing replaces it.
    pub fn offer(&mut self, kind: PromptKind, input: impl Into<String>) {
        let mut prompt = Prompt::new(kind, input);
        prompt.offered = true;
        self.overlays.push(Overlay::Prompt(prompt));
    }

    /// The top of the modal stack.
    pub fn overlay(&self) -> Option<&Overlay> {
        self.overlays.last()
    }

    pub fn layout_mode(&self) -> LayoutMode {
        self.prefs.ui.layout
    }

    /// Writes the layout and the verdict source to the state file (if there is one).
    pub fn save_ui_state(&mut self) {
        if let Some(path) = &self.prefs.file {
            let effect = Effect::SaveUiState { path: path.clone(), contents: self.prefs.ui.to_toml() };
            self.out.effects.push(effect);
        }
    }

    /// An imported run names its task; the dataset gives the rest (in memory, no I/O).
    pub fn enrich(&self, episode: &mut Episode) {
        if crate::core::dataset::lacks_task_fields(episode) {
            self.dataset.lookup.enrich(episode);
        }
    }

    /// The masker of `episode`: the persona's whole profile when the task is in the dataset, else
    /// what the journal's task says.
    pub fn redactor_for(&self, episode: &Episode) -> Redactor {
        let task_id = episode.header().task.id.as_deref();
        match self.dataset.tasks.iter().find(|t| Some(t.id.as_str()) == task_id) {
            Some(task) => Redactor::from_environment(&task.environment),
            None => redactor_from_episode(episode),
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

    /// The annotate form's popup: on a small terminal it takes most of it, so every label is listed.
    pub fn form_area(&self) -> Rect {
        let (w, h) = if self.area.width < 120 || self.area.height < 36 { (92, 92) } else { (70, 60) };
        popup(self.area, w, h)
    }

    /// The task picker's list, and the selected task's detail (beside it, or under it when narrow).
    pub fn picker_columns(&self) -> [Rect; 2] {
        task_columns(self.area)
    }
}

/// Identifies an episode across loads: where it came from and its id.
pub fn position_key(episode: &Episode) -> String {
    format!("{}#{}", episode.origin, episode.id())
}

/// Warnings (of a load or a launch) as one status-line message: the first, and how many more.
pub fn warning_line(warnings: &[String]) -> Option<String> {
    match warnings {
        [] => None,
        [one] => Some(format!("⚠ {one}")),
        [first, rest @ ..] => Some(format!("⚠ {first} (and {} more warnings)", rest.len())),
    }
}
