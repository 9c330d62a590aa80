//! converse-tui: a terminal inspector for CONVERSE agent-to-agent episodes.
//!
//! Layers (each depends only on the ones below it): `core` (no terminal),
//! `config`, `session` (starting episodes), `app` (state and `update`), `ui`
//! (`draw`), `tui` (terminal and loop), `headless` (commands without a
//! screen). `tests/layers.rs` checks the imports.

pub mod app;
pub mod cli;
pub mod config;
pub mod core;
pub mod headless;
pub mod session;
pub mod tui;
pub mod ui;
