//! Commands without a screen: the same core, output to files and stdout.

pub mod agent_config;
pub mod agreement;
pub mod attack;
pub mod batch;
pub mod charts;
pub mod csv;
pub mod data;
pub mod dump;
pub mod emit;
pub mod export;
pub mod fan;
pub mod judge;
pub mod junit;
pub mod ls;
pub mod notes;
pub mod run;
pub mod runs;
pub mod search;
pub mod shard;
pub mod suite;
pub mod suite_test;
pub mod summary;
pub mod tasks;
pub mod text_table;
pub mod writers;
