//! What a screen needs before the event loop starts: the keymap, theme, task picker, author and
//! remembered layout; the inputs of `replay` opened (one journal in steps, a file whole, a
//! directory indexed for the browser); the launchers that start live episodes and forks.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::app::AppState;
use crate::app::browser::{Browser, BrowserEntry, EntrySource};
use crate::app::task_picker::TaskPicker;
use crate::config::settings::{ConfigFile, ModelFlags};
use crate::config::ui_state::UiState;
use crate::config::{Keymap, Paths, Theme};
use crate::core::dataset::TaskLookup;
use crate::core::sanitize::{SafeWriter, single_line};
use crate::core::sim::runner::Start;
use crate::session::episode_tasks;
use crate::session::journal_load::JournalLoad;
use crate::session::{Launch, RunArgs, TaskSelection};
use crate::tui::executor::Sources;

pub fn load_keymap(paths: &Paths) -> anyhow::Result<Keymap> {
    Keymap::load(&paths.keymap_file())
}

/// The tasks behind the picker (`t`) and redaction: `--data-dir`, else the downloaded benchmark,
/// else the bundled sample.
fn task_picker(paths: &Paths, data_dir: Option<&Path>) -> Option<TaskPicker> {
    let selection = TaskSelection { data_dir: data_dir.map(Path::to_path_buf), ..Default::default() };
    match crate::session::tasks::load(&selection, paths) {
        Ok(loaded) => Some(TaskPicker::new(loaded.tasks, loaded.source.to_string())),
        Err(e) => {
            tracing::warn!("task picker unavailable: {e:#}");
            None
        }
    }
}

pub fn load_theme(name: &str, paths: &Paths) -> anyhow::Result<Theme> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    Theme::load(name, &paths.themes_dir(), no_color)
}

/// Who annotations are recorded as: `author` in the config file, else `$USER`.
fn author(paths: &Paths) -> String {
    let configured = ConfigFile::load(&paths.config_file()).ok().and_then(|c| c.author);
    crate::core::annotate::default_author(configured.as_deref())
}

/// The layout chosen last time (`v`), written back when it changes.
fn remember_layout(state: AppState, paths: &Paths) -> anyhow::Result<AppState> {
    let file = paths.ui_state_file();
    let remembered = UiState::load(&file)?;
    Ok(state.with_ui_state(remembered, Some(file)))
}

/// What `replay` knows about the episodes it may fork (`T`): model flags, and where the tasks are.
#[derive(Default)]
pub struct ForkFlags {
    pub models: ModelFlags,
    pub data_dir: Option<PathBuf>,
    /// How a fan (`f`) paces its attempts.
    pub pacing: super::fan::FanPacing,
    /// The external agent of forks and fans.
    pub agent: crate::session::fork_agent::ForkAgent,
}

pub fn run_tui(
    state: AppState,
    theme: &str,
    paths: &Paths,
    forks: ForkFlags,
    rest: Option<JournalLoad>,
) -> anyhow::Result<()> {
    crate::tui::terminal::ensure_terminal()?;
    let mut state = remember_layout(state, paths)?.with_author(author(paths));
    if let Some(picker) = task_picker(paths, forks.data_dir.as_deref()) {
        state = state.with_picker(picker);
    }
    let theme = load_theme(theme, paths)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let mut forks = forks;
    {
        let _inside = runtime.enter();
        // One slot per attempt of a fan at once (a fork takes one too).
        forks.agent.serve(forks.pacing.concurrency.max(1))?;
    }
    let slots = forks.agent.slots.clone();
    let fans = super::fan::fan_launcher(
        paths.clone(),
        forks.models.clone(),
        forks.data_dir.clone(),
        forks.pacing,
        forks.agent.clone(),
    );
    let attacks = super::attack::attack_launcher(
        paths.clone(),
        forks.models.clone(),
        forks.data_dir.clone(),
        forks.pacing,
        forks.agent.clone(),
    );
    let launcher = replay_launcher(paths.clone(), forks);
    let sources =
        Sources { launcher: Some(launcher), fans: Some(fans), attacks: Some(attacks), rest, runner: None };
    let result = runtime.block_on(crate::tui::run(state, theme, sources));
    // The agents --launch started are stopped whatever happened on screen.
    if let Some(slots) = slots {
        runtime.block_on(slots.stop());
    }
    result?;
    Ok(())
}

