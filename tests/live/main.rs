//! The model side: the HTTP client, deadlines and rate limits, hostile servers and turns, the simulator and the LLM judges against the test server.

#[path = "../support/mod.rs"]
mod support;

mod a2a_client;
mod a2a_fork;
mod attack_search;
mod command_agent;
mod fan_session;
mod hostile_server;
mod hostile_turns;
mod judge_llm;
mod llm_client;
mod llm_deadline;
mod mcp_server;
mod rate_limit;
mod sim_environment;
mod sim_prompts;
mod sim_runner;
