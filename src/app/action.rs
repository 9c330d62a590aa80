//! Inputs to `update` and the effects it asks the loop to carry out.

use std::time::Duration;

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// Time passed (drives autoplay). Carried in the action so `update` never reads a clock.
    Tick(Duration),
    /// Something the live runner reported.
    Runner(crate::core::sim::emitter::RunnerUpdate),
    /// The loop read (or wrote) an episode's notes file.
    NotesLoaded {
        path: std::path::PathBuf,
        result: Result<Vec<crate::core::annotate::Annotation>, String>,
    },
    /// The episode asked for by [`Effect::OpenEpisode`], or why it could not be loaded.
    EpisodeLoaded(Result<Box<crate::core::episode::Episode>, String>),
}

/// What `update` cannot do itself because it does no I/O.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// The user chose a task in the picker: start a live episode of it.
    RunTask(String),
    /// Steer the live runner.
    Control(super::live::RunnerControl),
    /// The human attacker's message.
    HumanSay(String),
    /// The human attacker ends the episode.
    HumanEnd,
    /// Replace the attacker model's held message.
    EditAttacker(String),
    /// Append an annotation to the notes file.
    SaveNote {
        path: std::path::PathBuf,
        draft: crate::core::annotate::Draft,
        author: String,
    },
    /// Record the deletion of an annotation.
    DeleteNote {
        path: std::path::PathBuf,
        id: String,
        author: String,
    },
    /// Load episode `id` from `path` (a browser row opened) and answer with [`Action::EpisodeLoaded`].
    OpenEpisode {
        path: std::path::PathBuf,
        id: String,
    },
    /// Start a new episode from the prefix of the one on screen.
    Fork {
        task_id: String,
        resume: crate::core::sim::fork::Resume,
        human: bool,
        /// The parent's directory, where the fork's journal goes (none for a built-in demo).
        beside: Option<std::path::PathBuf>,
    },
}
