//! converse-tui: parse, set up logging, dispatch.

mod cli;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, Parser};

use converse_tui::app::AppState;
use converse_tui::app::browser::{Browser, BrowserEntry, EntrySource};
use converse_tui::app::task_picker::TaskPicker;
use converse_tui::config::ui_state::UiState;
use converse_tui::config::{Keymap, Paths, Theme};
use converse_tui::core::sanitize::{SafeWriter, single_line};

use cli::{BatchCli, Cli, Command, ConfigCommand, DataCommand, ModelArgs, NotesCommand, RunCli};
use converse_tui::config::settings::{ConfigFile, ModelFlags, RoleFlags};
use converse_tui::core::dataset::TaskLookup;
use converse_tui::core::llm::{PerRole, Role};
use converse_tui::core::sim::runner::Start;
use converse_tui::headless::batch::BatchArgs;
use converse_tui::headless::data::{self, DataFetchArgs, DataPathArgs, DataVerifyArgs};
use converse_tui::headless::episode_tasks;
use converse_tui::headless::tasks::TasksArgs;
use converse_tui::session::journal_load::{self, JournalLoad};
use converse_tui::session::{Launch, RunArgs, SettingFlags, TaskSelection};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let paths = Paths::from_env();
    remember_configured_keys(&paths);
    let _log = init_logging(&paths);
    match run(cli, &paths) {
        Ok(code) => code,
        // `converse-tui dump … | head` is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(stderr(), "converse-tui: {}", single_line(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}

/// stdout of a command, through the channel guard: every line inert, every known key masked.
fn stdout() -> SafeWriter<std::io::StdoutLock<'static>> {
    SafeWriter::new(std::io::stdout().lock())
}

