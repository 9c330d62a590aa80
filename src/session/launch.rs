//! Starting live episodes, for the TUI (`run`, `play`, the task picker,
//! forks) and the headless commands (`run --headless`, `batch`) alike:
//! tasks loaded, endpoints resolved and checked, settings resolved once,
//! where journals go.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::config::Paths;
use crate::config::settings::{ConfigFile, EffectiveRole, ModelFlags, RECORDED_MODEL, RoleFlags};
use crate::core::dataset::Task;
use crate::core::episode::EpisodeHeader;
use crate::core::llm::{Endpoint, LlmClient, RateLimits, Role};
use crate::core::run_with::{Model, RunWith, attack_digest};
use crate::core::sanitize::single_line;
use crate::core::sim::agent_slots::{self, AgentSlots};
use crate::core::sim::agent_spec::AgentSpec;
use crate::core::sim::attacker::{Attacker, HumanAttacker, LlmAttacker, ScriptedAttacker};
use crate::core::sim::fork::Resume;
use crate::core::sim::prompts::assistant_prompt_from_file;
use crate::core::sim::replay_attacker::{RecordedAttack, ReplayThenLive};
use crate::core::sim::runner::{self, JUDGE_BASE_URL, RunConfig, RunnerHandle, Start, attacker_lines};
use crate::core::sim::settings::EpisodeSettings;

use super::settings::SettingFlags;
use super::tasks::TaskSelection;

#[derive(Debug, Clone, Default)]
pub struct RunArgs {
    pub task: Option<String>,
    pub source: TaskSelection,
    pub models: ModelFlags,
    /// Replay the attacker messages of this episode instead of an attacker model.
    pub attacker_script: Option<PathBuf>,
    pub assistant_prompt: Option<PathBuf>,
    /// An external assistant: `cmd:COMMAND LINE` or `a2a:URL` (issue 26).
    pub assistant: Option<String>,
    /// Limits, sampling and pacing given on the command line (the config file fills the rest).
    pub settings: SettingFlags,
    /// Where journals go (default: the data dir's `episodes/`).
    pub out: Option<PathBuf>,
}

impl RunArgs {
    /// A fork's agent: `assistant` when the command names one, else the one its episode
    /// recorded; the command's agent flags (`--mcp-listen`, `--launch`, …) apply to it.
    pub fn with_agent(mut self, assistant: Option<&str>, flags: &super::settings::AgentFlags) -> RunArgs {
        if let Some(assistant) = assistant {
            self.assistant = Some(assistant.to_string());
        }
        if self.assistant.is_some() {
            self.settings.agent = flags.clone();
        }
        self
    }
}

/// Ready to start episodes: tasks loaded, endpoints resolved and checked.
pub struct Launch {
    pub tasks: Vec<Task>,
    /// Where the tasks came from, for messages.
    pub source: String,
    assistant: Endpoint,
    attacker: Result<Endpoint, String>,
    /// The attacker's role with its model left open: an attack case may name the model.
    attacker_role: (EffectiveRole, PathBuf),
    judge: Option<Endpoint>,
    script: Option<Script>,
    assistant_prompt: Option<(PathBuf, String)>,
    /// The external agent, when an agent of the user's plays the assistant.
    external: Option<AgentSpec>,
    /// Every episode's settings, resolved once.
    pub settings: EpisodeSettings,
    pub out: PathBuf,
    client: LlmClient,
    /// The command's fixed MCP endpoints and launched agents (`--mcp-listen`, `--launch`),
    /// served once for every episode it starts.
    slots: std::sync::OnceLock<std::sync::Arc<AgentSlots>>,
}

