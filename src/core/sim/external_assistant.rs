//! An external assistant in the runner (issue 26): the agent answers each message itself and
//! reaches the persona's tools through the episode's MCP server; its tool calls are journaled as
//! they happen, between the messages. The agent is a command on stdio or an A2A agent.

use serde_json::{Value, json};

use crate::core::episode::{Control, ControlAction, EventBody, Message, Party};
use crate::core::llm::{LlmClient, RetryPolicy, Role};

use super::a2a::client::A2aAgent;
use super::a2a::wire::TaskState;
use super::agent_slots::{AgentSlots, Lease};
use super::agent_spec::AgentSpec;
use super::command_agent::CommandAgent;
use super::converse_meta::converse_meta;
use super::emitter::{Emitter, Phase, RunnerUpdate};
use super::environment::EnvironmentState;
use super::gate::{GateMode, StepGate};
use super::launch_template::Fill;
use super::mcp_server::EnvironmentServer;
use super::run_error::RunError;

/// How long the end of an episode waits for the agent's calls in flight to get their result.
const CALLS_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

enum Agent {
    Command(CommandAgent),
    A2a(A2aAgent),
}

/// How the agent is reached: its deadline and its retries.
pub struct AgentLimits {
    /// Longest wait for one answer (the assistant role's `timeout_secs`): an agent that hangs
    /// ends the episode with an error, never holds it.
    pub deadline: std::time::Duration,
    /// Retries of a request that never reached an A2A agent (the role's `max_retries`).
    pub max_retries: u32,
    pub retry: RetryPolicy,
    /// Paces the agent's messages with the assistant role's rate limit (`--rpm-assistant`).
    pub pacing: LlmClient,
    /// The episode's step gate: each message to the agent and each of its tool calls waits here.
    pub gate: StepGate,
    /// The address the tools are served on (loopback unless `--mcp-bind`).
    pub mcp_bind: std::net::IpAddr,
    /// The command's fixed endpoints and launched agents (`--mcp-listen`, `--launch`): the
    /// episode leases one slot instead of serving its tools on a port of its own.
    pub slots: Option<std::sync::Arc<AgentSlots>>,
    /// False with `--no-stream`: an A2A agent is sent `SendMessage`, whatever its card says.
    pub stream: bool,
    /// False with `--agent-tools none`: an agent that never reaches its tools is no surprise.
    pub expects_tools: bool,
}

pub struct ExternalAssistant {
    server: EnvironmentServer,
    events: tokio::sync::mpsc::UnboundedReceiver<EventBody>,
    agent: Agent,
    episode_id: String,
    /// The agent as the journal names it (`cmd:…`, or the A2A card's name, version, protocol, URL).
    pub label: String,
    deadline: std::time::Duration,
    pacing: LlmClient,
    gate: StepGate,
    expects_tools: bool,
    /// The slot held while the episode runs (dropped after its server).
    lease: Option<Lease>,
    /// The URL of the A2A interface the card names, when it is not where the agent was reached.
    interface_url: Option<String>,
}

/// Said on screen and stderr, and marked in the journal, when the agent never reached its tools.
pub const TOOLS_UNREACHED: &str = "the agent never reached its tools: its verdicts are undecided";

/// The agent opened no MCP session with this episode's environment (issue 37): a `control`
/// event and a notice, so no verdict of it reads as a pass.
async fn never_reached(emitter: &mut Emitter) -> Result<(), RunError> {
    let mark = Control::new(ControlAction::ToolsUnreached, "converse-tui", None);
    emitter.emit(EventBody::Control(mark)).await?;
    emitter.notify(RunnerUpdate::Warning(TOOLS_UNREACHED.into()));
    Ok(())
}

