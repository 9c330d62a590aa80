//! Commands on the CONVERSE task picker.

use crate::config::keymap::Command;

use super::super::action::{Effect, FollowUp};
use super::super::chrome::Chrome;
use super::super::overlay::PromptKind;
use super::super::task_picker::TaskPicker;
use crate::config::keymap::Layer;

pub(super) fn command(picker: &mut TaskPicker, chrome: &mut Chrome, command: Command) {
    let viewport = chrome.picker_columns()[1].height.saturating_sub(2) as usize;
    let page = viewport.saturating_sub(1).max(1) as isize;
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
        Command::Search => chrome.prompt(PromptKind::Filter, picker.text.clone()),
        Command::OpenDetail => {
            if let Some(task) = picker.selected_task() {
                chrome.effect(Effect::RunTask(task.id.clone()));
            }
        }
        // Back to the episode on the inspector, else the browser.
        Command::Close | Command::Tasks => chrome.follow_up(FollowUp::Show(Layer::Inspector)),
        Command::Browser => chrome.follow_up(FollowUp::Show(Layer::Browser)),
        _ => {}
    }
}
