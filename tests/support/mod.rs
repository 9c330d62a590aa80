//! What the test binaries share: the scripted model server, the binary launcher, journals and
//! corpora made for a test, screen rendering, tmux, the Python venv of the official packages.
//! Each binary uses part of it.
#![allow(dead_code, unused_macros, unused_imports)]

pub mod batch_cli;
pub mod bin;
pub mod corpus;
pub mod defended;
pub mod eval_zip;
pub mod fan_source;
pub mod files;
pub mod inspect_logs;
pub mod journals;
pub mod openai_server;
pub mod processes;
pub mod python;
pub mod sample_agent;
pub mod screen;
pub mod tmux;
