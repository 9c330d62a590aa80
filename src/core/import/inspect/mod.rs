//! Inspect AI logs (issue 29): `.eval` archives and plain `.json` logs, one episode per sample.
//! The format and its mapping are described in docs/formats.md.
mod big_text;
mod branch;
mod caps;
mod container;
mod facts;
mod held;
mod json_budget;
mod log;
mod ours;
mod read;
mod sample;
mod schema;
mod scores;
mod text;

pub use branch::BRANCHES_WEIGH;
pub use container::{file_is_zip, is_zip};
pub use held::{COPIES, LONG};
pub use log::{CARRIED_TASK, FORMAT, SUMMARY_FORMAT, WRITER};
#[cfg(test)]
pub(crate) use read::summary_episodes_reading_forks_up_to;
pub use read::{
    each_sample, file_is_json_log, from_json_log, is_json_log, load_eval, load_eval_bytes, load_json_log,
    load_sample, raw_sample, summary_episodes,
};
pub use scores::{value_of, value_to_float};
