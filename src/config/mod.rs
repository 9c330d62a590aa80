//! Configuration: paths, the config file, the keymap and themes.

pub mod keymap;
pub mod paths;
pub mod settings;
pub mod techniques;
pub mod theme;
pub mod toml_file;
pub mod ui_state;

pub use keymap::Keymap;
pub use paths::Paths;
pub use theme::Theme;
