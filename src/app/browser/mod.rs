//! The episode browser: every episode of a corpus, one row each with its model,
//! defence, domain, persona, category, attack and one verdict column per judge.
//!
//! - **Filter** (`/`): the syntax of [`crate::core::corpus::filter`]: fields
//!   (`model=gemini* privacy=fail turns>5`) and free words, every term must hold.
//! - **Sort** (`s` next column, `S` reverse): by any column; unsorted, rows keep
//!   the index order with forks under their parents.
//! - **Grouped view** (`z`): model → defence → domain, with counts and the
//!   rate of `fail` per judge per group; Enter folds and unfolds a group.
//! - **Agreement review** (`A`): the questions two verdict sources answered
//!   differently; Enter opens the episode at the disputed turn, `a` opens it
//!   with the annotate form there (the label becomes a `human` verdict).
//!
//! Rows are built from corpus rows; an episode indexed from a file is loaded
//! only when opened (through an effect, as `update` does no I/O).

mod agreement;
mod entry;
mod forks;
mod group;
mod grouped;
mod list;
mod order;
mod review;
mod selection;

pub use entry::{BrowserEntry, Column, EntrySource, outcome_symbol};
pub use group::{ChartView, GROUP_BY, Group, GroupRate};
pub use list::{Browser, LIST_CHROME, ListLine};
pub use review::{AfterOpen, Review};
