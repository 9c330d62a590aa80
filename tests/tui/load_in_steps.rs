//! Issue 14: a journal opens in steps. Its first batch is on screen before the rest is read;
//! the rest arrives in batches (folded as the loop folds them, driven here directly); once all
//! have arrived the state is that of opening the whole file; a bad line later on keeps the
//! events before it and says so.

use std::path::{Path, PathBuf};

use converse_tui::app::{Action, AppState, Effect, update};
use converse_tui::config::Keymap;
use converse_tui::core::demo::demo_episodes;
use converse_tui::core::episode::sidecar::{SidecarVerdict, sidecar_path, write_sidecar};
use converse_tui::core::episode::{Episode, Judge, write_journal};
use converse_tui::core::import::load_path;
use converse_tui::session::journal_load::JournalLoad;

use crate::support::screen;
use screen::{press, render};

/// Small batches, so that a demo episode takes several.
const BATCH: usize = 2300;

/// A directory for the journals, by a relative path of a fixed length: the status line shows
/// the path, and the snapshots must not depend on where the checkout is.
fn scratch() -> tempfile::TempDir {
    let parent = Path::new("target/load-in-steps");
    std::fs::create_dir_all(parent).unwrap();
    tempfile::tempdir_in(parent).unwrap()
}

/// The longest demo episode as a journal, with a sidecar verdict after its third event.
fn journal(dir: &Path) -> PathBuf {
    let episode = demo_episodes().into_iter().max_by_key(|e| e.events.len()).unwrap();
    let dir = dir.strip_prefix(std::env::current_dir().unwrap()).unwrap_or(dir);
    let path = dir.join("episode.jsonl");
    write_journal(&path, &episode.events).unwrap();
    let verdict = serde_json::json!({"episode": episode.id(), "after_seq": 3, "at": "2026-11-22T00:00:00Z",
        "judge": "sidecar-judge", "method": "rule", "outcome": "fail", "summary": "placed from the sidecar"});
    let verdict: SidecarVerdict = serde_json::from_value(verdict).unwrap();
    write_sidecar(&sidecar_path(&path), &[verdict]).unwrap();
    path
}

/// The journal's first batch on the inspector, and the rest still to read.
fn opening(path: &Path) -> (AppState, JournalLoad) {
    let (episode, rest) = JournalLoad::open(path, BATCH).unwrap();
    let rest = rest.expect("more than one batch");
    let mut state = AppState::with_episode(episode, Keymap::default());
    let (read, total) = rest.progress();
    state.loading_rest(rest.id(), read, total);
    (state, rest)
}

/// Every batch folded in, then the end.
fn load_rest(state: &mut AppState, mut rest: JournalLoad) -> usize {
    let load = rest.id();
    let mut batches = 0;
    while let Some(events) = rest.next_batch() {
        let (read, _) = rest.progress();
        update(state, Action::Loaded { load, events, read });
        batches += 1;
    }
    update(state, Action::LoadEnded { load, end: rest.finish() });
    batches
}

/// The screen with the random part of the scratch directory's name (of a fixed length) fixed.
fn same_name(screen: &str, path: &Path) -> String {
    let random = path.parent().unwrap().file_name().unwrap().to_str().unwrap();
    screen.replace(random, &"X".repeat(random.len()))
}

fn whole(path: &Path) -> AppState {
    AppState::with_episode(load_path(path).unwrap().remove(0), Keymap::default())
}

#[test]
fn the_first_frame_shows_before_the_rest_is_read() {
    let dir = scratch();
    let path = journal(dir.path());
    let (mut state, _rest) = opening(&path);
    let all = whole(&path).view().unwrap().events().len();
    assert!(state.view().unwrap().events().len() < all / 2, "only the start is loaded");
    let screen = render(&mut state, 160, 48);
    assert!(screen.contains("⏸ REPLAY │ loading 2.3 / 22.4 KiB │ turn 1/"), "{screen}");
    insta::assert_snapshot!("first_frame_while_loading_160x48", same_name(&screen, &path));
    // Keys work meanwhile: the end of what is loaded, and quitting at once.
    press(&mut state, "G");
    let view = state.view().unwrap();
    assert_eq!(view.cursor, view.last());
    assert_eq!(press(&mut state, "q"), vec![Effect::Quit]);
}

