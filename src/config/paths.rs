//! Where things live on disk: config (themes, keymap), dataset cache, episodes, log.
//!
//! `directories` gives the platform defaults; `CONVERSE_TUI_CONFIG` replaces
//! the config directory, `CONVERSE_TUI_DATA` the dataset cache and
//! `CONVERSE_TUI_CACHE` the other caches (the corpus index), so tests
//! and CI never touch the real home directory.

use std::path::PathBuf;

use directories::ProjectDirs;

pub const CONFIG_ENV: &str = "CONVERSE_TUI_CONFIG";
pub const DATA_ENV: &str = "CONVERSE_TUI_DATA";
pub const CACHE_ENV: &str = "CONVERSE_TUI_CACHE";

#[derive(Debug, Clone)]
pub struct Paths {
    /// `config.toml`, `keymap.toml`, `themes/`.
    pub config_dir: PathBuf,
    /// Downloaded CONVERSE dataset, in the cache layout.
    pub dataset_dir: PathBuf,
    /// Live episodes go here unless `--out` says otherwise.
    pub episodes_dir: PathBuf,
    /// The log file (never the terminal while the TUI is up).
    pub log_dir: PathBuf,
    /// Caches that can be rebuilt at any time (the corpus index).
    pub cache_dir: PathBuf,
}

impl Paths {
    /// Resolves the paths from the environment and the platform defaults.
    pub fn from_env() -> Self {
        let dirs = ProjectDirs::from("", "", "converse-tui");
        let fallback = || std::env::temp_dir().join("converse-tui");
        let env_dir = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);

        let config_dir = env_dir(CONFIG_ENV)
            .or_else(|| dirs.as_ref().map(|d| d.config_dir().to_path_buf()))
            .unwrap_or_else(|| fallback().join("config"));
        let dataset_dir = env_dir(DATA_ENV)
            .or_else(|| dirs.as_ref().map(|d| d.cache_dir().join("dataset")))
            .unwrap_or_else(|| fallback().join("dataset"));
        let cache_dir = env_dir(CACHE_ENV)
            .or_else(|| dirs.as_ref().map(|d| d.cache_dir().to_path_buf()))
            .unwrap_or_else(|| fallback().join("cache"));
        let data_dir =
            dirs.as_ref().map(|d| d.data_dir().to_path_buf()).unwrap_or_else(|| fallback().join("data"));
        let log_dir = dirs
            .as_ref()
            .and_then(|d| d.state_dir().map(|p| p.to_path_buf()))
            .unwrap_or_else(|| data_dir.join("log"));
        Paths { config_dir, dataset_dir, episodes_dir: data_dir.join("episodes"), log_dir, cache_dir }
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    pub fn keymap_file(&self) -> PathBuf {
        self.config_dir.join("keymap.toml")
    }

    /// What the screen remembers between runs (the inspector's layout).
    pub fn ui_state_file(&self) -> PathBuf {
        self.config_dir.join("state.toml")
    }

    pub fn themes_dir(&self) -> PathBuf {
        self.config_dir.join("themes")
    }

    /// Techniques that extend the GOAT catalogue of every attack search.
    pub fn techniques_file(&self) -> PathBuf {
        self.config_dir.join("techniques.toml")
    }
}
