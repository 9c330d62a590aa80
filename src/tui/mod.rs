//! The terminal: setup and restore, and the async UI loop.

pub mod chart_print;
mod effects;
pub mod event_loop;
pub mod fan;
pub mod handoff;
mod live;
pub mod setup;
pub mod terminal;

pub use event_loop::run;
