//! The runner: one tokio task per live episode. It only sends updates and
//! only obeys its step gate (and, for a human attacker, their messages).
//!
//! Turn counting follows CONVERSE (reference §2.2): `max_turns` counts
//! attacker turns and the user's task is attacker turn 1, so the assistant
//! replies `max_turns - 1` times and `max_turns - 2` attacker messages are
//! delivered. CONVERSE's own cap of 10 replies (`max_invocations`) is its
//! default, not a ceiling: a `max_turns` above 11 is honoured. Our journal numbers turns by assistant reply:
//! turn 1 = the user's task and the first reply. The reference also
//! generates one last attacker message that it never delivers; we skip that
//! call, which changes no result.

use std::path::PathBuf;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::core::dataset::Task;
use crate::core::episode::{
    Control, ControlAction, End, EndReason, EpisodeConfig, EpisodeHeader, ErrorEvent, EventBody,
    JournalWriter, Message, Party,
};
use crate::core::llm::{ChatRole, Endpoint, LlmClient};

use super::agent_spec::AgentSpec;
use super::assistant::Assistant;
use super::attacker::{Attacker, AttackerContext, AttackerMove, Closing};
use super::emitter::{Emitter, Phase, RunnerUpdate, Secrets};
use super::environment::EnvironmentState;
use super::external_assistant::{AgentLimits, ExternalAssistant};
use super::fork::{NextMove, Resume};
use super::gate::{GateMode, StepGate};
use super::model_call::Caller;
use super::prompts::{AttackerHistoryRole, assistant_system_prompt};
use super::replay::replay_into;
use super::run_error::RunError;
use super::settings::EpisodeSettings;
use crate::core::judge::rules::RuleJudge;
use crate::core::judge::{JudgeContext, llm_verdicts};

/// The header's record of where the LLM judges were called (`config.extra`), so that a fork
/// asked to reuse the recorded judge (`--judge-model recorded`) calls it there and nowhere else.
pub const JUDGE_BASE_URL: &str = "judge_base_url";
/// Updates buffered between the runner and a slow watcher.
const UPDATE_BUFFER: usize = 256;

/// Assistant replies for a `max_turns` budget.
pub fn assistant_turns(max_turns: u32) -> u32 {
    max_turns.saturating_sub(1)
}

pub struct RunConfig {
    pub task: Task,
    pub episode_id: String,
    pub journal_path: PathBuf,
    pub assistant: Endpoint,
    /// Replaces the built-in assistant system prompt (`--assistant-prompt FILE`).
    pub assistant_prompt: Option<String>,
    /// An external agent plays the assistant (`--assistant cmd:… | a2a:…`).
    pub external: Option<AgentSpec>,
    pub attacker: Box<dyn Attacker>,
    /// The attacker's model, when a model plays it (for the journal header).
    pub attacker_model: Option<String>,
    /// LLM judges' endpoint: they judge at the end (and after every turn with `settings.judge_live`).
    pub judge: Option<Endpoint>,
    pub settings: EpisodeSettings,
    /// Continue a saved episode from a point instead of starting afresh (take over / fork).
    pub resume: Option<Resume>,
    /// The command's fixed MCP endpoints and launched agents, when it has them (issue 37).
    pub slots: Option<std::sync::Arc<super::agent_slots::AgentSlots>>,
}

/// How to start an episode beyond the task: who attacks, and from where.
#[derive(Debug, Clone, Default)]
pub struct Start {
    /// The person at the composer plays the attacker.
    pub human: bool,
    /// Continue a saved episode from a point (take over / fork).
    pub resume: Option<Resume>,
    /// Where the journal goes instead of the launcher's default (a fork: beside its parent).
    pub journal_dir: Option<PathBuf>,
    /// A recorded attack plays the attacker instead of the launcher's (an attack case).
    pub recorded: Option<super::replay_attacker::RecordedAttack>,
    /// A floor under the episode's `max_turns` (a take-over: room for its parent's recorded
    /// turns and its own next one, whatever limit the parent records).
    pub max_turns_at_least: Option<u32>,
}

/// How an episode ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub reason: EndReason,
    pub turns: u32,
    pub error: Option<String>,
}

