//! The screens, driven as a user drives them: whole-screen snapshots, the browser, search, compare, the TUI in tmux.

#[path = "../support/mod.rs"]
mod support;

mod annotate_crash;
mod app_update;
mod attack_screen;
mod attack_tmux;
mod browser_corpus;
mod browser_open;
mod charts;
mod fan_screens;
mod fan_tmux;
mod hostile;
mod inspect_screens;
mod load_in_steps;
mod screens;
mod search_screens;
mod transcript_compare;
mod tui_tmux;
mod wrap_props;