/// Starts a task chosen in the picker with the models of the config file,
/// environment and flags; a fork runs with its parent's models and limits
/// (a flag names another model). A missing model is reported on the status line.
fn replay_launcher(paths: Paths, forks: ForkFlags) -> crate::tui::live::Launcher {
    let mut launch: Option<Launch> = None;
    Box::new(move |id: &str, start: Start| {
        let parent = start.resume.as_ref().and_then(|r| r.prefix.first()).and_then(|e| match &e.body {
            crate::core::episode::EventBody::Episode(header) => Some(header.clone()),
            _ => None,
        });
        if let Some(header) = parent {
            let args = crate::session::fork_args(&header, &forks.models, forks.data_dir.clone())?;
            return forks.agent.fork(args, &paths)?.start_with(id, start);
        }
        let launch = match &mut launch {
            Some(launch) => launch,
            slot => {
                let args = RunArgs {
                    models: forks.models.clone(),
                    source: TaskSelection { data_dir: forks.data_dir.clone(), ..TaskSelection::default() },
                    ..RunArgs::default()
                };
                slot.insert(Launch::new(&args, &paths)?)
            }
        };
        launch.start_with(id, start)
    })
}

/// One episode opens on the inspector; several open the browser. Directories
/// are indexed (episodes load when opened); files are loaded whole, but one journal alone is
/// opened in steps: its first batch now, the rest read by the TUI once that is on screen.
/// Imported episodes get their task from `tasks`, those loaded later from the
/// browser too.
/// Directories holding more episode files than this open at once and are indexed while shown.
const INDEX_AT_ONCE: usize = 200;

pub fn open_inputs(
    inputs: &[PathBuf],
    tasks: TaskLookup,
    keymap: Keymap,
    cache_dir: Option<&Path>,
) -> anyhow::Result<(AppState, Option<JournalLoad>)> {
    if let [input] = inputs
        && !input.is_dir()
        && crate::core::episode::is_journal(input)
    {
        let (mut episode, rest) = crate::session::loader::open_journal(input)?;
        for note in episode_tasks::enrich(&tasks, std::iter::once(&mut episode)) {
            tracing::info!("{note}");
        }
        for warning in &episode.warnings {
            tracing::warn!("{warning}");
        }
        let mut state = AppState::with_episode(episode, keymap).with_tasks(tasks);
        if let Some(rest) = &rest {
            let (read, total) = rest.progress();
            state.loading_rest(rest.id(), read, total);
        }
        return Ok((state, rest));
    }
    // A corpus of directories opens like a file: the browser at once, its rows as they are indexed
    // (issue 23: a cold 10,000-run corpus was a blank screen for seconds). A small one is indexed
    // first, so a directory of one episode still opens it.
    let (files, _) = crate::core::corpus::index::episode_files_of(inputs);
    if inputs.iter().all(|p| p.is_dir()) && files.len() > INDEX_AT_ONCE {
        let title = inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
        let mut browser = Browser::from_rows(title, Vec::new(), Vec::new());
        let progress =
            crate::core::corpus::index::IndexProgress { files_total: files.len(), ..Default::default() };
        browser.indexing = Some((progress, std::time::Duration::ZERO));
        let state = AppState::indexing(browser, keymap, inputs.to_vec(), cache_dir.map(Path::to_path_buf));
        return Ok((state.with_tasks(tasks), None));
    }
    let mut items: Vec<(BrowserEntry, EntrySource)> = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        if input.is_dir() {
            // The corpus index, as `ls` reads it (and from the same cache).
            let corpus = crate::core::corpus::index_cached(std::slice::from_ref(input), cache_dir);
            for warning in &corpus.warnings {
                tracing::warn!("{warning}");
            }
            items.extend(corpus.rows.into_iter().map(|row| {
                let source = EntrySource::File { path: row.path.clone(), id: row.id.clone() };
                (BrowserEntry::from_row(row), source)
            }));
            errors.extend(corpus.errors.into_iter().map(|e| e.to_string()));
        } else if crate::core::import::inspect::file_is_zip(input) {
            // An Inspect `.eval`: one row per sample from its summaries; a sample is read when opened.
            let (rows, warnings) = crate::core::corpus::index::index_file(input)?;
            for warning in &warnings {
                tracing::warn!("{warning}");
            }
            items.extend(rows.into_iter().map(|row| {
                let source = EntrySource::File { path: row.path.clone(), id: row.id.clone() };
                (BrowserEntry::from_row(row), source)
            }));
        } else {
            let mut episodes = crate::session::loader::load_file(input)?;
            for note in episode_tasks::enrich(&tasks, &mut episodes) {
                tracing::info!("{note}");
            }
            items.extend(
                episodes.into_iter().map(|e| (BrowserEntry::of(&e), EntrySource::Loaded(Box::new(e)))),
            );
        }
    }
    let single_file = inputs.len() == 1 && !inputs[0].is_dir();
    // (Popped only when loaded: a sample of an `.eval` is listed, not loaded, and opened below.)
    if single_file
        && let [(_, EntrySource::Loaded(_))] = items.as_slice()
        && let Some((_, EntrySource::Loaded(episode))) = items.pop()
    {
        for warning in &episode.warnings {
            tracing::warn!("{warning}");
        }
        return Ok((AppState::with_episode(*episode, keymap).with_tasks(tasks), None));
    }
    // A directory holding one episode: open it at once (the browser stays one key away).
    let open_first = items.len() == 1 && errors.is_empty();
    if open_first
        && let Some((_, source)) = items.first_mut()
        && let EntrySource::File { path, id } = source
    {
        let episode = crate::session::loader::load(path, id)?;
        *source = EntrySource::Loaded(Box::new(episode));
    }
    let title = inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    let state = AppState::with_browser(Browser::from_items(title, items, errors), keymap, open_first);
    Ok((state.with_tasks(tasks), None))
}

