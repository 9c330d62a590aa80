//! The corpus: one row per episode over many files (`ls`, `summary --by`,
//! `agreement`, and the browser at corpus scale), its filter and its tables.

pub mod agreement;
pub mod cache;
pub mod contrast;
pub mod filter;
pub mod index;
pub mod leak_turn;
pub mod like_for_like;
pub mod row;
pub mod series;
pub mod stats;
pub mod survival;
pub mod table;
pub mod two_sample;

pub use filter::Filter;
pub use index::{Corpus, index, index_cached, index_file};
pub use row::{CorpusRow, Excluded, SourceVerdict, common_dir};
