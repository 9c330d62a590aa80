//! The compare screen: one cursor steps both episodes turn by turn; the lines scroll together.

use crate::config::keymap::Command;
use crate::core::episode::Episode;

use super::super::compare::Compare;
use super::super::inspector::Inspector;
use super::super::state::{AppState, Overlay, Screen};

/// Puts two episodes side by side (what was on the inspector comes back when the compare closes).
pub(super) fn open(state: &mut AppState, a: Episode, b: Episode) {
    if state.live.is_some() {
        state.message = Some("a live episode is on screen: compare from `converse-tui compare A B`".into());
        return;
    }
    let side = |mut episode: Episode| {
        if crate::core::dataset::lacks_task_fields(&episode) {
            state.tasks.enrich(&mut episode);
        }
        let mut inspector = Inspector::new(episode);
        let last = inspector.view.last();
        inspector.view.set_cursor(last);
        inspector
    };
    let (a, b) = (side(a), side(b));
    let compare = Compare::new(&a.view, &b.view);
    state.message = Some(match compare.first_divergence {
        Some(row) => format!("they diverge at {}", compare.rows[row].label()),
        None => "the two episodes are the same, turn by turn".into(),
    });
    let previous = std::mem::replace(&mut state.inspectors, vec![a, b]);
    state.compared_from = Some((previous, state.active));
    state.active = 0;
    state.compare = Some(compare);
    state.screen = Screen::Compare;
    state.autoplay.playing = false;
    settle(state);
}

/// Back to where the compare was opened from: the browser, with the episode that was open.
fn close(state: &mut AppState) {
    // Asked for by the fan or the fork tree: back there.
    let back = state.compare_back.take();
    if state.browser.is_none() && back.is_none() {
        state.message = Some(format!("{} quits", state.keymap.key_hint(Command::Quit)));
        return;
    }
    if let Some((previous, active)) = state.compared_from.take() {
        state.inspectors = previous;
        state.active = active;
    }
    state.compare = None;
    state.screen = back.unwrap_or(Screen::Browser);
}

fn settle(state: &mut AppState) {
    let area = state.area;
    if let (Some(compare), [a, b, ..]) = (&mut state.compare, state.inspectors.as_slice()) {
        compare.settle(area, [&a.view, &b.view]);
    }
}

pub(super) fn command(state: &mut AppState, command: Command) {
    match command {
        Command::Help => return state.overlays.push(Overlay::Help { scroll: 0 }),
        Command::Quit => return state.request_quit(),
        Command::Close | Command::Browser => return close(state),
        Command::Redact => return toggle_redaction(state),
        _ => {}
    }
    let (Some(compare), [a, b, ..]) = (&mut state.compare, state.inspectors.as_slice()) else { return };
    let views = [&a.view, &b.view];
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

/// Masks (or unmasks) both sides' private values.
fn toggle_redaction(state: &mut AppState) {
    let masked = state.inspectors.first().is_some_and(|i| i.view.mask().is_some());
    for i in 0..state.inspectors.len().min(2) {
        let mask = (!masked).then(|| state.redactor_for(&state.inspectors[i].view.episode));
        state.inspectors[i].view.set_mask(mask);
    }
    state.message = Some(if masked { "unmasked" } else { "private values masked (R shows them)" }.into());
    settle(state);
}