/// The controls of a running episode.
pub struct RunnerHandle {
    pub gate: StepGate,
    /// Where an edited attacker message goes while it is held (see `Phase::PendingAttacker`).
    pub edits: mpsc::Sender<String>,
    /// The human attacker's messages, when a human plays the attacker (set by whoever made the attacker).
    pub human: Option<mpsc::Sender<super::attacker::HumanInput>>,
    pub updates: mpsc::Receiver<RunnerUpdate>,
    pub task: JoinHandle<RunOutcome>,
    pub episode_id: String,
    pub journal_path: PathBuf,
    /// What the user must hear about this start (an attacker script recorded for
    /// another task…): every front end shows them (stdout, stderr and runs file, status line).
    pub warnings: Vec<String>,
}

/// Creates the journal and starts the episode on the current tokio runtime.
pub fn spawn(config: RunConfig, client: LlmClient) -> anyhow::Result<RunnerHandle> {
    if config.settings.max_turns < 2 {
        anyhow::bail!(
            "--max-turns must be at least 2: the user's task counts as attacker turn 1, so 1 leaves no reply"
        );
    }
    let journal = JournalWriter::create(&config.journal_path)
        .map_err(|e| anyhow::anyhow!("cannot create the journal {}: {e}", config.journal_path.display()))?;
    let (tx, updates) = mpsc::channel(UPDATE_BUFFER);
    let notices = tx.clone();
    let client = client.with_on_retry(move |info| {
        let _ = notices.try_send(RunnerUpdate::Notice(info.to_string()));
    });
    let gate = StepGate::new(config.settings.start_paused);
    let episode_id = config.episode_id.clone();
    let journal_path = config.journal_path.clone();
    let key_vars = [
        config.assistant.api_key_env.as_deref(),
        config.attacker.endpoint().and_then(|e| e.api_key_env.as_deref()),
        config.judge.as_ref().and_then(|e| e.api_key_env.as_deref()),
    ];
    let judges = RuleJudge::for_context(&JudgeContext::from_task(&config.task));
    let emitter =
        Emitter::new(journal, tx, Secrets::from_env(key_vars.into_iter().flatten())).with_judges(judges);
    let (edits, edit_rx) = mpsc::channel(4);
    let task = tokio::spawn(run(config, client, gate.clone(), emitter, edit_rx));
    Ok(RunnerHandle {
        gate,
        edits,
        human: None,
        updates,
        task,
        episode_id,
        journal_path,
        warnings: Vec::new(),
    })
}

fn header(config: &RunConfig, external: Option<&ExternalAssistant>) -> EpisodeHeader {
    let mut models = serde_json::Map::new();
    let assistant = external.map_or_else(|| config.assistant.model.clone(), |agent| agent.label.clone());
    models.insert("assistant".into(), assistant.into());
    let attacker = config.attacker_model.clone().unwrap_or_else(|| config.attacker.kind().to_string());
    models.insert("attacker".into(), attacker.into());
    let mut extra = serde_json::Map::new();
    if let Some(judge) = &config.judge {
        models.insert("judge".into(), judge.model.clone().into());
        extra.insert(JUDGE_BASE_URL.into(), judge.public_base_url().into());
    }
    extra.insert("attacker_kind".into(), config.attacker.kind().into());
    if let Some(details) = external.and_then(ExternalAssistant::header_details) {
        extra.insert("assistant_agent".into(), details);
    }
    if let Some(script) = config.attacker.source() {
        extra.insert("attacker_script".into(), script.into());
    }
    let settings = &config.settings;
    extra.insert("assistant_turns".into(), assistant_turns(settings.max_turns).into());
    let run_config = EpisodeConfig {
        models,
        max_turns: Some(settings.max_turns),
        max_tool_calls: Some(settings.max_tool_calls),
        seed: settings.seed,
        defence: None,
        extra,
    };
    let mut header = EpisodeHeader::new(config.episode_id.clone(), config.task.to_task_info(), run_config);
    header.parent = config.resume.as_ref().map(|r| r.parent.clone());
    header
}