impl Launch {
    pub fn new(args: &RunArgs, paths: &Paths) -> anyhow::Result<Launch> {
        let config_path = paths.config_file();
        let file = ConfigFile::load(&config_path)?;
        let settings = args.settings.resolve(&file.run)?;
        let loaded = super::tasks::load(&args.source, paths)?;
        let external = match args.assistant.as_deref() {
            Some(spec) => Some(AgentSpec::parse(spec).map_err(anyhow::Error::msg)?),
            None => None,
        };
        match (&external, args.settings.agent.any()) {
            (None, Some(flag)) => {
                bail!("{flag} is about an external agent: it needs --assistant a2a:URL or cmd:COMMAND")
            }
            (Some(spec), _) if settings.slots().wanted() => {
                agent_slots::check(&settings.slots(), spec, 1).map_err(anyhow::Error::msg)?;
            }
            _ => {}
        }
        // An external agent needs no model of ours: the endpoint only names it in the journal.
        let role = args.models.resolve(Role::Assistant, &file);
        let assistant = match &external {
            Some(agent) => {
                let mut named = Endpoint::new(Role::Assistant, "external", agent.spec());
                // The role's deadline and retries hold for the agent's answers too.
                if let Some(timeout) = role.timeout {
                    named.timeout = timeout;
                }
                if let Some(retries) = role.max_retries {
                    named.max_retries = retries;
                }
                named
            }
            None => role.endpoint(&config_path)?,
        };
        let script = match &args.attacker_script {
            Some(path) => Some(script_from(path)?),
            None => None,
        };
        // Needed only when a model plays the attacker: checked when an episode starts.
        let attacker_role = args.models.resolve(Role::Attacker, &file);
        let attacker = attacker_role.endpoint(&config_path).map_err(|e| e.to_string());
        // LLM judges only when a judge model is named; rule judges always run.
        let judge_role = args.models.resolve(Role::Judge, &file);
        let judge = match &judge_role.model {
            Some(_) => Some(judge_role.endpoint(&config_path)?),
            None => None,
        };
        if settings.judge_live && judge.is_none() {
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
        Ok(Launch {
            tasks: loaded.tasks,
            source: loaded.source.to_string(),
            assistant,
            attacker,
            attacker_role: (attacker_role, config_path.clone()),
            judge,
            script,
            assistant_prompt,
            external,
            settings,
            out: args.out.clone().unwrap_or_else(|| paths.episodes_dir.clone()),
            client: LlmClient::new().context("cannot set up the HTTP client")?,
            slots: std::sync::OnceLock::new(),
        })
    }

    /// Serves the fixed MCP endpoints of `--mcp-listen` / `--launch`, one per episode that may
    /// run at once, before any episode starts (call within a tokio runtime, before a screen takes
    /// the terminal: a token made now is printed on `notice`). Nothing without those flags.
    pub fn serve_agents(&self, at_once: usize, notice: &mut dyn std::io::Write) -> anyhow::Result<()> {
        let config = self.settings.slots();
        if self.slots.get().is_some() || !config.wanted() {
            return Ok(());
        }
        if let Some(spec) = &self.external {
            agent_slots::check(&config, spec, at_once).map_err(anyhow::Error::msg)?;
        }
        let _ = self.slots.set(AgentSlots::serve(config, at_once, notice)?);
        Ok(())
    }

    /// Uses `slots` (a screen's, shared by its forks and fans) instead of serving its own.
    pub fn with_agents(self, slots: Option<std::sync::Arc<AgentSlots>>) -> Launch {
        if let Some(slots) = slots {
            let _ = self.slots.set(slots);
        }
        self
    }

    /// Stops the agents `--launch` started (stdin closed, SIGTERM, SIGKILL after a grace).
    pub async fn stop_agents(&self) {
        if let Some(slots) = self.slots.get() {
            slots.stop().await;
        }
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
        let episode_id = runner::new_episode_id();
        let dir = start.journal_dir.as_ref().unwrap_or(&self.out);
        let journal_path = journal.unwrap_or_else(|| dir.join(format!("{episode_id}.jsonl")));
        let (human_tx, human_rx) = tokio::sync::mpsc::channel(4);
        let recorded_model = match &start.recorded {
            Some(recorded) if recorded.live => Some(self.live_attacker(recorded)?),
            _ => None,
        };
        // A live case's model is resolved once, above.
        let attacker_model = match &recorded_model {
            Some(model) => Some(model.endpoint.model.clone()),
            None => self.playing_attacker(&start)?.map(|e| e.model),
        };
        let recorded_turns = start.recorded.as_ref().map(RecordedAttack::max_turns_to_send_all);
        let floor = recorded_turns.max(start.max_turns_at_least);
        let attacker: Box<dyn Attacker> = match (start.recorded, start.human, &self.script, &self.attacker) {
            (Some(recorded), ..) => match recorded_model {
                Some(model) => {
                    Box::new(ReplayThenLive::new(recorded.lines, recorded.replies, model, recorded.source))
                }
                None => Box::new(ScriptedAttacker::from_file(recorded.lines, &recorded.source)),
            },
            (None, true, ..) => Box::new(HumanAttacker { input: human_rx }),
            (None, false, Some(script), _) => Box::new(ScriptedAttacker::from_file(
                script.lines.clone(),
                &script.path.display().to_string(),
            )),
            (None, false, None, Ok(endpoint)) => {
                Box::new(LlmAttacker { endpoint: endpoint.clone(), params: self.settings.params() })
            }
            (None, false, None, Err(problem)) => bail!("{problem} (or play the attacker yourself)"),
        };
        let episode = Episode { id: episode_id, journal: journal_path, attacker, attacker_model };
        let mut handle = self.spawn(task_id, episode, start.resume, self.settings_for(floor))?;
        if start.human {
            handle.human = Some(human_tx);
        } else {
            // Only a script-played attacker can be for another task.
            handle.warnings.extend(self.script_warning(task_id));
        }
        Ok(handle)
    }

    /// Starts one node of an attack search: `attacker` delivers its candidate, the journal is
    /// `journal`, and the episode ends after turn `max_turns - 1` (the node's own turn).
    pub fn start_node(
        &self,
        task_id: &str,
        resume: Option<Resume>,
        journal: PathBuf,
        attacker: Box<dyn Attacker>,
        max_turns: u32,
    ) -> anyhow::Result<RunnerHandle> {
        let attacker_model = attacker.endpoint().map(|e| e.model.clone());
        let episode = Episode { id: runner::new_episode_id(), journal, attacker, attacker_model };
        let settings = EpisodeSettings { max_turns, ..self.settings.clone() };
        self.spawn(task_id, episode, resume, settings)
    }

    fn spawn(
        &self,
        task_id: &str,
        episode: Episode,
        resume: Option<Resume>,
        settings: EpisodeSettings,
    ) -> anyhow::Result<RunnerHandle> {
        let task = self.find_task(task_id)?.clone();
        let assistant_prompt = match &self.assistant_prompt {
            Some((path, _)) => Some(
                assistant_prompt_from_file(path, task.domain, &task.user_task)
                    .with_context(|| format!("{}: cannot read the assistant prompt", path.display()))?,
            ),
            None => None,
        };
        let config = RunConfig {
            task,
            episode_id: episode.id,
            journal_path: episode.journal,
            assistant: self.assistant.clone(),
            assistant_prompt,
            external: self.external.clone(),
            attacker: episode.attacker,
            attacker_model: episode.attacker_model,
            judge: self.judge.clone(),
            settings,
            resume,
            slots: self.agent_slots()?,
        };
        runner::spawn(config, self.client.clone())
    }

    /// The attacker model's endpoint, or why there is none.
    pub fn attacker_endpoint(&self) -> Result<&Endpoint, &str> {
        self.attacker.as_ref().map_err(String::as_str)
    }

    /// The LLM judges' endpoint (`--judge-model`), if any.
    pub fn judge_endpoint(&self) -> Option<&Endpoint> {
        self.judge.as_ref()
    }

    /// The assistant's model (for an external agent: its spec).
    pub fn assistant_model(&self) -> &str {
        &self.assistant.model
    }

    /// The external agent under test, if the assistant is one.
    pub fn external(&self) -> Option<&AgentSpec> {
        self.external.as_ref()
    }

    /// The client every episode of this launch calls models with (rate limits and budget).
    pub fn client(&self) -> &LlmClient {
        &self.client
    }

    /// Counts every later call of the launch's episodes (and of [`Launch::client`]) against `meter`.
    pub fn set_meter(&mut self, meter: std::sync::Arc<dyn crate::core::llm::CallMeter>) {
        self.client = self.client.clone().with_meter(meter);
    }
}

/// An episode about to start: its id and journal, and who attacks.
struct Episode {
    id: String,
    journal: PathBuf,
    attacker: Box<dyn Attacker>,
    attacker_model: Option<String>,
}

/// The settings of a fork of a saved episode: the assistant and attacker its header records
/// (a flag names another), an LLM judge only when a flag or the config names one (`--judge-model
/// recorded`: the one the header records, at its recorded endpoint), its `max_turns` and
/// `max_tool_calls`, and the dataset its task is looked up in.
pub fn fork_args(
    header: &EpisodeHeader,
    flags: &ModelFlags,
    data_dir: Option<PathBuf>,
) -> anyhow::Result<RunArgs> {
    let recorded = |role: &str| header.config.models.get(role).and_then(|m| m.as_str()).map(str::to_string);
    // A human or a script played the attacker: no attacker model is recorded.
    let attacker_kind = header.config.extra.get("attacker_kind").and_then(|k| k.as_str());
    let recorded_attacker = match attacker_kind {
        None | Some("llm") => recorded("attacker"),
        Some(_) => None,
    };
    // An external agent played the assistant: the fork reaches it again (its card's URL, or the
    // command line), unless a flag names a model.
    let agent = header
        .config
        .extra
        .get("assistant_agent")
        .and_then(|a| a.get("url"))
        .and_then(|u| u.as_str())
        .map(|url| format!("a2a:{url}"))
        .or_else(|| recorded("assistant").filter(|m| m.starts_with("cmd:")))
        .filter(|_| flags.roles.assistant.model.is_none());
    let mut models = flags.clone();
    if agent.is_none() {
        models.roles.assistant.model = models.roles.assistant.model.or_else(|| recorded("assistant"));
    }
    models.roles.attacker.model = models.roles.attacker.model.or(recorded_attacker);
    if models.roles.judge.model.as_deref() == Some(RECORDED_MODEL) {
        models.roles.judge = recorded_judge(header, &models.roles.judge)?;
    }
    Ok(RunArgs {
        source: TaskSelection { data_dir, ..TaskSelection::default() },
        models,
        settings: SettingFlags {
            max_turns: header.config.max_turns,
            max_tool_calls: header.config.max_tool_calls,
            ..SettingFlags::default()
        },
        assistant: agent,
        ..RunArgs::default()
    })
}

/// `--judge-model recorded`: the judge model the episode recorded, at the endpoint it recorded.
/// A recorded model name is no consent to call it wherever the user points the other roles
/// today: an episode that records no judge endpoint (a published run's log names only the model)
/// is refused, and so is a `--judge-base-url` naming another.
fn recorded_judge(header: &EpisodeHeader, flags: &RoleFlags) -> anyhow::Result<RoleFlags> {
    let id = single_line(&header.id);
    let Some(model) = header.config.models.get("judge").and_then(|m| m.as_str()) else {
        bail!("--judge-model {RECORDED_MODEL}: episode {id} records no judge model");
    };
    let model = single_line(model);
    let Some(url) = header.config.extra.get(JUDGE_BASE_URL).and_then(|u| u.as_str()) else {
        bail!(
            "--judge-model {RECORDED_MODEL}: episode {id} records the judge model {model} but not its endpoint; name it to call it (--judge-model {model}, with --judge-base-url URL)"
        );
    };
    if flags.base_url.as_deref().is_some_and(|asked| asked != url) {
        bail!(
            "--judge-model {RECORDED_MODEL} calls the judge at its recorded endpoint {}; to call another, name the model (--judge-model {model})",
            single_line(url)
        );
    }
    Ok(RoleFlags { model: Some(model.into_owned()), base_url: Some(url.to_string()) })
}

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
    /// The slots an external agent's episode leases (served now for one episode at a time if no
    /// command served them first).
    fn agent_slots(&self) -> anyhow::Result<Option<std::sync::Arc<AgentSlots>>> {
        if self.external.is_none() || !self.settings.slots().wanted() {
            return Ok(None);
        }
        self.serve_agents(1, &mut std::io::stderr())?;
        Ok(self.slots.get().cloned())
    }

