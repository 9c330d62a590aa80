//! The mouse wheel: it scrolls whatever is under the pointer.

use super::super::chrome::Chrome;
use super::super::layout::PaneId;
use super::super::overlay::Overlay;
use super::super::screen::Screen;

pub(super) fn wheel(top: &mut Screen, chrome: &mut Chrome, column: u16, row: u16, lines: isize) {
    let viewport = chrome.detail_viewport();
    let at = (column, row).into();
    match (chrome.overlays.last_mut(), top) {
        (Some(Overlay::Detail(d)), _) => d.scroll_by(lines, viewport),
        (Some(Overlay::Help { scroll }), _) => *scroll = (*scroll as isize + lines).max(0) as usize,
        (Some(Overlay::Annotations { selected }), Screen::Inspector(screen)) => {
            let notes = screen.inspector.as_ref().map_or(0, |i| i.notes.list.len());
            *selected =
                (*selected as isize + lines.signum()).clamp(0, notes.saturating_sub(1) as isize) as usize;
        }
        (Some(_), _) => {}
        (None, Screen::Browser(browser)) => browser.select_by(lines.signum()),
        (None, Screen::Tasks(picker)) => {
            let detail = chrome.picker_columns()[1];
            if detail.contains(at) {
                picker.scroll_detail(lines, detail.height.saturating_sub(2) as usize);
            } else {
                picker.select_by(lines.signum());
            }
        }
        (None, Screen::Compare(screen)) => {
            let [a, b] = &screen.sides;
            screen.compare.scroll_by(lines, [&a.view, &b.view]);
        }
        (None, Screen::Inspector(screen)) => {
            let layout = screen.layout;
            let Some(inspector) = &mut screen.inspector else { return };
            if chrome.layout_mode() == crate::config::ui_state::LayoutMode::Transcript {
                if layout.main.contains(at) {
                    inspector.transcript.scroll_by(&inspector.view, lines);
                }
            } else if let Some(id) = layout.pane_at(column, row) {
                let lines = if id == PaneId::Verdicts { lines.signum() } else { lines };
                inspector.view.scroll_pane(id, lines);
            }
        }
        // The other lists scroll with the keys.
        _ => {}
    }
}
