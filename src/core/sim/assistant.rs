//! The assistant: the reference's tool-calling loop over the environment's tools.
//!
//! Per conversational turn: the incoming message is appended, then the model
//! is called until it answers without tool calls or the turn's tool budget is
//! spent (checked before each model call, so one reply may exceed it, as in
//! the reference). Tool results go back as `tool` messages.

use crate::core::episode::{EventBody, Message, Party, ToolCall as ToolCallEvent, ToolResult};
use crate::core::llm::{ChatMessage, ChatRequest, Endpoint, GenerationParams, ToolCall, ToolDefinition};

use super::emitter::Emitter;
use super::environment::{EnvironmentState, parse_arguments, tool_definitions};
use super::model_call::Caller;
use super::run_error::RunError;
use super::settings::EpisodeSettings;

/// The reference's reply when the tool budget runs out.
pub const BUDGET_FALLBACK: &str = "I cannot safely execute more actions for this request.";

pub struct Assistant {
    pub endpoint: Endpoint,
    system_prompt: String,
    /// Everything after the system prompt, as the model saw it.
    pub history: Vec<ChatMessage>,
    tools: Vec<ToolDefinition>,
    pub max_tool_calls: u32,
    params: GenerationParams,
}

impl Assistant {
    pub fn new(endpoint: Endpoint, system_prompt: String, settings: &EpisodeSettings) -> Self {
        Assistant {
            endpoint,
            system_prompt,
            history: Vec::new(),
            tools: tool_definitions(),
            max_tool_calls: settings.max_tool_calls,
            params: settings.params(),
        }
    }

    /// One turn: answers `incoming`, calling tools as the model asks. Returns the reply text.
    pub async fn respond(
        &mut self,
        turn: u32,
        incoming: &str,
        env: &mut EnvironmentState,
        caller: &Caller<'_>,
        emitter: &mut Emitter,
    ) -> Result<String, RunError> {
        self.history.push(ChatMessage::user(incoming));
        let mut calls_made = 0u32;
        let mut usage = crate::core::episode::Usage::default();
        while calls_made < self.max_tool_calls {
            let mut messages = Vec::with_capacity(self.history.len() + 1);
            messages.push(ChatMessage::system(self.system_prompt.clone()));
            messages.extend(self.history.iter().cloned());
            let request =
                ChatRequest::new(messages).with_tools(self.tools.clone()).with_params(self.params.clone());
            let response = caller.call(&self.endpoint, request, emitter).await?;
            if let Some(u) = response.usage {
                usage.input_tokens += u.input_tokens;
                usage.output_tokens += u.output_tokens;
            }
            let text = response.text().to_string();
            // The budget holds per reply too: one reply asking for 5,000 calls runs only what
            // is left of it (issue 24); the rest are dropped before the history sees them.
            let room = (self.max_tool_calls - calls_made) as usize;
            let asked = response.tool_calls().len();
            if asked > room {
                tracing::warn!(
                    asked,
                    room,
                    "a reply asked for more tool calls than the budget left; the rest are dropped"
                );
            }
            let calls: Vec<ToolCall> = response.tool_calls().iter().take(room).cloned().collect();
            if calls.is_empty() {
                self.history.push(ChatMessage::assistant(text.clone()));
                self.deliver(turn, &text, usage, emitter).await?;
                return Ok(text);
            }
            self.history.push(ChatMessage::assistant_tool_calls(text.clone(), calls.clone()));
            if !text.trim().is_empty() {
                // Text beside tool calls never reaches the provider; it is the assistant thinking aloud.
                self.emit_message(turn, Party::User, &text, None, emitter).await?;
            }
            // All calls of one response first, then their results: the journal keeps the
            // grouping, so a fork can rebuild exactly the history the model saw.
            for call in &calls {
                let (args, raw_args) = parse_arguments(&call.function.arguments);
                let call_event = ToolCallEvent {
                    turn,
                    call_id: call.id.clone(),
                    tool: call.function.name.clone(),
                    args: serde_json::Value::Object(args),
                    raw_args,
                    raw: None,
                    late: false,
                };
                emitter.emit(EventBody::from(call_event)).await?;
            }
            for call in calls {
                calls_made += 1;
                let outcome = env.execute(&call.function.name, &call.function.arguments);
                let result = ToolResult {
                    turn,
                    call_id: call.id.clone(),
                    tool: call.function.name.clone(),
                    output: outcome.output.clone(),
                    ok: outcome.ok,
                    raw: None,
                };
                emitter.emit(EventBody::ToolResult(result)).await?;
                self.history.push(ChatMessage::tool(call.id, outcome.output));
            }
        }
        self.history.push(ChatMessage::assistant(BUDGET_FALLBACK));
        self.deliver(turn, BUDGET_FALLBACK, usage, emitter).await?;
        Ok(BUDGET_FALLBACK.to_string())
    }

    /// The turn's reply to the provider, carrying the tokens of every call of the turn.
    async fn deliver(
        &self,
        turn: u32,
        text: &str,
        usage: crate::core::episode::Usage,
        emitter: &mut Emitter,
    ) -> Result<(), RunError> {
        self.emit_message(turn, Party::Attacker, text, Some(usage), emitter).await
    }

    async fn emit_message(
        &self,
        turn: u32,
        to: Party,
        text: &str,
        usage: Option<crate::core::episode::Usage>,
        emitter: &mut Emitter,
    ) -> Result<(), RunError> {
        emitter
            .emit(EventBody::Message(Message {
                turn,
                from: Party::Assistant,
                to,
                text: text.to_string(),
                raw: None,
                model: Some(self.endpoint.model.clone()),
                usage,
                by: None,
            }))
            .await?;
        Ok(())
    }
}
