//! Inputs to `update` and the effects it asks the loop to carry out.

use std::time::Duration;

use crate::config::keymap::{Command, Layer};
use crate::core::sim::gate::GateMode;
use crate::session::journal_load::LoadId;

/// What `update` is told. Keys arrive already resolved (see [`super::input`]): a command, or text.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A terminal event: the router makes it a command or text for whatever has the keys.
    Terminal(ratatui::crossterm::event::Event),
    /// A command, for whatever has the keys now.
    Command(Command),
    /// A key bound to `command` in `layer`, as the router found it: `update` does not work the
    /// layer out again.
    Key {
        layer: Layer,
        command: Command,
    },
    /// A key that edits text where one types (composer, form, prompt).
    Edit(tui_textarea::Input),
    Paste(String),
    /// The mouse wheel turned over a cell, by `lines` (negative: up).
    Wheel {
        column: u16,
        row: u16,
        lines: isize,
    },
    Resize(u16, u16),
    /// Time passed (drives autoplay). Carried in the action so `update` never reads a clock.
    Tick(Duration),
    /// Stop now, asking nothing (a stop signal, the terminal gone).
    Stop,
    /// Something the live runner reported.
    Runner(crate::core::sim::emitter::RunnerUpdate),
    /// The live runner's step gate changed (it reports its own state; the UI never guesses it).
    Gate(GateMode),
    /// The loop read (or wrote) an episode's notes file.
    NotesLoaded {
        path: std::path::PathBuf,
        result: Result<Vec<crate::core::annotate::Annotation>, String>,
    },
    /// A live episode started (a task from the picker, a fork): it replaces what is on screen.
    LiveStarted {
        journal: String,
        human: bool,
        /// What starting it warned about (an attacker script made for another task).
        warnings: Vec<String>,
    },
    /// Something the loop could not do, for the status line.
    Problem(String),
    /// What the loop did, for the status line.
    Done(String),
    /// The episode asked for by [`Effect::OpenEpisode`], or why it could not be loaded; `over`
    /// as asked.
    EpisodeLoaded {
        episode: Result<Box<crate::core::episode::Episode>, String>,
        over: bool,
    },
    /// The start of the journal asked for by [`Effect::OpenEpisode`], its rest still being read:
    /// [`Action::Loaded`] batches follow, then [`Action::LoadEnded`] (issue 14).
    EpisodeOpening {
        /// The load its batches come with.
        load: LoadId,
        episode: Box<crate::core::episode::Episode>,
        /// Bytes read so far, and the file's size.
        read: u64,
        total: u64,
        over: bool,
    },
    /// The next events of the journal being read by `load`, in the episode's order.
    Loaded {
        load: LoadId,
        events: Vec<crate::core::episode::Event>,
        read: u64,
    },
    /// The journal being read by `load` was read to its end (or to a bad line).
    LoadEnded {
        load: LoadId,
        end: crate::session::journal_load::LoadEnd,
    },
    /// The two episodes asked for by [`Effect::OpenCompare`], or why they could not be loaded.
    CompareLoaded(Result<Box<[crate::core::episode::Episode; 2]>, String>),
    /// What [`Effect::SearchEpisodes`] found (or why the query could not run).
    SearchDone {
        query: crate::core::search::Query,
        result: Result<SearchResult, String>,
    },
    /// The next rows of the corpus being indexed for the browser ([`Effect::IndexCorpus`]),
    /// with how far it has got and how long it has taken; `done` with the last batch.
    Indexed {
        rows: Vec<crate::core::corpus::CorpusRow>,
        errors: Vec<String>,
        progress: crate::core::corpus::index::IndexProgress,
        elapsed: Duration,
        done: bool,
    },
    /// What the running attempt fan reported.
    Fan(crate::session::fan::FanUpdate),
    /// The stopped fan [`Effect::FindStoppedFan`] found (or why the search failed).
    StoppedFanFound(Result<Option<crate::core::fan::stopped::StoppedFan>, String>),
    /// The fan asked for by [`Effect::StartFan`] started in this folder, or why it could not.
    FanStarted(Result<std::path::PathBuf, String>),
    /// What the running attack search reported.
    Attack(crate::session::attack::SearchUpdate),
    /// The search asked for by [`Effect::StartAttack`] started in this folder, or why it could not.
    AttackStarted(Result<std::path::PathBuf, String>),
    /// The fork family of the episode `root` ([`Effect::FindForks`]): its forks, the episode it
    /// descends from if it is a fork, and the journals that could not be read.
    ForksFound {
        root: String,
        family: crate::core::fan::forks::Family,
    },
    /// A request one screen's handler makes of another; `update` carries it out after the
    /// action that queued it ([`crate::app::AppState::follow_up`]), so handlers never call
    /// each other.
    FollowUp(FollowUp),
}

