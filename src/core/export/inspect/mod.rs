//! Our episodes as an Inspect AI `.eval` log (issues 29, 38), read by every Inspect reader and
//! `inspect view`: one sample per episode (a fork of an exported episode is a branch of its
//! parent's sample), its conversation as Inspect's messages and as model events of the
//! assistant and the attacker (the viewer's transcript), its tool calls as tool events, its
//! verdicts as scores, the header's results a metric per scorer.
//!
//! Samples: an episode read from an Inspect log keeps its sample's id and epoch, and when the log
//! can be read again its sample is carried over as Inspect wrote it (events, store, attachments
//! and all), our verdicts and notes added; any other episode's sample id is its task id (an
//! episode without one is a sample of its own) and its repetitions are epochs. Entries are named as
//! Inspect names them (`samples/{id}_epoch_{n}.json`, whatever the id holds) and deflate-compressed,
//! read by every Inspect.

mod archive;
mod exported;
mod family;
mod results;
mod sample;
mod scores;
mod transcript;

pub use archive::to_eval;
pub use exported::Exported;
