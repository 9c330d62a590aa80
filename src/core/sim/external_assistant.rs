//! An external assistant in the runner (issue 26): the agent answers each message itself and
//! reaches the persona's tools through the episode's MCP server; its tool calls are journaled as
//! they happen, between the messages.

use crate::core::episode::{EventBody, Message, Party};

use super::command_agent::CommandAgent;
use super::converse_meta::converse_meta;
use super::emitter::Emitter;
use super::environment::EnvironmentState;
use super::mcp_server::EnvironmentServer;
use super::run_error::RunError;

pub struct ExternalAssistant {
    server: EnvironmentServer,
    events: tokio::sync::mpsc::UnboundedReceiver<EventBody>,
    agent: CommandAgent,
    episode_id: String,
    /// The agent as the journal names it (`cmd:…`).
    label: String,
    /// Longest wait for one answer (the assistant role's `timeout_secs`): an agent that hangs
    /// ends the episode with an error, never holds it.
    deadline: std::time::Duration,
}

impl ExternalAssistant {
    /// Serves `env` on loopback and starts the agent's process.
    pub async fn start(
        command: &str,
        env: EnvironmentState,
        max_tool_calls: u32,
        episode_id: &str,
        deadline: std::time::Duration,
    ) -> Result<Self, RunError> {
        let bind = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        let (server, events) = EnvironmentServer::start(env, max_tool_calls, bind)
            .await
            .map_err(|e| RunError::Agent(format!("cannot serve the tools over MCP: {e}")))?;
        let agent = CommandAgent::spawn(command).map_err(|e| RunError::Agent(e.to_string()))?;
        Ok(ExternalAssistant {
            server,
            events,
            agent,
            episode_id: episode_id.to_string(),
            label: format!("cmd:{command}"),
            deadline,
        })
    }

    /// One turn: the agent answers `incoming`; its tool calls are journaled while it works.
    pub async fn respond(
        &mut self,
        turn: u32,
        incoming: &str,
        emitter: &mut Emitter,
    ) -> Result<String, RunError> {
        self.server.begin_turn(turn).await;
        let meta =
            converse_meta(&self.episode_id, turn, turn > 1, &self.server.url, &self.server.authorization());
        let ask = self.agent.ask(incoming, &meta);
        tokio::pin!(ask);
        let expiry = tokio::time::sleep(self.deadline);
        tokio::pin!(expiry);
        let answer = loop {
            tokio::select! {
                answer = &mut ask => break answer,
                Some(event) = self.events.recv() => { emitter.emit(event).await?; }
                _ = &mut expiry => {
                    let secs = self.deadline.as_secs_f64();
                    return Err(RunError::Agent(format!("the agent did not answer within {secs}s")));
                }
            }
        };
        // Calls that finished just before the answer: they belong before it in the journal.
        while let Ok(event) = self.events.try_recv() {
            emitter.emit(event).await?;
        }
        let text = answer.map_err(|e| RunError::Agent(e.to_string()))?;
        emitter
            .emit(EventBody::Message(Message {
                turn,
                from: Party::Assistant,
                to: Party::Attacker,
                text: text.clone(),
                raw: None,
                model: Some(self.label.clone()),
                usage: None,
                by: None,
            }))
            .await?;
        Ok(text)
    }
}
