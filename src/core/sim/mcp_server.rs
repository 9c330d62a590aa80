//! The persona's environment served over MCP (streamable HTTP) for an external assistant
//! (issue 26): the same seven tools and the same `EnvironmentState` as the built-in assistant,
//! on a loopback port, behind a per-episode bearer token.
//!
//! Every `tools/call` goes out on a channel as a `tool_call` then a `tool_result` event for the
//! runner to journal; the turn's budget (`max_tool_calls`) holds as in the built-in loop: a call
//! past it gets an error result and the environment is not touched.

use std::net::SocketAddr;
use std::sync::Arc;

use base64::Engine as _;
use rmcp::ErrorData as McpError;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::{Mutex, mpsc, watch};

use crate::core::episode::{EventBody, ToolCall as ToolCallEvent, ToolResult};

use super::assistant::BUDGET_FALLBACK;
use super::environment::{EnvironmentState, tool_definitions};
use super::gate::StepGate;
pub use super::mcp_http::Limits;
use super::mcp_http::{Front, Router, Serving, Target, accept_loop};

/// The environment and the turn's tool count, shared by every MCP session of the episode.
struct Shared {
    env: Mutex<EnvironmentState>,
    turn: Mutex<TurnBudget>,
    max_tool_calls: u32,
    events: mpsc::UnboundedSender<EventBody>,
    /// The episode's step gate: a paused episode holds each tool call after journaling it.
    gate: std::sync::OnceLock<StepGate>,
    /// Held calls queue here to pass the gate one at a time in the order they came (tokio's
    /// mutex is fair), so a step releases the oldest.
    gate_queue: Mutex<()>,
    /// True once the episode has ended: a call gets a JSON-RPC error and changes nothing.
    ended: tokio::sync::watch::Sender<bool>,
    /// Calls journaled whose result is not yet (the runner waits for them at the end).
    in_flight: tokio::sync::watch::Sender<usize>,
}

#[derive(Default)]
struct TurnBudget {
    turn: u32,
    calls: u32,
    next_id: u64,
    /// The agent has answered the turn's message: a call now is late (it counts in the turn).
    replied: bool,
}

/// Why a call ran no tool and what it answers.
const ENDED: &str = "the episode has ended; the tool did not run";
const CANCELLED: &str = "cancelled: the agent gave up on the call before it ran; the tool did not run";
const STOPPED: &str = "The episode was stopped; the tool did not run.";

/// One episode's MCP server; stops when dropped.
pub struct EnvironmentServer {
    shared: Arc<Shared>,
    /// Where the agent reaches its tools, e.g. `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    token: String,
    /// Its own listener's accept loop, or the fixed endpoint it owns (`--mcp-listen`).
    accept: Option<tokio::task::JoinHandle<()>>,
    router: Option<Arc<Router<Tools>>>,
    /// Set when dropped: every connection and MCP session of the episode ends.
    shutdown: watch::Sender<bool>,
    front: Arc<Front<Tools>>,
    end_sessions: Box<dyn Fn() + Send + Sync>,
}

impl Drop for EnvironmentServer {
    fn drop(&mut self) {
        if let Some(accept) = &self.accept {
            accept.abort();
        }
        if let Some(router) = &self.router {
            router.release(&self.front);
        }
        self.shutdown.send_replace(true);
        (self.end_sessions)();
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
        Self::serve(shared, receiver, Place::Bind(bind), limits).await
    }

    /// Serves the episode at the fixed endpoint `addr` (`--mcp-listen`): the listener and its
    /// token are the process's, bound by the first episode; this one owns the endpoint until it
    /// is dropped. An error when another episode owns it.
    pub async fn start_fixed(
        env: EnvironmentState,
        max_tool_calls: u32,
        addr: SocketAddr,
    ) -> std::io::Result<(Self, mpsc::UnboundedReceiver<EventBody>)> {
        let (shared, receiver) = Shared::new(env, max_tool_calls);
        Self::serve(shared, receiver, Place::Fixed(addr), Limits::default()).await
    }

