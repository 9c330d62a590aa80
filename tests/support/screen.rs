//! Driving the app as a user would in screen tests: keys in, the whole screen out as text.
// Each test binary that includes this module uses a part of it.
#![allow(dead_code)]

use converse_tui::app::input::handle;
use converse_tui::app::{Action, AppState, Effect, update};
use converse_tui::config::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::Event as TermEvent;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The screen at `width`×`height`, drawn with the default theme.
pub fn render(state: &mut AppState, width: u16, height: u16) -> String {
    update(state, Action::Resize(width, height));
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let theme = Theme::builtin("default");
    terminal.draw(|frame| converse_tui::ui::draw(frame, state, &theme)).unwrap();
    terminal.backend().to_string()
}

/// Keys as characters: `\n` Enter, `\x1b` Esc, `\t` Tab, `↓` (or `\u{1}`) and `↑` the arrows.
pub fn press(state: &mut AppState, keys: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for c in keys.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            '\t' => KeyCode::Tab,
            '\u{1}' | '↓' => KeyCode::Down,
            '↑' => KeyCode::Up,
            c => KeyCode::Char(c),
        };
        effects.extend(handle(state, TermEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))));
    }
    effects
}
