//! Searching across episodes: the prompt, the search (an effect, off the UI thread), the results
//! screen, and opening a hit on the inspector with its match highlighted.

use std::collections::BTreeSet;
use std::path::Path;

use crate::config::keymap::Command;
use crate::core::episode::Episode;
use crate::core::sanitize::single_line;
use crate::core::search::{Field, Hit, Query};

use super::super::action::{Effect, FollowUp, SearchResult};
use super::super::browser::{Browser, EntrySource};
use super::super::chrome::Chrome;
use super::super::hits::HitList;
use super::super::inspector_screen::InspectorScreen;
use super::super::overlay::PromptKind;
use super::super::screen::Screen;
use super::super::stack::Stack;
use super::super::state::AppState;
use crate::config::keymap::Layer;

/// A command on the results screen.
pub(super) fn command(list: &mut HitList, chrome: &mut Chrome, command: Command) {
    let page = chrome.area.height.saturating_sub(6).max(1) as isize;
    match command {
        Command::SelectNext | Command::ScrollDown | Command::NextEvent => list.select_by(1),
        Command::SelectPrev | Command::ScrollUp | Command::PrevEvent => list.select_by(-1),
        Command::PageDown => list.select_by(page),
        Command::PageUp => list.select_by(-page),
        Command::First => list.select_by(isize::MIN / 2),
        Command::Last => list.select_by(isize::MAX / 2),
        Command::OpenDetail => chrome.follow_up(FollowUp::OpenHit(list.selected)),
        Command::NextHit => chrome.follow_up(FollowUp::StepHit(1)),
        Command::PrevHit => chrome.follow_up(FollowUp::StepHit(-1)),
        Command::SearchEpisodes | Command::Search => prompt(chrome),
        Command::Close => chrome.follow_up(FollowUp::Show(list.back)),
        Command::Browser => chrome.follow_up(FollowUp::Show(Layer::Browser)),
        _ => {}
    }
}

/// Asks for a pattern, from an empty prompt: a new search does not add to the last one's
/// pattern (issue 23: `Holter` then `A6219867` searched `HolterA6219867`).
pub(super) fn prompt(chrome: &mut Chrome) {
    chrome.prompt(PromptKind::SearchEpisodes, "");
}

/// The inspector's `F`: back to the results of the last search, or a new one.
pub(super) fn results_or_prompt(state: &mut AppState) {
    if !state.stack.show(Layer::Hits) {
        prompt(&mut state.chrome);
    }
}

/// `/pattern/` is a regex; anything else a literal. Case is ignored either way. The screens
/// search what they show (delivered texts and call arguments); the raw answers behind them are
/// searched by `converse-tui search` and read in an event's detail.
fn parse_pattern(input: &str) -> Query {
    let regex = input.len() >= 2 && input.starts_with('/') && input.ends_with('/');
    let pattern = if regex { &input[1..input.len() - 1] } else { input };
    Query { pattern: pattern.to_string(), regex, fields: vec![Field::Text, Field::Args], ..Query::default() }
}

fn shown_pattern(query: &Query) -> String {
    if query.regex { format!("/{}/", query.pattern) } else { query.pattern.clone() }
}

/// Starts a search over the browser's episodes (or the one on screen); the loop answers with
/// `Action::SearchDone`.
pub(super) fn start(state: &mut AppState, input: &str) {
    if input.is_empty() {
        state.stack.show(Layer::Hits);
        return;
    }
    let query = parse_pattern(input);
    let mut files = BTreeSet::new();
    let mut loaded: Vec<Episode> = Vec::new();
    match state.stack.find::<Browser>() {
        Some(browser) => {
            for source in &browser.sources {
                match source {
                    EntrySource::File { path, .. } => {
                        files.insert(path.clone());
                    }
                    EntrySource::Loaded(episode) => loaded.push((**episode).clone()),
                }
            }
        }
        None => loaded.extend(state.view().map(|v| v.episode.clone())),
    }
    let back = match state.stack.top() {
        Screen::Hits(list) => list.back,
        top => top.kind(),
    };
    state.chrome.effect(Effect::SearchEpisodes {
        query: query.clone(),
        files: files.into_iter().collect(),
        loaded,
    });
    state.stack.push(Screen::Hits(Box::new(HitList::running(query, back))));
}