#[test]
fn once_every_batch_arrived_the_state_is_that_of_the_whole_file() {
    let dir = scratch();
    let path = journal(dir.path());
    let (mut stepped, rest) = opening(&path);
    render(&mut stepped, 160, 48);
    assert!(load_rest(&mut stepped, rest) >= 3, "several batches");
    let mut whole = whole(&path);
    assert!(stepped.inspector().unwrap().loading.is_none());
    assert_eq!(stepped.view().unwrap().episode, whole.view().unwrap().episode, "same events, seqs, warnings");
    for keys in ["", "G", "]]", "/hotel\n", "G\t\t"] {
        press(&mut stepped, keys);
        press(&mut whole, keys);
        for (w, h) in [(160, 48), (80, 24)] {
            assert_eq!(render(&mut stepped, w, h), render(&mut whole, w, h), "after {keys:?} at {w}x{h}");
        }
        let (a, b) = (stepped.view().unwrap(), whole.view().unwrap());
        assert_eq!(a.verdict_rows, b.verdict_rows, "after {keys:?}");
        assert_eq!((a.cursor, a.end_mark, a.has_end_verdicts), (b.cursor, b.end_mark, b.has_end_verdicts));
    }
    let rows = &stepped.view().unwrap().verdict_rows;
    assert!(
        rows.iter().any(|r| r.judge == Judge::from("sidecar-judge")),
        "the sidecar verdict is placed: {rows:?}"
    );
}

/// A batch is folded into the episode its load reads for, by the load's id: the batches and
/// the end of another load of the same file (one the user left) change nothing, and that load is
/// stopped (issue 39: its thread would read the whole file for nobody).
#[test]
fn batches_of_another_load_of_the_same_file_are_dropped() {
    let dir = scratch();
    let path = journal(dir.path());
    let (mut state, mut rest) = opening(&path);
    let (_, other) = JournalLoad::open(&path, BATCH).unwrap();
    let mut other = other.unwrap();
    assert_ne!(other.id(), rest.id());
    let shown = state.view().unwrap().events().len();
    let events = other.next_batch().unwrap();
    let effects = update(&mut state, Action::Loaded { load: other.id(), events, read: other.progress().0 });
    assert!(effects.contains(&Effect::StopLoad(other.id())), "{effects:?}");
    update(&mut state, Action::LoadEnded { load: other.id(), end: other.finish() });
    assert_eq!(state.view().unwrap().events().len(), shown, "nothing of the other load");
    assert!(state.inspector().unwrap().loading.is_some(), "still loading");
    let events = rest.next_batch().unwrap();
    let more = events.len();
    update(&mut state, Action::Loaded { load: rest.id(), events, read: rest.progress().0 });
    assert_eq!(state.view().unwrap().events().len(), shown + more, "its own batch is folded in");
    load_rest(&mut state, rest);
    assert_eq!(state.view().unwrap().episode, whole(&path).view().unwrap().episode);
}

