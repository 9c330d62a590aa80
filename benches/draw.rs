//! Frame draw time: the largest ConVerse fixture episode at 200×60, cursor at the end.

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use converse_tui::app::{Action, AppState, update};
use converse_tui::config::{Keymap, Theme};

fn largest_fixture() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-logs");
    let mut largest = (0, root.clone());
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("output_"))
                && len > largest.0
            {
                largest = (len, path);
            }
        }
    }
    largest.1
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

criterion_group!(benches, draw);
criterion_main!(benches);
