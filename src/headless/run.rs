//! `converse-tui run`: everything needed to start live episodes (tasks,
//! endpoints, limits, where journals go), and the headless printer.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};

use crate::config::Paths;
use crate::config::settings::{ConfigFile, EffectiveRole, RoleFlags};
use crate::core::dataset::Task;
use crate::core::episode::{EndReason, EpisodeHeader, EventBody};
use crate::core::llm::{Endpoint, GenerationParams, LlmClient, RateLimits, Role};
use crate::core::sanitize::single_line;
use crate::core::sim::attacker::{Attacker, HumanAttacker, LlmAttacker, ScriptedAttacker};
use crate::core::sim::emitter::RunnerUpdate;
use crate::core::sim::prompts::assistant_prompt_from_file;
use crate::core::sim::runner::{
    self, DEFAULT_MAX_TOOL_CALLS, DEFAULT_MAX_TURNS, RunConfig, RunOutcome, RunnerHandle, Start,
    attacker_lines,
};

use super::tasks::TasksArgs;

/// Model endpoints from the command line.
#[derive(Debug, Clone, Default)]
pub struct ModelFlags {
    /// Sets every role's base URL.
    pub base_url: Option<String>,
    pub attacker: RoleFlags,
    pub assistant: RoleFlags,
    pub judge: RoleFlags,
}

impl ModelFlags {
    fn role(&self, role: Role) -> &RoleFlags {
        match role {
            Role::Attacker => &self.attacker,
            Role::Assistant => &self.assistant,
            Role::Judge => &self.judge,
        }
    }

    /// The effective settings of a role.
    pub fn resolve(&self, role: Role, file: &ConfigFile) -> EffectiveRole {
        EffectiveRole::resolve(role, file.role(role), self.role(role), self.base_url.as_deref())
    }
}

#[derive(Debug, Clone, Default)]
pub struct RunArgs {
    pub task: Option<String>,
    pub source: TasksArgs,
    pub models: ModelFlags,
    /// Replay the attacker messages of this episode instead of an attacker model.
    pub attacker_script: Option<PathBuf>,
    pub assistant_prompt: Option<PathBuf>,
    pub max_turns: Option<u32>,
    pub max_tool_calls: Option<u32>,
    pub seed: Option<u64>,
    pub temperature: Option<f64>,
    pub no_stream: bool,
    /// Start paused: nothing is sent until the user continues or steps.
    pub paused: bool,
    /// Where journals go (default: the data dir's `episodes/`).
    pub out: Option<PathBuf>,
    /// Run the LLM judges after every turn too, not only at the end.
    pub judge_live: bool,
}

/// Ready to start episodes: tasks loaded, endpoints resolved and checked.
pub struct Launch {
    pub tasks: Vec<Task>,
    /// Where the tasks came from, for messages.
    pub source: String,
    assistant: Endpoint,
    attacker: Result<Endpoint, String>,
    judge: Option<Endpoint>,
    judge_live: bool,
    script: Option<Script>,
    assistant_prompt: Option<(PathBuf, String)>,
    max_turns: u32,
    max_tool_calls: u32,
    seed: Option<u64>,
    temperature: Option<f64>,
    stream: bool,
    paused: bool,
    pub out: PathBuf,
    client: LlmClient,
}

