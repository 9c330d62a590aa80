//! Errors a caller of the dataset API can match on.

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum DatasetError {
    #[error("invalid domain '{given}': must be one of {valid}")]
    InvalidDomain { given: String, valid: String },
    #[error("invalid split '{0}': must be one of all, privacy, security")]
    InvalidSplit(String),
    #[error("invalid persona {0}: must be 1, 2, 3 or 4")]
    InvalidPersona(u8),
    #[error("{file}: file not found")]
    MissingFile { file: String },
    #[error("{file}: {message}")]
    Read { file: String, message: String },
    #[error("{file}:{line}:{column}: malformed JSON: {message}")]
    Json { file: String, line: usize, column: usize, message: String },
    #[error("{0}: no CONVERSE data there (expected <domain>/options.txt or <domain>_usecase/options.txt)")]
    NoData(PathBuf),
    /// A repository root given for its `resources/` folder.
    #[error("{dir}: no CONVERSE data there, but {found} holds it: pass --data-dir {found}", dir = .dir.display(), found = .found.display())]
    DataOneLevelDown { dir: PathBuf, found: PathBuf },
}
