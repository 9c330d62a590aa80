//! Screens showing an Inspect AI log (tests/fixtures/inspect/travel_agent.eval, written by
//! inspect-ai 0.3.285 itself: tests/python/inspect_travel_fixture.py): the browser listing its
//! samples from their summaries, a sample opened, two samples compared.

use std::path::{Path, PathBuf};

use converse_tui::app::{Action, AppState, Effect, update};
use converse_tui::config::Keymap;
use converse_tui::core::dataset::TaskLookup;

use crate::support::screen::press;
use crate::support::screen::snapshot_screens;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inspect/travel_agent.eval")
}

/// The log opened as `replay` opens it, its paths shown relative to the fixture folder.
fn browser() -> AppState {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let relative = fixture().strip_prefix(dir).unwrap().to_path_buf();
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(cwd, dir, "cargo runs tests in the package root");
    converse_tui::tui::setup::open_inputs(&[relative], TaskLookup::default(), Keymap::default(), None)
        .unwrap()
        .0
}

/// Carries out the loads the keys asked for, as the event loop does.
fn press_and_load(state: &mut AppState, keys: &str) {
    for effect in press(state, keys) {
        let answer = match effect {
            Effect::OpenEpisode { path, id, over } => Action::EpisodeLoaded {
                episode: converse_tui::core::import::load_episode(&path, &id)
                    .map(Box::new)
                    .map_err(|e| e.to_string()),
                over,
            },
            _ => continue,
        };
        update(state, answer);
    }
}

#[test]
fn an_inspect_log_lists_its_samples_with_task_model_and_scorer() {
    snapshot_screens!("inspect_browser", browser, "");
}

#[test]
fn an_inspect_sample_opens_with_its_tool_calls_and_score() {
    let make = || {
        let mut state = browser();
        press_and_load(&mut state, "\n");
        state
    };
    snapshot_screens!("inspect_sample_opened", make, "G");
}

#[test]
fn two_inspect_samples_compare_turn_by_turn() {
    let make = || {
        let load = |id: &str| converse_tui::core::import::load_episode(&fixture(), id).unwrap();
        AppState::comparing(load("trip1_epoch_1"), load("trip2_epoch_1"), Keymap::default())
    };
    snapshot_screens!("inspect_compare", make, "");
}

/// A log of one sample opens on it, the browser (listing it) one key away — as a folder of one
/// episode does. It opened on an empty browser (the listed sample was dropped), and a sample of a log
/// we exported could not be opened from its row when its id held a `/`.
#[test]
fn a_log_of_one_sample_opens_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one.eval");
    let mut sample = converse_tui::core::import::load_episode(&fixture(), "trip1_epoch_1").unwrap();
    // A sample whose id holds a `/` (Inspect's entry name then makes a folder of it).
    if let converse_tui::core::episode::EventBody::Episode(header) = &mut sample.events[0].body {
        header.task.extra.insert("sample_id".into(), "travel_agent/trip1".into());
    }
    let file = std::fs::File::create(&path).unwrap();
    let exported =
        converse_tui::core::export::Exported { episode: &sample, notes: Vec::new(), written: None };
    converse_tui::core::export::to_eval(&[exported], "2026-11-25T00:00:00Z", file).unwrap();
    let (state, _) =
        converse_tui::tui::setup::open_inputs(&[path], TaskLookup::default(), Keymap::default(), None)
            .unwrap();
    assert_eq!(state.screen(), converse_tui::config::keymap::Layer::Inspector);
    // Exported, its id keeps its `/`.
    assert_eq!(state.view().unwrap().episode.id(), "travel_agent/trip1_epoch_1");
    assert_eq!(state.browser().unwrap().entries.len(), 1, "the browser lists the sample");
}
