//! An error in what the user asked for (a filter naming a source that gave no verdict here, an
//! unknown field, a `--resume` of another experiment): the command line exits 2 on it, as on a
//! flag clap rejects, and 1 on failures.

/// The one line the user is told; `cli::main` prints it and exits 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
