//! Opening an episode the loop loaded, and a journal opened in steps (issue 14): its first batch
//! is shown at once, the rest arrives in batches folded in as live events are
//! ([`EpisodeView::push`]), and at its end whatever needs the whole episode is done (the sidecar
//! verdicts' `seq`s, the notes, where the browser asked to go).
//!
//! [`EpisodeView::push`]: crate::app::view::EpisodeView::push

use crate::core::episode::{Episode, Event};
use crate::session::journal_load::{LoadEnd, LoadId};

use super::super::action::{Effect, FollowUp};
use super::super::browser::{AfterOpen, Browser};
use super::super::chrome::position_key;
use super::super::chrome::warning_line;
use super::super::inspector::Inspector;
use super::super::inspector_screen::InspectorScreen;
use super::super::loading::Loading;
use super::super::state::AppState;

/// An episode loaded whole: on the inspector, or over the screen on top.
pub(super) fn loaded(state: &mut AppState, episode: Episode, over: bool) {
    show(state, episode, over);
    state.chrome.follow_up(FollowUp::EpisodeShown);
}

fn show(state: &mut AppState, episode: Episode, over: bool) {
    if over {
        state.open_over(episode);
    } else {
        state.open_episode(episode);
    }
}

/// The start of a journal: shown as an opened episode is, the cursor going where it was left
/// once the events it names are there.
pub(super) fn opening(
    state: &mut AppState,
    load: LoadId,
    episode: Episode,
    (read, total): (u64, u64),
    over: bool,
) {
    let wanted = state.chrome.recall.left_at.get(&position_key(&episode)).copied();
    show(state, episode, over);
    let Some(inspector) = state.stack.top_state_mut::<InspectorScreen>().and_then(|s| s.inspector.as_mut())
    else {
        return;
    };
    let mut loading = Loading { load, ..Loading::new(read, total) };
    if let Some(wanted) = wanted
        && inspector.view.cursor < wanted
    {
        loading.resume_at = Some((inspector.view.cursor, wanted));
    }
    inspector.loading = Some(loading);
}

/// Whether `inspector` is the one `load` reads for.
fn reads(inspector: &Inspector, load: LoadId) -> bool {
    inspector.loading.is_some_and(|l| l.load == load)
}

/// The episode `load` reads for (on screen, or under it); a load nobody reads for any more is
/// stopped.
fn reading(state: &mut AppState, load: LoadId) -> Option<&mut Inspector> {
    if !state.stack.episodes().any(|i| reads(i, load)) {
        state.chrome.effect(Effect::StopLoad(load));
        return None;
    }
    state.stack.episodes_mut().find(|i| reads(i, load))
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
    let on_screen = state
        .stack
        .top_state::<InspectorScreen>()
        .and_then(|s| s.inspector.as_ref())
        .is_some_and(|i| reads(i, load));
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
        state.chrome.follow_up(FollowUp::ApplyNotes(path));
    }
    if on_screen {
        if warned.is_some() {
            state.chrome.message = warned;
        }
        state.chrome.follow_up(FollowUp::EpisodeShown);
    }
}

/// What opening from the browser asked for, once the episode is on screen (all of it).
pub(super) fn after_shown(state: &mut AppState) {
    // Opened from the agreement review: at the disputed turn, maybe to label it.
    // Without a turn named, at the end, where the verdicts are.
    let Some(after) = state.stack.find_mut::<Browser>().and_then(|b| b.after_open.take()) else { return };
    if let Some(view) = state.view_mut() {
        let last = view.events().len().saturating_sub(1);
        let at = after.turn.and_then(|t| view.end_of_turn(t)).unwrap_or(last);
        view.set_cursor(at);
    }
    // The form needs the notes file read first (an effect): it opens when they are.
    let has_notes_file = state.inspector().is_some_and(|i| i.notes_file().is_some());
    if after.annotate && has_notes_file {
        if let Some(browser) = state.stack.find_mut::<Browser>() {
            browser.after_open = Some(AfterOpen { turn: None, annotate: true });
        }
    } else if after.annotate {
        state.chrome.follow_up(FollowUp::Annotate);
    }
}