impl Launch {
    pub fn new(args: &RunArgs, paths: &Paths) -> anyhow::Result<Launch> {
        let config_path = paths.config_file();
        let file = ConfigFile::load(&config_path)?;
        let loaded = super::tasks::load(&args.source, paths)?;
        let assistant = args.models.resolve(Role::Assistant, &file).endpoint(&config_path)?;
        let script = match &args.attacker_script {
            Some(path) => Some(script_from(path)?),
            None => None,
        };
        // Needed only when a model plays the attacker: checked when an episode starts.
        let attacker =
            args.models.resolve(Role::Attacker, &file).endpoint(&config_path).map_err(|e| e.to_string());
        // LLM judges only when a judge model is named; rule judges always run.
        let judge_role = args.models.resolve(Role::Judge, &file);
        let judge = match &judge_role.model {
            Some(_) => Some(judge_role.endpoint(&config_path)?),
            None => None,
        };
        if args.judge_live && judge.is_none() {
            bail!("--judge-live needs a judge model: pass --judge-model NAME or set `model` under [judge]");
        }
        let assistant_prompt = match &args.assistant_prompt {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("{}: cannot read the assistant prompt", path.display()))?;
                Some((path.clone(), text))
            }
            None => None,
        };
        let max_turns = args.max_turns.or(file.run.max_turns).unwrap_or(DEFAULT_MAX_TURNS);
        if max_turns < 2 {
            bail!("--max-turns must be at least 2 (the user's task counts as attacker turn 1)");
        }
        Ok(Launch {
            tasks: loaded.tasks,
            source: loaded.source.to_string(),
            assistant,
            attacker,
            judge,
            judge_live: args.judge_live,
            script,
            assistant_prompt,
            max_turns,
            max_tool_calls: args.max_tool_calls.or(file.run.max_tool_calls).unwrap_or(DEFAULT_MAX_TOOL_CALLS),
            seed: args.seed.or(file.run.seed),
            temperature: args.temperature,
            stream: !args.no_stream && file.run.stream.unwrap_or(true),
            paused: args.paused,
            out: args.out.clone().unwrap_or_else(|| paths.episodes_dir.clone()),
            client: LlmClient::new().context("cannot set up the HTTP client")?,
        })
    }

    /// Paces every later episode's requests per role (see [`RateLimits`]).
    pub fn set_rate_limits(&mut self, limits: RateLimits) {
        self.client = self.client.clone().with_rate_limits(limits);
    }

    pub fn find_task(&self, id: &str) -> anyhow::Result<&Task> {
        if let Some(task) = self.tasks.iter().find(|t| t.id == id) {
            return Ok(task);
        }
        let near: Vec<&str> = self
            .tasks
            .iter()
            .map(|t| t.id.as_str())
            .filter(|t| t.contains(id) || id.contains(*t))
            .take(5)
            .collect();
        let hint = if near.is_empty() {
            "list them with `converse-tui tasks`".to_string()
        } else {
            format!("did you mean: {}", near.join(", "))
        };
        bail!("no task '{id}' in {} ({hint})", self.source)
    }

    /// Creates the journal and starts the episode (call inside a tokio runtime).
    pub fn start(&self, task_id: &str) -> anyhow::Result<RunnerHandle> {
        self.start_with(task_id, Start::default())
    }

    /// Starts an episode with a human attacker and/or from a saved episode's prefix.
    pub fn start_with(&self, task_id: &str, start: Start) -> anyhow::Result<RunnerHandle> {
        self.start_at(task_id, start, None)
    }

    /// Like [`Launch::start_with`], with the journal at `journal` instead of
    /// `<out>/<episode id>.jsonl` (batch runs name journals per task and repeat).
    pub fn start_at(
        &self,
        task_id: &str,
        start: Start,
        journal: Option<PathBuf>,
    ) -> anyhow::Result<RunnerHandle> {
        let task = self.find_task(task_id)?.clone();
        let episode_id = runner::new_episode_id();
        let dir = start.journal_dir.as_ref().unwrap_or(&self.out);
        let journal_path = journal.unwrap_or_else(|| dir.join(format!("{episode_id}.jsonl")));
        let params = GenerationParams {
            temperature: self.temperature,
            seed: self.seed.map(|s| s as i64),
            ..Default::default()
        };
        let (human_tx, human_rx) = tokio::sync::mpsc::channel(4);
        let attacker: Box<dyn Attacker> = match (start.human, &self.script, &self.attacker) {
            (true, ..) => Box::new(HumanAttacker { input: human_rx }),
            (false, Some(script), _) => Box::new(ScriptedAttacker::from_file(
                script.lines.clone(),
                &script.path.display().to_string(),
            )),
            (false, None, Ok(endpoint)) => Box::new(LlmAttacker { endpoint: endpoint.clone(), params }),
            (false, None, Err(problem)) => bail!("{problem} (or play the attacker yourself)"),
        };
        let assistant_prompt = match &self.assistant_prompt {
            Some((path, _)) => Some(
                assistant_prompt_from_file(path, task.domain, &task.user_task)
                    .with_context(|| format!("{}: cannot read the assistant prompt", path.display()))?,
            ),
            None => None,
        };
        let config = RunConfig {
            task,
            episode_id,
            journal_path,
            assistant: self.assistant.clone(),
            assistant_prompt,
            attacker,
            attacker_model: match (start.human, &self.script, &self.attacker) {
                (false, None, Ok(endpoint)) => Some(endpoint.model.clone()),
                _ => None,
            },
            judge: self.judge.clone(),
            judge_live: self.judge_live,
            max_turns: self.max_turns,
            max_tool_calls: self.max_tool_calls,
            seed: self.seed,
            temperature: self.temperature,
            stream: self.stream,
            start_paused: self.paused,
            resume: start.resume,
        };
        let mut handle = runner::spawn(config, self.client.clone())?;
        if start.human {
            handle.human = Some(human_tx);
        } else {
            // Only a script-played attacker can be for another task.
            handle.warnings.extend(self.script_warning(task_id));
        }
        Ok(handle)
    }
}

