//! The built binary, run in a home of its own (config and data directories inside it).

use std::path::Path;
use std::process::{Command, Output};

pub fn run_in(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_converse-tui"))
        .args(args)
        .env("HOME", home)
        .env("CONVERSE_TUI_CONFIG", home.join("config"))
        .env("CONVERSE_TUI_DATA", home.join("data"))
        .env("CONVERSE_TUI_CACHE", home.join("cache"))
        .output()
        .unwrap()
}
