//! Everything that knows nothing of terminals: headless commands and the TUI share it.

pub mod episode;
pub mod llm;
pub mod sanitize;
