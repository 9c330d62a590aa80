//! Attempt fans: the rest of an episode re-run N times from one turn, and how often (and how soon)
//! each judge source saw an attack succeed in the attempts; the forks of an episode as a tree.

pub mod forks;
pub mod plan;
pub mod start;
pub mod stopped;
pub mod tally;

pub use start::{FanMode, fan_attacker, fan_start};
pub use tally::{Attempt, SourceTally, tally};
