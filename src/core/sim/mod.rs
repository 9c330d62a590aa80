//! Simulation: the environment's tools and state, and the prompts of the
//! simulated parties (converse-reference.md §2–§3).

pub mod environment;
pub mod prompts;
pub mod pyrepr;

pub use environment::{ACTION_TOOLS, EnvironmentState, SentEmail, TOOL_NAMES, ToolOutcome, tool_definitions};