/// stderr, through the same guard.
fn stderr() -> SafeWriter<std::io::Stderr> {
    SafeWriter::new(std::io::stderr())
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli, paths: &Paths) -> anyhow::Result<ExitCode> {
    match cli.command {
        None => {
            let episodes = converse_tui::core::demo::demo_episodes();
            let browser = Browser::new("demo episodes", episodes, Vec::new());
            let mut state = AppState::with_browser(browser, load_keymap(paths)?, true);
            state.autoplay.toggle();
            run_tui(state, &cli.theme, paths, ForkFlags::default(), None)
        }
        Some(Command::Replay { paths: inputs, models, dataset, theme }) => {
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let (state, rest) = open_inputs(&inputs, tasks, load_keymap(paths)?, Some(&paths.cache_dir))?;
            let forks = ForkFlags { models: model_flags(models), data_dir: dataset.data_dir };
            run_tui(state, theme.as_deref().unwrap_or(&cli.theme), paths, forks, rest)
        }
        Some(Command::Compare { a, b, dataset, theme }) => {
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let [a, b] = [one_episode(&a, &tasks)?, one_episode(&b, &tasks)?];
            let mut state = converse_tui::app::drive::comparing(a, b, load_keymap(paths)?);
            state.tasks = std::sync::Arc::new(tasks);
            run_tui(state, theme.as_deref().unwrap_or(&cli.theme), paths, ForkFlags::default(), None)
        }
        Some(Command::Dump { paths: inputs, json, dataset }) => {
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let mut out = stdout();
            converse_tui::headless::dump::dump(&inputs, json, &tasks, &mut out, &mut stderr())?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Tasks { source, json }) => {
            let args = TasksArgs { select: task_selection(source), json };
            converse_tui::headless::tasks::tasks(&args, paths, &mut stdout(), &mut stderr())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Data { command }) => data(command, paths),
        Some(Command::Judge { paths: inputs, models, rules_only, json, dataset }) => {
            let flags = model_flags(models.into());
            let judge = if rules_only {
                None
            } else {
                let file = ConfigFile::load(&paths.config_file())?;
                let role = flags.resolve(Role::Judge, &file);
                if role.model.is_none() {
                    anyhow::bail!(
                        "no judge model: pass --judge-model NAME (or --rules-only for rule judges alone)"
                    );
                }
                Some(role.endpoint(&paths.config_file())?)
            };
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let args = converse_tui::headless::judge::JudgeArgs { paths: inputs, judge, json, tasks };
            let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
            let mut out = stdout();
            let clean = runtime.block_on(converse_tui::headless::judge::judge(&args, &mut out))?;
            Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Some(Command::Batch(batch)) => batch_command(*batch, paths),
        Some(Command::Summary { dirs, json, dataset: _, by, judge_model, format, cache })
            if by.is_some() || judge_model.is_some() || format.is_some() =>
        {
            let by = match by {
                Some(list) => converse_tui::core::corpus::table::parse_group_fields(&list)
                    .map_err(anyhow::Error::msg)?,
                None => Vec::new(),
            };
            use converse_tui::headless::summary::Format;
            let format = format.unwrap_or(if json { Format::Json } else { Format::Table });
            let args = converse_tui::headless::summary::GroupedArgs {
                paths: dirs,
                by,
                judge_model,
                format,
                cache: cache.dir(paths),
            };
            let clean = converse_tui::headless::summary::grouped(&args, &mut stdout(), &mut stderr())?;
            Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Some(Command::Summary { dirs, json, dataset, .. }) => {
            if dirs.len() > 2 {
                anyhow::bail!(
                    "summary compares at most two directories (with --by it takes any number of paths)"
                );
            }
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            let args = converse_tui::headless::summary::SummaryArgs { dirs, json, tasks };
            converse_tui::headless::summary::summary(&args, &mut stdout(), &mut stderr())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Ls { paths: inputs, json, filter, cache }) => {
            let width = std::io::IsTerminal::is_terminal(&std::io::stdout())
                .then(|| ratatui::crossterm::terminal::size().ok().map(|(w, _)| usize::from(w)))
                .flatten();
            let args = converse_tui::headless::ls::LsArgs {
                paths: inputs,
                json,
                filter,
                width,
                cache: cache.dir(paths),
            };
            let clean = converse_tui::headless::ls::ls(&args, &mut stdout(), &mut stderr())?;
            Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Some(Command::Agreement { paths: inputs, review: true, cache, .. }) => {
            // The browser over the same episodes, opened on its agreement review.
            let tasks = episode_tasks::open(None, paths)?;
            let (mut state, rest) =
                open_inputs(&inputs, tasks, load_keymap(paths)?, cache.dir(paths).as_deref())?;
            if let Some(browser) = &mut state.browser {
                browser.open_review();
                state.screen = converse_tui::app::state::Screen::Browser;
            }
            run_tui(state, &cli.theme, paths, ForkFlags::default(), rest)
        }
        Some(Command::Search { pattern, paths: inputs, regex, case_sensitive, party, filter, json }) => {
            search_command(pattern, inputs, regex, case_sensitive, &party, filter, json)
        }
        Some(Command::Agreement { paths: inputs, json, cache, .. }) => {
            let args = converse_tui::headless::agreement::AgreementArgs {
                paths: inputs,
                json,
                cache: cache.dir(paths),
            };
            let clean = converse_tui::headless::agreement::run(&args, &mut stdout(), &mut stderr())?;
            Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        Some(Command::Run(mut run)) => {
            let theme = run.theme.take().unwrap_or(cli.theme);
            run_command(*run, false, &theme, paths)
        }
        Some(Command::Play(mut run)) => {
            let theme = run.theme.take().unwrap_or(cli.theme);
            run_command(*run, true, &theme, paths)
        }
        Some(Command::Config { command: ConfigCommand::Show { models } }) => {
            config_show(&model_flags(models), paths)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Export { paths: inputs, format, output, redact, dataset }) => {
            let format: converse_tui::headless::export::Format =
                format.parse().map_err(anyhow::Error::msg)?;
            let tasks = episode_tasks::open(dataset.data_dir.as_deref(), paths)?;
            converse_tui::headless::export::export(&inputs, format, output.as_deref(), redact, &tasks)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Notes { command: NotesCommand::Export { paths: inputs, format } }) => {
            let format = match format.as_str() {
                "jsonl" | "json" => converse_tui::headless::notes::ExportFormat::Jsonl,
                "csv" => converse_tui::headless::notes::ExportFormat::Csv,
                other => anyhow::bail!("unknown notes format '{other}': jsonl or csv"),
            };
            let mut out = stdout();
            converse_tui::headless::notes::export(&inputs, format, &mut out)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Completions { shell }) => {
            clap_complete::generate(shell, &mut Cli::command(), "converse-tui", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn search_command(
    pattern: String,
    paths: Vec<std::path::PathBuf>,
    regex: bool,
    case_sensitive: bool,
    party: &[String],
    filter: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    use converse_tui::core::search::{Query, Speaker};
    use converse_tui::headless::search::{Outcome, SearchArgs, search};
    let parties = match party.iter().map(|p| Speaker::parse(p)).collect::<Result<Vec<_>, _>>() {
        Ok(parties) => parties,
        Err(problem) => {
            writeln!(stderr(), "converse-tui: {}", single_line(&problem))?;
            return Ok(ExitCode::from(Outcome::BadQuery.code()));
        }
    };
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let args = SearchArgs {
        query: Query { pattern, regex, case_sensitive, parties },
        paths,
        filter,
        json,
        color: terminal && !no_color && !json,
    };
    // Colour is the one output that must reach the terminal with escapes: the search
    // writes its own highlights around text it has made inert itself.
    let outcome = if args.color {
        search(&args, &mut std::io::stdout().lock(), &mut stderr())?
    } else {
        search(&args, &mut stdout(), &mut stderr())?
    };
    Ok(ExitCode::from(outcome.code()))
}

fn model_flags(m: ModelArgs) -> ModelFlags {
    ModelFlags {
        base_url: m.base_url,
        roles: PerRole::new(
            RoleFlags { base_url: m.attacker_base_url, model: m.attacker_model },
            RoleFlags { base_url: m.assistant_base_url, model: m.assistant_model },
            RoleFlags { base_url: m.judge_base_url, model: m.judge_model },
        ),
    }
}

/// The episode settings shared by `run`, `play` and `batch`.
fn run_args(s: cli::EpisodeSettings, source: TaskSelection, models: ModelFlags) -> RunArgs {
    RunArgs {
        source,
        models,
        attacker_script: s.attacker_script,
        assistant_prompt: s.assistant_prompt,
        settings: s.flags,
        ..RunArgs::default()
    }
}

/// `batch`: exit code non-zero when an episode ended in error or the batch was stopped.
fn batch_command(b: BatchCli, paths: &Paths) -> anyhow::Result<ExitCode> {
    let run = run_args(b.settings, task_selection(b.source), model_flags(b.models));
    // Only a dry run goes without `--out` (clap enforces it), and it writes nothing.
    let mut args = BatchArgs::new(run, b.out.unwrap_or_default());
    args.concurrency = b.concurrency as usize;
    args.rpm_attacker = b.rpm_attacker;
    args.rpm_assistant = b.rpm_assistant;
    args.rpm_judge = b.rpm_judge;
    args.repeat = b.repeat;
    args.resume = b.resume;
    args.dry_run = b.dry_run;
    let shards = b.shards.map(|n| n as usize);
    if let (Some(kind), Some(shards)) = (b.emit, shards) {
        return emit_batch_job(kind, shards, &args, paths);
    }
    args.shard = converse_tui::headless::shard::resolve(b.shard, shards, |name| std::env::var(name).ok())?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(async {
        converse_tui::headless::batch::batch(&args, paths, &mut stdout(), &mut stderr()).await
    })?;
    Ok(if report.ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `batch --emit`: the job script or manifest on stdout.
fn emit_batch_job(
    kind: converse_tui::headless::emit::EmitKind,
    shards: usize,
    args: &BatchArgs,
    paths: &Paths,
) -> anyhow::Result<ExitCode> {
    let batch_flags: Vec<std::ffi::OsString> =
        std::env::args_os().skip_while(|a| a != "batch").skip(1).collect();
    let program = std::env::current_exe().context("--emit: cannot find this program's path")?;
    let workdir = std::env::current_dir().context("--emit: cannot read the working directory")?;
    let job = converse_tui::headless::emit::JobSpec {
        shards,
        batch_flags: &batch_flags,
        program: &program,
        workdir: &workdir,
        cpus: 1,
        memory_mb: 1024,
    };
    let text = converse_tui::headless::emit::emit(kind, &job, args, paths)?;
    let mut out = stdout();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `run` and `play` (`human`: the person at the keyboard is the attacker).
fn run_command(run: RunCli, human: bool, theme: &str, paths: &Paths) -> anyhow::Result<ExitCode> {
    if human && run.headless {
        anyhow::bail!("play needs the screen: --headless cannot be used with play");
    }
    let mut args = RunArgs {
        task: run.task.clone(),
        out: run.out,
        ..run_args(run.settings, task_selection(run.source), model_flags(run.models))
    };
    args.settings.paused = run.paused;
    let launch = Launch::new(&args, paths)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    if run.headless {
        let Some(task) = &args.task else {
            anyhow::bail!("--headless needs --task ID (list them with `converse-tui tasks`)");
        };
        launch.find_task(task)?;
        let outcome = runtime.block_on(async {
            let mut out = stdout();
            converse_tui::headless::run::headless(&launch, task, &mut out).await
        })?;
        if let Some(error) = &outcome.error {
            writeln!(stderr(), "converse-tui: {}", single_line(error))?;
        }
        let ok = converse_tui::headless::run::completed(&outcome);
        return Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE });
    }
    if let Some(task) = &args.task {
        launch.find_task(task)?;
    }
    converse_tui::tui::terminal::ensure_terminal()?;
    let keymap = load_keymap(paths)?;
    let picker = TaskPicker::new(launch.tasks.clone(), launch.source.clone());
    let theme = load_theme(theme, paths)?;
    runtime.block_on(async move {
        let (mut state, handle) = match &args.task {
            Some(task) => {
                let handle = launch.start_with(task, Start { human, ..Start::default() })?;
                // Printed before the screen takes over, so it is still there after.
                let mut out = stdout();
                writeln!(out, "episode {} → {}", handle.episode_id, handle.journal_path.display())?;
                for warning in &handle.warnings {
                    writeln!(out, "warning: {}", single_line(warning))?;
                }
                drop(out);
                let mut state = AppState::live(
                    keymap,
                    handle.journal_path.display().to_string(),
                    launch.settings.start_paused,
                );
                state.message = converse_tui::app::state::warning_line(&handle.warnings);
                if let Some(live) = &mut state.live {
                    live.human = human;
                }
                (state, Some(handle))
            }
            None => (AppState::with_browser(Browser::new("", Vec::new(), Vec::new()), keymap, false), None),
        };
        state.picker = Some(picker);
        state.author = author(paths);
        remember_layout(&mut state, paths)?;
        if handle.is_none() {
            state.open_picker(None);
        }
        let launcher: converse_tui::tui::event_loop::Launcher =
            Box::new(move |id: &str, mut start: Start| {
                // In `play`, a task chosen in the picker is played by the human too.
                start.human |= human && start.resume.is_none();
                launch.start_with(id, start)
            });
        converse_tui::tui::run(state, theme, handle, Some(launcher), None).await
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Written with `writeln!`, not `println!`, so `config show | head -1` ends quietly (broken pipe).
fn config_show(models: &ModelFlags, paths: &Paths) -> anyhow::Result<()> {
    let mut out = stdout();
    let path = paths.config_file();
    let file = ConfigFile::load(&path)?;
    let exists = if path.exists() { "" } else { " (not present: built-in defaults)" };
    writeln!(out, "config file: {}{exists}", path.display())?;
    for role in [Role::Attacker, Role::Assistant, Role::Judge] {
        write!(out, "{}", models.resolve(role, &file).describe())?;
    }
    let run = SettingFlags::default().merge(&file.run);
    writeln!(
        out,
        "[run]\n  max_turns      = {}\n  max_tool_calls = {}\n  seed           = {}\n  stream         = {}",
        run.max_turns,
        run.max_tool_calls,
        run.seed.map_or("none".to_string(), |s| s.to_string()),
        run.stream
    )?;
    writeln!(
        out,
        "[paths]\n  episodes = {}\n  dataset  = {}\n  themes   = {}\n  keymap   = {}\n  log      = {}",
        paths.episodes_dir.display(),
        paths.dataset_dir.display(),
        paths.themes_dir().display(),
        paths.keymap_file().display(),
        paths.log_dir.display()
    )?;
    Ok(())
}

fn task_selection(source: cli::TaskSource) -> TaskSelection {
    TaskSelection {
        data_dir: source.data_dir,
        domain: source.domain,
        split: source.split,
        persona: source.persona,
        limit: source.limit,
        lenient: source.lenient,
    }
}

fn data(command: DataCommand, paths: &Paths) -> anyhow::Result<ExitCode> {
    let mut out = stdout();
    match command {
        DataCommand::Fetch { domain, all, force, data_dir, timeout } => {
            let args = DataFetchArgs {
                data_dir,
                domain,
                all,
                force,
                timeout: timeout.map(std::time::Duration::from_secs),
                ..DataFetchArgs::default()
            };
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            runtime.block_on(data::data_fetch(&args, paths, &mut out))?;
            Ok(ExitCode::SUCCESS)
        }
        DataCommand::Path { data_dir } => {
            data::data_path(&DataPathArgs { data_dir }, paths, &mut out)?;
            Ok(ExitCode::SUCCESS)
        }
        DataCommand::Verify { domain, data_dir, json } => {
            let complete = data::data_verify(&DataVerifyArgs { data_dir, domain, json }, paths, &mut out)?;
            Ok(if complete { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
    }
}

fn load_keymap(paths: &Paths) -> anyhow::Result<Keymap> {
    Keymap::load(&paths.keymap_file())
}

/// The tasks behind the picker (`t`) and redaction: `--data-dir`, else the downloaded benchmark,
/// else the bundled sample.
fn task_picker(paths: &Paths, data_dir: Option<&std::path::Path>) -> Option<TaskPicker> {
    let selection =
        TaskSelection { data_dir: data_dir.map(std::path::Path::to_path_buf), ..Default::default() };
    match converse_tui::session::tasks::load(&selection, paths) {
        Ok(loaded) => Some(TaskPicker::new(loaded.tasks, loaded.source.to_string())),
        Err(e) => {
            tracing::warn!("task picker unavailable: {e:#}");
            None
        }
    }
}

fn load_theme(name: &str, paths: &Paths) -> anyhow::Result<Theme> {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    Theme::load(name, &paths.themes_dir(), no_color)
}

/// Who annotations are recorded as: `author` in the config file, else `$USER`.
fn author(paths: &Paths) -> String {
    let configured = ConfigFile::load(&paths.config_file()).ok().and_then(|c| c.author);
    converse_tui::core::annotate::default_author(configured.as_deref())
}

/// The layout chosen last time (`v`), written back when it changes.
fn remember_layout(state: &mut AppState, paths: &Paths) -> anyhow::Result<()> {
    let file = paths.ui_state_file();
    state.layout_mode = UiState::load(&file)?.layout;
    state.ui_state_file = Some(file);
    Ok(())
}

/// What `replay` knows about the episodes it may fork (`T`): model flags, and where the tasks are.
#[derive(Default)]
struct ForkFlags {
    models: ModelFlags,
    data_dir: Option<PathBuf>,
}

fn run_tui(
    mut state: AppState,
    theme: &str,
    paths: &Paths,
    forks: ForkFlags,
    rest: Option<JournalLoad>,
) -> anyhow::Result<ExitCode> {
    converse_tui::tui::terminal::ensure_terminal()?;
    remember_layout(&mut state, paths)?;
    state.picker = task_picker(paths, forks.data_dir.as_deref());
    state.author = author(paths);
    let theme = load_theme(theme, paths)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let launcher = replay_launcher(paths.clone(), forks);
    runtime.block_on(converse_tui::tui::run(state, theme, None, Some(launcher), rest))?;
    Ok(ExitCode::SUCCESS)
}

/// Starts a task chosen in the picker with the models of the config file,
/// environment and flags; a fork runs with its parent's models and limits
/// (a flag names another model). A missing model is reported on the status line.
fn replay_launcher(paths: Paths, forks: ForkFlags) -> converse_tui::tui::event_loop::Launcher {
    let mut launch: Option<Launch> = None;
    Box::new(move |id: &str, start: Start| {
        let parent = start.resume.as_ref().and_then(|r| r.prefix.first()).and_then(|e| match &e.body {
            converse_tui::core::episode::EventBody::Episode(header) => Some(header.clone()),
            _ => None,
        });
        if let Some(header) = parent {
            let args = converse_tui::session::fork_args(&header, &forks.models, forks.data_dir.clone());
            return Launch::new(&args, &paths)?.start_with(id, start);
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

/// The one episode of a file (`compare` takes one per side), its task looked up in `tasks`.
fn one_episode(
    path: &std::path::Path,
    tasks: &TaskLookup,
) -> anyhow::Result<converse_tui::core::episode::Episode> {
    let mut episodes = converse_tui::core::import::load_path(path)?;
    if episodes.len() != 1 {
        anyhow::bail!(
            "{}: holds {} episodes; compare takes a file of one episode per side (`dump` lists them)",
            path.display(),
            episodes.len()
        );
    }
    for note in episode_tasks::enrich(tasks, &mut episodes) {
        tracing::info!("{note}");
    }
    Ok(episodes.remove(0))
}

/// One episode opens on the inspector; several open the browser. Directories
/// are indexed (episodes load when opened); files are loaded whole, but one journal alone is
/// opened in steps: its first batch now, the rest read by the TUI once that is on screen.
/// Imported episodes get their task from `tasks`, those loaded later from the
/// browser too.
fn open_inputs(
    inputs: &[PathBuf],
    tasks: TaskLookup,
    keymap: Keymap,
    cache_dir: Option<&std::path::Path>,
) -> anyhow::Result<(AppState, Option<JournalLoad>)> {
    if let [input] = inputs
        && !input.is_dir()
        && converse_tui::core::episode::is_journal(input)
    {
        let (mut episode, rest) = JournalLoad::open(input, journal_load::batch_bytes())?;
        for note in episode_tasks::enrich(&tasks, std::iter::once(&mut episode)) {
            tracing::info!("{note}");
        }
        for warning in &episode.warnings {
            tracing::warn!("{warning}");
        }
        let mut state = AppState::with_episode(episode, keymap);
        state.tasks = std::sync::Arc::new(tasks);
        if let Some(rest) = &rest {
            let (read, total) = rest.progress();
            state.loading_rest(read, total);
        }
        return Ok((state, rest));
    }
    let mut items: Vec<(BrowserEntry, EntrySource)> = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        if input.is_dir() {
            // The corpus index, as `ls` reads it (and from the same cache).
            let corpus = converse_tui::core::corpus::index_cached(std::slice::from_ref(input), cache_dir);
            for warning in &corpus.warnings {
                tracing::warn!("{warning}");
            }
            items.extend(corpus.rows.into_iter().map(|row| {
                let source = EntrySource::File { path: row.path.clone(), id: row.id.clone() };
                (BrowserEntry::from_row(row), source)
            }));
            errors.extend(corpus.errors.into_iter().map(|e| e.to_string()));
        } else {
            let mut episodes = converse_tui::core::import::load_path(input)?;
            for note in episode_tasks::enrich(&tasks, &mut episodes) {
                tracing::info!("{note}");
            }
            items.extend(
                episodes.into_iter().map(|e| (BrowserEntry::of(&e), EntrySource::Loaded(Box::new(e)))),
            );
        }
    }
    let single_file = inputs.len() == 1 && !inputs[0].is_dir();
    if single_file
        && items.len() == 1
        && let Some((_, EntrySource::Loaded(episode))) = items.pop()
    {
        for warning in &episode.warnings {
            tracing::warn!("{warning}");
        }
        let mut state = AppState::with_episode(*episode, keymap);
        state.tasks = std::sync::Arc::new(tasks);
        return Ok((state, None));
    }
    // A directory holding one episode: open it at once (the browser stays one key away).
    let open_first = items.len() == 1 && errors.is_empty();
    if open_first
        && let Some((_, source)) = items.first_mut()
        && let EntrySource::File { path, id } = source
    {
        let episode = converse_tui::core::import::load_episode(path, id)?;
        *source = EntrySource::Loaded(Box::new(episode));
    }
    let title = inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    let mut state = AppState::with_browser(Browser::from_items(title, items, errors), keymap, open_first);
    state.tasks = std::sync::Arc::new(tasks);
    Ok((state, None))
}

/// Logs go to a file, never to the terminal the TUI draws on.
/// The keys named by the config file (and the default variable) are masked in every output,
/// whether or not this command calls a model: a journal or an error may hold one.
fn remember_configured_keys(paths: &Paths) {
    use converse_tui::core::llm::key_mask;
    key_mask::remember_env([converse_tui::config::settings::DEFAULT_KEY_ENV]);
    if let Ok(file) = ConfigFile::load(&paths.config_file()) {
        for role in [Role::Attacker, Role::Assistant, Role::Judge] {
            key_mask::remember_env(file.roles[role].api_key_env.as_deref());
        }
    }
}

fn init_logging(paths: &Paths) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    std::fs::create_dir_all(&paths.log_dir).ok()?;
    let appender = tracing_appender::rolling::never(&paths.log_dir, "converse-tui.log");
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = tracing_subscriber::EnvFilter::try_from_env("CONVERSE_TUI_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Log lines carry server error bodies and model text: made inert like the screen.
    let writer = move || converse_tui::core::sanitize::InertWriter(writer.clone());
    tracing_subscriber::fmt().with_writer(writer).with_ansi(false).with_env_filter(filter).try_init().ok()?;
    Some(guard)
}
