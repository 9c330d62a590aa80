//! Episodes written out for people and other tools: a Markdown transcript, a
//! self-contained HTML page, our journal JSON lines, MASEval reports and Inspect AI `.eval` logs.
//!
//! Every exporter is a pure function of an episode (no I/O), so the headless
//! command and the TUI share them and tests compare strings.

mod annotation;
mod common;
pub mod html;
pub mod inspect;
pub mod json;
pub mod markdown;
pub mod maseval;

use std::fmt;

pub use annotation::AnnotationView;
pub use html::to_html;
pub use inspect::{Exported, to_eval};
pub use json::to_json_lines;
pub use markdown::{to_markdown, to_markdown_with};
pub use maseval::{to_maseval, to_maseval_line, to_maseval_line_with};

/// The export formats, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    #[value(alias = "md")]
    Markdown,
    Html,
    #[value(alias = "jsonl")]
    Json,
    Maseval,
    /// An Inspect AI log (a ZIP: written to `-o FILE` only).
    Eval,
}

impl Format {
    pub const ALL: [Format; 5] =
        [Format::Markdown, Format::Html, Format::Json, Format::Maseval, Format::Eval];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Html => "html",
            Format::Json => "json",
            Format::Maseval => "maseval",
            Format::Eval => "eval",
        }
    }

    /// File extension of one exported episode.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Json => "jsonl",
            Format::Maseval => "jsonl",
            Format::Eval => "eval",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
