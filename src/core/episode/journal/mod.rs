//! Reading and writing journals: one JSON event per line.
//!
//! The writer appends and flushes each event before returning, so a crash
//! loses at most the line being written. The reader streams; it forgives a
//! truncated *last* line (that crash) with a warning and rejects anything
//! else malformed with `path:line: problem`.

mod error;
mod reader;
#[cfg(test)]
mod tests;
mod unescape;
mod writer;

pub use error::{JournalError, JournalWarning, describe_json_error};
pub use reader::{BATCH_BYTES, JournalReader, is_journal, read_journal, read_journal_from};
pub use writer::{JournalWriter, write_journal};