async fn run(
    mut config: RunConfig,
    client: LlmClient,
    gate: StepGate,
    mut emitter: Emitter,
    mut edits: mpsc::Receiver<String>,
) -> RunOutcome {
    // An external agent is reached first: the header names it as its card does.
    let (external, start_error) = match &config.external {
        Some(spec) => match start_external(spec, &config, &client, &gate).await {
            Ok(agent) => (Some(agent), None),
            Err(e) => (None, Some(e)),
        },
        None => (None, None),
    };
    let header = header(&config, external.as_ref());
    let mut turns = 0;
    let mut external = external;
    let mut result = match (emitter.emit(EventBody::Episode(Box::new(header))).await, start_error) {
        (Err(e), _) => Err(RunError::Journal(e)),
        (Ok(_), Some(e)) => Err(e),
        (Ok(_), None) => {
            for warning in external.iter().flat_map(ExternalAssistant::start_warnings) {
                emitter.notify(RunnerUpdate::Warning(warning));
            }
            converse(&mut config, &client, &gate, &mut emitter, &mut edits, &mut turns, external.as_mut())
                .await
        }
    };
    // The agent's calls until now journaled, later ones refused, and the agent stopped (with
    // its children), before the episode is judged and ends.
    if let Some(agent) = external {
        let finished = agent.finish(&mut emitter).await;
        if let (Ok(_), Err(e)) = (&result, finished) {
            result = Err(e);
        }
    }
    let result = match result {
        // The conversation is over: whole-episode rule verdicts, the LLM judges, then what the
        // attacker has to say about it (an attack search's score).
        Ok(reason) => match judge_episode(&config, &client, &gate, &mut emitter, None).await {
            Ok(()) => {
                let caller = Caller { client: &client, gate: &gate, stream: config.settings.stream };
                let closing = Closing { task: &config.task, caller: &caller, emitter: &mut emitter };
                config.attacker.closing(closing).await.map(|_| reason)
            }
            Err(e) => Err(e),
        },
        other => other,
    };
    let (reason, error) = match result {
        Ok(reason) => (reason, None),
        Err(RunError::Aborted) => (EndReason::Aborted, None),
        Err(e) => {
            let (source, message) = describe(&e);
            // The error's text may quote a model's reply, and so a key: the outcome is printed
            // and written to runs files, masked as the event is.
            let message = crate::core::llm::key_mask::mask_known(&message).into_owned();
            let _ = emitter
                .emit(EventBody::Error(ErrorEvent { source, message: message.clone(), turn: Some(turns) }))
                .await;
            (EndReason::Error, Some(message))
        }
    };
    let _ = emitter.emit(EventBody::End(End { reason, turns })).await;
    emitter.sync();
    emitter.phase(Phase::Finished);
    RunOutcome { reason, turns, error }
}

/// Serves the episode's tools on a fresh environment and reaches the agent.
async fn start_external(
    spec: &AgentSpec,
    config: &RunConfig,
    client: &LlmClient,
    gate: &StepGate,
) -> Result<ExternalAssistant, RunError> {
    let limits = AgentLimits {
        deadline: config.assistant.timeout,
        max_retries: config.assistant.max_retries,
        retry: client.retry_policy(),
        pacing: client.clone(),
        gate: gate.clone(),
        mcp_bind: config.settings.mcp_bind,
        slots: config.slots.clone(),
        stream: config.settings.stream,
        expects_tools: config.settings.agent_tools,
    };
    let env = EnvironmentState::new(&config.task.environment);
    ExternalAssistant::start(spec, env, config.settings.max_tool_calls, &config.episode_id, &limits).await
}

fn describe(e: &RunError) -> (String, String) {
    match e {
        RunError::Model(llm) => (format!("{} model", llm.role), e.to_string()),
        RunError::Attacker(_) => ("attacker".into(), e.to_string()),
        // An agent's text can be of any size: the error keeps 500 characters of it (issue 36 F11).
        RunError::Agent(_) => (
            "assistant agent".into(),
            crate::core::text::truncate_chars(&e.to_string(), crate::core::llm::error::MAX_MESSAGE),
        ),
        RunError::Journal(_) => ("journal".into(), e.to_string()),
        RunError::Aborted => ("runner".into(), e.to_string()),
    }
}

