//! What the reader reports: an error located to the line, a warning for what it forgave.

use std::path::PathBuf;

/// A journal that cannot be read, located to the line.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: {problem}", path.display())]
pub struct JournalError {
    pub path: PathBuf,
    pub line: usize,
    pub problem: String,
}

/// Something the reader forgave.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalWarning {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for JournalWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// serde_json's message without its own "at line 1 column N" suffix, which
/// would mislead next to our file line number; the column is kept.
pub fn describe_json_error(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    let what = match e.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "invalid JSON",
        serde_json::error::Category::Data => "not a journal event",
        serde_json::error::Category::Io => "read failed",
    };
    format!("{what}: {message} (column {})", e.column())
}