    /// The episode's settings: a recorded attack (an attack case) lifts `max_turns` so that every
    /// one of its lines is sent, whatever the limit says; a take-over lifts it to its floor.
    pub fn settings_for(&self, max_turns_at_least: Option<u32>) -> EpisodeSettings {
        let mut settings = self.settings.clone();
        settings.max_turns = settings.max_turns.max(max_turns_at_least.unwrap_or(0));
        settings
    }

    /// The model that plays on once a live case's run leaves its recording: the launcher's
    /// attacker endpoint, with the case's model when it names one.
    fn live_attacker(&self, recorded: &RecordedAttack) -> anyhow::Result<LlmAttacker> {
        let endpoint = match &recorded.attacker_model {
            Some(model) => {
                let (role, config_path) = &self.attacker_role;
                let role = EffectiveRole { model: Some(model.clone()), ..role.clone() };
                role.endpoint(config_path).map_err(|e| e.to_string())
            }
            None => self.attacker.clone(),
        };
        match endpoint {
            Ok(endpoint) => Ok(LlmAttacker { endpoint, params: self.settings.params() }),
            Err(problem) => {
                bail!("{}: continue = \"live\" needs an attacker model: {problem}", recorded.source)
            }
        }
    }

    /// The model that plays the attacker in an episode started so: a live case's, or the
    /// launcher's when no recording, script or human plays it.
    fn playing_attacker(&self, start: &Start) -> anyhow::Result<Option<Endpoint>> {
        Ok(match (&start.recorded, start.human, &self.script, &self.attacker) {
            (Some(recorded), ..) if recorded.live => Some(self.live_attacker(recorded)?.endpoint),
            (None, false, None, Ok(endpoint)) => Some(endpoint.clone()),
            _ => None,
        })
    }