    async fn serve(
        shared: Arc<Shared>,
        receiver: mpsc::UnboundedReceiver<EventBody>,
        place: Place,
        limits: Limits,
    ) -> std::io::Result<(Self, mpsc::UnboundedReceiver<EventBody>)> {
        let (listener, fixed) = match place {
            Place::Bind(bind) => (Some(tokio::net::TcpListener::bind(bind).await?), None),
            Place::Fixed(addr) => (None, Some(fixed_endpoint(addr)?)),
        };
        let (local, token) = match (&listener, &fixed) {
            (Some(listener), _) => (listener.local_addr()?, new_token()?),
            (None, Some(endpoint)) => (endpoint.addr, endpoint.token.clone()),
            (None, None) => unreachable!("one of the two"),
        };
        let handler = Tools { shared: shared.clone() };
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(vec!["localhost".to_string(), local.ip().to_string(), local.to_string()])
            // A browser's request must come from a page on this machine (the MCP spec's rule).
            .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"])
            .enforce_origin_validation();
        let cancel = config.cancellation_token.clone();
        let sessions = Arc::new(LocalSessionManager::default());
        let service = StreamableHttpService::new(move || Ok(handler.clone()), sessions.clone(), config);
        let (shutdown, stopped) = watch::channel(false);
        let front = Front::new(service, sessions, format!("Bearer {token}"), limits);
        let accept = match (listener, &fixed) {
            (Some(listener), _) => {
                let serving = Serving { limits, shutdown: stopped };
                Some(tokio::spawn(accept_loop(listener, Target::Episode(front.clone()), serving)))
            }
            (None, Some(endpoint)) if endpoint.router.own(&front) => None,
            (None, _) => {
                return Err(std::io::Error::other(format!(
                    "the MCP endpoint {local} (--mcp-listen) serves another episode: one endpoint serves one episode at a time"
                )));
            }
        };
        let url = format!("http://{local}/mcp");
        let end_sessions = Box::new(move || cancel.cancel());
        let router = fixed.map(|endpoint| endpoint.router);
        Ok((
            EnvironmentServer { shared, url, token, accept, router, shutdown, front, end_sessions },
            receiver,
        ))
    }

    /// Serves one connection over `io` as the listener would (the fuzz target's way in).
    #[cfg(feature = "fuzzing")]
    pub async fn serve_io<I>(&self, io: I)
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let serving = Serving { limits: self.front.limits, shutdown: self.shutdown.subscribe() };
        super::mcp_http::serve_one(self.front.clone(), serving, io).await;
    }

    /// Whether any request with the episode's token reached the server (`initialize`,
    /// `tools/list`, a call): an agent that never did never saw its tools.
    pub fn reached(&self) -> bool {
        self.front.reached.load(std::sync::atomic::Ordering::Relaxed)
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

/// Where an episode's tools are served.
enum Place {
    /// A fresh port on this address.
    Bind(SocketAddr),
    /// The process's fixed endpoint (`--mcp-listen`).
    Fixed(SocketAddr),
}

impl Shared {
    fn new(env: EnvironmentState, max_tool_calls: u32) -> (Arc<Self>, mpsc::UnboundedReceiver<EventBody>) {
        let (events, receiver) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            env: Mutex::new(env),
            turn: Mutex::new(TurnBudget::default()),
            max_tool_calls,
            events,
            gate: std::sync::OnceLock::new(),
            gate_queue: Mutex::new(()),
            ended: tokio::sync::watch::Sender::new(false),
            in_flight: tokio::sync::watch::Sender::new(0),
        });
        (shared, receiver)
    }
}

/// A fixed endpoint of the process: its address, listener (routed to the owning episode) and
/// token.
#[derive(Clone)]
struct FixedEndpoint {
    addr: SocketAddr,
    router: Arc<Router<Tools>>,
    token: String,
}

/// Where the token of a fixed endpoint comes from, when set (else one is made and printed once).
pub const TOKEN_VAR: &str = "CONVERSE_MCP_TOKEN";