/// What a handler asks of another screen.
#[derive(Debug, Clone, PartialEq)]
pub enum FollowUp {
    /// Go to the kept screen of this kind (else the browser).
    Show(crate::config::keymap::Layer),
    /// Close the screen on top.
    Back,
    /// The inspector, showing this episode (loaded if it shows another).
    ShowEpisode { path: std::path::PathBuf, id: String },
    /// Show this episode (in memory) on the inspector.
    OpenEpisode(Box<crate::core::episode::Episode>),
    /// Quit, or ask first while something runs.
    Quit,
    /// Quit: the question was answered yes.
    QuitConfirmed,
    /// The task picker.
    Tasks,
    /// Put these two episodes side by side.
    Compare(Box<[crate::core::episode::Episode; 2]>),
    /// Ask for a pattern to search every episode with.
    SearchPrompt,
    /// Back to the results of the last search across episodes, or a new one.
    SearchResultsOrPrompt,
    /// Search every episode for what was typed.
    Search(String),
    /// Open the next (1) or previous (-1) hit.
    StepHit(isize),
    /// Open this hit of the results.
    OpenHit(usize),
    /// Read the annotations of the notes file at this path into the episodes it belongs to.
    ApplyNotes(std::path::PathBuf),
    /// An episode is on screen with all its events: what opening it asked for can happen.
    EpisodeShown,
    /// Open the annotate form on the selected event.
    Annotate,

    /// Start the fan the prompt was answered with (`N` or `N r`; nothing: finish the stopped one
    /// the question named).
    StartFan { input: String, stopped: Option<Box<crate::core::fan::stopped::StoppedFan>> },
    /// Start the attack search the prompt was answered with (`tap 60`).
    StartAttack(String),
    /// Send this message instead of the selected node's and run its branch on.
    EditNode(String),
    /// Open the screen of this layer over the one on top (its `app/update` module builds it).
    Open(crate::config::keymap::Layer),
}

/// The hits of a search across episodes.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    pub hits: Vec<crate::core::search::Hit>,
    pub files: usize,
    /// Files that could not be read, `path:line: problem`.
    pub errors: Vec<String>,
}

/// What `update` cannot do itself because it does no I/O.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// Send [`Action::Tick`]s while `true` (autoplay, a live clock), none while `false`.
    Ticks(bool),
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
    /// Read an episode's notes file and answer with [`Action::NotesLoaded`].
    LoadNotes(std::path::PathBuf),
    /// Index the episodes under `paths` off the loop, answering with [`Action::Indexed`] batches.
    IndexCorpus {
        paths: Vec<std::path::PathBuf>,
        cache: Option<std::path::PathBuf>,
    },
    /// Load episode `id` from `path` and answer with [`Action::EpisodeLoaded`] (or
    /// [`Action::EpisodeOpening`] and batches): on the inspector in place of the episode there,
    /// or `over` the screen on top (an attempt opened from the fan).
    OpenEpisode {
        path: std::path::PathBuf,
        id: String,
        over: bool,
    },
    /// Stop reading the journal of this load: no episode held reads for it any more.
    StopLoad(LoadId),
    /// Write what the screen remembers between runs (`state.toml`), atomically.
    SaveUiState {
        path: std::path::PathBuf,
        contents: String,
    },
    /// Load two browser rows and answer with [`Action::CompareLoaded`].
    OpenCompare(Box<[super::browser::EntrySource; 2]>),
    /// Search the text of these files and of these episodes in memory, off the UI thread; answer
    /// with [`Action::SearchDone`].
    SearchEpisodes {
        query: crate::core::search::Query,
        files: Vec<std::path::PathBuf>,
        loaded: Vec<crate::core::episode::Episode>,
    },
    /// Make attack cases of these episodes in the suite directory (the dataset's tasks give each
    /// its task hash); answer with [`Action::Done`].
    KeepCases {
        suite: std::path::PathBuf,
        sources: Vec<super::browser::EntrySource>,
        tasks: std::sync::Arc<crate::core::dataset::TaskLookup>,
    },
    /// Put this text on the clipboard (OSC 52).
    Copy(String),
    /// Show this text in `$PAGER` (or `$EDITOR`), the TUI suspended meanwhile.
    HandOff {
        text: String,
        editor: bool,
    },
    /// Start an attempt fan (the request's `dir` is the episode's folder: the fan's own goes
    /// under its `fans/`); answer with [`Action::FanStarted`], then [`Action::Fan`] reports.
    StartFan(Box<crate::session::fan::FanRequest>),
    /// Look for a stopped fan of `episode` from `turn` under `dir/fans/`; answer with
    /// [`Action::StoppedFanFound`].
    FindStoppedFan {
        dir: std::path::PathBuf,
        episode: String,
        turn: u32,
    },
    /// Pause, resume or stop the running fan.
    FanControl(crate::session::fan::FanControl),
    /// Start an attack search.
    StartAttack(Box<crate::session::attack::AttackRequest>),
    /// Pause, step, continue the attack search.
    AttackControl(crate::session::attack::SearchControl),
    /// A person's prune or expansion of the attack search's tree.
    AttackHand(crate::session::attack::HandRequest),
    /// Look for the fork family of episode `root`, whose journal is `journal`; answer with
    /// [`Action::ForksFound`].
    FindForks {
        journal: std::path::PathBuf,
        root: String,
    },
    /// Start a new episode from the prefix of the one on screen.
    Fork {
        task_id: String,
        resume: crate::core::sim::fork::Resume,
        human: bool,
        /// The parent's directory, where the fork's journal goes (none for a built-in demo).
        beside: Option<std::path::PathBuf>,
        /// The fork's `max_turns` is at least this (see
        /// [`crate::core::sim::fork::Resume::max_turns_to_continue`]).
        max_turns_at_least: u32,
    },
}
