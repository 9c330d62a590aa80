//! Going between screens on the stack: to a kept screen, back, to an episode on the inspector;
//! the compare screen opened over the one on top; quitting (asking first while something runs).

use std::path::PathBuf;

use crate::config::keymap::Command;
use crate::core::episode::Episode;

use super::super::action::Effect;
use super::super::attack::AttackView;
use super::super::compare::CompareScreen;
use super::super::fan::FanView;
use super::super::inspector_screen::InspectorScreen;
use super::super::live::RunnerControl;
use super::super::overlay::Overlay;
use super::super::screen::Screen;
use super::super::state::AppState;
use crate::config::keymap::Layer;

/// The kept screen of `kind`, else the browser (else nothing changes).
pub(super) fn show(state: &mut AppState, kind: Layer) {
    if !state.stack.show(kind) {
        state.stack.show(Layer::Browser);
    }
}

/// Closes the screen on top; the last one stays (and the status line says how to quit).
pub(super) fn back(state: &mut AppState) {
    if state.stack.back().is_none() {
        let quit = state.chrome.keymap.key_hint(Command::Quit);
        state.chrome.say(format!("{quit} quits"));
    }
}

/// The inspector, showing episode `id` of `path` (loaded in place of the one there if it shows
/// another).
pub(super) fn show_episode(state: &mut AppState, path: PathBuf, id: &str) {
    state.stack.show(Layer::Inspector);
    if !state.stack.top_state::<InspectorScreen>().is_some_and(|s| s.shows(id)) {
        state.chrome.effect(Effect::OpenEpisode { path, id: id.to_string(), over: false });
    }
}

/// The task picker, or a note that there is none.
pub(super) fn tasks(state: &mut AppState) {
    if !state.stack.show(Layer::Picker) {
        state.chrome.say("no CONVERSE tasks loaded");
    }
}

/// Two episodes side by side, over the screen that asked (closing it comes back there).
pub(super) fn compare(state: &mut AppState, [a, b]: [Episode; 2]) {
    if state.live_run().is_some() {
        state.chrome.say("a live episode is on screen: compare from `converse-tui compare A B`");
        return;
    }
    let compare = CompareScreen::new(a, b, &mut state.chrome);
    for screen in state.stack.iter_mut() {
        if let Screen::Inspector(screen) = screen {
            screen.autoplay.playing = false;
        }
    }
    state.stack.push(Screen::Compare(Box::new(compare)));
}

/// Quits; while an episode or a fan still runs, asks first (`confirmed`: it was asked, and yes).
pub(super) fn quit(state: &mut AppState, confirmed: bool) {
    let live = state.stack.iter().find_map(|s| match s {
        Screen::Inspector(screen) if screen.running() => Some(screen),
        _ => None,
    });
    let fan_running = state.stack.find::<FanView>().is_some_and(|f| !f.done);
    let attack_running = state.stack.find::<AttackView>().is_some_and(|a| a.started && !a.done());
    match (confirmed, live) {
        (true, Some(live)) => live.control_runner(RunnerControl::Abort, &mut state.chrome),
        (false, Some(_)) => {
            let question = "The episode is still running. Abort it and quit?";
            return state.chrome.overlays.push(Overlay::ConfirmQuit { question });
        }
        (false, None) if fan_running => {
            let question = "The fan's attempts are still running. Abort them and quit?";
            return state.chrome.overlays.push(Overlay::ConfirmQuit { question });
        }
        (false, None) if attack_running => {
            let question =
                "The attack search is still running (attack --resume finishes it). Stop it and quit?";
            return state.chrome.overlays.push(Overlay::ConfirmQuit { question });
        }
        _ => {}
    }
    state.chrome.out.quit = true;
}
