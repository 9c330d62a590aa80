//! converse-tui: a terminal inspector for CONVERSE agent-to-agent episodes.
//!
//! Layers (each depends only on the ones below it): `core` (no terminal),
//! `app` (state and `update`), `ui` (`draw`), `tui` (terminal and loop),
//! `headless` (commands without a screen).

pub mod config;
pub mod core;
pub mod headless;
