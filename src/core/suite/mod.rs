//! Attack suites: findings kept as test cases (`suite add`, `suite ls`, `test`).

pub mod case;
pub mod expectation;
pub mod from_episode;
pub mod outcome;
pub mod run_length;
pub mod store;

pub use case::{Case, CaseFile, Continuation, Origin, read_suite};
pub use expectation::{Check, Expectation, check};
