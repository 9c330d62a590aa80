//! Opening an indexed browser row: `update` asks for the load with an effect
//! and shows the episode when the loop feeds it back (here a fake loader).

use crate::support::journals;
use crate::support::screen::key;

use converse_tui::app::browser::Browser;
use converse_tui::app::drive::handle;
use converse_tui::app::{Action, AppState, Effect, update};
use converse_tui::config::Keymap;
use converse_tui::config::keymap::Layer;
use converse_tui::core::corpus::CorpusRow;
use converse_tui::core::episode::Episode;
use ratatui::crossterm::event::KeyCode;

fn episode(i: usize) -> Episode {
    Episode::new(journals::journal_events(i), format!("runs/ep-{i:05}.jsonl"))
}

/// Three indexed rows; nothing loaded.
fn state() -> AppState {
    let rows = (0..3)
        .map(|i| {
            let e = episode(i);
            CorpusRow::of(&e, e.origin.clone().into(), &[])
        })
        .collect();
    let mut s = AppState::with_browser(Browser::from_rows("runs", rows, vec![]), Keymap::default(), false);
    update(&mut s, Action::Resize(100, 30));
    s
}

/// What the event loop does with the effect, without a file.
fn fake_load(effect: &Effect) -> Action {
    match effect {
        Effect::OpenEpisode { path, id, over: false } if id == "ep-00001" => {
            assert_eq!(path.to_str(), Some("runs/ep-00001.jsonl"));
            Action::EpisodeLoaded { episode: Ok(Box::new(episode(1))), over: false }
        }
        Effect::OpenEpisode { id, .. } => {
            Action::EpisodeLoaded { episode: Err(format!("no episode '{id}'")), over: false }
        }
        other => panic!("unexpected effect {other:?}"),
    }
}

#[test]
fn opening_an_indexed_row_loads_it_through_an_effect() {
    let mut s = state();
    handle(&mut s, key(KeyCode::Down));
    let effects = handle(&mut s, key(KeyCode::Enter));
    assert_eq!(effects.len(), 1);
    // Nothing is shown until the loop answers.
    assert_eq!(s.screen(), Layer::Browser);
    assert!(s.view().is_none());
    let loaded = fake_load(&effects[0]);
    // Shown, it asks for its notes (I/O, so through an effect too).
    let notes = converse_tui::core::annotate::notes_path(std::path::Path::new("runs/ep-00001.jsonl"));
    assert_eq!(update(&mut s, loaded), vec![Effect::LoadNotes(notes)]);
    assert_eq!(s.screen(), Layer::Inspector);
    assert_eq!(s.view().unwrap().episode.id(), "ep-00001");
    assert_eq!(s.message(), None);
}

#[test]
fn a_failed_load_stays_on_the_browser_and_says_why() {
    let mut s = state();
    let effects = handle(&mut s, key(KeyCode::Enter));
    let failed = fake_load(&effects[0]);
    update(&mut s, failed);
    assert_eq!(s.screen(), Layer::Browser);
    assert!(s.view().is_none());
    assert!(s.message().unwrap().contains("no episode 'ep-00000'"));
}

#[test]
fn indexed_rows_filter_by_domain_attack_and_verdict() {
    let mut s = state();
    let b = s.browser_mut().unwrap();
    b.set_filter("insurance".into());
    assert_eq!(b.shown, [1]);
    b.set_filter("privacy fail".into());
    assert_eq!(b.shown, [0]);
    b.set_filter("privacy:pass security".into());
    assert_eq!(b.shown, [1]);
    b.set_filter("ep-00002.jsonl".into());
    assert_eq!(b.shown, [2]);
}
