//! The persona's environment served over MCP (streamable HTTP) for an external assistant
//! (issue 26): the same seven tools and the same `EnvironmentState` as the built-in assistant,
//! on a loopback port behind a per-episode bearer token, or at a fixed endpoint of the command
//! (issue 37).
//!
//! Every `tools/call` goes out on a channel as a `tool_call` then a `tool_result` event for the
//! runner to journal; the turn's budget (`max_tool_calls`) holds as in the built-in loop: a call
//! past it gets an error result and the environment is not touched.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::{mpsc, watch};

use crate::core::episode::EventBody;

use super::environment::EnvironmentState;
use super::gate::StepGate;
use super::mcp_endpoint::{EndSessions, FixedEndpoint, new_token, serve_tools};
pub use super::mcp_http::Limits;
use super::mcp_http::{Front, Serving, accept_loop};
use super::mcp_tools::{Owner, Shared, Tools};

/// One episode's MCP server; stops (or lets its fixed endpoint go) when dropped.
pub struct EnvironmentServer {
    shared: Arc<Shared>,
    /// Where the agent reaches its tools, e.g. `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    token: String,
    place: Place,
}

/// Where an episode's tools are served.
enum Place {
    /// A port of its own: its accept loop, and what ends its connections and sessions.
    Own {
        accept: tokio::task::JoinHandle<()>,
        shutdown: watch::Sender<bool>,
        #[cfg_attr(not(feature = "fuzzing"), allow(dead_code))]
        front: Arc<Front<Tools>>,
        end: EndSessions,
    },
    /// The command's fixed endpoint, owned while the episode runs.
    Fixed(Arc<FixedEndpoint>),
}

impl Drop for EnvironmentServer {
    fn drop(&mut self) {
        match &self.place {
            Place::Own { accept, shutdown, end, .. } => {
                accept.abort();
                shutdown.send_replace(true);
                end();
            }
            Place::Fixed(endpoint) => endpoint.release(&self.shared),
        }
    }
}

impl EnvironmentServer {
    /// Binds `bind` (loopback unless the user asked otherwise) and serves `env`. The receiver
    /// yields the `tool_call` / `tool_result` events to journal.
    pub async fn start(
        env: EnvironmentState,
        max_tool_calls: u32,
        bind: SocketAddr,
    ) -> std::io::Result<(Self, mpsc::UnboundedReceiver<EventBody>)> {
        Self::start_with(env, max_tool_calls, bind, Limits::default()).await
    }

    /// [`EnvironmentServer::start`] with other bounds than the defaults (tests).
    pub async fn start_with(
        env: EnvironmentState,
        max_tool_calls: u32,
        bind: SocketAddr,
        limits: Limits,
    ) -> std::io::Result<(Self, mpsc::UnboundedReceiver<EventBody>)> {
        let (shared, receiver) = Shared::new(env, max_tool_calls);
        let listener = tokio::net::TcpListener::bind(bind).await?;
        let local = listener.local_addr()?;
        let token = new_token()?;
        let (front, end) = serve_tools(local, Owner::of(&shared), &token, limits);
        let (shutdown, stopped) = watch::channel(false);
        let serving = Serving { limits, shutdown: stopped };
        let accept = tokio::spawn(accept_loop(listener, front.clone(), serving));
        let place = Place::Own { accept, shutdown, front, end };
        Ok((EnvironmentServer { shared, url: format!("http://{local}/mcp"), token, place }, receiver))
    }

    /// Serves the episode at the command's fixed endpoint (`--mcp-listen`, `--launch`): it owns
    /// the endpoint until it is dropped. An error when another episode owns it.
    pub fn start_fixed(
        env: EnvironmentState,
        max_tool_calls: u32,
        endpoint: &Arc<FixedEndpoint>,
    ) -> std::io::Result<(Self, mpsc::UnboundedReceiver<EventBody>)> {
        let (shared, receiver) = Shared::new(env, max_tool_calls);
        if !endpoint.own(&shared) {
            return Err(std::io::Error::other(format!(
                "the MCP endpoint {} serves another episode: one endpoint serves one episode at a time",
                endpoint.addr
            )));
        }
        let (url, token) = (endpoint.url(), endpoint.token().to_string());
        Ok((EnvironmentServer { shared, url, token, place: Place::Fixed(endpoint.clone()) }, receiver))
    }

    /// Serves one connection over `io` as the listener would (the fuzz target's way in).
    #[cfg(feature = "fuzzing")]
    pub async fn serve_io<I>(&self, io: I)
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        if let Place::Own { front, shutdown, .. } = &self.place {
            let serving = Serving { limits: front.limits, shutdown: shutdown.subscribe() };
            super::mcp_http::serve_one(front.clone(), serving, io).await;
        }
    }

    /// Whether the agent reached the episode's tools: a request with the token while the
    /// episode owned the server (`initialize`, `tools/list`, a call), or, at a fixed endpoint, an
    /// MCP session it opened there before and still holds.
    pub async fn reached(&self) -> bool {
        if self.shared.reached.load(Ordering::Relaxed) {
            return true;
        }
        match &self.place {
            Place::Own { .. } => false,
            Place::Fixed(endpoint) => endpoint.has_sessions().await,
        }
    }

    /// The episode's token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The header the agent must send: `Authorization: Bearer TOKEN`.
    pub fn authorization(&self) -> String {
        format!("Bearer {}", self.token)
    }

    /// Holds every tool call at `gate` while the episode is paused: the call is journaled, then
    /// waits for a step or continue before it runs (a step lets one call through).
    pub fn hold_calls_at(&self, gate: StepGate) {
        let _ = self.shared.gate.set(gate);
    }

    /// Starts conversational turn `turn` (its message is about to be sent): its tool budget
    /// starts afresh.
    pub async fn begin_turn(&self, turn: u32) {
        let mut budget = self.shared.turn.lock().await;
        budget.turn = turn;
        budget.calls = 0;
        budget.replied = false;
    }

    /// The agent has answered the turn: calls from now until the next message are late.
    pub async fn turn_answered(&self) {
        self.shared.turn.lock().await.replied = true;
    }

    /// The episode is over: every call from now on gets a JSON-RPC error and changes nothing,
    /// and a call held at the step gate is let go without running. Returns once the calls
    /// journaled before have their result (or after `wait`).
    pub async fn end(&self, wait: std::time::Duration) {
        {
            let _budget = self.shared.turn.lock().await;
            self.shared.ended.send_replace(true);
        }
        let mut in_flight = self.shared.in_flight.subscribe();
        let _ = tokio::time::timeout(wait, in_flight.wait_for(|n| *n == 0)).await;
    }

    /// The environment as the agent's calls left it (sent mail, deleted events…).
    pub async fn environment(&self) -> EnvironmentState {
        self.shared.env.lock().await.clone()
    }
}
