//! `update(state, action) -> effects`: the only place state changes. This file dispatches: a
//! key goes to the screen on top (its handler gets that screen's state and the chrome), the
//! modal stack, the composer and the live runner fold in their own module, and what one
//! screen asks of another (a follow-up) is carried out here, after the action.

mod attack;
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
mod nav;
mod notes;
mod picker;
mod runner;

use crate::config::keymap::{Command, Layer};

use super::action::{Action, Effect, FollowUp};
use super::attack::AttackView;
use super::browser::Browser;
use super::fan::FanView;
use super::inspector_screen::InspectorScreen;
use super::screen::Screen;
use super::state::AppState;

pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    dispatch(state, action);
    // What the handlers asked of each other, in the order asked (each may ask for more).
    while let Some(request) = state.chrome.out.follow_ups.pop_front() {
        follow_up(state, request);
    }
    // One relayout, whatever changed the geometry (size, composer, screen, a new episode).
    state.relayout();
    // Time is asked for while it matters (autoplay, a live clock): an idle screen gets no ticks.
    let ticks = state.wants_ticks();
    if std::mem::replace(&mut state.chrome.out.ticks, ticks) != ticks {
        state.chrome.effect(Effect::Ticks(ticks));
    }
    if std::mem::take(&mut state.chrome.out.quit) {
        state.chrome.effect(Effect::Quit);
    }
    std::mem::take(&mut state.chrome.out.effects)
}

fn dispatch(state: &mut AppState, action: Action) {
    let layer = state.layer();
    let AppState { stack, chrome } = state;
    match action {
        Action::Terminal(event) => {
            if let Some(action) = super::input::route(state, event) {
                dispatch(state, action);
            }
        }
        Action::Command(command) => on_command(state, layer, command),
        Action::Key { layer, command } => on_command(state, layer, command),
        Action::Edit(input) => match (layer, stack.top_mut()) {
            (Layer::Composer, Screen::Inspector(screen)) => screen.composer.edit(input),
            (Layer::Form, top) => modal::edit(top, chrome, input),
            _ => {}
        },
        Action::Paste(text) => match (layer, stack.top_mut()) {
            (Layer::Composer, Screen::Inspector(screen)) => screen.composer.paste(&text),
            (Layer::Form, top) => modal::paste(top, chrome, &text),
            _ => {}
        },
        Action::Wheel { column, row, lines } => mouse::wheel(stack.top_mut(), chrome, column, row, lines),
        Action::Resize(width, height) => chrome.area = ratatui::layout::Rect::new(0, 0, width, height),
        Action::Tick(dt) => runner::tick(stack, dt),
        Action::Stop => chrome.out.quit = true,
        Action::Runner(update) => {
            if let Some(screen) = runner::live_screen(stack) {
                runner::fold(screen, chrome, update);
            }
        }
        Action::Gate(mode) => {
            if let Some(live) = runner::live_screen(stack).and_then(|s| s.live.as_mut()) {
                live.gate = mode;
            }
        }
        Action::NotesLoaded { path, result } => notes::loaded(state, path, result),
        Action::EpisodeLoaded { episode: Ok(episode), over } => loading::loaded(state, *episode, over),
        Action::EpisodeLoaded { episode: Err(problem), .. } => {
            if let Some(browser) = stack.find_mut::<Browser>() {
                browser.after_open = None;
            }
            chrome.say(format!("cannot open: {problem}"));
        }
        Action::EpisodeOpening { load, episode, read, total, over } => {
            loading::opening(state, load, *episode, (read, total), over)
        }
        Action::Loaded { load, events, read } => loading::batch(state, load, events, read),
        Action::LoadEnded { load, end } => loading::ended(state, load, end),
        Action::SearchDone { query, result } => hits::done(stack, chrome, query, result),
        Action::CompareLoaded(Ok(pair)) => nav::compare(state, *pair),
        Action::CompareLoaded(Err(problem)) => chrome.say(format!("cannot compare: {problem}")),
        Action::LiveStarted { journal, human, warnings } => runner::started(state, journal, human, &warnings),
        Action::Problem(problem) | Action::Done(problem) => chrome.say(problem),
        Action::FollowUp(request) => follow_up(state, request),
        Action::Fan(report) => {
            if let Some(fan) = stack.find_mut::<FanView>() {
                fan::report(fan, chrome, report);
            }
        }
        Action::StoppedFanFound(found) => fan::stopped_found(chrome, found),
        Action::FanStarted(result) => fan::started(state, result),
        Action::Attack(report) => {
            if let Some(view) = stack.find_mut::<AttackView>() {
                attack::report(view, chrome, report);
            }
        }
        Action::AttackStarted(result) => attack::started(state, result),
        Action::ForksFound { root, family } => fork_tree::found(stack, chrome, &root, family),
        Action::Indexed { rows, errors, progress, elapsed, done } => {
            if let Some(browser) = stack.find_mut::<Browser>() {
                browser.add_rows(rows, errors);
                browser.indexing = (!done).then_some((progress, elapsed));
                // The source remembered (or chosen meanwhile), once rows that have it arrive.
                if let Some(label) = &chrome.prefs.ui.verdict_source {
                    browser.prefer_source(label);
                }
            }
        }
    }
}

