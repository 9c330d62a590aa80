//! `draw(frame, &AppState, &Theme)`: reads state, never changes it, never does I/O. The screen on
//! top is drawn by its own module from its own state and the chrome, then the modal stack.

mod attack;
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

use crate::app::chrome::Chrome;
use crate::app::inspector_screen::InspectorScreen;
use crate::app::layout::PaneId;
use crate::app::overlay::Overlay;
use crate::app::screen::Screen;
use crate::app::state::AppState;
use crate::config::Theme;
use crate::config::ui_state::LayoutMode;

pub use crate::core::text::truncate_cells as truncate;

pub fn draw(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    let (stack, chrome) = (state.stack(), state.chrome());
    match stack.top() {
        Screen::Inspector(screen) => inspector(frame, screen, chrome, theme),
        Screen::Browser(browser) => browser::draw(frame, area, browser, chrome, theme),
        Screen::Tasks(picker) => tasks::draw(frame, area, picker, chrome, theme),
        Screen::Compare(screen) => compare::draw(frame, screen, chrome, theme),
        Screen::Hits(list) => hits::draw(frame, area, list, chrome, theme),
        Screen::Fan(fan) => fan::draw(frame, area, fan, chrome, theme),
        Screen::ForkTree(tree) => fork_tree::draw(frame, area, tree, stack.find(), chrome, theme),
        Screen::Attack(view) => attack::draw(frame, area, view, chrome, theme),
    }
    // The modal stack, bottom first; a question above the annotations panel is drawn in it.
    let overlays = &chrome.overlays;
    for (i, overlay) in overlays.iter().enumerate() {
        let above = overlays.get(i + 1);
        match overlay {
            Overlay::Help { scroll } => {
                help::draw(frame, chrome.detail_area(), &chrome.keymap, *scroll, theme)
            }
            Overlay::Detail(d) => detail::draw(frame, chrome.detail_area(), d, &chrome.keymap, theme),
            Overlay::Annotate(form) => {
                notes::draw_form(frame, chrome.form_area(), form, &chrome.keymap, theme)
            }
            Overlay::Annotations { selected } => {
                let Some(inspector) = stack.top_state::<InspectorScreen>().and_then(|s| s.inspector.as_ref())
                else {
                    continue;
                };
                let confirm = matches!(above, Some(Overlay::ConfirmDelete));
                let panel = chrome.detail_area();
                notes::draw_panel(frame, panel, &inspector.notes, *selected, confirm, &chrome.keymap, theme)
            }
            // Asked on the status line.
            Overlay::Prompt(_)
            | Overlay::TakeOver { .. }
            | Overlay::ConfirmQuit { .. }
            | Overlay::ConfirmDelete => {}
        }
    }
    if overlays.is_empty() {
        status::draw_long_message(frame, area, status::message(chrome, state.live_run()), theme);
    }
}

/// The inspector screen: the panes (or the transcript), the timeline, the composer and the status line.
fn inspector(frame: &mut Frame, screen: &InspectorScreen, chrome: &Chrome, theme: &Theme) {
    let Some(inspector) = &screen.inspector else {
        let nothing = Paragraph::new(Span::styled("nothing to show", theme.dim()));
        return frame.render_widget(nothing, frame.area());
    };
    let view = &inspector.view;
    let layout = &screen.layout;
    if chrome.layout_mode() == LayoutMode::Transcript {
        transcript::draw(frame, layout.main, screen, inspector, chrome, theme);
    } else {
        for id in [PaneId::Attacker, PaneId::Assistant, PaneId::Tools] {
            text_pane::draw(frame, layout.pane(id), id, screen, theme);
        }
        verdicts::draw(frame, layout.verdicts, view, inspector.focus == PaneId::Verdicts, theme);
    }
    timeline::draw(frame, layout.timeline, view, theme);
    if let Some(area) = layout.composer {
        composer::draw(frame, area, screen, chrome, theme);
    }
    status::draw(frame, layout.status, screen, chrome, theme);
}
