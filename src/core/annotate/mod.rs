//! Annotation sidecars: a reviewer's labels and notes on events, kept in
//! `<episode>.notes.jsonl` beside the episode file, never in the journal.

pub mod file;
pub mod label;
pub mod quote;
pub mod record;
pub mod verdict;

pub use file::{Draft, NotesError, NotesFile, default_author, notes_path};
pub use label::{Label, LabelError};
pub use quote::{annotation_views, quote_of, quoted_text};
pub use record::{Annotation, Fold, Op, Record, Span};
pub use verdict::{carried_judgement, human_verdict};
