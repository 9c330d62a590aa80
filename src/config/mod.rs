//! Configuration: paths, the config file, the keymap and themes.

pub mod paths;

pub use paths::Paths;
