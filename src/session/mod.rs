//! Starting episodes: the tasks, settings and launcher that the screen
//! (`run`, `play`, the task picker, forks) and the headless commands (`run
//! --headless`, `batch`) share; loading an episode for the screen in steps
//! (`loader`). Above `config` and `core`, below `app`, `tui` and `headless`;
//! no terminal code.

pub mod attack;
pub mod episode_tasks;
pub mod fan;
pub mod follow;
pub mod fork_agent;
pub mod journal_load;
pub mod launch;
pub mod loader;
pub mod settings;
pub mod tasks;

pub use launch::{Launch, RunArgs, fork_args};
pub use settings::{RpmFlags, SettingFlags};
pub use tasks::TaskSelection;
