//! `K`: keep the episode on screen (or the browser's marked episodes, else the selected one) as
//! attack cases in a suite directory, asked for in a prompt that remembers the last one.

use super::action::Effect;
use super::browser::EntrySource;
use super::chrome::Chrome;
use super::overlay::PromptKind;
use super::screen::Screen;

/// The suite the prompt offers first.
pub const DEFAULT_SUITE: &str = "attacks";

impl Chrome {
    /// Opens the prompt for the suite directory.
    pub fn ask_suite(&mut self) {
        let last = &self.recall.last_suite;
        let input = if last.is_empty() { DEFAULT_SUITE.to_string() } else { last.clone() };
        self.offer(PromptKind::KeepCase, input);
    }
}

/// Queues the cases of what is on screen (`top`) for `suite`.
pub fn keep_cases(top: &Screen, chrome: &mut Chrome, suite: &str) {
    if suite.is_empty() {
        return chrome.say("no suite directory given: nothing kept");
    }
    let sources: Vec<EntrySource> = match top {
        Screen::Browser(browser) => {
            let rows = if browser.marked.is_empty() {
                browser.selected_episode().into_iter().collect()
            } else {
                browser.marked.clone()
            };
            rows.into_iter().filter_map(|i| browser.sources.get(i).cloned()).collect()
        }
        Screen::Inspector(screen) => screen
            .view()
            .map(|view| EntrySource::Loaded(Box::new(view.episode.clone())))
            .into_iter()
            .collect(),
        // The selected node of an attack search, once its journal is whole.
        Screen::Attack(view) => view
            .selected_node()
            .and_then(|n| n.record.as_ref().filter(|_| n.ended()))
            .map(|r| EntrySource::File { path: r.journal.clone(), id: r.episode.clone() })
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    if sources.is_empty() {
        return chrome.say("no episode selected: nothing kept");
    }
    chrome.recall.last_suite = suite.to_string();
    chrome.say(format!("keeping {} episode(s) in {suite}…", sources.len()));
    let tasks = chrome.dataset.lookup.clone();
    chrome.effect(Effect::KeepCases { suite: suite.into(), sources, tasks });
}
