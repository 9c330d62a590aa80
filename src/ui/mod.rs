//! `draw(frame, &AppState, &Theme)`: reads state, never changes it, never does I/O.

mod browser;
mod composer;
mod detail;
mod help;
mod notes;
mod status;
mod tasks;
mod text_pane;
mod timeline;
mod verdicts;

use ratatui::Frame;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

use crate::app::layout::PaneId;
use crate::app::state::{AppState, Overlay, Screen};
use crate::config::Theme;

pub use status::truncate;

pub fn draw(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    match (&state.screen, &state.browser, &state.view) {
        (Screen::Browser, Some(browser), _) => browser::draw(frame, area, state, browser, theme),
        (Screen::Tasks, ..) if state.picker.is_some() => {
            let picker = state.picker.as_ref().expect("checked");
            tasks::draw(frame, area, state, picker, theme)
        }
        (_, _, Some(view)) => {
            let layout = &state.layout;
            for id in [PaneId::Attacker, PaneId::Assistant, PaneId::Tools] {
                text_pane::draw(frame, layout.pane(id), id, state, theme);
            }
            verdicts::draw(frame, layout.verdicts, view, state.focus == PaneId::Verdicts, theme);
            timeline::draw(frame, layout.timeline, view, theme);
            if let Some(area) = layout.composer {
                composer::draw(frame, area, state, theme);
            }
            status::draw(frame, layout.status, state, theme);
        }
        _ => frame.render_widget(Paragraph::new(Span::styled("nothing to show", theme.dim())), area),
    }
    match &state.overlay {
        Some(Overlay::Help { scroll }) => {
            help::draw(frame, state.detail_area(), &state.keymap, *scroll, theme)
        }
        Some(Overlay::Detail(d)) => detail::draw(frame, state.detail_area(), d, theme),
        Some(Overlay::Annotate(form)) => {
            notes::draw_form(frame, crate::app::layout::popup(area, 70, 60), form, theme)
        }
        Some(Overlay::Annotations { selected }) => {
            notes::draw_panel(frame, state.detail_area(), &state.notes, *selected, theme)
        }
        Some(Overlay::Prompt(_) | Overlay::TakeOver { .. }) => {}
        None if state.live.as_ref().is_some_and(|l| l.confirm_quit) => {}
        None => status::draw_long_message(frame, area, state, theme),
    }
}