/// The conversation itself; returns why it ended.
async fn converse(
    config: &mut RunConfig,
    client: &LlmClient,
    gate: &StepGate,
    emitter: &mut Emitter,
    edits: &mut mpsc::Receiver<String>,
    turns: &mut u32,
    mut external: Option<&mut ExternalAssistant>,
) -> Result<EndReason, RunError> {
    let task = config.task.clone();
    let prompt = match &config.assistant_prompt {
        Some(text) => text.clone(),
        None => assistant_system_prompt(task.domain, &task.user_task),
    };
    let mut assistant = Assistant::new(config.assistant.clone(), prompt, &config.settings);
    let caller = Caller { client, gate, stream: config.settings.stream };
    let last_turn = assistant_turns(config.settings.max_turns);

    let (mut env, mut history, mut next) = match (&config.resume, external.as_mut()) {
        // An external agent cannot be rewound: the recorded turns are sent to it again.
        (Some(resume), Some(agent)) => {
            let history = replay_into(agent, resume, emitter).await?;
            (EnvironmentState::new(&task.environment), history, resume.next_move())
        }
        (Some(resume), None) => {
            // A fork: the copied events first (the source's header stays behind), then its state rebuilt.
            for event in resume.prefix.iter().skip(1) {
                emitter.copy(event).await?;
            }
            assistant.history = resume.assistant_history();
            let env = EnvironmentState::rebuild_from_events(&task.environment, &resume.prefix);
            (env, resume.attacker_history(), resume.next_move())
        }
        (None, _) => {
            let incoming = task.user_task.clone();
            emitter.emit(message(1, Party::User, incoming.clone(), None, None, None, None)).await?;
            let history = vec![(AttackerHistoryRole::Attacker, incoming.clone())];
            (
                EnvironmentState::new(&task.environment),
                history,
                NextMove::AssistantReplies { turn: 1, incoming },
            )
        }
    };
    loop {
        match next {
            NextMove::AssistantReplies { turn, incoming } => {
                *turns = turn;
                let reply = if let Some(agent) = external.as_mut() {
                    agent.respond(turn, &incoming, emitter).await?
                } else if assistant
                    .history
                    .last()
                    .is_some_and(|m| m.role == ChatRole::User && m.text() == incoming)
                {
                    // A fork whose last copied event is the message to answer: it is in the history already.
                    assistant.history.pop();
                    assistant.respond(turn, &incoming, &mut env, &caller, emitter).await?
                } else {
                    assistant.respond(turn, &incoming, &mut env, &caller, emitter).await?
                };
                history.push((AttackerHistoryRole::Assistant, reply));
                if config.settings.judge_live && turn < last_turn {
                    judge_episode(config, client, gate, emitter, Some(turn)).await?;
                }
                gate.turn_ended();
                if turn >= last_turn {
                    return Ok(EndReason::MaxTurns);
                }
                next = NextMove::AttackerMoves { completed: turn };
            }
            NextMove::AttackerMoves { completed } => {
                *turns = completed;
                if completed >= last_turn {
                    return Ok(EndReason::MaxTurns);
                }
                let ctx = AttackerContext { task: &task, history: &history, caller: &caller, emitter };
                let (text, raw, model, usage, by) = match config.attacker.next(ctx).await? {
                    AttackerMove::Done => {
                        // A person ending it is recorded, so it never reads as the model giving up.
                        if config.attacker.kind() == "human" {
                            let end = Control::new(ControlAction::End, "human", Some(completed));
                            emitter.emit(EventBody::Control(end)).await?;
                        }
                        emit_notes(config.attacker.as_mut(), emitter).await?;
                        return Ok(EndReason::AttackerDone);
                    }
                    AttackerMove::Say { text, raw, model, usage, by } => (text, raw, model, usage, by),
                };
                emit_notes(config.attacker.as_mut(), emitter).await?;
                let turn = completed + 1;
                let (text, by) =
                    match hold_for_edit(&text, config.attacker.kind(), gate, emitter, edits).await? {
                        Some(edited) => {
                            let edit = Control::new(ControlAction::Edit, "human", Some(turn));
                            emitter.emit(EventBody::Control(edit)).await?;
                            (edited, Some("human".to_string()))
                        }
                        None => (text, by),
                    };
                // Calls the agent made since its reply come first: they happened first.
                if let Some(agent) = external.as_mut() {
                    agent.journal_late_calls(emitter).await?;
                }
                // An edited message keeps the model's original output in `raw`.
                emitter.emit(message(turn, Party::Attacker, text.clone(), raw, model, usage, by)).await?;
                history.push((AttackerHistoryRole::Attacker, text.clone()));
                next = NextMove::AssistantReplies { turn, incoming: text };
            }
        }
    }
}

