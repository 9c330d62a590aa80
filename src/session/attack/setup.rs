//! A search made ready from what the user asked: a new one in an empty folder, or the one a
//! folder's plan records (`--resume`), with its launch, its call count, its root and its
//! technique catalogue. Everything a search needs is checked here, before any call.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use serde_json::{Map, json};

use crate::config::Paths;
use crate::core::attack::meter::{CallCounts, FileMeter};
use crate::core::attack::plan::{AttackPlan, FORMAT, RootRef, Status};
use crate::core::attack::{SearchParams, Strategy};
use crate::core::batch_files::ATTACK_CALLS_FILE;
use crate::core::episode::{Event, EventBody, Party};
use crate::core::judge::llm::call::JudgeOptions;
use crate::core::run_with::RunWith;
use crate::core::usage_error::UsageError;
use crate::session::launch::{Launch, RunArgs};
use crate::session::settings::RpmFlags;

use super::engine::{Root, SearchParts};

/// The shape flags of `attack`; unset ones take the strategy's defaults (or, on a resume, the
/// plan's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShapeFlags {
    pub strategy: Option<Strategy>,
    pub depth: Option<u32>,
    pub branch: Option<u32>,
    pub width: Option<u32>,
    pub max_backtracks: Option<u32>,
    pub attempts: Option<u32>,
    pub no_on_topic: bool,
}

/// Where a new search starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// The task's first turn, run as the search's root.
    Task(String),
    /// Turn `turn` of the episode in `file` (any format; `id` picks one of a file holding
    /// several, an Inspect log's sample): every node continues it.
    Episode { file: PathBuf, id: Option<String>, turn: u32 },
}

#[derive(Debug, Clone)]
pub struct AttackArgs {
    /// Models, the assistant (a model or an external agent), the dataset, the episode settings.
    pub run: RunArgs,
    /// `None` on a resume (the plan says).
    pub start: Option<Start>,
    pub shape: ShapeFlags,
    pub techniques: Vec<PathBuf>,
    pub budget: Option<u64>,
    pub concurrency: usize,
    pub rpm: RpmFlags,
    pub out: PathBuf,
    pub resume: bool,
    /// The wait between a judge's attempts at a usable answer (tests shorten it).
    pub judge_options: JudgeOptions,
}

/// The search ready to run, and the plan as it stood when it was read (resume) or made.
pub fn prepare(args: &AttackArgs, paths: &Paths) -> anyhow::Result<SearchParts> {
    let dir = &args.out;
    let found = AttackPlan::read(dir)?;
    let plan = match (found, args.resume) {
        (Some(_), false) => bail!(
            "{}: holds a search already: add --resume to continue it, or give another --out",
            dir.display()
        ),
        (None, true) => bail!("--resume: {} holds no search (no attack.json)", dir.display()),
        (Some(plan), true) => resumed(plan, args)?,
        (None, false) => {
            refuse_a_used_folder(dir)?;
            new_plan(args)?
        }
    };
    let mut run = args.run.clone();
    run.out = Some(dir.clone());
    run.task = Some(plan.task.clone());
    let mut launch = Launch::new(&run, paths)?;
    if launch.attacker_endpoint().is_err() || launch.judge_endpoint().is_none() {
        bail!(
            "attack needs --attacker-model (it writes the candidates) and --judge-model (it scores them and judges the leaks)"
        );
    }
    let ours = launch.run_with(&crate::core::sim::runner::Start::default())?;
    if args.resume {
        same_models(&plan, &ours, dir)?;
    }
    let task = launch.find_task(&plan.task)?.clone();
    launch.set_rate_limits(args.rpm.limits());
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot create the search folder", dir.display()))?;
    let meter = Arc::new(FileMeter::open(&dir.join(ATTACK_CALLS_FILE), plan.budget)?);
    launch.set_meter(meter.clone());
    let catalogue = crate::config::techniques::load(paths, &plan.techniques)?;
    let root = root_of(&plan, dir)?;
    let mut plan = plan;
    plan.models = models(&launch);
    plan.run_with = Some(ours);
    plan.status = Status::Running;
    plan.calls = meter.counts();
    plan.write(dir)?;
    Ok(SearchParts {
        launch,
        dir: dir.clone(),
        task,
        params: plan.params.clone(),
        catalogue,
        meter,
        plan,
        root,
        concurrency: args.concurrency,
        judge_options: args.judge_options,
    })
}

/// A new search goes into a folder of its own: one that holds journals already would mix them.
fn refuse_a_used_folder(dir: &Path) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let used = entries.flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.ends_with(".jsonl") || name == ATTACK_CALLS_FILE
    });
    if used {
        bail!("{}: holds journals already: give a new or empty --out for a search", dir.display());
    }
    Ok(())
}

