//! Commands without a screen: the same core, output to files or stdout.

pub mod data;
pub mod tasks;