/// The fixed endpoint at `addr`, bound the first time (in this process) it is asked for.
fn fixed_endpoint(addr: SocketAddr) -> std::io::Result<FixedEndpoint> {
    static ENDPOINTS: std::sync::OnceLock<std::sync::Mutex<Vec<FixedEndpoint>>> = std::sync::OnceLock::new();
    let mut endpoints =
        ENDPOINTS.get_or_init(Default::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(endpoint) = endpoints.iter().find(|e| e.addr == addr) {
        return Ok(endpoint.clone());
    }
    let listener = std::net::TcpListener::bind(addr)
        .map_err(|e| std::io::Error::new(e.kind(), format!("--mcp-listen {addr}: {e}")))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let token = match std::env::var(TOKEN_VAR) {
        Ok(token) if !token.trim().is_empty() => token.trim().to_string(),
        _ => {
            let token = new_token()?;
            // Said once, like --print-agent-config's: the agent is configured with it.
            eprintln!(
                "MCP endpoint http://{addr}/mcp: Authorization: Bearer {token} (set {TOKEN_VAR} to choose it)"
            );
            token
        }
    };
    let router = Router::serve(tokio::net::TcpListener::from_std(listener)?, Limits::default());
    let endpoint = FixedEndpoint { addr, router, token };
    endpoints.push(endpoint.clone());
    Ok(endpoint)
}

/// 32 random bytes from the kernel, URL-safe base64.
fn new_token() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The MCP handler: lists the seven tools and runs calls against the shared environment.
#[derive(Clone)]
struct Tools {
    shared: Arc<Shared>,
}

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("converse-tui-environment", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(mcp_tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Ok(CallToolResponse::Complete(self.run(request, context).await?))
    }
}

impl Tools {
    async fn run(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let args = serde_json::Value::Object(request.arguments.clone().unwrap_or_default());
        let raw_args = args.to_string();
        let (turn, call_id, within_budget, late) = {
            let mut budget = self.shared.turn.lock().await;
            // Checked under the lock `end` is ordered by: a call after the end never runs.
            if *self.shared.ended.borrow() {
                return Err(McpError::invalid_request(ENDED, None));
            }
            budget.next_id += 1;
            // Counted under the lock too, so `end` waits for every call that passed the check.
            self.shared.in_flight.send_modify(|n| *n += 1);
            let within = budget.calls < self.shared.max_tool_calls;
            if within {
                budget.calls += 1;
            }
            (budget.turn, format!("mcp_{}", budget.next_id), within, budget.replied)
        };
        let tool = request.name.to_string();
        let _ = self.shared.events.send(EventBody::from(ToolCallEvent {
            turn,
            call_id: call_id.clone(),
            tool: tool.clone(),
            args,
            raw_args: None,
            raw: None,
            late,
        }));
        // From here the call has a result in the journal whatever happens: dropped (its client
        // gone), it is journaled as cancelled.
        let mut pending = Pending::new(&self.shared, turn, call_id, tool);
        let held = async {
            match self.shared.gate.get() {
                Some(gate) => {
                    let _in_line = self.shared.gate_queue.lock().await;
                    gate.before_call().await.is_ok()
                }
                None => true,
            }
        };
        let mut ended = self.shared.ended.subscribe();
        // Held while paused: an episode aborted or ended meanwhile, or a client that gave up,
        // runs nothing.
        let outcome = tokio::select! {
            go = held => if go { None } else { Some(STOPPED) },
            _ = ended.wait_for(|e| *e) => Some(ENDED),
            _ = context.ct.cancelled() => Some(CANCELLED),
        };
        let (output, ok) = match outcome {
            Some(why) => (why.to_string(), false),
            None if within_budget => {
                let outcome = self.shared.env.lock().await.execute(&pending.tool, &raw_args);
                (outcome.output, outcome.ok)
            }
            None => (BUDGET_FALLBACK.to_string(), false),
        };
        pending.finish(output.clone(), ok);
        Ok(if ok {
            CallToolResult::success(vec![ContentBlock::text(output)])
        } else {
            CallToolResult::error(vec![ContentBlock::text(output)])
        })
    }
}

/// A journaled call waiting for its result; dropped unfinished, it journals the call as cancelled.
struct Pending {
    shared: Arc<Shared>,
    turn: u32,
    call_id: String,
    tool: String,
    done: bool,
}

impl Pending {
    fn new(shared: &Arc<Shared>, turn: u32, call_id: String, tool: String) -> Self {
        Pending { shared: shared.clone(), turn, call_id, tool, done: false }
    }

    fn finish(&mut self, output: String, ok: bool) {
        self.done = true;
        let _ = self.shared.events.send(EventBody::ToolResult(ToolResult {
            turn: self.turn,
            call_id: std::mem::take(&mut self.call_id),
            tool: std::mem::take(&mut self.tool),
            output,
            ok,
            raw: None,
        }));
        self.shared.in_flight.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.done {
            self.finish(CANCELLED.to_string(), false);
        }
    }
}

/// The built-in assistant's tool definitions as MCP tools: one list, two wires.
fn mcp_tools() -> Vec<Tool> {
    tool_definitions()
        .into_iter()
        .map(|definition| {
            let schema = match definition.function.parameters {
                serde_json::Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            Tool::new(
                definition.function.name,
                definition.function.description.unwrap_or_default(),
                Arc::new(schema),
            )
        })
        .collect()
}
