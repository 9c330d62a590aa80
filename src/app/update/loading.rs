//! A journal opened in steps (issue 14): its first batch is shown at once, the rest arrives in
//! batches folded in as live events are ([`EpisodeView::push`]), and at its end whatever needs
//! the whole episode is done (the sidecar verdicts' `seq`s, the notes, where the browser asked
//! to go).
//!
//! [`EpisodeView::push`]: crate::app::view::EpisodeView::push

use crate::core::episode::{Episode, Event};
use crate::session::journal_load::{LoadEnd, LoadId};

use super::super::action::FollowUp;
use super::super::browser::AfterOpen;
use super::super::inspector::Inspector;
use super::super::state::{AppState, position_key, warning_line};

/// The start of a journal opened from the browser: shown as an opened episode is, the cursor
/// going where it was left once the events it names are there.
pub(super) fn opening(state: &mut AppState, load: LoadId, episode: Episode, read: u64, total: u64) {
    let wanted = state.left_at.get(&position_key(&episode)).copied();
    state.open_episode(episode);
    state.loading_rest(load, read, total);
    if let (Some(wanted), Some(inspector)) = (wanted, state.inspector_mut())
        && let Some(loading) = &mut inspector.loading
        && inspector.view.cursor < wanted
    {
        loading.resume_at = Some((inspector.view.cursor, wanted));
    }
}

/// Whether `inspector` is the one `load` reads for.
fn reads(inspector: &Inspector, load: LoadId) -> bool {
    inspector.loading.is_some_and(|l| l.load == load)
}

/// The inspector `load` reads for (on screen, or behind the compare screen).
fn reading(state: &mut AppState, load: LoadId) -> Option<&mut Inspector> {
    let behind = state.compared_from.as_mut().map(|(list, _)| list.iter_mut());
    state.inspectors.iter_mut().chain(behind.into_iter().flatten()).find(|i| reads(i, load))
}

pub(super) fn batch(state: &mut AppState, load: LoadId, events: Vec<Event>, read: u64) {
    let Some(inspector) = reading(state, load) else { return };
    for event in events {
        inspector.view.push(event);
    }
    if let Some(loading) = &mut inspector.loading {
        loading.read = read;
    }
}

pub(super) fn ended(state: &mut AppState, load: LoadId, end: LoadEnd) {
    let LoadEnd { events, renumber, mut warnings, error } = end;
    let on_screen = state.inspector().is_some_and(|i| reads(i, load));
    let Some(inspector) = reading(state, load) else { return };
    let view = &mut inspector.view;
    for event in events {
        view.push(event);
    }
    view.renumber(&renumber);
    if let Some(error) = error {
        warnings.push(format!("{error}: loading stopped there, only the events before it are shown"));
        inspector.partial = true;
    }
    view.episode.warnings.extend(warnings);
    if let Some((at, wanted)) = inspector.loading.take().and_then(|l| l.resume_at)
        && view.cursor == at
    {
        view.set_cursor(wanted);
    }
    let notes = inspector.notes.path.clone();
    let warned = warning_line(&view.episode.warnings);
    if let Some(path) = notes {
        state.follow_up(FollowUp::ApplyNotes(path));
    }
    if on_screen {
        if warned.is_some() {
            state.message = warned;
        }
        state.follow_up(FollowUp::EpisodeShown);
    }
}

/// What opening from the browser asked for, once the episode is on screen (all of it).
pub(super) fn after_shown(state: &mut AppState) {
    // Opened from the agreement review: at the disputed turn, maybe to label it.
    // Without a turn named, at the end, where the verdicts are.
    let Some(after) = state.browser.as_mut().and_then(|b| b.after_open.take()) else { return };
    if let Some(view) = state.view_mut() {
        let last = view.events().len().saturating_sub(1);
        let at = after.turn.and_then(|t| view.end_of_turn(t)).unwrap_or(last);
        view.set_cursor(at);
    }
    // The form needs the notes file read first (an effect): it opens when they are.
    let has_notes_file = state.inspector().is_some_and(|i| i.notes_file().is_some());
    if after.annotate && has_notes_file {
        if let Some(browser) = &mut state.browser {
            browser.after_open = Some(AfterOpen { turn: None, annotate: true });
        }
    } else if after.annotate {
        state.follow_up(FollowUp::Annotate);
    }
}