fn new_plan(args: &AttackArgs) -> anyhow::Result<AttackPlan> {
    let Some(strategy) = args.shape.strategy else {
        bail!("attack needs --strategy crescendo, goat or tap");
    };
    let mut params = SearchParams::new(strategy);
    let s = &args.shape;
    params.depth = s.depth.unwrap_or(params.depth);
    params.branch = s.branch.unwrap_or(params.branch);
    params.width = s.width.unwrap_or(params.width);
    params.max_backtracks = s.max_backtracks.unwrap_or(params.max_backtracks);
    params.attempts = s.attempts.unwrap_or(params.attempts);
    params.on_topic = !s.no_on_topic;
    let (task, root) = match &args.start {
        Some(Start::Task(task)) => {
            (task.clone(), RootRef { file: "root.jsonl".into(), episode: String::new(), turn: 1 })
        }
        Some(Start::Episode { file, id, turn }) => {
            let (named, episode, _) = episode_root(file, id.as_deref(), *turn)?;
            // The file may not name its task where the screen knew it (from the dataset).
            let Some(task) = named.or_else(|| args.run.task.clone()) else {
                bail!("{}: the episode names no task: a search needs it", file.display());
            };
            let file = std::path::absolute(file).unwrap_or_else(|_| file.clone());
            (task, RootRef { file, episode, turn: *turn })
        }
        None => bail!("attack needs --task ID, or --from EPISODE --turn N"),
    };
    Ok(AttackPlan {
        format: FORMAT.into(),
        task,
        root,
        params,
        models: Map::new(),
        run_with: None,
        assistant_agent: args.run.assistant.clone(),
        techniques: args.techniques.clone(),
        budget: args.budget,
        calls: CallCounts::default(),
        status: Status::Running,
        best: None,
        nodes: 0,
        hand: Vec::new(),
    })
}

/// The plan of the search being resumed: its own shape, unless a flag asks for another (which is
/// refused: it would be another search); a new `--budget` replaces the old one.
fn resumed(mut plan: AttackPlan, args: &AttackArgs) -> anyhow::Result<AttackPlan> {
    let s = &args.shape;
    let p = &plan.params;
    let clashes = [
        ("--strategy", s.strategy.is_some_and(|v| v != p.strategy)),
        ("--depth", s.depth.is_some_and(|v| v != p.depth)),
        ("--branch", s.branch.is_some_and(|v| v != p.branch)),
        ("--width", s.width.is_some_and(|v| v != p.width)),
        ("--max-backtracks", s.max_backtracks.is_some_and(|v| v != p.max_backtracks)),
        ("--attempts", s.attempts.is_some_and(|v| v != p.attempts)),
        ("--no-on-topic", s.no_on_topic && p.on_topic),
        ("--techniques", !args.techniques.is_empty() && args.techniques != plan.techniques),
    ];
    if let Some((flag, _)) = clashes.iter().find(|c| c.1) {
        bail!(
            "--resume: {flag} differs from the search's own ({}); leave it out to continue the same search",
            p.describe()
        );
    }
    match &args.start {
        Some(Start::Task(task)) if *task != plan.task => {
            bail!("--resume: the search is of task {}, not {task}", plan.task)
        }
        Some(Start::Episode { .. }) => bail!("--resume: the search's root is in its plan; leave out --from"),
        _ => {}
    }
    if args.run.assistant != plan.assistant_agent {
        bail!(
            "--resume: the search attacks {}; give the same --assistant",
            plan.assistant_agent.as_deref().unwrap_or("the assistant model")
        );
    }
    if args.budget.is_some() {
        plan.budget = args.budget;
    }
    Ok(plan)
}

/// A search goes on only with the assistant, attacker and judge it was started with: its plan
/// never comes to claim that nodes run with others were (checked before anything runs or is written).
fn same_models(plan: &AttackPlan, ours: &RunWith, dir: &Path) -> anyhow::Result<()> {
    let Some(recorded) = plan.run_with.clone().or_else(|| RunWith::from_models(&plan.models)) else {
        return Err(UsageError(format!(
            "--resume: {} does not record the models its search was run with: give another --out",
            dir.display()
        ))
        .into());
    };
    Ok(recorded.check_same(ours, dir)?)
}

/// The root's events, up to the turn every node continues from (empty for a task's root, which
/// the search runs first).
fn root_of(plan: &AttackPlan, dir: &Path) -> anyhow::Result<Root> {
    let file = plan.root_file(dir);
    if plan.root.file == Path::new("root.jsonl") {
        return Ok(Root { file, events: Vec::new() });
    }
    let (_, _, events) = episode_root(&file, Some(&plan.root.episode), plan.root.turn)?;
    Ok(Root { file, events })
}