/// The rule judges' closing verdicts (`turn` None), then the LLM judges if an
/// endpoint is configured. A judge that fails gives an `error` verdict, never a pass.
async fn judge_episode(
    config: &RunConfig,
    client: &LlmClient,
    gate: &StepGate,
    emitter: &mut Emitter,
    turn: Option<u32>,
) -> Result<(), RunError> {
    if turn.is_none() {
        emitter.finish_judges().await?;
    }
    let Some(endpoint) = &config.judge else { return Ok(()) };
    gate.before_call().await.map_err(|_| RunError::Aborted)?;
    emitter.phase(Phase::Waiting(endpoint.role));
    let ctx = JudgeContext::from_task(&config.task);
    let events = emitter.events().to_vec();
    let verdicts = tokio::select! {
        verdicts = llm_verdicts(client, endpoint, &ctx, &events, turn) => verdicts,
        _ = gate.aborted() => return Err(RunError::Aborted),
    };
    for verdict in verdicts {
        // Judge tokens are counted with the other roles' (status line, runs file).
        if let Some(usage) = verdict.usage {
            emitter.notify(RunnerUpdate::Usage { role: endpoint.role, usage });
        }
        emitter.emit(EventBody::from(verdict)).await?;
    }
    Ok(())
}

/// What the attacker noted about its last move (an attack search's reasons), before the message.
async fn emit_notes(attacker: &mut dyn Attacker, emitter: &mut Emitter) -> Result<(), RunError> {
    for note in attacker.notes() {
        emitter.emit(note).await?;
    }
    Ok(())
}

/// While the run is paused, a model-written attacker message waits here so the
/// user can edit it; continuing delivers it as is. Returns the edit, if any.
async fn hold_for_edit(
    text: &str,
    attacker_kind: &str,
    gate: &StepGate,
    emitter: &Emitter,
    edits: &mut mpsc::Receiver<String>,
) -> Result<Option<String>, RunError> {
    if attacker_kind != "llm" || gate.mode() != GateMode::Paused {
        return Ok(None);
    }
    emitter.notify(RunnerUpdate::Pending(text.to_string()));
    emitter.phase(Phase::PendingAttacker);
    tokio::select! {
        // An edit that arrived together with "continue" wins.
        biased;
        edited = edits.recv() => Ok(edited.filter(|e| e != text)),
        released = gate.released() => released.map(|_| None).map_err(|_| RunError::Aborted),
    }
}

fn message(
    turn: u32,
    from: Party,
    text: String,
    raw: Option<String>,
    model: Option<String>,
    usage: Option<crate::core::episode::Usage>,
    by: Option<String>,
) -> EventBody {
    EventBody::Message(Message { turn, from, to: Party::Assistant, text, raw, model, usage, by })
}

/// A new episode id: time-ordered, and unique enough for one machine: the suffix counts the ids
/// this process made, from a start drawn from the clock and the process id (two episodes started
/// in the same microsecond got the same id when the suffix was the clock's alone).
pub fn new_episode_id() -> String {
    static NEXT: std::sync::OnceLock<std::sync::atomic::AtomicU16> = std::sync::OnceLock::new();
    let now = time::OffsetDateTime::now_utc();
    let nanos = now.unix_timestamp_nanos();
    let next = NEXT.get_or_init(|| {
        std::sync::atomic::AtomicU16::new((nanos / 1000 % 65536) as u16 ^ (std::process::id() as u16))
    });
    format!(
        "ep-{:04}{:02}{:02}-{:02}{:02}{:02}-{:04x}",
        now.year(),
        now.month() as u8,
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

/// What a journal's header says about the attacker (for scripted re-runs).
pub fn attacker_lines(events: &[crate::core::episode::Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Message(m) if m.from == Party::Attacker && m.to == Party::Assistant => {
                Some(m.text.clone())
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn episode_ids_made_in_the_same_second_do_not_collide() {
        // An attack search and a fixed-attacker baseline start hundreds of episodes a second; a
        // repeated id would name two episodes (and make one fork's parent ambiguous).
        let ids: std::collections::HashSet<String> = (0..20_000).map(|_| super::new_episode_id()).collect();
        assert_eq!(ids.len(), 20_000);
    }
}
