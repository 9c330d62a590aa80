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

pub use annotation::AnnotationView;
pub use html::to_html;
pub use inspect::{Exported, to_eval};
pub use json::to_json_lines;
pub use markdown::{to_markdown, to_markdown_with};
pub use maseval::{to_maseval, to_maseval_line, to_maseval_line_with};

/// What `export --format` writes: an episode format, or (csv, and html or json with `--by`) a
/// corpus's charts. The one enum of the flag: its names are clap's and `Display`'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, strum::Display, strum::EnumIter)]
#[strum(serialize_all = "lowercase")]
pub enum Format {
    #[value(alias = "md")]
    Markdown,
    Html,
    #[value(alias = "jsonl")]
    Json,
    Maseval,
    /// An Inspect AI log (a ZIP: written to `-o FILE` only).
    Eval,
    /// A corpus's charts only (`--by`).
    Csv,
}

impl Format {
    /// Whether episodes are written in this format (csv holds a corpus's charts only).
    pub fn of_episodes(self) -> bool {
        self != Format::Csv
    }

    /// File extension of one exported episode.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Json | Format::Maseval => "jsonl",
            Format::Eval => "eval",
            Format::Csv => "csv",
        }
    }
}
