//! The terminal: setup and restore, the inbox every source feeds, the executor of effects, and
//! the async UI loop.

pub mod attack;
pub mod chart_print;
pub mod event_loop;
pub mod executor;
pub mod fan;
pub mod handoff;
mod inbox;
mod jobs;
pub mod live;
pub mod setup;
pub mod terminal;

pub use event_loop::run;
