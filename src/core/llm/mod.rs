//! OpenAI-compatible chat client for the attacker, assistant and judge models:
//! plain and streamed completions, tool calls, retries with backoff, token usage.
//!
//! Keys are read from the environment at each request and never stored, logged or
//! shown; errors name the role, endpoint and model that failed.

pub mod budget;
pub mod client;
pub mod endpoint;
pub mod error;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod key_mask;
pub mod per_role;
pub mod rate_limit;
pub mod retry;
pub(crate) mod sse;
pub mod stream;
pub mod types;

pub use budget::{BudgetSpent, CallMeter};
pub use client::LlmClient;
pub use endpoint::{Endpoint, Role};
pub use error::{LlmError, LlmErrorKind};
pub use per_role::PerRole;
pub use rate_limit::{RateLimiter, RateLimits};
pub use retry::{RetryInfo, RetryPolicy};
pub use stream::Delta;
pub use types::{
    ChatMessage, ChatRequest, ChatResponse, ChatRole, FunctionCall, FunctionDefinition, GenerationParams,
    ToolCall, ToolDefinition, Usage,
};
