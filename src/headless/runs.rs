//! Runs files (`core::runs`), and the name of the one a batch or shard appends to.

pub use crate::core::runs::*;

use crate::core::batch_files::shard_runs_file;

use super::shard::Shard;

/// The runs file a batch (or one shard of it) appends to.
pub fn runs_file_name(shard: Option<Shard>) -> String {
    match shard {
        Some(s) => shard_runs_file(s.k, s.n),
        None => RUNS_FILE.to_string(),
    }
}