/// The live screen of `run` and `play` (`human`: the person at the keyboard is the attacker):
/// the episode of `task` started at once, or the task picker to choose one.
pub fn live(
    launch: Launch,
    task: Option<&str>,
    human: bool,
    theme: &str,
    paths: &Paths,
) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    crate::tui::terminal::ensure_terminal()?;
    let keymap = load_keymap(paths)?;
    let picker = TaskPicker::new(launch.tasks.clone(), launch.source.clone());
    let theme = load_theme(theme, paths)?;
    let launch = std::sync::Arc::new(launch);
    let agents = launch.clone();
    let result = runtime.block_on(async move {
        // Served (and a token made now printed) before the screen takes the terminal.
        launch.serve_agents(1, &mut SafeWriter::new(std::io::stderr()))?;
        let (state, handle) = match task {
            Some(task) => {
                let handle = launch.start_with(task, Start { human, ..Start::default() })?;
                // Printed before the screen takes over, so it is still there after.
                let mut out = SafeWriter::new(std::io::stdout().lock());
                writeln!(out, "episode {} → {}", handle.episode_id, handle.journal_path.display())?;
                for warning in &handle.warnings {
                    writeln!(out, "warning: {}", single_line(warning))?;
                }
                drop(out);
                let journal = handle.journal_path.display().to_string();
                let state = AppState::live(keymap, journal, launch.settings.start_paused, human)
                    .with_message(crate::app::chrome::warning_line(&handle.warnings));
                (state, Some(handle))
            }
            None => (AppState::with_browser(Browser::new("", Vec::new(), Vec::new()), keymap, false), None),
        };
        let mut state = remember_layout(state.with_picker(picker).with_author(author(paths)), paths)?;
        if handle.is_none() {
            state = state.picking();
        }
        let launcher: crate::tui::live::Launcher = Box::new(move |id: &str, mut start: Start| {
            // In `play`, a task chosen in the picker is played by the human too.
            start.human |= human && start.resume.is_none();
            launch.start_with(id, start)
        });
        let sources = Sources { runner: handle, launcher: Some(launcher), ..Sources::default() };
        crate::tui::run(state, theme, sources).await
    });
    // The agents --launch started are stopped whatever happened on screen.
    runtime.block_on(agents.stop_agents());
    result?;
    Ok(())
}
