//! The headless commands, run as a user runs them: batch, judge, run, ls/summary/agreement, search, dump, exports, the cluster.

#[path = "../support/mod.rs"]
mod support;

mod agent_config;
mod agent_lifecycle;
mod attack;
mod attack_suites;
mod batch;
mod cli_a2a_agent;
mod cli_external_assistant;
mod cli_judge;
mod cli_run;
mod cluster_slurm;
mod corpus;
mod dump;
mod export_documents;
mod export_headless;
mod export_json;
mod export_maseval;
mod fans;
mod hostile_eval;
mod index;
mod late_tool_calls;
mod mcp_listen;
mod model_calls;
mod output_channels;
mod search;
mod statistics;
