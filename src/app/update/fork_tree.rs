//! The fork tree: opened on the episode on screen (its family is looked for on disk, an effect:
//! from a fork, the tree is that of the episode it descends from, the fork selected), navigated
//! line by line; Enter opens a fork (or the fan it belongs to), `=` compares it with the episode.

use crate::config::keymap::Command;
use crate::core::fan::forks::Family;

use super::super::action::Effect;
use super::super::browser::EntrySource;
use super::super::fork_tree::{ForkTree, Node};
use super::super::state::{AppState, Overlay, Screen};

pub(super) fn open(state: &mut AppState) {
    let Some(view) = state.view() else { return };
    let episode = &view.episode;
    let back = if state.screen == Screen::Fan { Screen::Fan } else { Screen::Inspector };
    let mut tree = ForkTree::new(episode, back);
    match episode.file() {
        Some(file) => {
            state.effects.push(Effect::FindForks { journal: file.to_path_buf(), root: tree.root_id.clone() })
        }
        None => tree.found = Some(Vec::new()),
    }
    state.fork_tree = Some(tree);
    state.screen = Screen::ForkTree;
}

pub(super) fn found(state: &mut AppState, root: &str, family: Family) {
    let Some(tree) = &mut state.fork_tree else { return };
    if tree.focus != root {
        return;
    }
    let Family { forks, problems, top, planned } = family;
    if let Some(first) = problems.first() {
        state.message = Some(format!("{} problem(s) finding the forks: {first}", problems.len()));
    }
    if let Some((journal, events)) = top {
        tree.reroot(journal, &events);
    }
    tree.found = Some(forks);
    tree.problems = problems;
    tree.planned = planned;
    // The episode it was opened on stays selected.
    let nodes = tree.nodes(state.fan.as_ref());
    let focus = nodes.iter().position(|n| matches!(n, Node::Fork { fork, .. } if fork.id == root));
    tree.selected = focus.unwrap_or(0);
}

pub(super) fn command(state: &mut AppState, command: Command) {
    let page = state.area.height.saturating_sub(4).max(1) as isize;
    let on_screen = state.view().map(|v| v.episode.id().to_string());
    let Some(tree) = &mut state.fork_tree else { return };
    let nodes = tree.nodes(state.fan.as_ref());
    let selected = nodes.get(tree.selected).cloned();
    match command {
        Command::SelectNext | Command::ScrollDown => tree.select_by(1, nodes.len()),
        Command::SelectPrev | Command::ScrollUp => tree.select_by(-1, nodes.len()),
        Command::PageDown => tree.select_by(page, nodes.len()),
        Command::PageUp => tree.select_by(-page, nodes.len()),
        Command::First => tree.selected = 0,
        Command::Last => tree.select_by(isize::MAX, nodes.len()),
        Command::OpenDetail => match selected {
            Some(Node::Fork { fork, .. }) => {
                state.open_from(Screen::ForkTree, fork.journal.clone(), fork.id.clone())
            }
            Some(Node::Fan { dir, .. }) if state.fan.as_ref().is_some_and(|f| f.dir == dir) => {
                state.screen = Screen::Fan
            }
            Some(Node::Root) => {
                if on_screen.as_deref() != Some(tree.root_id.as_str()) {
                    let (path, id) = (tree.root_origin.clone(), tree.root_id.clone());
                    state.effects.push(Effect::OpenEpisode { path, id });
                }
                state.screen = Screen::Inspector
            }
            _ => {}
        },
        Command::CompareWithOriginal => {
            if let Some(Node::Fork { fork, .. }) = selected {
                let root = EntrySource::File { path: tree.root_origin.clone(), id: tree.root_id.clone() };
                let other = EntrySource::File { path: fork.journal.clone(), id: fork.id.clone() };
                state.compare_from(Screen::ForkTree, [root, other]);
            }
        }
        Command::Close => {
            state.screen =
                if tree.back == Screen::Fan && state.fan.is_some() { Screen::Fan } else { Screen::Inspector }
        }
        Command::Help => state.overlays.push(Overlay::Help { scroll: 0 }),
        Command::Quit => state.request_quit(),
        _ => {}
    }
}
