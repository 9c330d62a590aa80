//! Simulation: the environment's tools and state, the prompts of the
//! simulated parties, the assistant and attackers, and the runner that plays
//! an episode live (converse-reference.md §2–§3).

pub mod a2a;
pub mod agent_process;
pub mod agent_slots;
pub mod agent_spec;
pub mod assistant;
pub mod attacker;
pub mod command_agent;
pub mod converse_meta;
pub mod emitter;
pub mod environment;
pub mod external_assistant;
pub mod fork;
pub mod gate;
pub mod launch_template;
pub mod mcp_endpoint;
#[cfg(feature = "fuzzing")]
pub mod mcp_fuzzing;
pub mod mcp_http;
pub mod mcp_server;
mod mcp_tools;
pub mod model_call;
pub mod prompts;
pub mod replay;
pub mod replay_attacker;
pub mod run_error;
pub mod runner;
pub mod secrets;
pub mod settings;

pub use environment::{ACTION_TOOLS, EnvironmentState, SentEmail, TOOL_NAMES, ToolOutcome, tool_definitions};