/// Carries out what one handler asked of another.
fn follow_up(state: &mut AppState, request: FollowUp) {
    match request {
        FollowUp::Show(kind) => nav::show(state, kind),
        FollowUp::Back => nav::back(state),
        FollowUp::ShowEpisode { path, id } => nav::show_episode(state, path, &id),
        FollowUp::OpenEpisode(episode) => state.open_episode(*episode),
        FollowUp::Quit => nav::quit(state, false),
        FollowUp::QuitConfirmed => nav::quit(state, true),
        FollowUp::Tasks => nav::tasks(state),
        FollowUp::Compare(pair) => nav::compare(state, *pair),
        FollowUp::SearchPrompt => hits::prompt(&mut state.chrome),
        FollowUp::SearchResultsOrPrompt => hits::results_or_prompt(state),
        FollowUp::Search(input) => hits::start(state, &input),
        FollowUp::StepHit(delta) => hits::step(state, delta),
        FollowUp::OpenHit(index) => hits::open(state, index),
        FollowUp::ApplyNotes(path) => notes::apply(state, &path),
        FollowUp::EpisodeShown => {
            loading::after_shown(state);
            hits::episode_loaded(state);
        }
        FollowUp::Annotate => {
            if let Some(screen) = state.stack.top_state_mut::<InspectorScreen>() {
                inspector::open_annotate(screen, &mut state.chrome);
            }
        }
        // The screens opened over the one on top by a command of theirs (`Command::opens`).
        FollowUp::Open(Layer::Fan) => fan::prompt(state),
        FollowUp::Open(Layer::ForkTree) => fork_tree::open(state),
        FollowUp::Open(Layer::Attack) => attack::open(state),
        FollowUp::Open(_) => {}
        FollowUp::StartFan { input, stopped } => fan::start(state, &input, stopped),
        FollowUp::StartAttack(input) => attack::start(state, &input),
        FollowUp::EditNode(text) => attack::edit(state, &text),
    }
}

/// The layers of the screens: all but the modal stack's and the composer's.
fn is_screen(layer: Layer) -> bool {
    !matches!(layer, Layer::Form | Layer::Confirm | Layer::TakeOver | Layer::Overlay | Layer::Composer)
}

fn on_command(state: &mut AppState, layer: Layer, command: Command) {
    let AppState { stack, chrome } = state;
    // A new command replaces the last note on the status line (not while answering a question).
    if is_screen(layer) || layer == Layer::Overlay {
        chrome.message = None;
    }
    let (top, fan) = stack.top_and::<FanView>();
    match (layer, top) {
        (Layer::Form, top) => modal::form_command(top, chrome, command),
        (Layer::Confirm, top) => modal::confirm(top, chrome, command),
        (Layer::TakeOver, top) => modal::take_over(top, chrome, command),
        (Layer::Overlay, top) => modal::overlay_command(top, chrome, command),
        (Layer::Composer, Screen::Inspector(screen)) => composer::command(screen, chrome, command),
        (layer, _) if is_screen(layer) && chrome.common_command(command) => {}
        (layer, _) if let Some(screen) = command.opens().filter(|_| is_screen(layer)) => {
            chrome.follow_up(FollowUp::Open(screen))
        }
        (_, Screen::Inspector(screen)) => inspector::command(screen, chrome, command),
        (_, Screen::Browser(browser)) => browser::command(browser, chrome, command),
        (_, Screen::Tasks(picker)) => picker::command(picker, chrome, command),
        (_, Screen::Compare(compare)) => compare::command(compare, chrome, command),
        (_, Screen::Hits(hits)) => hits::command(hits, chrome, command),
        (_, Screen::Fan(fan)) => fan::command(fan, chrome, command),
        (_, Screen::ForkTree(tree)) => fork_tree::command(tree, fan.map(|f| &*f), chrome, command),
        (_, Screen::Attack(view)) => attack::command(view, chrome, command),
    }
}
