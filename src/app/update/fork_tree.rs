//! The fork tree: opened on the episode on screen (its family is looked for on disk, an effect:
//! from a fork, the tree is that of the episode it descends from, the fork selected), navigated
//! line by line; Enter opens a fork (or the fan it belongs to), `=` compares it with the episode.

use crate::config::keymap::Command;
use crate::core::fan::forks::Family;

use super::super::action::{Effect, FollowUp};
use super::super::browser::EntrySource;
use super::super::chrome::Chrome;
use super::super::fan::FanView;
use super::super::fork_tree::{ForkTree, Node};
use super::super::inspector_screen::InspectorScreen;
use super::super::screen::Screen;
use super::super::stack::Stack;
use super::super::state::AppState;
use crate::config::keymap::Layer;

/// The tree of the episode on the inspector, over the screen on top (the inspector, the fan).
pub(super) fn open(state: &mut AppState) {
    let Some(view) = state.stack.find::<InspectorScreen>().and_then(InspectorScreen::view) else { return };
    let episode = &view.episode;
    let mut tree = ForkTree::new(episode);
    match episode.file() {
        Some(file) => {
            state.chrome.effect(Effect::FindForks { journal: file.to_path_buf(), root: tree.root_id.clone() })
        }
        None => tree.found = Some(Vec::new()),
    }
    state.stack.push(Screen::ForkTree(Box::new(tree)));
}

pub(super) fn found(stack: &mut Stack, chrome: &mut Chrome, root: &str, family: Family) {
    let (top, fan) = stack.top_and::<FanView>();
    let Screen::ForkTree(tree) = top else { return };
    if tree.focus != root {
        return;
    }
    let Family { forks, problems, top, planned } = family;
    if let Some(first) = problems.first() {
        chrome.say(format!("{} problem(s) finding the forks: {first}", problems.len()));
    }
    if let Some((journal, events)) = top {
        tree.reroot(journal, &events);
    }
    tree.found = Some(forks);
    tree.problems = problems;
    tree.planned = planned;
    // The episode it was opened on stays selected.
    let nodes = tree.nodes(fan.map(|f| &*f));
    let focus = nodes.iter().position(|n| matches!(n, Node::Fork { fork, .. } if fork.id == root));
    tree.selected = focus.unwrap_or(0);
}

pub(super) fn command(tree: &mut ForkTree, fan: Option<&FanView>, chrome: &mut Chrome, command: Command) {
    let page = chrome.area.height.saturating_sub(4).max(1) as isize;
    let nodes = tree.nodes(fan);
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
                let (path, id) = (fork.journal.clone(), fork.id.clone());
                chrome.effect(Effect::OpenEpisode { path, id, over: true })
            }
            Some(Node::Fan { dir, .. }) if fan.is_some_and(|f| f.dir == dir) => {
                chrome.follow_up(FollowUp::Show(Layer::Fan))
            }
            Some(Node::Root) => {
                let (path, id) = (tree.root_origin.clone(), tree.root_id.clone());
                chrome.follow_up(FollowUp::ShowEpisode { path, id })
            }
            _ => {}
        },
        Command::CompareWithOriginal => {
            if let Some(Node::Fork { fork, .. }) = selected {
                let root = EntrySource::File { path: tree.root_origin.clone(), id: tree.root_id.clone() };
                let other = EntrySource::File { path: fork.journal.clone(), id: fork.id.clone() };
                chrome.effect(Effect::OpenCompare(Box::new([root, other])));
            }
        }
        // Back to the fan or the episode it was opened from.
        Command::Close => chrome.follow_up(FollowUp::Back),
        _ => {}
    }
}