/// Opened from the browser: the same, through `EpisodeOpening`.
#[test]
fn a_journal_opened_from_the_browser_in_steps_is_the_whole_file() {
    let dir = scratch();
    let path = journal(dir.path());
    let (first, rest) = JournalLoad::open(&path, BATCH).unwrap();
    let mut rest = rest.unwrap();
    let browser = || {
        let source =
            converse_tui::app::browser::EntrySource::File { path: path.clone(), id: first.id().into() };
        let entry = converse_tui::app::browser::BrowserEntry::of(&first);
        converse_tui::app::browser::Browser::from_items("runs", vec![(entry, source)], Vec::new())
    };
    let mut stepped = AppState::with_browser(browser(), Keymap::default(), false);
    let mut whole = AppState::with_browser(browser(), Keymap::default(), false);
    let (read, total) = rest.progress();
    let load = rest.id();
    update(
        &mut stepped,
        Action::EpisodeOpening { load, episode: Box::new(first.clone()), read, total, over: false },
    );
    let screen = render(&mut stepped, 160, 48);
    assert!(screen.contains("loading "), "{screen}");
    while let Some(events) = rest.next_batch() {
        update(&mut stepped, Action::Loaded { load, events, read: rest.progress().0 });
    }
    update(&mut stepped, Action::LoadEnded { load, end: rest.finish() });
    let episode = Ok(Box::new(load_path(&path).unwrap().remove(0)));
    update(&mut whole, Action::EpisodeLoaded { episode, over: false });
    press(&mut stepped, "G");
    press(&mut whole, "G");
    assert_eq!(render(&mut stepped, 160, 48), render(&mut whole, 160, 48));
}

#[test]
fn a_bad_line_after_the_first_batch_keeps_the_events_before_it_and_says_so() {
    let dir = scratch();
    let path = journal(dir.path());
    let episode: Episode = load_path(&path).unwrap().remove(0);
    let bad = episode.events.len() - 3;
    let text =
        std::fs::read_to_string(&path).unwrap().replace(&format!("{{\"seq\":{bad},"), "{\"seq\":\"x\",");
    std::fs::write(&path, text).unwrap();
    let problem = load_path(&path).unwrap_err().to_string();
    assert!(problem.contains(&format!("episode.jsonl:{}: ", bad + 1)), "{problem}");

    let (mut state, rest) = opening(&path);
    load_rest(&mut state, rest);
    let view = state.view().unwrap();
    assert_eq!(view.events().len(), bad + 1, "every event before the bad line (and the sidecar verdict)");
    assert!(view.episode.warnings.iter().any(|w| w.starts_with(&problem)), "{:?}", view.episode.warnings);
    let screen = render(&mut state, 160, 48);
    assert!(screen.contains("loading stopped there"), "{screen}");
    insta::assert_snapshot!("bad_line_after_the_first_batch_160x48", same_name(&screen, &path));
    // The warning goes with the next key, the mark of a partial episode stays.
    press(&mut state, "G");
    let screen = render(&mut state, 160, 48);
    assert!(screen.contains("⚠ partial: a bad line stopped loading"), "{screen}");
}

/// A sidecar verdict's `seq` is provisional until the journal is read: it cannot be annotated
/// meanwhile (the note would name a number the verdict will not keep), and can be once loaded.
#[test]
fn a_sidecar_verdict_is_annotated_only_once_its_number_is_known() {
    use converse_tui::app::overlay::Overlay;
    use converse_tui::core::episode::EventBody;
    let dir = scratch();
    let path = journal(dir.path());
    let (mut state, rest) = opening(&path);
    let at =
        |state: &AppState| {
            state.view().unwrap().events().iter().position(
                |e| matches!(&e.body, EventBody::Verdict(v) if v.judge == Judge::from("sidecar-judge")),
            )
        };
    use converse_tui::core::annotate::notes_path;
    update(&mut state, Action::Resize(160, 48));
    update(&mut state, Action::NotesLoaded { path: notes_path(&path), result: Ok(Vec::new()) });
    let verdict = at(&state).expect("placed in the first batch");
    state.inspector_mut().unwrap().view.set_cursor(verdict);
    press(&mut state, "a");
    assert!(
        !state.overlays().iter().any(|o| matches!(o, Overlay::Annotate(_))),
        "no form on a provisional number"
    );
    assert!(
        state.message().unwrap_or("").contains("numbered once the journal has loaded"),
        "{:?}",
        state.message()
    );
    load_rest(&mut state, rest);
    let verdict = at(&state).unwrap();
    state.inspector_mut().unwrap().view.set_cursor(verdict);
    press(&mut state, "a");
    assert!(state.overlays().iter().any(|o| matches!(o, Overlay::Annotate(_))), "{:?}", state.message());
}
