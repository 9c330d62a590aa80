//! Copying fixture trees into a test's own directory (tests write sidecars beside them), the
//! program's folders under a test's own home, and finding what a command wrote there.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The program's folders under `home` (config, dataset, episodes, log, cache), for a launcher
/// built in the test.
pub fn home_paths(home: &Path) -> converse_tui::config::Paths {
    converse_tui::config::Paths {
        config_dir: home.join("config"),
        dataset_dir: home.join("dataset"),
        episodes_dir: home.join("episodes"),
        log_dir: home.join("log"),
        cache_dir: home.join("cache"),
    }
}

/// The first journal (`*.jsonl`) in `dir`.
pub fn journal_in(dir: &Path) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap()
}