/// The answer of a search: its results, unless another search has started since.
pub(super) fn done(
    stack: &mut Stack,
    chrome: &mut Chrome,
    query: Query,
    result: Result<SearchResult, String>,
) {
    let Some(list) = stack.find_mut::<HitList>().filter(|l| l.running && l.query == query) else { return };
    list.running = false;
    match result {
        Ok(result) => {
            list.hits = result.hits;
            list.files = result.files;
            list.errors = result.errors;
        }
        Err(problem) => chrome.say(problem),
    }
}

/// Opens hit `index`: on the inspector at its event, the match highlighted (loading its episode
/// first when it is not on screen).
pub(super) fn open(state: &mut AppState, index: usize) {
    let Some(list) = state.stack.find_mut::<HitList>() else { return };
    let Some(hit) = list.hits.get(index).cloned() else { return };
    list.selected = index;
    list.opened = Some(index);
    list.loading = false;
    if state.view().is_some_and(|v| holds(&v.episode, &hit)) {
        state.stack.show(Layer::Inspector);
        show_opened(state);
        return;
    }
    let source = state.stack.find::<Browser>().and_then(|b| {
        b.sources.iter().find(|s| match s {
            EntrySource::File { path, id } => *path == hit.path && *id == hit.episode,
            EntrySource::Loaded(episode) => holds(episode, &hit),
        })
    });
    match source.cloned() {
        Some(EntrySource::Loaded(episode)) => {
            state.open_episode(*episode);
            show_opened(state);
        }
        Some(EntrySource::File { path, id }) => {
            state.chrome.say(format!("loading {}…", single_line(&id)));
            state.chrome.effect(Effect::OpenEpisode { path, id, over: false });
            if let Some(list) = state.stack.find_mut::<HitList>() {
                list.loading = true;
            }
        }
        None => state.chrome.say(format!("episode {} is no longer listed", single_line(&hit.episode))),
    }
}

/// After an episode loaded: if it is the opened hit's, go to the hit.
pub(super) fn episode_loaded(state: &mut AppState) {
    let Some(list) = state.stack.find_mut::<HitList>() else { return };
    if !std::mem::replace(&mut list.loading, false) {
        return;
    }
    let Some(list) = state.hits() else { return };
    let wanted = list.opened.and_then(|i| list.hits.get(i));
    if wanted.is_some_and(|hit| state.view().is_some_and(|v| holds(&v.episode, hit))) {
        show_opened(state);
    }
}

/// The next (`delta` 1) or previous (-1) hit, across episodes.
pub(super) fn step(state: &mut AppState, delta: isize) {
    let Some(list) = state.hits() else {
        let key = state.chrome.keymap.key_hint(Command::SearchEpisodes);
        return state.chrome.say(format!("no search across episodes yet: {key} searches them"));
    };
    if list.hits.is_empty() {
        return state.chrome.say("the search found nothing");
    }
    let from = list.opened.unwrap_or(list.selected) as isize;
    let last = list.hits.len() as isize - 1;
    let target = from + delta;
    if target < 0 || target > last {
        return state.chrome.say(if delta > 0 { "the last hit" } else { "the first hit" });
    }
    open(state, target as usize);
}

/// The episode on screen holds this hit.
fn holds(episode: &Episode, hit: &Hit) -> bool {
    Path::new(&episode.origin) == hit.path && episode.id() == hit.episode
}

/// Puts the inspector's cursor on the opened hit's event, its match highlighted.
fn show_opened(state: &mut AppState) {
    let AppState { stack, chrome } = state;
    let Some(list) = stack.find::<HitList>() else { return };
    let Some(index) = list.opened else { return };
    let Some(hit) = list.hits.get(index) else { return };
    let (seq, total, pattern) = (hit.seq, list.hits.len(), shown_pattern(&list.query));
    let matched = list.matched(index).unwrap_or(&list.query.pattern).to_string();
    stack.show(Layer::Inspector);
    let Some(screen) = stack.top_state_mut::<InspectorScreen>() else { return };
    let Some(view) = screen.view_mut() else { return };
    let Some(event) = view.episode.position_of(seq) else { return };
    view.search(&matched);
    chrome.recall.last_search = matched;
    screen.move_cursor(event);
    if let Some(inspector) = &mut screen.inspector {
        inspector.jump_to_event(event);
    }
    let k = |c| chrome.keymap.key_hint(c);
    let message = format!(
        "hit {} of {total} · '{}' · {} next · {} previous · {} results",
        index + 1,
        single_line(&pattern),
        k(Command::NextHit),
        k(Command::PrevHit),
        k(Command::SearchEpisodes),
    );
    chrome.say(message);
}
