//! The one executor: every effect `update` asks for is carried out here, in one `match`. What is
//! done at once (notes read or written, the state file, the clipboard, the runner steered) may
//! answer with an action the loop hands straight back to `update`; the rest is done off the
//! loop (jobs, the runner, the fan, the clock) and answers through the inbox.

use std::ops::ControlFlow;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::app::{Action, Effect};
use crate::core::sim::attacker::HumanInput;
use crate::core::sim::runner::{RunnerHandle, Start};
use crate::session::journal_load::JournalLoad;

use super::attack::{AttackLauncher, Attacks};
use super::fan::{FanLauncher, Fans};
use super::inbox::{Outbox, read_signals, read_terminal, tick};
use super::jobs::{self, StoppedLoads};
use super::live::{Launcher, Live};
use super::terminal::TerminalGuard;

/// How often time advances for autoplay and the live clock.
pub const TICK: std::time::Duration = std::time::Duration::from_millis(50);

/// What a screen starts with besides its state: the live run on screen, the launchers of runs
/// and fans, the rest of the journal on screen.
#[derive(Default)]
pub struct Sources {
    pub runner: Option<RunnerHandle>,
    pub launcher: Option<Launcher>,
    pub fans: Option<FanLauncher>,
    pub attacks: Option<AttackLauncher>,
    pub rest: Option<JournalLoad>,
}

pub struct Executor {
    inbox: Outbox,
    terminal: TerminalGuard,
    /// The task reading the terminal's events (stopped while a pager has the keys).
    keys: JoinHandle<()>,
    ticks: watch::Sender<bool>,
    live: Option<Live>,
    launcher: Option<Launcher>,
    fans: Fans,
    attacks: Attacks,
    loads: StoppedLoads,
    /// The rest of the journal on screen, read once its start has been drawn.
    rest: Option<JournalLoad>,
}

impl Executor {
    /// Takes the terminal and starts the sources that feed `inbox`.
    pub fn start(inbox: Outbox, sources: Sources) -> anyhow::Result<Self> {
        let terminal = TerminalGuard::new()?;
        read_signals(inbox.clone())?;
        let live = sources.runner.map(|runner| Live::new(runner, inbox.clone(), None));
        Ok(Executor {
            keys: read_terminal(inbox.clone()),
            ticks: tick(inbox.clone(), TICK),
            terminal,
            live,
            launcher: sources.launcher,
            fans: Fans::new(sources.fans),
            attacks: Attacks::new(sources.attacks),
            loads: StoppedLoads::default(),
            rest: sources.rest,
            inbox,
        })
    }

    pub fn terminal(&mut self) -> &mut TerminalGuard {
        &mut self.terminal
    }

    /// Starts reading the rest of the journal on screen (not before its start is drawn, so the
    /// first frame has the cores to itself).
    pub fn drawn(&mut self) {
        if let Some(rest) = self.rest.take() {
            jobs::read_rest(self.inbox.clone(), self.loads.clone(), rest);
        }
    }

