//! The commands whose flags need more than a call: their clap arguments turned into the
//! arguments of the layer that runs them.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;

use super::args::{self, BatchCli, DataCommand, ModelArgs, RunCli, SearchCli};
use super::process::{stderr, stdout};
use crate::config::Paths;
use crate::config::settings::{ConfigFile, ModelFlags, RoleFlags};
use crate::core::llm::{PerRole, Role};
use crate::core::sanitize::single_line;
use crate::headless::batch::BatchArgs;
use crate::headless::data::{self, DataFetchArgs, DataPathArgs, DataVerifyArgs};
use crate::session::{Launch, RunArgs, SettingFlags, TaskSelection};
use crate::tui::setup;

/// `search`: exit code 0 with a match, 1 without, 2 for a bad query or an unreadable file.
pub(super) fn search_command(flags: SearchCli) -> anyhow::Result<ExitCode> {
    use crate::core::search::{Field, Query, Speaker};
    use crate::headless::search::{Outcome, SearchArgs, search};
    let SearchCli { pattern, paths, regex, case_sensitive, party, fields, filter, json } = flags;
    let parties = match party.iter().map(|p| Speaker::parse(p)).collect::<Result<Vec<_>, _>>() {
        Ok(parties) => parties,
        Err(problem) => {
            writeln!(stderr(), "converse-tui: {}", single_line(&problem))?;
            return Ok(ExitCode::from(Outcome::BadQuery.code()));
        }
    };
    let fields = match fields.iter().map(|f| Field::parse(f)).collect::<Result<Vec<_>, _>>() {
        Ok(fields) => fields,
        Err(problem) => {
            writeln!(stderr(), "converse-tui: {}", single_line(&problem))?;
            return Ok(ExitCode::from(Outcome::BadQuery.code()));
        }
    };
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let args = SearchArgs {
        query: Query { pattern, regex, case_sensitive, parties, fields },
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

pub(super) fn model_flags(m: ModelArgs) -> ModelFlags {
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
pub(super) fn run_args(s: args::EpisodeSettings, source: TaskSelection, models: ModelFlags) -> RunArgs {
    RunArgs {
        source,
        models,
        attacker_script: s.attacker_script,
        assistant_prompt: s.agent.assistant_prompt,
        assistant: s.agent.assistant,
        settings: s.agent.flags,
        ..RunArgs::default()
    }
}

/// `test`: exit code 0 when every case holds, 1 when one fails, 2 when one was left undecided.
pub(super) fn test_command(t: args::TestCli, paths: &Paths) -> anyhow::Result<ExitCode> {
    let source = TaskSelection { data_dir: t.dataset.data_dir, ..TaskSelection::default() };
    let run = run_args(t.settings, source, model_flags(t.models));
    let out = match t.out {
        Some(out) => out,
        None if t.dry_run => std::path::PathBuf::new(),
        None => {
            let out = crate::headless::suite_test::default_out(&t.suite, paths, t.resume)?;
            writeln!(stderr(), "runs in {} (--out to choose; `--resume` goes on there)", out.display())?;
            out
        }
    };
    let mut batch = BatchArgs::new(run, out);
    batch.concurrency = t.concurrency as usize;
    batch.rpm = t.rpm;
    (batch.repeat, batch.resume, batch.dry_run) = (t.repeat, t.resume, t.dry_run);
    let args = crate::headless::suite_test::TestArgs {
        batch,
        suite: t.suite,
        min_pass: t.min_pass,
        junit: t.junit,
        json: t.json,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(async {
        crate::headless::suite_test::test(&args, paths, &mut stdout(), &mut stderr()).await
    })?;
    Ok(ExitCode::from(report.exit_code()))
}

/// `attack`: exit code 0 when nothing leaked within the budget, 1 on a leak, 2 when undecided —
/// and 2 for a search that could not start (bad input), which has found nothing either way.
pub(super) fn attack_command(a: args::AttackCli, paths: &Paths) -> anyhow::Result<ExitCode> {
    use crate::session::attack::{AttackArgs, ShapeFlags, Start};
    let run = async {
        if a.agent.flags.max_turns.is_some() || a.agent.flags.judge_live {
            anyhow::bail!(
                "attack counts turns with --depth and judges every node at its end: leave out --max-turns and --judge-live"
            );
        }
        let start = match (a.task, a.from, a.turn) {
            (Some(task), ..) => Some(Start::Task(task)),
            (None, Some(file), Some(turn)) => Some(Start::Episode { file, id: None, turn }),
            _ => None,
        };
        let source = TaskSelection { data_dir: a.dataset.data_dir, ..TaskSelection::default() };
        let run = RunArgs {
            source,
            models: model_flags(a.models),
            assistant_prompt: a.agent.assistant_prompt,
            assistant: a.agent.assistant,
            settings: a.agent.flags,
            ..RunArgs::default()
        };
        let shape = ShapeFlags {
            strategy: a.strategy,
            depth: a.depth,
            branch: a.branch,
            width: a.width,
            max_backtracks: a.max_backtracks,
            attempts: a.attempts,
            no_on_topic: a.no_on_topic,
        };
        let args = AttackArgs {
            run,
            start,
            shape,
            techniques: a.techniques,
            budget: a.budget,
            concurrency: a.concurrency as usize,
            rpm: a.rpm,
            out: a.out,
            resume: a.resume,
            judge_options: Default::default(),
        };
        crate::headless::attack::attack(&args, paths, a.json, &mut stdout(), &mut stderr()).await
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    match runtime.block_on(run) {
        Ok(report) => Ok(ExitCode::from(report.exit)),
        Err(e) => {
            writeln!(stderr(), "converse-tui: {}", single_line(&format!("{e:#}")))?;
            Ok(ExitCode::from(crate::headless::attack::UNDECIDED))
        }
    }
}

/// `fan`: exit code 0 when every attempt was decided and none leaked, 1 on a leak, 2 when an
/// attempt was left undecided (not run, cut short, not judged) and none leaked.
pub(super) fn fan_command(f: args::FanCli, paths: &Paths) -> anyhow::Result<ExitCode> {
    let source = TaskSelection { data_dir: f.dataset.data_dir.clone(), ..TaskSelection::default() };
    let models = model_flags(f.models);
    let run = run_args(f.settings, source, models.clone());
    let mut batch = BatchArgs::new(run, f.out.unwrap_or_default());
    batch.concurrency = f.concurrency as usize;
    batch.rpm = f.rpm;
    (batch.repeat, batch.resume, batch.dry_run) = (f.attempts, f.resume, f.dry_run);
    let mode = if f.rest { crate::core::fan::FanMode::Rest } else { crate::core::fan::FanMode::Reply };
    let args = crate::headless::fan::FanArgs {
        batch,
        episode: f.episode,
        turn: f.turn,
        mode,
        models,
        data_dir: f.dataset.data_dir,
        json: f.json,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime
        .block_on(async { crate::headless::fan::fan(&args, paths, &mut stdout(), &mut stderr()).await })?;
    Ok(ExitCode::from(report.exit_code()))
}

/// `suite add` and `suite ls`.
pub(super) fn suite_command(command: args::SuiteCommand, paths: &Paths) -> anyhow::Result<ExitCode> {
    use crate::headless::suite::{AddArgs, add, ls};
    match command {
        args::SuiteCommand::Add { suite, paths: inputs, filter, live, attacker_model, dataset, cache } => {
            let selection = TaskSelection { data_dir: dataset.data_dir, ..TaskSelection::default() };
            let tasks = crate::session::tasks::load(&selection, paths)?.tasks;
            let args =
                AddArgs { suite, paths: inputs, filter, live, attacker_model, cache: cache.dir(paths) };
            let report = add(&args, &tasks, &mut stdout(), &mut stderr())?;
            Ok(if report.failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        args::SuiteCommand::Ls { suite, json } => {
            ls(&suite, json, &mut stdout())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `batch`: exit code non-zero when an episode ended in error or the batch was stopped.
pub(super) fn batch_command(b: BatchCli, paths: &Paths) -> anyhow::Result<ExitCode> {
    let run = run_args(b.settings, task_selection(b.source), model_flags(b.models));
    // Only a dry run goes without `--out` (clap enforces it), and it writes nothing.
    let mut args = BatchArgs::new(run, b.out.unwrap_or_default());
    args.concurrency = b.concurrency as usize;
    args.rpm = b.rpm;
    args.repeat = b.repeat;
    args.resume = b.resume;
    args.dry_run = b.dry_run;
    let shards = b.shards.map(|n| n as usize);
    if let (Some(kind), Some(shards)) = (b.emit, shards) {
        return emit_batch_job(kind, shards, &args, paths);
    }
    args.shard = crate::headless::shard::resolve(b.shard, shards, |name| std::env::var(name).ok())?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let report = runtime.block_on(async {
        crate::headless::batch::batch(&args, paths, &mut stdout(), &mut stderr()).await
    })?;
    Ok(if report.ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `batch --emit`: the job script or manifest on stdout.
fn emit_batch_job(
    kind: crate::headless::emit::EmitKind,
    shards: usize,
    args: &BatchArgs,
    paths: &Paths,
) -> anyhow::Result<ExitCode> {
    let batch_flags: Vec<std::ffi::OsString> =
        std::env::args_os().skip_while(|a| a != "batch").skip(1).collect();
    let program = std::env::current_exe().context("--emit: cannot find this program's path")?;
    let workdir = std::env::current_dir().context("--emit: cannot read the working directory")?;
    let job = crate::headless::emit::JobSpec {
        shards,
        batch_flags: &batch_flags,
        program: &program,
        workdir: &workdir,
        cpus: 1,
        memory_mb: 1024,
    };
    let text = crate::headless::emit::emit(kind, &job, args, paths)?;
    let mut out = stdout();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `run` and `play` (`human`: the person at the keyboard is the attacker).
pub(super) fn run_command(run: RunCli, human: bool, theme: &str, paths: &Paths) -> anyhow::Result<ExitCode> {
    if human && run.headless {
        anyhow::bail!("play needs the screen: --headless cannot be used with play");
    }
    let mut args = RunArgs {
        task: run.task.clone(),
        out: run.out,
        ..run_args(run.settings, task_selection(run.source), model_flags(run.models))
    };
    args.settings.paused = run.paused;
    if run.print_agent_config {
        if args.settings.agent.launch.is_some() {
            anyhow::bail!("--print-agent-config serves the tools alone: --launch starts agents for episodes");
        }
        return print_agent_config(&args, paths);
    }
    let launch = Launch::new(&args, paths)?;
    if run.headless {
        let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
        let Some(task) = &args.task else {
            anyhow::bail!("--headless needs --task ID (list them with `converse-tui tasks`)");
        };
        launch.find_task(task)?;
        let outcome = runtime.block_on(async {
            let mut out = stdout();
            crate::headless::run::headless(&launch, task, &mut out).await
        })?;
        if let Some(error) = &outcome.error {
            writeln!(stderr(), "converse-tui: {}", single_line(error))?;
        }
        let ok = crate::headless::run::completed(&outcome);
        return Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE });
    }
    if let Some(task) = &args.task {
        launch.find_task(task)?;
    }
    setup::live(launch, args.task.as_deref(), human, theme, paths)?;
    Ok(ExitCode::SUCCESS)
}

/// `run --task ID --print-agent-config`: the task's tools served with no episode, until Ctrl-C.
fn print_agent_config(args: &RunArgs, paths: &Paths) -> anyhow::Result<ExitCode> {
    let Some(id) = &args.task else {
        anyhow::bail!("--print-agent-config needs --task ID (list them with `converse-tui tasks`)");
    };
    let file = ConfigFile::load(&paths.config_file())?;
    let settings = args.settings.resolve(&file.run)?;
    let loaded = crate::session::tasks::load(&args.source, paths)?;
    let Some(task) = loaded.tasks.iter().find(|t| &t.id == id) else {
        anyhow::bail!("no task {id:?} (list them with `converse-tui tasks`)");
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(crate::headless::agent_config::serve(task, &settings, &mut stdout(), &mut stderr()))?;
    Ok(ExitCode::SUCCESS)
}

/// Written with `writeln!`, not `println!`, so `config show | head -1` ends quietly (broken pipe).
pub(super) fn config_show(models: &ModelFlags, paths: &Paths) -> anyhow::Result<()> {
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

pub(super) fn task_selection(source: args::TaskSource) -> TaskSelection {
    TaskSelection {
        data_dir: source.data_dir,
        domain: source.domain,
        split: source.split,
        persona: source.persona,
        limit: source.limit,
        lenient: source.lenient,
    }
}

pub(super) fn data(command: DataCommand, paths: &Paths) -> anyhow::Result<ExitCode> {
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

/// What `chart` was asked for, flags resolved.
pub(super) struct ChartRequest {
    pub by: Option<String>,
    pub judge: Option<String>,
    pub count_all: bool,
    pub width: Option<u16>,
    pub cache: Option<std::path::PathBuf>,
}

impl ChartRequest {
    fn args(self, inputs: Vec<std::path::PathBuf>) -> anyhow::Result<crate::headless::charts::ChartArgs> {
        let by = self
            .by
            .map(|list| crate::core::corpus::GroupField::parse_list(&list).map_err(anyhow::Error::msg))
            .transpose()?;
        Ok(crate::headless::charts::ChartArgs {
            paths: inputs,
            by,
            judge: self.judge,
            count_all: self.count_all,
            cache: self.cache,
        })
    }
}

/// `chart`: the corpus indexed, grouped and charted for one verdict source, printed.
pub(super) fn chart_command(
    inputs: &[std::path::PathBuf],
    request: ChartRequest,
    paths: &Paths,
) -> anyhow::Result<ExitCode> {
    let width = request.width;
    let charted = crate::headless::charts::chart_data(&request.args(inputs.to_vec())?, &mut stderr())?;
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let width = width
        .or_else(|| terminal.then(|| ratatui::crossterm::terminal::size().ok().map(|(w, _)| w)).flatten())
        .unwrap_or(100);
    let mut theme = setup::load_theme(crate::config::theme::DEFAULT_THEME, paths)?;
    theme.color &= terminal;
    writeln!(stderr(), "{}", charted.note)?;
    // Colour is written as escapes around text made inert when the series were built.
    if theme.color {
        crate::tui::chart_print::print(&charted.series, width, &theme, &mut std::io::stdout().lock())?;
    } else {
        crate::tui::chart_print::print(&charted.series, width, &theme, &mut stdout())?;
    }
    Ok(if charted.clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `export --by …`: a corpus's charts as an HTML page, or their series as JSON or CSV.
pub(super) fn export_charts_command(
    inputs: Vec<std::path::PathBuf>,
    request: ChartRequest,
    format: crate::core::export::Format,
    output: Option<&std::path::Path>,
    redact: bool,
) -> anyhow::Result<ExitCode> {
    if redact {
        anyhow::bail!("--redact masks episodes' texts: a corpus's charts hold none (leave it out)");
    }
    let args = request.args(inputs)?;
    let clean = crate::headless::charts::export_charts(&args, format, output, &mut stdout(), &mut stderr())?;
    Ok(if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
