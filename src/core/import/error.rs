//! The one error every importer gives: a file that could not be loaded, as one line.

use std::path::{Path, PathBuf};

use crate::core::episode::JournalError;
use crate::core::sanitize;

/// A file that could not be loaded. Always one line: `path:line: problem`,
/// or `path: problem` when no line applies.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.render())]
pub struct LoadError {
    pub path: PathBuf,
    /// 1-based line in the file; 0 when no line applies.
    pub line: usize,
    pub problem: String,
}

impl LoadError {
    pub fn new(path: &Path, line: usize, problem: impl AsRef<str>) -> Self {
        LoadError {
            path: path.to_path_buf(),
            line,
            // Problems quote input (serde messages, party names): keep one safe line.
            problem: sanitize::single_line(problem.as_ref()).into_owned(),
        }
    }

    fn render(&self) -> String {
        let path = sanitize::single_line(&self.path.to_string_lossy()).into_owned();
        if self.line == 0 {
            format!("{path}: {}", self.problem)
        } else {
            format!("{path}:{}: {}", self.line, self.problem)
        }
    }
}

impl From<JournalError> for LoadError {
    fn from(e: JournalError) -> Self {
        LoadError::new(&e.path, e.line, &e.problem)
    }
}
