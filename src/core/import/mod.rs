//! Loading episodes from any supported file: our journals, ConVerse /
//! Firewalled-agentic-network logs, MASEval reports and Inspect AI logs (ARCHITECTURE.md,
//! "Sources of episodes").
//!
//! The format is detected from the content, never the file name, so a
//! renamed file still loads and a wrong one fails with a clear message.
mod benchmark_judges;
mod converse;
mod converse_judges;
mod defaults;
mod detect;
mod error;
mod index;
pub mod inspect;
mod layout;
mod load;
mod maseval;
mod run_log;
mod walk;

pub use error::LoadError;
pub use index::{index_dir, index_path, load_episode};
pub use load::{
    inspect_json_log, load_bytes, load_bytes_alone, load_path, load_path_without_texts, load_source,
};
pub(crate) use walk::{episode_files, is_episode_candidate};
pub use walk::{is_sidecar_name, load_dir};
