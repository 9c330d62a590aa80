//! The command line: flags parsed by clap (`args`), each command turned into the call of the layer
//! that does it (`dispatch`, `commands`), and what every process does first (`process`). The
//! binary's `main` is `cli::main`.

pub mod args;
mod commands;
mod dispatch;
mod process;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::config::Paths;
use crate::core::sanitize::single_line;

pub use args::Cli;

/// Parses the flags, sets up logging and key masking, runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let paths = Paths::from_env();
    process::remember_configured_keys(&paths);
    let _log = process::init_logging(&paths);
    match dispatch::run(cli, &paths) {
        Ok(code) => code,
        // `converse-tui dump … | head` is not an error.
        Err(e) if process::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(process::stderr(), "converse-tui: {}", single_line(&format!("{e:#}")));
            // What was asked for cannot be (a bad filter, a resume refused): exit 2, as clap's
            // usage errors, not a run that failed.
            let usage = e.downcast_ref::<crate::core::usage_error::UsageError>().is_some();
            if usage { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}
