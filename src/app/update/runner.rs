//! The live runner's updates folded into its inspector screen, and time passing (autoplay, the
//! live clock).

use std::time::Duration;

use crate::core::episode::{Episode, EventBody};
use crate::core::sim::emitter::{Phase, RunnerUpdate};

use super::super::action::Effect;
use super::super::chrome::Chrome;
use super::super::chrome::warning_line;
use super::super::inspector::Inspector;
use super::super::inspector_screen::InspectorScreen;
use super::super::live::LiveState;
use super::super::screen::Screen;
use super::super::stack::Stack;
use super::super::state::AppState;
use super::composer::{QUEUED, SENT};

/// The inspector screen of the live run.
pub(super) fn live_screen(stack: &mut Stack) -> Option<&mut InspectorScreen> {
    stack.iter_mut().find_map(|s| match s {
        Screen::Inspector(screen) if screen.live.is_some() => Some(&mut **screen),
        _ => None,
    })
}

pub(super) fn fold(screen: &mut InspectorScreen, chrome: &mut Chrome, update: RunnerUpdate) {
    let width = screen.stream_width(chrome.layout_mode());
    if let Some(live) = &mut screen.live {
        live.apply(&update, width);
    }
    if update == RunnerUpdate::Phase(Phase::AwaitingHuman) {
        chrome.message = None;
        screen.composer.open_attack();
    }
    // What the runner warns of (the agent never reached its tools: nothing was tested) outweighs
    // any passing message, which would hide it until a key cleared it.
    if matches!(update, RunnerUpdate::Warning(_)) {
        chrome.message = None;
    }
    // What the composer said of a message sent is over once the run has ended.
    if update == RunnerUpdate::Phase(Phase::Finished)
        && chrome.message.as_deref().is_some_and(|m| [SENT, QUEUED].contains(&m))
    {
        chrome.message = None;
    }
    let RunnerUpdate::Event(event) = update else { return };
    if matches!(event.body, EventBody::End(_)) {
        screen.composer.close();
    }
    match &mut screen.inspector {
        Some(inspector) => inspector.view.push(*event),
        None => {
            let origin = screen.live.as_ref().map(|l| l.journal.clone()).unwrap_or_default();
            let mut inspector = Inspector::new(Episode::new(vec![*event], origin));
            inspector.view.follow_tail = true;
            if let Some(path) = inspector.notes_file() {
                chrome.effect(Effect::LoadNotes(path));
            }
            screen.inspector = Some(inspector);
        }
    }
}

/// A new live episode replaces whatever episode was on screen (and what was opened over it).
pub(super) fn started(state: &mut AppState, journal: String, human: bool, warnings: &[String]) {
    let mut live = LiveState::new(journal, false);
    live.human = human;
    let mut screen = InspectorScreen::live(&state.chrome.keymap, live);
    // The composer's history goes on (a take-over from a played episode).
    if let Some(previous) = state.stack.find_mut::<InspectorScreen>() {
        screen.composer = std::mem::take(&mut previous.composer);
        screen.composer.close();
    }
    state.chrome.overlays.clear();
    state.chrome.message = warning_line(warnings);
    state.stack.push(Screen::Inspector(Box::new(screen)));
}

pub(super) fn tick(stack: &mut Stack, dt: Duration) {
    if let Some(live) = live_screen(stack).and_then(|s| s.live.as_mut())
        && live.clock_runs()
    {
        live.elapsed += dt;
    }
    let Some(screen) = stack.top_state_mut::<InspectorScreen>() else { return };
    let Some(inspector) = &mut screen.inspector else { return };
    if !screen.autoplay.playing {
        return;
    }
    let view = &mut inspector.view;
    let next = view.cursor + 1;
    if next > view.last() {
        screen.autoplay.playing = false;
        return;
    }
    if screen.autoplay.tick(dt, &view.events()[next].body) {
        view.set_cursor(next);
    }
}
