//! The live runner's updates folded into the state, and time passing (autoplay, the live clock).

use std::time::Duration;

use crate::core::episode::{Episode, EventBody};
use crate::core::sim::emitter::{Phase, RunnerUpdate};

use super::super::action::Effect;
use super::super::inspector::Inspector;
use super::super::live::LiveState;
use super::super::state::{AppState, Screen, warning_line};
use super::composer::{QUEUED, SENT};

pub(super) fn fold(state: &mut AppState, update: RunnerUpdate) {
    let width = state.stream_width();
    if let Some(live) = &mut state.live {
        live.apply(&update, width);
    }
    if update == RunnerUpdate::Phase(Phase::AwaitingHuman) {
        state.message = None;
        state.composer.open_attack();
    }
    // What the composer said of a message sent is over once the run has ended.
    if update == RunnerUpdate::Phase(Phase::Finished)
        && state.message.as_deref().is_some_and(|m| [SENT, QUEUED].contains(&m))
    {
        state.message = None;
    }
    let RunnerUpdate::Event(event) = update else { return };
    if matches!(event.body, EventBody::End(_)) {
        state.composer.close();
    }
    match state.inspector_mut() {
        Some(inspector) => {
            inspector.view.push(*event);
        }
        None => {
            let origin = state.live.as_ref().map(|l| l.journal.clone()).unwrap_or_default();
            let mut inspector = Inspector::new(Episode::new(vec![*event], origin));
            inspector.view.follow_tail = true;
            if let Some(path) = inspector.notes_file() {
                state.effects.push(Effect::LoadNotes(path));
            }
            state.inspectors.push(inspector);
            state.active = state.inspectors.len() - 1;
        }
    }
}

/// A new live episode replaces whatever was on screen.
pub(super) fn started(state: &mut AppState, journal: String, human: bool, warnings: &[String]) {
    let mut live = LiveState::new(journal, false);
    live.human = human;
    state.live = Some(live);
    state.inspectors.clear();
    state.active = 0;
    state.overlays.clear();
    state.screen = Screen::Inspector;
    state.composer.close();
    state.message = warning_line(warnings);
}

pub(super) fn tick(state: &mut AppState, dt: Duration) {
    if let Some(live) = &mut state.live
        && live.clock_runs()
    {
        live.elapsed += dt;
    }
    if !state.autoplay.playing || state.screen != Screen::Inspector {
        return;
    }
    let active = state.active;
    let Some(inspector) = state.inspectors.get_mut(active) else { return };
    let view = &mut inspector.view;
    let next = view.cursor + 1;
    if next > view.last() {
        state.autoplay.playing = false;
        return;
    }
    if state.autoplay.tick(dt, &view.events()[next].body) {
        view.set_cursor(next);
    }
}
