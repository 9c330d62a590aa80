//! What the screen remembers between runs (`<config dir>/state.toml`): the inspector's layout.
//! Written by the program (atomically, through an effect) when the choice changes, read at startup.
//!
//! ```toml
//! layout = "transcript"   # or "panes" (the default)
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::toml_file;

/// How the inspector shows an episode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LayoutMode {
    /// Attacker, Assistant and Tools panes over the verdict pane.
    #[default]
    Panes,
    /// One chronological column.
    Transcript,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiState {
    #[serde(default)]
    pub layout: LayoutMode,
    /// The verdict source the browser's grouped view counts (`imported:gpt-5`), chosen with `J`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_source: Option<crate::core::episode::JudgeSource>,
}

impl UiState {
    /// Reads the file; a missing file is the defaults, a bad one an error naming file, line and problem.
    pub fn load(path: &Path) -> anyhow::Result<UiState> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml_file::parse(&text, path, "state file"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(UiState::default()),
            Err(e) => Err(anyhow::anyhow!("{}: cannot read: {e}", path.display())),
        }
    }

    /// The file's text.
    pub fn to_toml(&self) -> String {
        let mut text = String::from(
            "# Written by converse-tui when the layout (v in the inspector) or the verdict source (J in the browser) changes.\n",
        );
        text.push_str(&toml::to_string(self).unwrap_or_default());
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_a_missing_file_is_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.toml");
        assert_eq!(UiState::load(&path).unwrap(), UiState::default());
        let state = UiState {
            layout: LayoutMode::Transcript,
            verdict_source: Some("imported:gpt-5".parse().unwrap()),
        };
        std::fs::write(&path, state.to_toml()).unwrap();
        assert_eq!(UiState::load(&path).unwrap(), state);
        assert!(state.to_toml().contains("layout = \"transcript\""));
    }

    #[test]
    fn a_bad_file_is_one_line_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.toml");
        std::fs::write(&path, "layout = \"sideways\"\n").unwrap();
        let err = format!("{:#}", UiState::load(&path).unwrap_err());
        assert!(err.contains("state.toml:1:") && !err.contains('\n'), "{err}");
        // A verdict source is read as one (`JudgeSource`), so a word that is none says so.
        std::fs::write(&path, "verdict_source = \"gpt-5\"\n").unwrap();
        let err = format!("{:#}", UiState::load(&path).unwrap_err());
        assert!(err.contains("state.toml:1:") && err.contains("unknown verdict source 'gpt-5'"), "{err}");
    }
}