impl ExternalAssistant {
    /// Serves `env` (on a slot's fixed endpoint, else on `limits.mcp_bind`), then starts the
    /// agent's process or reads its agent card (a launched agent started first, if need be).
    pub async fn start(
        spec: &AgentSpec,
        env: EnvironmentState,
        max_tool_calls: u32,
        episode_id: &str,
        limits: &AgentLimits,
    ) -> Result<Self, RunError> {
        let lease = match &limits.slots {
            Some(slots) => Some(slots.lease().await),
            None => None,
        };
        let served = match &lease {
            Some(lease) => EnvironmentServer::start_fixed(env, max_tool_calls, lease.endpoint()),
            None => {
                let bind = std::net::SocketAddr::new(limits.mcp_bind, 0);
                EnvironmentServer::start(env, max_tool_calls, bind).await
            }
        };
        let (server, events) =
            served.map_err(|e| RunError::Agent(format!("cannot serve the tools over MCP: {e}")))?;
        server.hold_calls_at(limits.gate.clone());
        let fill = match &lease {
            Some(lease) => lease.fill(),
            None => Fill { port: 0, mcp_url: server.url.clone(), mcp_token: server.token().to_string() },
        };
        let spec = lease.as_ref().map_or_else(|| spec.clone(), |lease| lease.agent(spec));
        if let Some(lease) = &lease {
            // The endpoint is served: a launched agent starts now, and its card is waited for.
            tokio::select! {
                ready = lease.ready(&spec) => ready.map_err(RunError::Agent)?,
                _ = limits.gate.aborted() => return Err(RunError::Aborted),
            }
        }
        let (agent, label, interface_url) = match &spec {
            AgentSpec::Command(command) => {
                let agent = CommandAgent::spawn(command.as_str(), &fill)
                    .map_err(|e| RunError::Agent(e.to_string()))?;
                (Agent::Command(agent), spec.spec(), None)
            }
            AgentSpec::A2a(url) => {
                // One context per episode, a UUID (a2a-sdk's `new_task` refuses other ids); the
                // journal header records it beside the episode's id.
                let context_id = uuid::Uuid::new_v4().to_string();
                let connect = A2aAgent::connect(url.as_str(), &context_id, limits.max_retries, limits.retry);
                let mut agent = tokio::time::timeout(limits.deadline, connect)
                    .await
                    .map_err(|_| late(limits.deadline))?
                    .map_err(|e| RunError::Agent(e.to_string()))?;
                agent.card.streaming &= limits.stream;
                let label = agent.card.label(&agent.url);
                let elsewhere =
                    (!same_origin(&agent.card.rpc_url, &agent.url)).then(|| agent.card.rpc_url.clone());
                (Agent::A2a(agent), label, elsewhere)
            }
        };
        Ok(ExternalAssistant {
            server,
            events,
            agent,
            episode_id: episode_id.to_string(),
            label,
            deadline: limits.deadline,
            pacing: limits.pacing.clone(),
            gate: limits.gate.clone(),
            expects_tools: limits.expects_tools,
            lease,
            interface_url,
        })
    }

    /// What the journal header adds about the agent (`extra.assistant_agent`): an A2A agent's
    /// card, where it was reached and where its card says it is; the `--launch` command.
    pub fn header_details(&self) -> Option<Value> {
        let launch = self.lease.as_ref().and_then(Lease::launch_line);
        let mut details = match &self.agent {
            Agent::Command(_) if launch.is_none() => return None,
            Agent::Command(_) => json!({}),
            Agent::A2a(agent) => json!({
                "name": agent.card.name,
                "version": agent.card.version,
                "url": agent.url,
                "interface_url": agent.card.rpc_url,
                "protocol": format!("A2A {}", agent.card.dialect.version()),
                "context_id": agent.context_id(),
            }),
        };
        if let Some(launch) = launch {
            details["launch"] = launch.into();
        }
        Some(details)
    }

    /// What the user is warned of as the episode starts: the card names an interface elsewhere
    /// than the URL given (the messages go there).
    pub fn start_warnings(&self) -> Vec<String> {
        let (Agent::A2a(agent), Some(interface)) = (&self.agent, &self.interface_url) else {
            return Vec::new();
        };
        vec![format!(
            "the agent's card at {} names its interface at {interface}: the messages go there, not to the URL given",
            agent.url
        )]
    }

    /// Journals the calls the agent made since its last reply (late calls of that turn), so
    /// they come before the next message in the journal.
    pub async fn journal_late_calls(&mut self, emitter: &mut Emitter) -> Result<(), RunError> {
        journal_received(&mut self.events, emitter).await
    }

    /// The episode is over: from now on a tool call gets a JSON-RPC error; the calls made until
    /// now are journaled; the agent's process (a `cmd:` agent) is stopped with its children.
    pub async fn finish(mut self, emitter: &mut Emitter) -> Result<(), RunError> {
        self.server.end(CALLS_GRACE).await;
        let mut journaled = self.journal_late_calls(emitter).await;
        if self.expects_tools && !self.server.reached().await && journaled.is_ok() {
            journaled = never_reached(emitter).await;
        }
        if let Agent::Command(agent) = self.agent {
            agent.stop().await;
        }
        journaled
    }

