//! Key bindings, in layers: what a key does depends on where the keys go — the inspector, the
//! browser, the task picker, an overlay (help, detail, annotations), the composer, a form or
//! prompt, or a dialog. Every entry is a command with a name and a description (help lists them).
//!
//! The embedded defaults can be partly overridden by `<config dir>/keymap.toml`:
//!
//! ```toml
//! [bindings]                          # a command's keys in every layer it belongs to
//! next_event = ["n", "Right", "l"]
//! [confirm]                           # or in one layer only
//! confirm = ["y", "o"]
//! ```
//!
//! A key the user binds is taken away from whatever default command had it in that layer. In the
//! layers where one types (composer, form), printable characters stay text and are never bound.

mod bindings;
mod command;
mod key;
mod reference;

pub use bindings::Keymap;
pub use command::{Command, Footer, Group, Layer, Spec};
pub use key::Key;
pub use reference::markdown_reference;