    /// What an episode started so is run with, for `--resume` to compare (`core::run_with`).
    pub fn run_with(&self, start: &Start) -> anyhow::Result<RunWith> {
        let assistant = match &self.external {
            Some(agent) => Model { model: agent.spec(), base_url: None },
            None => Model::of(&self.assistant),
        };
        let attack = match (&start.recorded, &self.script) {
            (Some(r), _) => Some(attack_digest(&r.lines, &r.replies, r.live)),
            (None, Some(script)) if !start.human => Some(attack_digest(&script.lines, &[], false)),
            _ => None,
        };
        Ok(RunWith {
            assistant,
            attacker: self.playing_attacker(start)?.as_ref().map(Model::of),
            judge: self.judge.as_ref().map(Model::of),
            attack,
        })
    }

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
    fn a_fork_runs_with_its_parents_models_and_limits_but_no_judge_unasked() {
        let args = fork_args(&header("llm"), &ModelFlags::default(), Some("data".into())).unwrap();
        let models = [
            &args.models.roles.assistant.model,
            &args.models.roles.attacker.model,
            &args.models.roles.judge.model,
        ];
        assert_eq!(models.map(|m| m.as_deref()), [Some("asst-m"), Some("att-m"), None]);
        assert_eq!((args.settings.max_turns, args.settings.max_tool_calls), (Some(4), Some(3)));
        assert_eq!(args.source.data_dir, Some(PathBuf::from("data")));
    }