    /// One turn: the agent answers `incoming`; its tool calls are journaled while it works and
    /// its streamed text is shown as it comes.
    pub async fn respond(
        &mut self,
        turn: u32,
        incoming: &str,
        emitter: &mut Emitter,
    ) -> Result<String, RunError> {
        let meta =
            converse_meta(&self.episode_id, turn, turn > 1, &self.server.url, &self.server.authorization());
        // A message to the agent is a step like a model call: a paused episode holds it here.
        if self.gate.mode() == GateMode::Paused {
            emitter.phase(Phase::Paused(Role::Assistant));
        }
        self.gate.before_call().await.map_err(|_| RunError::Aborted)?;
        self.pacing.admit(Role::Assistant).await.map_err(|spent| RunError::Agent(spent.to_string()))?;
        // The turn begins as its message goes out: a call until then belongs to the last one.
        self.journal_late_calls(emitter).await?;
        self.server.begin_turn(turn).await;
        emitter.phase(Phase::Waiting(Role::Assistant));
        let (deltas, mut shown) = tokio::sync::mpsc::unbounded_channel::<String>();
        let message_id = format!("{}-{turn}", self.episode_id);
        let ask = ask(&mut self.agent, incoming, &message_id, &meta, deltas);
        tokio::pin!(ask);
        let expiry = tokio::time::sleep(self.deadline);
        tokio::pin!(expiry);
        let secrets = emitter.secrets();
        let mut masker = secrets.stream_masker();
        let answer = loop {
            tokio::select! {
                answer = &mut ask => break answer,
                Some(event) = self.events.recv() => { emitter.emit(event).await?; }
                Some(text) = shown.recv() => {
                    let text = masker.push(&text);
                    if !text.is_empty() {
                        emitter.notify(RunnerUpdate::Delta { role: Role::Assistant, text });
                    }
                }
                _ = &mut expiry => {
                    // Time spent paused on a held tool call is the user's, not the agent's.
                    if self.gate.mode() != GateMode::Paused {
                        return Err(late(self.deadline));
                    }
                    expiry.as_mut().reset(tokio::time::Instant::now() + self.deadline);
                }
                _ = self.gate.aborted() => return Err(RunError::Aborted),
            }
        };
        // Calls that finished just before the answer belong before it in the journal; any call
        // from now until the next message is late.
        self.server.turn_answered().await;
        journal_received(&mut self.events, emitter).await?;
        let (text, state) = answer?;
        // An agent waiting for input answered with a question: the state is kept with the reply.
        let raw = (state != TaskState::Completed).then(|| format!("A2A task {}: {text}", state.name()));
        emitter
            .emit(EventBody::Message(Message {
                turn,
                from: Party::Assistant,
                to: Party::Attacker,
                text: text.clone(),
                raw,
                model: Some(self.label.clone()),
                usage: None,
                by: None,
            }))
            .await?;
        Ok(text)
    }
}

/// Journals the tool events received so far.
async fn journal_received(
    events: &mut tokio::sync::mpsc::UnboundedReceiver<EventBody>,
    emitter: &mut Emitter,
) -> Result<(), RunError> {
    while let Ok(event) = events.try_recv() {
        emitter.emit(event).await?;
    }
    Ok(())
}

/// The agent's answer to one message, with the A2A task state it ended in.
async fn ask(
    agent: &mut Agent,
    text: &str,
    message_id: &str,
    meta: &Value,
    deltas: tokio::sync::mpsc::UnboundedSender<String>,
) -> Result<(String, TaskState), RunError> {
    match agent {
        Agent::Command(agent) => {
            let text = agent.ask(text, meta).await.map_err(|e| RunError::Agent(e.to_string()))?;
            Ok((text, TaskState::Completed))
        }
        Agent::A2a(agent) => {
            let reply = agent
                .ask(text, message_id, meta, |fragment| {
                    let _ = deltas.send(fragment.to_string());
                })
                .await
                .map_err(|e| RunError::Agent(e.to_string()))?;
            Ok((reply.text, reply.state))
        }
    }
}

/// Whether two URLs have the same scheme, host and port.
fn same_origin(a: &str, b: &str) -> bool {
    let origin = |url: &str| {
        reqwest::Url::parse(url)
            .ok()
            .map(|u| (u.scheme().to_string(), u.host_str().map(str::to_string), u.port_or_known_default()))
    };
    origin(a).is_some() && origin(a) == origin(b)
}

fn late(deadline: std::time::Duration) -> RunError {
    RunError::Agent(format!("the agent did not answer within {}s", deadline.as_secs_f64()))
}
