//! CPU time per frame (user + system, from `getrusage`), not wall time: on a shared machine whose
//! other builds keep the load far above its cores, wall-clock benches measure the queue as much as
//! the code. Same screens as `draw.rs`: the largest fixture episode at 200×60, cursor at the end,
//! in the three panes and in the transcript, and the two largest compared side by side.
//!
//! `cargo bench --bench frame_cpu` prints one line per screen.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use converse_tui::app::{Action, AppState, update};
use converse_tui::config::ui_state::LayoutMode;
use converse_tui::config::{Keymap, Theme};

const FRAMES: u32 = 2_000;

fn cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is always valid.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn fixtures_by_size() -> Vec<std::path::PathBuf> {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found = Vec::new();
    for dir in ["converse-logs", "converse-benchmark-logs", "compare-pair"] {
        for entry in walkdir::WalkDir::new(fixtures.join(dir)).into_iter().flatten() {
            if entry.file_name().to_string_lossy().starts_with("output_") {
                found.push((entry.metadata().map(|m| m.len()).unwrap_or(0), entry.into_path()));
            }
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.into_iter().map(|(_, path)| path).collect()
}

fn load(path: &std::path::Path) -> converse_tui::core::episode::Episode {
    converse_tui::core::import::load_path(path).unwrap().remove(0)
}

fn at_end(mut state: AppState) -> AppState {
    update(&mut state, Action::Resize(200, 60));
    let last = state.view().unwrap().last();
    state.view_mut().unwrap().set_cursor(last);
    update(&mut state, Action::Resize(200, 60));
    state
}

fn measure(name: &str, state: &AppState) {
    let theme = Theme::builtin("default");
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    for _ in 0..100 {
        terminal.draw(|frame| converse_tui::ui::draw(frame, state, &theme)).unwrap();
    }
    let start = cpu_time();
    for _ in 0..FRAMES {
        terminal.draw(|frame| converse_tui::ui::draw(frame, state, &theme)).unwrap();
    }
    let per_frame = (cpu_time() - start) / FRAMES;
    println!("{name:<44} {:>8.3} ms CPU per frame ({FRAMES} frames)", per_frame.as_secs_f64() * 1e3);
}

fn main() {
    let paths = fixtures_by_size();
    println!("largest fixture episode: {}", paths[0].display());
    let panes = at_end(AppState::with_episode(load(&paths[0]), Keymap::default()));
    measure("panes, largest fixture, 200x60", &panes);
    let transcript =
        AppState::with_episode(load(&paths[0]), Keymap::default()).with_layout(LayoutMode::Transcript);
    let transcript = at_end(transcript);
    measure("transcript, largest fixture, 200x60", &transcript);
    let mut compare = AppState::comparing(load(&paths[0]), load(&paths[1]), Keymap::default());
    update(&mut compare, Action::Resize(200, 60));
    measure("compare, two largest fixtures, 200x60", &compare);
}
