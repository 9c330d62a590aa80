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
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rmcp::ErrorData as McpError;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::{Mutex, mpsc};

use crate::core::episode::{EventBody, ToolCall as ToolCallEvent, ToolResult};

use super::assistant::BUDGET_FALLBACK;
use super::environment::{EnvironmentState, tool_definitions};
use super::gate::StepGate;

/// The environment and the turn's tool count, shared by every MCP session of the episode.
struct Shared {
    env: Mutex<EnvironmentState>,
    turn: Mutex<TurnBudget>,
    max_tool_calls: u32,
    events: mpsc::UnboundedSender<EventBody>,
    /// The episode's step gate: a paused episode holds each tool call after journaling it.
    gate: std::sync::OnceLock<StepGate>,
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
    accept: tokio::task::JoinHandle<()>,
}

impl Drop for EnvironmentServer {
    fn drop(&mut self) {
        self.accept.abort();
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
        let (events, receiver) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            env: Mutex::new(env),
            turn: Mutex::new(TurnBudget::default()),
            max_tool_calls,
            events,
            gate: std::sync::OnceLock::new(),
            ended: tokio::sync::watch::Sender::new(false),
            in_flight: tokio::sync::watch::Sender::new(0),
        });
        let listener = tokio::net::TcpListener::bind(bind).await?;
        let local = listener.local_addr()?;
        let token = new_token()?;
        let handler = Tools { shared: shared.clone() };
        let config = StreamableHttpServerConfig::default().with_allowed_hosts(vec![
            "localhost".to_string(),
            local.ip().to_string(),
            local.to_string(),
        ]);
        let service = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let accept = tokio::spawn(accept_loop(listener, service, format!("Bearer {token}")));
        let url = format!("http://{local}/mcp");
        Ok((EnvironmentServer { shared, url, token, accept }, receiver))
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

/// 32 random bytes from the kernel, URL-safe base64.
fn new_token() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

type Service = StreamableHttpService<Tools, LocalSessionManager>;

async fn accept_loop(listener: tokio::net::TcpListener, service: Service, expected: String) {
    let expected = Arc::new(expected);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                // Small JSON-RPC answers: without this, Nagle and delayed ACKs add tens of ms per call.
                let _ = stream.set_nodelay(true);
                stream
            }
            Err(e) => {
                // Out of descriptors and the like: wait rather than spin on the same error.
                tracing::warn!(error = %e, "the MCP server could not accept a connection");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = service.clone();
        let expected = expected.clone();
        tokio::spawn(async move {
            let serve = service_fn(move |request: hyper::Request<Incoming>| {
                let mut service = service.clone();
                let expected = expected.clone();
                async move {
                    Ok::<_, std::convert::Infallible>(authorized(&mut service, request, &expected).await)
                }
            });
            if let Err(e) =
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), serve).await
            {
                tracing::debug!(error = %e, "MCP connection ended");
            }
        });
    }
}

/// Refuses a request without the episode's token before MCP sees it.
async fn authorized(
    service: &mut Service,
    request: hyper::Request<Incoming>,
    expected: &str,
) -> hyper::Response<http_body_util::combinators::BoxBody<hyper::body::Bytes, std::convert::Infallible>> {
    let given = request.headers().get(hyper::header::AUTHORIZATION).map(|v| v.as_bytes());
    if given != Some(expected.as_bytes()) {
        let body =
            http_body_util::Full::new(hyper::body::Bytes::from_static(b"missing or wrong bearer token\n"));
        let mut response = hyper::Response::new(body.boxed());
        *response.status_mut() = hyper::StatusCode::UNAUTHORIZED;
        return response;
    }
    let ends_session = request.method() == hyper::Method::DELETE;
    let mut response = match tower_service::Service::call(service, request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    // rmcp answers a session's DELETE with 202; the official clients expect 200 or 204 and
    // warn on anything else ("Session termination failed: 202").
    if ends_session && response.status() == hyper::StatusCode::ACCEPTED {
        *response.status_mut() = hyper::StatusCode::NO_CONTENT;
    }
    response
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
                Some(gate) => gate.before_call().await.is_ok(),
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
