//! The screen's attack searches: the launcher that starts one (the episode's models, or the
//! flags' for a task; the replay's pacing and its agent, as forks and fans have them), and the
//! search running, its reports forwarded to the inbox, steered by the screen (pause, step, a
//! person's prune and expansions).

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::app::Action;
use crate::config::Paths;
use crate::config::settings::ModelFlags;
use crate::session::attack::request::ATTACKS_DIR;
use crate::session::attack::{
    AttackArgs, AttackRequest, HandRequest, SearchControl, SearchHandle, ShapeFlags, free_attack_dir,
    prepare, spawn,
};
use crate::session::fork_agent::ForkAgent;
use crate::session::{RunArgs, TaskSelection};

use super::fan::FanPacing;
use super::inbox::{Outbox, forward};

/// How long quitting waits for the nodes of a stopped search to close their journals.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Starts a search: the request, the folder it goes in.
pub type AttackLauncher = Box<dyn FnMut(AttackRequest) -> anyhow::Result<(SearchHandle, PathBuf)>>;

pub fn attack_launcher(
    paths: Paths,
    models: ModelFlags,
    data_dir: Option<PathBuf>,
    pacing: FanPacing,
    agent: ForkAgent,
) -> AttackLauncher {
    Box::new(move |request: AttackRequest| {
        let run = match &request.header {
            // The task the screen knew, should the file not name it.
            Some(header) => RunArgs {
                task: header.task.id.clone(),
                ..crate::session::fork_args(header, &models, data_dir.clone())?
            },
            None => RunArgs {
                models: models.clone(),
                source: TaskSelection { data_dir: data_dir.clone(), ..TaskSelection::default() },
                ..RunArgs::default()
            },
        };
        // `replay --assistant … --launch …`: the agent searched is the one named, not the recorded one.
        let run = run.with_agent(agent.assistant.as_deref(), &agent.flags);
        // Beside the episode, unless its folder cannot be written (a read-only corpus).
        let writable = |dir: &PathBuf| std::fs::create_dir_all(dir.join(ATTACKS_DIR)).is_ok();
        let under = request.under.clone().filter(writable).unwrap_or_else(|| paths.episodes_dir.clone());
        let out = free_attack_dir(&under, &request.start, request.strategy);
        let args = AttackArgs {
            run,
            start: Some(request.start),
            shape: ShapeFlags { strategy: Some(request.strategy), ..ShapeFlags::default() },
            techniques: Vec::new(),
            budget: request.budget,
            concurrency: pacing.concurrency,
            rpm: pacing.rpm,
            out: out.clone(),
            resume: false,
            judge_options: Default::default(),
        };
        let mut parts = prepare(&args, &paths)?;
        parts.launch = parts.launch.with_agents(agent.slots.clone());
        Ok((spawn(parts)?, out))
    })
}

/// The launcher, and the search running with the task that hands its reports to the inbox.
pub struct Attacks {
    launcher: Option<AttackLauncher>,
    running: Option<(SearchHandle, JoinHandle<()>)>,
}

impl Attacks {
    pub fn new(launcher: Option<AttackLauncher>) -> Self {
        Attacks { launcher, running: None }
    }

    /// Starts the search (a running one is stopped first): the inbox gets
    /// [`Action::AttackStarted`], then its reports; a search that cannot start is the answer.
    pub async fn start(&mut self, request: AttackRequest, inbox: Outbox) -> Option<Action> {
        let Some(launch) = self.launcher.as_mut() else {
            return Some(Action::AttackStarted(Err(
                "attack searches are started from `converse-tui replay`".into(),
            )));
        };
        match launch(request) {
            Ok((mut handle, dir)) => {
                self.stop().await;
                let reports = std::mem::replace(&mut handle.updates, mpsc::channel(1).1);
                let forward = forward(inbox, Action::AttackStarted(Ok(dir)), reports, Action::Attack);
                self.running = Some((handle, forward));
                None
            }
            Err(e) => Some(Action::AttackStarted(Err(format!("{e:#}")))),
        }
    }

    pub fn control(&self, control: SearchControl) {
        if let Some((search, _)) = &self.running {
            let _ = search.control.send(control);
        }
    }

    /// A person's prune or expansion: what it did, or why not, for the status line.
    pub fn hand(&self, request: HandRequest) -> Action {
        match &self.running {
            Some((search, _)) => match search.hand(request) {
                Ok(done) => Action::Done(done),
                Err(e) => Action::Problem(format!("{e:#}")),
            },
            None => Action::Problem("no attack search is running".into()),
        }
    }

    /// Stops the running search and waits for its nodes' journals to close; nothing it reports
    /// after this reaches the screen.
    pub async fn stop(&mut self) {
        if let Some((search, forward)) = self.running.take() {
            forward.abort();
            let _ = search.control.send(SearchControl::Stopped);
            let _ = tokio::time::timeout(STOP_GRACE, search.task).await;
        }
    }
}
