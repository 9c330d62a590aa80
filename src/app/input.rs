//! The input router: terminal events become commands (through the keymap layer of whatever has
//! the keys) or text, before `update` sees them. `update` never reads a key code.

use ratatui::crossterm::event::{Event as TermEvent, KeyEventKind, MouseEventKind};

use crate::config::keymap::{Command, Layer};

use super::action::{Action, Effect};
use super::state::{AppState, Overlay, Screen};
use super::update::update;

/// Lines one wheel notch scrolls.
const WHEEL_LINES: isize = 3;

/// The layer that has the keys now: the top overlay, else the composer when it has focus, else
/// the screen.
pub fn layer(state: &AppState) -> Layer {
    match state.overlay() {
        Some(Overlay::Prompt(_) | Overlay::Annotate(_)) => Layer::Form,
        Some(Overlay::ConfirmQuit | Overlay::ConfirmDelete) => Layer::Confirm,
        Some(Overlay::TakeOver { .. }) => Layer::TakeOver,
        Some(Overlay::Help { .. } | Overlay::Detail(_) | Overlay::Annotations { .. }) => Layer::Overlay,
        None => match state.screen {
            Screen::Browser if state.browser.is_some() => Layer::Browser,
            Screen::Tasks if state.picker.is_some() => Layer::Picker,
            Screen::Compare if state.compare.is_some() => Layer::Compare,
            Screen::Hits if state.hits.is_some() => Layer::Hits,
            _ if state.composer.has_focus() => Layer::Composer,
            _ => Layer::Inspector,
        },
    }
}

/// What a terminal event means here, if anything.
pub fn route(state: &AppState, event: TermEvent) -> Option<Action> {
    match event {
        TermEvent::Key(key) if key.kind == KeyEventKind::Release => None,
        TermEvent::Key(key) => {
            let layer = layer(state);
            match state.keymap.command(layer, &key) {
                Some(command) => Some(Action::Command(command)),
                None if layer.takes_text() => Some(Action::Edit(key.into())),
                // A question: any other key is "no".
                None if matches!(layer, Layer::Confirm | Layer::TakeOver) => {
                    Some(Action::Command(Command::Close))
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

/// Routes a terminal event and updates the state with it.
pub fn handle(state: &mut AppState, event: TermEvent) -> Vec<Effect> {
    match route(state, event) {
        Some(action) => update(state, action),
        None => Vec::new(),
    }
}
