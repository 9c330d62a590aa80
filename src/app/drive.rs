//! One terminal event through `update`, as the event loop hands it over: for the tests, benches
//! and fuzz targets that drive the app without a terminal.

use ratatui::crossterm::event::Event as TermEvent;

use super::action::{Action, Effect};
use super::state::AppState;
use super::update::update;

/// Routes a terminal event and updates the state with it.
pub fn handle(state: &mut AppState, event: TermEvent) -> Vec<Effect> {
    update(state, Action::Terminal(event))
}
