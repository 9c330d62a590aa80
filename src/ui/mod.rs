//! `draw(frame, &AppState, &Theme)`: reads state, never changes it, never does I/O.

mod browser;
pub mod chart;
mod compare;
mod composer;
mod detail;
mod fan;
mod file_errors;
mod fork_tree;
mod help;
mod hits;
mod notes;
mod status;
mod tasks;
mod text_pane;
mod timeline;
mod transcript;
mod verdicts;

use ratatui::Frame;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

use crate::app::layout::PaneId;
use crate::app::state::{AppState, Overlay, Screen};
use crate::config::Theme;
use crate::config::ui_state::LayoutMode;

pub use crate::core::text::truncate_cells as truncate;

pub fn draw(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    match (&state.screen, &state.browser, state.inspector()) {
        (Screen::Browser, Some(browser), _) => browser::draw(frame, area, state, browser, theme),
        (Screen::Hits, ..) if state.hits.is_some() => {
            let list = state.hits.as_ref().expect("checked");
            hits::draw(frame, area, state, list, theme)
        }
        (Screen::Tasks, ..) if state.picker.is_some() => {
            let picker = state.picker.as_ref().expect("checked");
            tasks::draw(frame, area, state, picker, theme)
        }
        (Screen::Compare, ..) if state.compare.is_some() => compare::draw(frame, state, theme),
        (Screen::Fan, ..) if state.fan.is_some() => {
            fan::draw(frame, area, state, state.fan.as_ref().expect("checked"), theme)
        }
        (Screen::ForkTree, ..) if state.fork_tree.is_some() => {
            fork_tree::draw(frame, area, state, state.fork_tree.as_ref().expect("checked"), theme)
        }
        (_, _, Some(inspector)) => {
            let view = &inspector.view;
            let layout = &state.layout;
            if state.layout_mode == LayoutMode::Transcript {
                transcript::draw(frame, layout.main, state, inspector, theme);
            } else {
                for id in [PaneId::Attacker, PaneId::Assistant, PaneId::Tools] {
                    text_pane::draw(frame, layout.pane(id), id, state, theme);
                }
                verdicts::draw(frame, layout.verdicts, view, inspector.focus == PaneId::Verdicts, theme);
            }
            timeline::draw(frame, layout.timeline, view, theme);
            if let Some(area) = layout.composer {
                composer::draw(frame, area, state, theme);
            }
            status::draw(frame, layout.status, state, theme);
        }
        _ => frame.render_widget(Paragraph::new(Span::styled("nothing to show", theme.dim())), area),
    }
    // The modal stack, bottom first; a question above the annotations panel is drawn in it.
    for (i, overlay) in state.overlays.iter().enumerate() {
        let above = state.overlays.get(i + 1);
        match overlay {
            Overlay::Help { scroll } => help::draw(frame, state.detail_area(), &state.keymap, *scroll, theme),
            Overlay::Detail(d) => detail::draw(frame, state.detail_area(), d, &state.keymap, theme),
            Overlay::Annotate(form) => notes::draw_form(frame, state.layout.form, form, &state.keymap, theme),
            Overlay::Annotations { selected } => {
                let Some(inspector) = state.inspector() else { continue };
                let confirm = matches!(above, Some(Overlay::ConfirmDelete));
                let panel = state.detail_area();
                notes::draw_panel(frame, panel, &inspector.notes, *selected, confirm, &state.keymap, theme)
            }
            // Asked on the status line.
            Overlay::Prompt(_) | Overlay::TakeOver { .. } | Overlay::ConfirmQuit | Overlay::ConfirmDelete => {
            }
        }
    }
    if state.overlays.is_empty() {
        status::draw_long_message(frame, area, state, theme);
    }
}
