//! The whole app: a file loaded, keys pressed, screens drawn at any size. Every
//! row drawn is exactly as wide as the screen and holds no control character.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use converse_tui::app::browser::Browser;
use converse_tui::app::drive::handle;
use ratatui::crossterm::event::Event;
use converse_tui::app::{Action, AppState, update};
use converse_tui::config::{Keymap, Theme};

/// Keys that move, open, switch panes and views (never quit: the run would just end).
const KEYS: &[char] = &['j', 'k', 'g', 'G', 'l', 'h', 'n', 'p', 'r', 'd', 'v', '?', ' ', '/', 'x', '1', '2'];

fuzz_target!(|input: (u8, u8, &[u8], &[u8])| {
    let (w, h, keys, file) = input;
    let Ok(episodes) = converse_tui::core::import::load_bytes(file, Path::new("fuzz.jsonl")) else { return };
    let mut state =
        AppState::with_browser(Browser::new("fuzz", episodes, Vec::new()), Keymap::default(), true);
    let (width, height) = (u16::from(w % 200) + 1, u16::from(h % 60) + 1);
    update(&mut state, Action::Resize(width, height));
    let theme = Theme::builtin("default");
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let press = |state: &mut AppState, code: KeyCode| {
        handle(state, Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    };
    for &k in keys.iter().take(64) {
        match k % 24 {
            20 => press(&mut state, KeyCode::Enter),
            21 => press(&mut state, KeyCode::Esc),
            22 => press(&mut state, KeyCode::Tab),
            23 => press(&mut state, KeyCode::PageDown),
            i => press(&mut state, KeyCode::Char(KEYS[usize::from(i) % KEYS.len()])),
        }
        terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
        let buffer = terminal.backend().buffer();
        for cell in buffer.content() {
            assert!(
                !cell.symbol().chars().any(|c| c.is_control()),
                "control char drawn: {:?}",
                cell.symbol()
            );
        }
    }
});
