//! Application state and `update()`: keys and runner events become state
//! changes; nothing here draws or does I/O.

pub mod action;
pub mod attack;
pub mod autoplay;
pub mod browser;
pub mod chrome;
pub mod compare;
pub mod composer;
pub mod detail;
pub mod drive;
pub mod episode_info;
pub mod fan;
pub mod fork_tree;
pub mod hits;
pub mod input;
pub mod inspector;
pub mod inspector_screen;
pub mod keep_case;
pub mod layout;
pub mod lazy_rows;
pub mod live;
pub mod loading;
pub mod notes;
pub mod overlay;
pub mod pane;
pub mod screen;
pub mod scroll;
pub mod stack;
pub mod state;
pub mod task_picker;
pub mod transcript;
pub mod update;
pub mod view;
pub mod wrap;

pub use action::{Action, Effect};
pub use state::AppState;
pub use update::update;
