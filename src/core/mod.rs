//! Everything that knows nothing of terminals: headless commands and the TUI share it.

pub mod annotate;
pub mod atomic_file;
pub mod batch_files;
pub mod corpus;
pub mod dataset;
pub mod demo;
pub mod email_address;
pub mod episode;
pub mod export;
pub mod fan;
pub mod import;
pub mod input_file;
pub mod judge;
pub mod llm;
pub mod pyrepr;
pub mod redact;
pub mod redact_episode;
pub mod report;
pub mod safe_json;
pub mod sanitize;
pub mod search;
pub mod signals;
pub mod sim;
pub mod suite;
pub mod text;
pub mod words;
