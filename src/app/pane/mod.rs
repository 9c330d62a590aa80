//! A scrollable pane of items (messages, tool calls): each item is a header
//! line, its wrapped body and a blank separator.
//!
//! Bodies are wrapped lazily ([`LazyWrap`](super::wrap::LazyWrap)): only the
//! items (and the part of an item) that the pane shows are wrapped, once per
//! width. Heights of items not wrapped yet are estimated from their length and
//! refined when they are seen; the scroll position is an item and a line within
//! it, so refining the items above never moves what is on screen. Every `&mut`
//! method leaves the shown lines wrapped, so drawing only reads.

mod item;
mod list;

pub use item::{PaneItem, event_text};
pub use list::{Pane, PaneMut};
