//! One terminal event through the router and `update`: what the event loop does per event, for the
//! tests, benches and fuzz targets that drive the app without a terminal; and a screen started
//! the way the loop starts it, by its first action.

use ratatui::crossterm::event::Event as TermEvent;

use super::action::{Action, Effect};
use super::input::route;
use super::state::AppState;
use super::update::update;
use crate::config::Keymap;
use crate::core::episode::Episode;

/// Routes a terminal event and updates the state with it.
pub fn handle(state: &mut AppState, event: TermEvent) -> Vec<Effect> {
    match route(state, event) {
        Some(action) => update(state, action),
        None => Vec::new(),
    }
}

/// Two episodes side by side on the compare screen, as `compare A B` opens them.
pub fn comparing(a: Episode, b: Episode, keymap: Keymap) -> AppState {
    let mut state = AppState::new(keymap);
    update(&mut state, Action::CompareLoaded(Ok(Box::new([a, b]))));
    state
}