    #[test]
    fn recorded_takes_the_judge_where_the_episode_called_it_and_nowhere_else() {
        let mut flags = ModelFlags::default();
        flags.roles.judge.model = Some(RECORDED_MODEL.into());
        let e = fork_args(&header("llm"), &flags, None).unwrap_err().to_string();
        assert!(e.contains("records the judge model judge-m but not its endpoint"), "{e}");
        let mut ours = header("llm");
        ours.config.extra.insert(JUDGE_BASE_URL.into(), "http://judge.example/v1".into());
        let judge = fork_args(&ours, &flags, None).unwrap().models.roles.judge;
        assert_eq!(
            judge,
            RoleFlags { model: Some("judge-m".into()), base_url: Some("http://judge.example/v1".into()) }
        );
        flags.roles.judge.base_url = Some("http://elsewhere/v1".into());
        assert!(fork_args(&ours, &flags, None).is_err(), "another endpoint is not the recorded one");
        ours.config.models.remove("judge");
        assert!(
            fork_args(&ours, &ModelFlags { ..flags }, None)
                .unwrap_err()
                .to_string()
                .contains("records no judge model")
        );
    }

    #[test]
    fn flags_override_the_recorded_models_and_a_human_attacker_is_no_model() {
        let mut flags = ModelFlags::default();
        flags.roles.assistant.model = Some("other".into());
        let args = fork_args(&header("human"), &flags, None).unwrap();
        assert_eq!(args.models.roles.assistant.model.as_deref(), Some("other"));
        assert_eq!(args.models.roles.attacker.model, None, "\"human\" is not a model name");
    }

    #[test]
    fn a_fork_of_an_external_agents_episode_reaches_the_agent_again() {
        let mut a2a = header("scripted");
        a2a.config.models.insert("assistant".into(), "fake 2 (A2A 1.0 at http://h:9)".into());
        a2a.config.extra.insert("assistant_agent".into(), serde_json::json!({"url": "http://h:9"}));
        let args = fork_args(&a2a, &ModelFlags::default(), None).unwrap();
        assert_eq!(
            (args.assistant.as_deref(), args.models.roles.assistant.model),
            (Some("a2a:http://h:9"), None)
        );
        let mut cmd = header("scripted");
        cmd.config.models.insert("assistant".into(), "cmd:python agent.py".into());
        assert_eq!(
            fork_args(&cmd, &ModelFlags::default(), None).unwrap().assistant.as_deref(),
            Some("cmd:python agent.py")
        );
        // A model named on the command line wins over the agent.
        let mut flags = ModelFlags::default();
        flags.roles.assistant.model = Some("other".into());
        assert_eq!(fork_args(&a2a, &flags, None).unwrap().assistant, None);
    }
}
