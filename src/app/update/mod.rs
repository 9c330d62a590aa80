//! `update(state, action) -> effects`: the only place state changes. This file dispatches:
//! each screen, the modal stack, the composer and the live runner fold in their own module.

mod browser;
mod compare;
mod composer;
mod fan;
mod fork_tree;
mod hits;
mod inspector;
mod loading;
mod modal;
mod mouse;
mod notes;
mod picker;
mod runner;

use crate::config::keymap::{Command, Layer};

use super::action::{Action, Effect, FollowUp};
use super::state::AppState;

pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    dispatch(state, action);
    // What the handlers asked of each other, in the order asked (each may ask for more).
    while let Some(request) = state.follow_ups.pop_front() {
        follow_up(state, request);
    }
    // One relayout, whatever changed the geometry (size, composer, screen, a new episode).
    state.relayout();
    if state.quit {
        state.effects.push(Effect::Quit);
    }
    std::mem::take(&mut state.effects)
}

fn dispatch(state: &mut AppState, action: Action) {
    match action {
        Action::Command(command) => on_command(state, state.layer(), command),
        Action::Key { layer, command } => on_command(state, layer, command),
        Action::Edit(input) => match state.layer() {
            Layer::Composer => state.composer.edit(input),
            Layer::Form => modal::edit(state, input),
            _ => {}
        },
        Action::Paste(text) => match state.layer() {
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
            state.open_episode(*episode);
            follow_up(state, FollowUp::EpisodeShown);
        }
        Action::EpisodeOpening { load, episode, read, total } => {
            loading::opening(state, load, *episode, read, total)
        }
        Action::Loaded { load, events, read } => loading::batch(state, load, events, read),
        Action::LoadEnded { load, end } => loading::ended(state, load, end),
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
        Action::CompareLoaded(Err(problem)) => {
            state.compare_back = None;
            state.message = Some(format!("cannot compare: {problem}"))
        }
        Action::LiveStarted { journal, human, warnings } => runner::started(state, journal, human, &warnings),
        Action::Problem(problem) | Action::Done(problem) => state.message = Some(problem),
        Action::FollowUp(request) => follow_up(state, request),
        Action::Fan(report) => fan::report(state, report),
        Action::StoppedFanFound(found) => fan::stopped_found(state, found),
        Action::FanStarted(result) => fan::started(state, result),
        Action::ForksFound { root, family } => fork_tree::found(state, &root, family),
        Action::Indexed { rows, errors, progress, elapsed, done } => {
            if let Some(browser) = &mut state.browser {
                browser.add_rows(rows, errors);
                browser.indexing = (!done).then_some((progress, elapsed));
                // The source remembered (or chosen meanwhile), once rows that have it arrive.
                if let Some(label) = &state.verdict_source {
                    browser.prefer_source(label);
                }
            }
        }
    }
}

/// Carries out what one handler asked of another.
fn follow_up(state: &mut AppState, request: FollowUp) {
    match request {
        FollowUp::Compare(pair) => {
            let [a, b] = *pair;
            compare::open(state, a, b);
        }
        FollowUp::SearchPrompt => hits::prompt(state),
        FollowUp::SearchResultsOrPrompt => hits::results_or_prompt(state),
        FollowUp::Search(input) => hits::start(state, &input),
        FollowUp::StepHit(delta) => hits::step(state, delta),
        FollowUp::ApplyNotes(path) => notes::apply(state, &path),
        FollowUp::EpisodeShown => {
            loading::after_shown(state);
            hits::episode_loaded(state);
        }
        FollowUp::Annotate => inspector::open_annotate(state),
        FollowUp::FanPrompt => fan::prompt(state),
        FollowUp::StartFan(input) => fan::start(state, &input),
        FollowUp::ForkTree => fork_tree::open(state),
    }
}

fn on_command(state: &mut AppState, layer: Layer, command: Command) {
    // A new command replaces the last note on the status line (not while answering a question).
    if matches!(
        layer,
        Layer::Inspector
            | Layer::Browser
            | Layer::Picker
            | Layer::Overlay
            | Layer::Compare
            | Layer::Hits
            | Layer::Fan
            | Layer::ForkTree
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
        Layer::Fan => fan::command(state, command),
        Layer::ForkTree => fork_tree::command(state, command),
    }
}
