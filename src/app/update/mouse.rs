//! The mouse wheel: it scrolls whatever is under the pointer.

use super::super::layout::PaneId;
use super::super::state::{AppState, Overlay, Screen};

pub(super) fn wheel(state: &mut AppState, column: u16, row: u16, lines: isize) {
    let viewport = state.detail_viewport();
    let notes = state.inspector().map_or(0, |i| i.notes.list.len());
    match state.overlays.last_mut() {
        Some(Overlay::Detail(d)) => d.scroll_by(lines, viewport),
        Some(Overlay::Help { scroll }) => *scroll = (*scroll as isize + lines).max(0) as usize,
        Some(Overlay::Annotations { selected }) => {
            *selected =
                (*selected as isize + lines.signum()).clamp(0, notes.saturating_sub(1) as isize) as usize;
        }
        Some(_) => {}
        None if state.screen == Screen::Browser => {
            if let Some(b) = &mut state.browser {
                b.select_by(lines.signum());
            }
        }
        None if state.screen == Screen::Tasks => {
            let detail = state.layout.picker[1];
            let viewport = detail.height.saturating_sub(2) as usize;
            if let Some(p) = &mut state.picker {
                if detail.contains((column, row).into()) {
                    p.scroll_detail(lines, viewport);
                } else {
                    p.select_by(lines.signum());
                }
            }
        }
        None if state.screen == Screen::Compare => {
            if let (Some(compare), [a, b, ..]) = (&mut state.compare, state.inspectors.as_slice()) {
                compare.scroll_by(lines, [&a.view, &b.view]);
            }
        }
        None if state.layout_mode == crate::config::ui_state::LayoutMode::Transcript => {
            if state.layout.main.contains((column, row).into())
                && let Some(inspector) = state.inspector_mut()
            {
                inspector.transcript.scroll_by(&inspector.view, lines);
            }
        }
        None => {
            let Some(id) = state.layout.pane_at(column, row) else {
                return;
            };
            if let Some(view) = state.view_mut() {
                let lines = if id == PaneId::Verdicts { lines.signum() } else { lines };
                view.scroll_pane(id, lines);
            }
        }
    }
}
