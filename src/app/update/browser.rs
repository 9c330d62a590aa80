//! Commands on the episode browser, and opening the episode it points at.

use crate::config::keymap::Command;
use crate::core::sanitize::single_line;

use super::super::action::Effect;
use super::super::browser::EntrySource;
use super::super::state::{AppState, Overlay, Prompt, PromptKind, Screen};
use super::{open_picker, request_quit, show_episode};

pub(super) fn command(state: &mut AppState, command: Command) {
    let Some(browser) = &mut state.browser else {
        return;
    };
    let page = state.area.height.saturating_sub(6).max(1) as isize;
    match command {
        Command::SelectNext | Command::ScrollDown | Command::NextEvent => browser.select_by(1),
        Command::SelectPrev | Command::ScrollUp | Command::PrevEvent => browser.select_by(-1),
        Command::PageDown => browser.select_by(page),
        Command::PageUp => browser.select_by(-page),
        Command::First => browser.select_by(isize::MIN / 2),
        Command::Last => browser.select_by(isize::MAX / 2),
        Command::OpenDetail => match browser.selected_episode().and_then(|i| browser.sources.get(i)) {
            Some(EntrySource::Loaded(episode)) => {
                let episode = (**episode).clone();
                show_episode(state, episode);
            }
            // Loading is I/O: the loop does it and answers with `Action::EpisodeLoaded`.
            Some(EntrySource::File { path, id }) => {
                let effect = Effect::OpenEpisode { path: path.clone(), id: id.clone() };
                state.message = Some(format!("loading {}…", single_line(id)));
                state.effects.push(effect);
            }
            None => {}
        },
        Command::Search => {
            let input = browser.filter.clone();
            state.overlays.push(Overlay::Prompt(Prompt { kind: PromptKind::Filter, input }));
        }
        Command::SearchEpisodes => super::hits::prompt(state),
        Command::Close if !browser.filter.is_empty() => browser.set_filter(String::new()),
        Command::Close | Command::Browser if state.view().is_some() => state.screen = Screen::Inspector,
        Command::Tasks => open_picker(state),
        Command::Help => state.overlays.push(Overlay::Help { scroll: 0 }),
        Command::Quit => request_quit(state),
        _ => {}
    }
}
