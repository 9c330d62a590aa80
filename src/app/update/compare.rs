//! The compare screen: one cursor steps both episodes turn by turn; the lines scroll together.

use crate::config::keymap::Command;

use super::super::action::FollowUp;
use super::super::chrome::Chrome;
use super::super::compare::CompareScreen;

pub(super) fn command(screen: &mut CompareScreen, chrome: &mut Chrome, command: Command) {
    match command {
        // Back to where the compare was opened from: the browser, the fan, the fork tree.
        Command::Close | Command::Browser => return chrome.follow_up(FollowUp::Back),
        Command::Redact => return screen.toggle_redaction(chrome),
        _ => {}
    }
    let [a, b] = &screen.sides;
    let views = [&a.view, &b.view];
    let compare = &mut screen.compare;
    let last = compare.rows.len().saturating_sub(1);
    let page = (compare.layout.body.height as isize - 1).max(1);
    match command {
        Command::NextEvent | Command::NextTurn => compare.go_to(compare.cursor + 1, views),
        Command::PrevEvent | Command::PrevTurn => compare.go_to(compare.cursor.saturating_sub(1), views),
        Command::First => compare.go_to(0, views),
        Command::Last => compare.go_to(last, views),
        Command::ScrollDown | Command::SelectNext => compare.scroll_by(1, views),
        Command::ScrollUp | Command::SelectPrev => compare.scroll_by(-1, views),
        Command::PageDown => compare.scroll_by(page, views),
        Command::PageUp => compare.scroll_by(-page, views),
        _ => {}
    }
}