/// An episode's task (if it names one), id and events through turn `turn` (its reply and that turn's verdicts): the
/// file's one episode, or the one `id` names.
fn episode_root(
    file: &Path,
    id: Option<&str>,
    turn: u32,
) -> anyhow::Result<(Option<String>, String, Vec<Event>)> {
    let mut episodes = crate::core::import::load_path(file)?;
    let at = match id {
        Some(id) if episodes.len() > 1 => episodes.iter().position(|e| e.id() == id),
        _ if episodes.len() == 1 => Some(0),
        _ => None,
    };
    let Some(at) = at else {
        match id {
            Some(id) if episodes.len() > 1 => bail!("{}: holds no episode '{id}'", file.display()),
            _ => bail!(
                "{}: holds {} episodes; a search starts from a file of one",
                file.display(),
                episodes.len()
            ),
        }
    };
    let episode = episodes.swap_remove(at);
    let task = episode.header().task.id.clone();
    let reply = episode.events.iter().position(|e| {
        matches!(&e.body, EventBody::Message(m)
            if m.from == Party::Assistant && m.to == Party::Attacker && m.turn == turn)
    });
    let Some(reply) = reply else {
        bail!("{}: turn {turn}: the assistant never answered there", file.display());
    };
    let last = (reply + 1..episode.events.len())
        .take_while(|&i| matches!(&episode.events[i].body, EventBody::Verdict(v) if v.turn == Some(turn)))
        .last()
        .unwrap_or(reply);
    let id = episode.id().to_string();
    let mut events = episode.events;
    events.truncate(last + 1);
    Ok((task, id, events))
}

/// The models the nodes run with, for the plan.
fn models(launch: &Launch) -> Map<String, serde_json::Value> {
    let mut models = Map::new();
    if let Ok(attacker) = launch.attacker_endpoint() {
        models.insert("attacker".into(), json!(attacker.model));
    }
    if let Some(judge) = launch.judge_endpoint() {
        models.insert("judge".into(), json!(judge.model));
    }
    let assistant = match launch.external() {
        Some(agent) => agent.spec(),
        None => launch.assistant_model().to_string(),
    };
    models.insert("assistant".into(), json!(assistant));
    models
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{
        EpisodeConfig, EpisodeHeader, EventBody, JournalWriter, Message, Party, TaskInfo,
    };

    #[test]
    fn an_episode_that_names_no_task_takes_the_one_the_screen_knew() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("untitled.jsonl");
        let mut writer = JournalWriter::create(&file).unwrap();
        let header = EpisodeHeader::new("ep", TaskInfo::default(), EpisodeConfig::default());
        writer.append(EventBody::Episode(Box::new(header))).unwrap();
        writer
            .append(EventBody::Message(Message::new(1, Party::User, Party::Assistant, "Plan a trip.")))
            .unwrap();
        writer
            .append(EventBody::Message(Message::new(1, Party::Assistant, Party::Attacker, "Dates?")))
            .unwrap();
        writer.sync().unwrap();
        let start = Start::Episode { file: file.clone(), id: Some("ep".into()), turn: 1 };
        let mut args = AttackArgs {
            run: RunArgs::default(),
            start: Some(start),
            shape: ShapeFlags { strategy: Some(Strategy::Tap), ..ShapeFlags::default() },
            techniques: Vec::new(),
            budget: None,
            concurrency: 1,
            rpm: RpmFlags::default(),
            out: dir.path().join("search"),
            resume: false,
            judge_options: JudgeOptions::default(),
        };
        let problem = new_plan(&args).unwrap_err().to_string();
        assert!(problem.contains("the episode names no task"), "{problem}");
        args.run.task = Some("travel_x".into());
        assert_eq!(new_plan(&args).unwrap().task, "travel_x");
    }

    #[test]
    fn a_search_starts_from_the_sample_named_of_a_log_holding_several() {
        let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inspect/travel_agent.eval");
        let problem = episode_root(&log, None, 1).unwrap_err().to_string();
        assert!(problem.contains("episodes; a search starts from a file of one"), "{problem}");
        // The sample named is the one read (an Inspect sample has no provider to continue from).
        let named = episode_root(&log, Some("trip2_epoch_1"), 1).unwrap_err().to_string();
        assert!(named.contains("turn 1: the assistant never answered there"), "{named}");
        let unknown = episode_root(&log, Some("no such sample"), 1).unwrap_err().to_string();
        assert!(unknown.contains("holds no episode 'no such sample'"), "{unknown}");
    }
}
