//! The terminal: setup and restore, and the async UI loop.

pub mod chart_print;
pub mod event_loop;
pub mod fan;
pub mod handoff;
pub mod setup;
pub mod terminal;

pub use event_loop::run;
