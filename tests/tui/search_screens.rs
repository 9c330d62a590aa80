//! The TUI's search across episodes on the real benchmark runs: the results screen (snapshots at
//! 160×48 and 80×24), opening a hit at its event, stepping across episodes, and the hand-off
//! keys (`y`, `o`, `O`) asking for the selected event's text.

use std::path::{Path, PathBuf};

use converse_tui::app::action::SearchResult;
use converse_tui::app::browser::Browser;
use converse_tui::app::drive::handle;
use converse_tui::app::{Action, AppState, Effect, update};
use converse_tui::config::keymap::Layer;
use converse_tui::config::{Keymap, Theme};
use converse_tui::core::episode::EventBody;
use converse_tui::core::import::load_episode;
use converse_tui::core::search::{Matcher, search_files};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::Event as TermEvent;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::screen;
use screen::render;

fn logs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-benchmark-logs/logs")
}

fn runs_state() -> AppState {
    let corpus = converse_tui::core::corpus::index(&[logs()]);
    assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
    AppState::with_browser(Browser::from_rows("runs", corpus.rows, vec![]), Keymap::default(), false)
}

/// Carries out what the loop would (a search, loading an episode), feeding the answers back.
fn carry_out(state: &mut AppState, effects: Vec<Effect>) -> Vec<Effect> {
    let mut left = Vec::new();
    for effect in effects {
        let answer = match effect {
            Effect::SearchEpisodes { query, files, loaded } => {
                assert!(loaded.is_empty());
                let matcher = Matcher::new(&query).unwrap();
                let found = search_files(&files, &matcher, None);
                let result = SearchResult {
                    hits: found.hits,
                    files: found.files,
                    errors: found.errors.iter().map(ToString::to_string).collect(),
                };
                Action::SearchDone { query, result: Ok(result) }
            }
            Effect::OpenEpisode { path, id, over } => {
                let episode = load_episode(&path, &id).map(Box::new).map_err(|e| e.to_string());
                Action::EpisodeLoaded { episode, over }
            }
            other => {
                left.push(other);
                continue;
            }
        };
        let more = update(state, answer);
        left.extend(carry_out(state, more));
    }
    left
}

fn key(state: &mut AppState, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    let effects = handle(state, TermEvent::Key(KeyEvent::new(code, modifiers)));
    carry_out(state, effects)
}

fn typed(state: &mut AppState, keys: &str) -> Vec<Effect> {
    let mut left = Vec::new();
    for c in keys.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            '\u{1}' => KeyCode::Down,
            c => KeyCode::Char(c),
        };
        left.extend(key(state, code, KeyModifiers::NONE));
    }
    left
}

fn searched(pattern: &str, width: u16, height: u16) -> AppState {
    let mut state = runs_state();
    update(&mut state, Action::Resize(width, height));
    typed(&mut state, &format!("F{pattern}\n"));
    state
}

#[test]
fn search_results_snapshots() {
    for (w, h) in screen::SIZES {
        let mut state = searched("ifsc", w, h);
        insta::assert_snapshot!(format!("search_results_{w}x{h}"), render(&mut state, w, h));
        // Many hits across many episodes, scrolled past the first screen.
        let mut state = searched("insurance", w, h);
        typed(&mut state, &"\u{1}".repeat(30));
        insta::assert_snapshot!(format!("search_results_scrolled_{w}x{h}"), render(&mut state, w, h));
    }
}

/// The seq of the event at the cursor, and the episode's id.
fn at(state: &AppState) -> (u64, String) {
    let view = state.view().expect("an episode on screen");
    (view.events()[view.cursor].seq, view.episode.id().to_string())
}

#[test]
fn enter_opens_the_hit_and_ctrl_n_steps_across_episodes() {
    let mut state = searched("bank", 160, 48);
    let hits = state.hits().unwrap().hits.clone();
    assert!(hits.len() > 10);
    assert!(hits.windows(2).all(|w| w[0].path <= w[1].path), "path order");
    typed(&mut state, "\n");
    assert_eq!(state.screen(), Layer::Inspector);
    assert_eq!(at(&state), (hits[0].seq, hits[0].episode.clone()));
    assert!(state.message().unwrap().starts_with(&format!("hit 1 of {}", hits.len())));
    // The match is highlighted in its pane: the in-episode search was set to the matched text.
    assert_eq!(state.last_search().to_lowercase(), "bank");
    // Ctrl-n through every hit of the first episode and into the next one.
    let first_other = hits.iter().position(|h| h.episode != hits[0].episode).unwrap();
    for expected in &hits[1..=first_other] {
        key(&mut state, KeyCode::Char('n'), KeyModifiers::CONTROL);
        assert_eq!(at(&state), (expected.seq, expected.episode.clone()));
    }
    key(&mut state, KeyCode::Char('p'), KeyModifiers::CONTROL);
    let back = &hits[first_other - 1];
    assert_eq!(at(&state), (back.seq, back.episode.clone()));
    // `n` is still the next event; F goes back to the results, where the opened hit is selected.
    let (seq, _) = at(&state);
    typed(&mut state, "n");
    assert!(at(&state).0 > seq);
    typed(&mut state, "F");
    assert_eq!(state.screen(), Layer::Hits);
    assert_eq!(state.hits().unwrap().selected, first_other - 1);
    typed(&mut state, "\x1b");
    assert_eq!(state.screen(), Layer::Browser);
}

#[test]
fn copy_and_hand_off_ask_for_the_selected_events_text() {
    let mut state = searched("ifsc", 160, 48);
    typed(&mut state, "\u{1}\u{1}\n");
    let (seq, _) = at(&state);
    let view = state.view().unwrap();
    let event = &view.events()[view.episode.position_of(seq).unwrap()];
    let EventBody::ToolResult(result) = &event.body else { panic!("the third hit is a tool result") };
    let text = result.output.clone();
    assert!(text.contains("SBIN0101643"));
    assert_eq!(typed(&mut state, "y"), vec![Effect::Copy(text.clone())]);
    assert_eq!(typed(&mut state, "o"), vec![Effect::HandOff { text: text.clone(), editor: false }]);
    assert_eq!(typed(&mut state, "O"), vec![Effect::HandOff { text, editor: true }]);
}

#[test]
fn the_matches_are_marked_on_the_results_screen() {
    let mut state = searched("ifsc", 160, 48);
    update(&mut state, Action::Resize(160, 48));
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = Theme::builtin("default");
    terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
    let evidence = theme.evidence().bg.expect("the default theme colours evidence");
    let buffer = terminal.backend().buffer();
    let marked: Vec<String> = (0..48)
        .map(|y| {
            (0..160)
                .filter_map(|x| buffer.cell((x, y)))
                .filter(|c| c.bg == evidence)
                .map(|c| c.symbol())
                .collect()
        })
        .filter(|s: &String| !s.is_empty())
        .collect();
    assert_eq!(marked, ["IFSC"; 5]);
}
