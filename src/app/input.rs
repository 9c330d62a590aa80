//! The input router: terminal events become commands (through the keymap layer of whatever has
//! the keys) or text, before `update` sees them. `update` never reads a key code.

use ratatui::crossterm::event::{Event as TermEvent, KeyEventKind, MouseEventKind};

use crate::config::keymap::{Command, Layer};

use super::action::Action;
use super::state::AppState;

/// Lines one wheel notch scrolls.
const WHEEL_LINES: isize = 3;

/// What a terminal event means here, if anything.
pub fn route(state: &AppState, event: TermEvent) -> Option<Action> {
    match event {
        TermEvent::Key(key) if key.kind == KeyEventKind::Release => None,
        TermEvent::Key(key) => {
            let layer = state.layer();
            match state.chrome.keymap.command(layer, &key) {
                Some(command) => Some(Action::Key { layer, command }),
                None if layer.takes_text() => Some(Action::Edit(key.into())),
                // A question: any other key is "no".
                None if matches!(layer, Layer::Confirm | Layer::TakeOver) => {
                    Some(Action::Key { layer, command: Command::Close })
                }
                None => None,
            }
        }
        TermEvent::Mouse(mouse) => {
            let lines = match mouse.kind {
                MouseEventKind::ScrollDown => WHEEL_LINES,
                MouseEventKind::ScrollUp => -WHEEL_LINES,
                _ => return None,
            };
            Some(Action::Wheel { column: mouse.column, row: mouse.row, lines })
        }
        TermEvent::Paste(text) => Some(Action::Paste(text)),
        TermEvent::Resize(width, height) => Some(Action::Resize(width, height)),
        _ => None,
    }
}
