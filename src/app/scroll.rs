//! How far a scroll command moves, whatever scrolls (a pane, a list, an overlay, the compare).

use crate::config::keymap::Command;

/// Rows `command` scrolls in a viewport of `viewport` rows, if it is a scroll command.
pub fn scroll_delta(command: Command, viewport: usize) -> Option<isize> {
    let page = viewport.saturating_sub(1).max(1) as isize;
    match command {
        Command::ScrollDown | Command::SelectNext => Some(1),
        Command::ScrollUp | Command::SelectPrev => Some(-1),
        Command::PageDown => Some(page),
        Command::PageUp => Some(-page),
        Command::First => Some(isize::MIN / 2),
        Command::Last => Some(isize::MAX / 2),
        _ => None,
    }
}