/// The settings of a fork of a saved episode: the models its header records
/// (a flag names another), its `max_turns` and `max_tool_calls`, and the
/// dataset its task is looked up in.
pub fn fork_args(header: &EpisodeHeader, flags: &ModelFlags, data_dir: Option<PathBuf>) -> RunArgs {
    let recorded = |role: &str| header.config.models.get(role).and_then(|m| m.as_str()).map(str::to_string);
    // A human or a script played the attacker: no attacker model is recorded.
    let attacker_kind = header.config.extra.get("attacker_kind").and_then(|k| k.as_str());
    let recorded_attacker = match attacker_kind {
        None | Some("llm") => recorded("attacker"),
        Some(_) => None,
    };
    let mut models = flags.clone();
    models.assistant.model = models.assistant.model.or_else(|| recorded("assistant"));
    models.attacker.model = models.attacker.model.or(recorded_attacker);
    models.judge.model = models.judge.model.or_else(|| recorded("judge"));
    RunArgs {
        source: TasksArgs { data_dir, ..TasksArgs::default() },
        models,
        max_turns: header.config.max_turns,
        max_tool_calls: header.config.max_tool_calls,
        ..RunArgs::default()
    }
}

/// The attacker lines of a saved episode (any supported format).
/// A recorded attack (`--attacker-script`): its lines, its file, and the task it was made for.
struct Script {
    lines: Vec<String>,
    path: PathBuf,
    task: Option<String>,
}

fn script_from(path: &Path) -> anyhow::Result<Script> {
    let episodes = crate::core::import::load_path(path)?;
    let Some(episode) = episodes.first() else { bail!("{}: no episode in it", path.display()) };
    let lines = attacker_lines(&episode.events);
    if lines.is_empty() {
        bail!("{}: the episode has no attacker messages to replay", path.display());
    }
    Ok(Script { lines, path: path.to_path_buf(), task: episode.header().task.id.clone() })
}

impl Launch {
    /// A warning when the attacker script was recorded for another task than `task_id`.
    fn script_warning(&self, task_id: &str) -> Option<String> {
        let script = self.script.as_ref()?;
        let recorded = script.task.as_deref()?;
        (recorded != task_id).then(|| {
            format!(
                "the attacker script {} was recorded for task {recorded}, not {task_id}: its lines may not fit",
                script.path.display()
            )
        })
    }
}

/// Runs one episode without a screen, one line per event on `out`.
/// Ctrl-C / SIGTERM abort it cleanly (the journal ends with `end: aborted`).
pub async fn headless(launch: &Launch, task_id: &str, out: &mut dyn Write) -> anyhow::Result<RunOutcome> {
    let mut handle = launch.start(task_id)?;
    for warning in &handle.warnings {
        writeln!(out, "warning: {}", single_line(warning))?;
    }
    writeln!(out, "episode {} → {}", handle.episode_id, handle.journal_path.display())?;
    let started = Instant::now();
    let mut stop = crate::core::signals::stop_signals()?;
    loop {
        let update = tokio::select! {
            update = handle.updates.recv() => update,
            _ = stop.recv() => {
                writeln!(out, "stopping: aborting the episode…")?;
                handle.gate.abort();
                continue;
            }
        };
        let Some(update) = update else { break };
        if let Some(line) = progress_line(&update, started) {
            writeln!(out, "{line}")?;
            out.flush()?;
        }
    }
    let outcome = handle.task.await.context("the runner task failed")?;
    writeln!(
        out,
        "ended: {} after {} turns; journal {}",
        outcome.reason.as_str(),
        outcome.turns,
        handle.journal_path.display()
    )?;
    Ok(outcome)
}

