//! Command-line interface (clap derive).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "converse-tui",
    version,
    about = "Watch, replay, annotate and play CONVERSE agent-to-agent attacks in the terminal",
    long_about = "Watch, replay, annotate and play CONVERSE agent-to-agent attacks in the terminal.\n\n\
                  With no command, opens the bundled demo episodes."
)]
pub struct Cli {
    /// Colour theme: default, light, high-contrast, or a file in <config dir>/themes/.
    #[arg(long, global = true, env = "CONVERSE_TUI_THEME", default_value = "default")]
    pub theme: String,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open saved episodes: our journals, ConVerse logs, MASEval reports, or directories of them.
    Replay {
        /// Files or directories; several episodes open the episode browser.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print the normalized events of any supported input.
    Dump {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// One event per line in the journal's JSON form.
        #[arg(long)]
        json: bool,
    },
    /// Print shell completions.
    Completions { shell: clap_complete::Shell },
}
