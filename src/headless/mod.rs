//! Commands without a screen: the same core, output to files and stdout.

pub mod data;
pub mod dump;
pub mod export;
pub mod judge;
pub mod notes;
pub mod run;
pub mod tasks;