/// One line per event, and retry notices.
fn progress_line(update: &RunnerUpdate, started: Instant) -> Option<String> {
    let secs = started.elapsed().as_secs();
    let clock = format!("[{:02}:{:02}]", secs / 60, secs % 60);
    let what = match update {
        RunnerUpdate::Notice(text) => format!("retry: {}", single_line(text)),
        RunnerUpdate::Event(event) => {
            let turn = event.body.turn().map(|t| format!("T{t} ")).unwrap_or_default();
            let body = match &event.body {
                EventBody::Episode(h) => {
                    format!("episode {} task {}", h.id, h.task.id.as_deref().unwrap_or("?"))
                }
                EventBody::Message(m) => {
                    format!("{} → {}: {}", m.from.as_str(), m.to.as_str(), preview(&m.text))
                }
                EventBody::ToolCall(c) => format!("tool {} {}", c.tool, preview(&c.args.to_string())),
                EventBody::ToolResult(r) => {
                    format!(
                        "result {} {}: {}",
                        r.tool,
                        if r.ok { "ok" } else { "failed" },
                        preview(&r.output)
                    )
                }
                EventBody::Verdict(v) => format!("verdict {} {}", v.judge, v.outcome.as_str()),
                EventBody::Control(c) => format!("control {:?}", c.action),
                EventBody::Error(e) => format!("error from {}: {}", e.source, single_line(&e.message)),
                EventBody::End(e) => format!("end: {} after {} turns", e.reason.as_str(), e.turns),
            };
            format!("{turn}#{} {body}", event.seq)
        }
        _ => return None,
    };
    Some(format!("{clock} {what}"))
}

fn preview(text: &str) -> String {
    let line = single_line(text.trim());
    match line.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.into_owned(),
    }
}

/// Did the episode complete (exit code 0) or end in an error?
pub fn completed(outcome: &RunOutcome) -> bool {
    // Stopped by SIGINT/SIGTERM is not complete either, as `batch` says too.
    !matches!(outcome.reason, EndReason::Error | EndReason::Aborted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, TaskInfo};

    fn header(attacker_kind: &str) -> EpisodeHeader {
        let mut config =
            EpisodeConfig { max_turns: Some(4), max_tool_calls: Some(3), ..EpisodeConfig::default() };
        for (role, model) in [("assistant", "asst-m"), ("attacker", "att-m"), ("judge", "judge-m")] {
            config.models.insert(role.into(), model.into());
        }
        config.extra.insert("attacker_kind".into(), attacker_kind.into());
        EpisodeHeader::new("parent", TaskInfo::default(), config)
    }

    #[test]
    fn a_fork_runs_with_its_parents_models_and_limits() {
        let args = fork_args(&header("llm"), &ModelFlags::default(), Some("data".into()));
        let models = [&args.models.assistant.model, &args.models.attacker.model, &args.models.judge.model];
        assert_eq!(models.map(|m| m.as_deref()), [Some("asst-m"), Some("att-m"), Some("judge-m")]);
        assert_eq!((args.max_turns, args.max_tool_calls), (Some(4), Some(3)));
        assert_eq!(args.source.data_dir, Some(PathBuf::from("data")));
    }

    #[test]
    fn flags_override_the_recorded_models_and_a_human_attacker_is_no_model() {
        let mut flags = ModelFlags::default();
        flags.assistant.model = Some("other".into());
        let args = fork_args(&header("human"), &flags, None);
        assert_eq!(args.models.assistant.model.as_deref(), Some("other"));
        assert_eq!(args.models.attacker.model, None, "\"human\" is not a model name");
    }
}
