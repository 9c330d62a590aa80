//! Frame draw time: the largest ConVerse fixture episode at 200×60, cursor at the end, in the
//! three panes, in the transcript layout, and compared side by side with the second largest.

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use converse_tui::app::{Action, AppState, update};
use converse_tui::config::{Keymap, Theme};

fn largest_fixture() -> std::path::PathBuf {
    fixtures_by_size(&["converse-logs"]).remove(0)
}

/// The ConVerse run files under these fixture folders, largest first.
fn fixtures_by_size(folders: &[&str]) -> Vec<std::path::PathBuf> {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found = Vec::new();
    let mut stack: Vec<_> = folders.iter().map(|f| fixtures.join(f)).collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("output_")) {
                found.push((len, path));
            }
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.into_iter().map(|(_, path)| path).collect()
}

fn draw(c: &mut Criterion) {
    let path = largest_fixture();
    let episode = converse_tui::core::import::load_path(&path).unwrap().remove(0);
    let mut state = AppState::with_episode(episode, Keymap::default());
    update(&mut state, Action::Resize(200, 60));
    let last = state.view().unwrap().last();
    state.view_mut().unwrap().set_cursor(last);
    let theme = Theme::builtin("default");
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    c.bench_function("draw_largest_fixture_200x60", |b| {
        b.iter(|| {
            terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
        })
    });
    c.bench_function("open_and_wrap_largest_fixture", |b| {
        let episode = converse_tui::core::import::load_path(&path).unwrap().remove(0);
        b.iter(|| {
            let mut state = AppState::with_episode(episode.clone(), Keymap::default());
            update(&mut state, Action::Resize(200, 60));
        })
    });
}

fn load(path: &std::path::Path) -> converse_tui::core::episode::Episode {
    converse_tui::core::import::load_path(path).unwrap().remove(0)
}

/// The transcript layout and the compare screen (issue 13: under 2 ms a frame).
fn draw_transcript_and_compare(c: &mut Criterion) {
    use converse_tui::config::ui_state::LayoutMode;
    // The largest of every fixture episode (a 230 KB benchmark run), and the second largest.
    let paths = fixtures_by_size(&["converse-logs", "converse-benchmark-logs", "compare-pair"]);
    let theme = Theme::builtin("default");
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();

    let mut state =
        AppState::with_episode(load(&paths[0]), Keymap::default()).with_layout(LayoutMode::Transcript);
    update(&mut state, Action::Resize(200, 60));
    let last = state.view().unwrap().last();
    state.view_mut().unwrap().set_cursor(last);
    update(&mut state, Action::Resize(200, 60));
    c.bench_function("draw_transcript_largest_fixture_200x60", |b| {
        b.iter(|| {
            terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
        })
    });
    // A step back and forth: the transcript settles (wraps what comes into view), then draws.
    let back = converse_tui::app::Action::Command(converse_tui::config::keymap::Command::PrevEvent);
    let next = converse_tui::app::Action::Command(converse_tui::config::keymap::Command::NextEvent);
    c.bench_function("step_and_draw_transcript_largest_fixture_200x60", |b| {
        let mut forward = false;
        b.iter(|| {
            update(&mut state, if forward { next.clone() } else { back.clone() });
            forward = !forward;
            terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
        })
    });

    let mut state = AppState::comparing(load(&paths[0]), load(&paths[1]), Keymap::default());
    update(&mut state, Action::Resize(200, 60));
    c.bench_function("draw_compare_two_largest_fixtures_200x60", |b| {
        b.iter(|| {
            terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
        })
    });
    c.bench_function("step_and_draw_compare_two_largest_fixtures_200x60", |b| {
        let mut forward = true;
        b.iter(|| {
            update(&mut state, if forward { next.clone() } else { back.clone() });
            forward = !forward;
            terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
        })
    });
}

criterion_group!(benches, draw, draw_transcript_and_compare);
criterion_main!(benches);
