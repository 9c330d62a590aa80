//! The MCP handler of the persona's tools (issue 26): lists the seven tools and runs each call
//! against the environment of the episode that owns the server at the time.
//!
//! An episode's own server is owned by it for its whole life; a fixed endpoint (`--mcp-listen`,
//! `--launch`, issue 37) is owned by one episode at a time, and a call that arrives when none
//! owns it gets a JSON-RPC error and runs nothing (`initialize` and `tools/list` are answered
//! whatever the time, so an agent may connect before the first episode starts).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::ErrorData as McpError;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use tokio::sync::{Mutex, mpsc};

use crate::core::episode::{EventBody, ToolCall as ToolCallEvent, ToolResult};

use super::assistant::BUDGET_FALLBACK;
use super::environment::{EnvironmentState, tool_definitions};
use super::gate::StepGate;

/// The environment and the turn's tool count of one episode, shared by every MCP session.
pub(super) struct Shared {
    pub(super) env: Mutex<EnvironmentState>,
    pub(super) turn: Mutex<TurnBudget>,
    max_tool_calls: u32,
    events: mpsc::UnboundedSender<EventBody>,
    /// The episode's step gate: a paused episode holds each tool call after journaling it.
    pub(super) gate: std::sync::OnceLock<StepGate>,
    /// Held calls queue here to pass the gate one at a time in the order they came (tokio's
    /// mutex is fair), so a step releases the oldest.
    gate_queue: Mutex<()>,
    /// True once the episode has ended: a call gets a JSON-RPC error and changes nothing.
    pub(super) ended: tokio::sync::watch::Sender<bool>,
    /// Calls journaled whose result is not yet (the runner waits for them at the end).
    pub(super) in_flight: tokio::sync::watch::Sender<usize>,
    /// Set by the first request with the token while the episode owned the server.
    pub(super) reached: AtomicBool,
}

#[derive(Default)]
pub(super) struct TurnBudget {
    pub(super) turn: u32,
    pub(super) calls: u32,
    next_id: u64,
    /// The agent has answered the turn's message: a call now is late (it counts in the turn).
    pub(super) replied: bool,
}

/// Why a call ran no tool and what it answers.
const ENDED: &str = "the episode has ended; the tool did not run";
const CANCELLED: &str = "cancelled: the agent gave up on the call before it ran; the tool did not run";
const STOPPED: &str = "The episode was stopped; the tool did not run.";
/// The answer to a call between episodes (issue 37).
pub(super) const NO_EPISODE: &str = "no converse-tui episode owns this MCP endpoint now (the last one ended, or the next has not started): the tool did not run";

impl Shared {
    pub(super) fn new(
        env: EnvironmentState,
        max_tool_calls: u32,
    ) -> (Arc<Self>, mpsc::UnboundedReceiver<EventBody>) {
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
            reached: AtomicBool::new(false),
        });
        (shared, receiver)
    }
}

/// The episode a server's calls go to: always the same one for an episode's own server, the
/// one running now for a fixed endpoint.
#[derive(Default)]
pub(super) struct Owner(std::sync::Mutex<Option<Arc<Shared>>>);

impl Owner {
    pub(super) fn of(shared: &Arc<Shared>) -> Arc<Self> {
        Arc::new(Owner(std::sync::Mutex::new(Some(shared.clone()))))
    }

    pub(super) fn get(&self) -> Option<Arc<Shared>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Makes `shared` the owner; false when another episode owns it.
    pub(super) fn take(&self, shared: &Arc<Shared>) -> bool {
        let mut current = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if current.is_some() {
            return false;
        }
        *current = Some(shared.clone());
        true
    }

    /// Lets go, if `shared` owns it.
    pub(super) fn release(&self, shared: &Arc<Shared>) {
        let mut current = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, shared)) {
            *current = None;
        }
    }

    /// A request with the token arrived: the episode owning the server now was reached.
    pub(super) fn mark_reached(&self) {
        if let Some(shared) = self.get() {
            shared.reached.store(true, Ordering::Relaxed);
        }
    }
}

/// The MCP handler: lists the seven tools and runs calls against the owner's environment.
#[derive(Clone)]
pub(super) struct Tools {
    pub(super) owner: Arc<Owner>,
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
        let Some(shared) = self.owner.get() else {
            return Err(McpError::invalid_request(NO_EPISODE, None));
        };
        Ok(CallToolResponse::Complete(run(&shared, request, context).await?))
    }
}

async fn run(
    shared: &Arc<Shared>,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResult, McpError> {
    let args = serde_json::Value::Object(request.arguments.clone().unwrap_or_default());
    let raw_args = args.to_string();
    let (turn, call_id, within_budget, late) = {
        let mut budget = shared.turn.lock().await;
        // Checked under the lock `end` is ordered by: a call after the end never runs.
        if *shared.ended.borrow() {
            return Err(McpError::invalid_request(ENDED, None));
        }
        budget.next_id += 1;
        // Counted under the lock too, so `end` waits for every call that passed the check.
        shared.in_flight.send_modify(|n| *n += 1);
        let within = budget.calls < shared.max_tool_calls;
        if within {
            budget.calls += 1;
        }
        (budget.turn, format!("mcp_{}", budget.next_id), within, budget.replied)
    };
    let tool = request.name.to_string();
    let _ = shared.events.send(EventBody::from(ToolCallEvent {
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
    let mut pending = Pending::new(shared, turn, call_id, tool);
    let held = async {
        match shared.gate.get() {
            Some(gate) => {
                let _in_line = shared.gate_queue.lock().await;
                gate.before_call().await.is_ok()
            }
            None => true,
        }
    };
    let mut ended = shared.ended.subscribe();
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
            let outcome = shared.env.lock().await.execute(&pending.tool, &raw_args);
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
