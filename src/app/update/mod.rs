//! `update(state, action) -> effects`: the only place state changes. This file dispatches:
//! each screen, the modal stack, the composer and the live runner fold in their own module.

mod browser;
mod compare;
mod composer;
mod hits;
mod inspector;
mod loading;
mod modal;
mod mouse;
mod notes;
mod picker;
mod runner;

use crate::config::keymap::{Command, Layer};
use crate::core::episode::Episode;

use super::action::{Action, Effect};
use super::browser::AfterOpen;
use super::input::layer;
use super::state::{AppState, Overlay, Screen};

pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::Command(command) => on_command(state, command),
        Action::Edit(input) => match layer(state) {
            Layer::Composer => state.composer.edit(input),
            Layer::Form => modal::edit(state, input),
            _ => {}
        },
        Action::Paste(text) => match layer(state) {
            Layer::Composer => state.composer.paste(&text),
            Layer::Form => modal::paste(state, &text),
            _ => {}
        },
        Action::Wheel { column, row, lines } => mouse::wheel(state, column, row, lines),
        Action::Resize(width, height) => state.area = ratatui::layout::Rect::new(0, 0, width, height),
        Action::Tick(dt) => runner::tick(state, dt),
        Action::Runner(update) => runner::fold(state, update),
        Action::Gate(mode) => {
            if let Some(live) = &mut state.live {
                live.gate = mode;
            }
        }
        Action::NotesLoaded { path, result } => notes::loaded(state, path, result),
        Action::EpisodeLoaded(Ok(episode)) => {
            show_episode(state, *episode);
            after_shown(state);
            hits::episode_loaded(state);
        }
        Action::EpisodeOpening { episode, read, total } => loading::opening(state, *episode, read, total),
        Action::Loaded { origin, events, read } => loading::batch(state, &origin, events, read),
        Action::LoadEnded { origin, end } => loading::ended(state, &origin, end),
        Action::SearchDone { query, result } => hits::done(state, query, result),
        Action::EpisodeLoaded(Err(problem)) => {
            if let Some(browser) = &mut state.browser {
                browser.after_open = None;
            }
            state.message = Some(format!("cannot open: {problem}"));
        }
        Action::CompareLoaded(Ok(pair)) => {
            let [a, b] = *pair;
            compare::open(state, a, b);
        }
        Action::CompareLoaded(Err(problem)) => state.message = Some(format!("cannot compare: {problem}")),
        Action::LiveStarted { journal, human, warnings } => runner::started(state, journal, human, &warnings),
        Action::Problem(problem) => state.message = Some(problem),
    }
    // One relayout, whatever changed the geometry (size, composer, screen, a new episode).
    state.relayout();
    if state.quit {
        state.effects.push(Effect::Quit);
    }
    std::mem::take(&mut state.effects)
}

fn on_command(state: &mut AppState, command: Command) {
    let layer = layer(state);
    // A new command replaces the last note on the status line (not while answering a question).
    if matches!(
        layer,
        Layer::Inspector | Layer::Browser | Layer::Picker | Layer::Overlay | Layer::Compare | Layer::Hits
    ) {
        state.message = None;
    }
    match layer {
        Layer::Form => modal::form_command(state, command),
        Layer::Confirm => modal::confirm(state, command),
        Layer::TakeOver => modal::take_over(state, command),
        Layer::Overlay => modal::overlay_command(state, command),
        Layer::Composer => composer::command(state, command),
        Layer::Browser => browser::command(state, command),
        Layer::Hits => hits::command(state, command),
        Layer::Picker => picker::command(state, command),
        Layer::Inspector => inspector::command(state, command),
        Layer::Compare => compare::command(state, command),
    }
}

/// Puts two episodes side by side on the compare screen.
pub fn open_compare(state: &mut AppState, a: Episode, b: Episode) {
    compare::open(state, a, b);
}

/// Quit, or ask first while an episode still runs.
fn request_quit(state: &mut AppState) {
    if state.live.as_ref().is_some_and(|l| !l.finished) {
        state.overlays.push(Overlay::ConfirmQuit);
    } else {
        state.quit = true;
    }
}

/// Shows an episode on the inspector in place of the one there (opened from the browser).
fn show_episode(state: &mut AppState, mut episode: Episode) {
    state.remember_position();
    // An imported run names its task; the dataset gives the rest (in memory, no I/O).
    if crate::core::dataset::lacks_task_fields(&episode) {
        state.tasks.enrich(&mut episode);
    }
    let left_at = state.left_at.get(&super::state::position_key(&episode)).copied();
    state.show(episode);
    state.screen = Screen::Inspector;
    state.autoplay.playing = false;
    // Re-opened: back where it was left.
    if let (Some(cursor), Some(view)) = (left_at, state.view_mut()) {
        view.set_cursor(cursor);
    }
}

/// What opening from the browser asked for once the episode is on screen (all of it).
fn after_shown(state: &mut AppState) {
    // Opened from the agreement review: at the disputed turn, maybe to label it.
    // Without a turn named, at the end, where the verdicts are.
    if let Some(after) = state.browser.as_mut().and_then(|b| b.after_open.take()) {
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
            inspector::open_annotate(state);
        }
    }
}

/// Opens the task picker (or says there is none).
fn open_picker(state: &mut AppState) {
    if state.picker.is_none() {
        state.message = Some("no CONVERSE tasks loaded".into());
    }
    state.open_picker(None);
}

/// How far a scroll command moves in a viewport of `viewport` rows.
fn scroll_delta(command: Command, viewport: usize) -> Option<isize> {
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