    /// Carries out `effect`; what it answers at once goes back to `update`. `Break`: quit.
    pub async fn execute(&mut self, effect: Effect) -> ControlFlow<(), Option<Action>> {
        let inbox = self.inbox.clone();
        let answer = match effect {
            Effect::Quit => return ControlFlow::Break(()),
            Effect::Ticks(on) => {
                self.ticks.send_replace(on);
                None
            }
            Effect::RunTask(id) => {
                let started = self.launcher.as_mut().map(|launch| launch(&id, Start::default()));
                self.switch_to(started, &id).await
            }
            Effect::Fork { task_id, resume, human, beside, max_turns_at_least } => {
                let start = Start {
                    human,
                    resume: Some(resume),
                    journal_dir: beside,
                    max_turns_at_least: Some(max_turns_at_least),
                    ..Start::default()
                };
                let started = self.launcher.as_mut().map(|launch| launch(&task_id, start));
                self.switch_to(started, &task_id).await
            }
            Effect::Control(control) => {
                self.live.iter().for_each(|live| live.control(control));
                None
            }
            Effect::HumanSay(text) => self.to_live(HumanInput::Message(text)).await,
            Effect::HumanEnd => self.to_live(HumanInput::End).await,
            Effect::EditAttacker(text) => {
                if let Some(live) = &self.live {
                    live.edit(text).await;
                }
                None
            }
            Effect::LoadNotes(path) => Some(Action::NotesLoaded { result: jobs::read_notes(&path), path }),
            Effect::SaveNote { path, draft, author } => {
                let result = jobs::write_note(&path, |file| file.add(draft, &author).map(|_| ()));
                Some(Action::NotesLoaded { path, result })
            }
            Effect::DeleteNote { path, id, author } => {
                let result = jobs::write_note(&path, |file| file.delete(&id, &author));
                Some(Action::NotesLoaded { path, result })
            }
            Effect::SaveUiState { path, contents } => {
                let written = path
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| crate::core::atomic_file::write_atomic(&path, contents.as_bytes()));
                written.err().map(|e| Action::Problem(format!("cannot save {}: {e}", path.display())))
            }
            Effect::Copy(text) => {
                super::handoff::copy(&text).err().map(|e| Action::Problem(format!("cannot copy: {e}")))
            }
            Effect::HandOff { text, editor } => {
                // The pager reads the keys meanwhile: stop reading them, then read anew.
                self.keys.abort();
                let problem = super::handoff::hand_off(&mut self.terminal, &text, editor);
                self.keys = read_terminal(inbox);
                problem.map(Action::Problem)
            }
            Effect::OpenEpisode { path, id, over } => {
                jobs::open_episode(inbox, self.loads.clone(), path, id, over);
                None
            }
            Effect::StopLoad(load) => {
                self.loads.stop(load);
                None
            }
            Effect::IndexCorpus { paths, cache } => {
                jobs::index_in_steps(inbox, paths, cache);
                None
            }
            Effect::OpenCompare(sources) => {
                jobs::open_compare(inbox, *sources);
                None
            }
            Effect::SearchEpisodes { query, files, loaded } => {
                jobs::search_episodes(inbox, query, files, loaded);
                None
            }
            Effect::KeepCases { suite, sources, tasks } => {
                jobs::keep_cases(inbox, suite, sources, tasks);
                None
            }
            Effect::StartFan(request) => self.fans.start(*request, inbox).await,
            Effect::FanControl(control) => {
                self.fans.control(control);
                None
            }
            Effect::FindStoppedFan { dir, episode, turn } => {
                jobs::find_stopped_fan(inbox, dir, episode, turn);
                None
            }
            Effect::StartAttack(request) => self.attacks.start(*request, inbox).await,
            Effect::AttackControl(control) => {
                self.attacks.control(control);
                None
            }
            Effect::AttackHand(request) => Some(self.attacks.hand(request)),
            Effect::FindForks { journal, root } => {
                jobs::find_forks(inbox, journal, root);
                None
            }
        };
        ControlFlow::Continue(answer)
    }

    /// Stops what runs (the live episode, the fan) and gives the terminal back.
    pub async fn close(mut self) {
        if let Some(live) = self.live.take() {
            live.stop().await;
        }
        self.fans.stop().await;
        self.attacks.stop().await;
        self.keys.abort();
    }

    /// Starts the new episode's runner (stopping the one that ran): the inbox gets
    /// [`Action::LiveStarted`], then its reports; a run that cannot start is the answer.
    async fn switch_to(
        &mut self,
        started: Option<anyhow::Result<RunnerHandle>>,
        what: &str,
    ) -> Option<Action> {
        let handle = match started {
            Some(Ok(handle)) => handle,
            Some(Err(e)) => return Some(Action::Problem(format!("cannot start {what}: {e:#}"))),
            None => return Some(Action::Problem("live runs are started with `converse-tui run`".into())),
        };
        if let Some(previous) = self.live.take() {
            previous.stop().await;
        }
        let started = Action::LiveStarted {
            journal: handle.journal_path.display().to_string(),
            human: handle.human.is_some(),
            warnings: handle.warnings.clone(),
        };
        self.live = Some(Live::new(handle, self.inbox.clone(), Some(started)));
        None
    }

    async fn to_live(&self, input: HumanInput) -> Option<Action> {
        if let Some(live) = &self.live {
            live.human(input).await;
        }
        None
    }
}
