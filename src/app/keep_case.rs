//! `K`: keep the episode on screen (or the browser's marked episodes, else the selected one) as
//! attack cases in a suite directory, asked for in a prompt that remembers the last one.

use super::action::Effect;
use super::browser::EntrySource;
use super::screen::{Overlay, Prompt, PromptKind, Screen};
use super::state::AppState;

/// The suite the prompt offers first.
pub const DEFAULT_SUITE: &str = "attacks";

impl AppState {
    /// Opens the prompt for the suite directory.
    pub fn ask_suite(&mut self) {
        let input =
            if self.last_suite.is_empty() { DEFAULT_SUITE.to_string() } else { self.last_suite.clone() };
        self.overlays.push(Overlay::Prompt(Prompt { kind: PromptKind::KeepCase, input }));
    }

    /// Queues the cases of what is on screen for `suite`.
    pub fn keep_cases(&mut self, suite: &str) {
        if suite.is_empty() {
            self.message = Some("no suite directory given: nothing kept".into());
            return;
        }
        let sources: Vec<EntrySource> = match (self.screen, &self.browser) {
            (Screen::Browser, Some(browser)) => {
                let rows = if browser.marked.is_empty() {
                    browser.selected_episode().into_iter().collect()
                } else {
                    browser.marked.clone()
                };
                rows.into_iter().filter_map(|i| browser.sources.get(i).cloned()).collect()
            }
            _ => self
                .view()
                .map(|view| EntrySource::Loaded(Box::new(view.episode.clone())))
                .into_iter()
                .collect(),
        };
        if sources.is_empty() {
            self.message = Some("no episode selected: nothing kept".into());
            return;
        }
        self.last_suite = suite.to_string();
        self.message = Some(format!("keeping {} episode(s) in {suite}…", sources.len()));
        self.effects.push(Effect::KeepCases { suite: suite.into(), sources });
    }
}
