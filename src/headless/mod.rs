//! Commands without a screen: the same core, output to files and stdout.

pub mod dump;
