//! Commands on the CONVERSE task picker.

use crate::config::keymap::Command;

use super::super::action::Effect;
use super::super::state::{AppState, Overlay, Prompt, PromptKind, Screen};

pub(super) fn command(state: &mut AppState, command: Command) {
    let viewport = state.layout.picker[1].height.saturating_sub(2) as usize;
    let page = viewport.saturating_sub(1).max(1) as isize;
    let back = if state.view().is_some() { Screen::Inspector } else { Screen::Browser };
    let can_go_back = state.view().is_some() || state.browser.is_some();
    let Some(picker) = &mut state.picker else { return };
    match command {
        Command::SelectNext | Command::ScrollDown | Command::NextEvent => picker.select_by(1),
        Command::SelectPrev | Command::ScrollUp | Command::PrevEvent => picker.select_by(-1),
        Command::First => picker.select_by(isize::MIN / 2),
        Command::Last => picker.select_by(isize::MAX / 2),
        Command::PageDown => picker.scroll_detail(page, viewport),
        Command::PageUp => picker.scroll_detail(-page, viewport),
        Command::CycleDomain => picker.cycle_domain(),
        Command::CyclePersona => picker.cycle_persona(),
        Command::CycleSplit => picker.cycle_split(),
        Command::Search => {
            let input = picker.text.clone();
            state.overlays.push(Overlay::Prompt(Prompt { kind: PromptKind::Filter, input }));
        }
        Command::OpenDetail => {
            if let Some(task) = picker.selected_task() {
                state.effects.push(Effect::RunTask(task.id.clone()));
            }
        }
        Command::Close | Command::Tasks if can_go_back => state.screen = back,
        Command::Browser if state.browser.is_some() => state.screen = Screen::Browser,
        Command::Help => state.overlays.push(Overlay::Help { scroll: 0 }),
        Command::Quit => state.request_quit(),
        _ => {}
    }
}
