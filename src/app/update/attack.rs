//! The attack search on screen: `X` on a turn of an episode (or a task of the picker) asks for
//! the strategy and budget, the answer starts the search (an effect) and pushes its screen, its
//! reports fill the tree, and the screen's keys steer it (pause, step, prune, expand, edit and
//! continue, pin, keep a node as a case).

use std::path::PathBuf;

use crate::config::keymap::{Command, Layer};
use crate::session::attack::{AttackRequest, HandRequest, SearchControl, SearchUpdate, Start, parse_request};

use super::super::action::{Effect, FollowUp};
use super::super::attack::{AttackOrigin, AttackView};
use super::super::chrome::Chrome;
use super::super::inspector_screen::InspectorScreen;
use super::super::overlay::PromptKind;
use super::super::screen::Screen;
use super::super::state::AppState;
use super::super::task_picker::TaskPicker;

/// What the prompt offers first.
const DEFAULT_REQUEST: &str = "tap 60";

/// `X`: back to the running search, else the question.
pub(super) fn open(state: &mut AppState) {
    if state.stack.find::<AttackView>().is_some_and(|a| !a.done()) {
        state.stack.show(Layer::Attack);
        return;
    }
    match where_from(state) {
        Ok((origin, _, _)) => {
            let from = match origin {
                AttackOrigin::Episode { turn, .. } => format!("turn {turn}"),
                AttackOrigin::Task(task) => format!("task {task}"),
            };
            state.chrome.say(format!("attack search from {from}"));
            state.chrome.offer(PromptKind::AttackStart, DEFAULT_REQUEST);
        }
        Err(problem) => state.chrome.say(problem),
    }
}

/// Where a search asked for now starts: the turn under the inspector's cursor, or the task
/// selected in the picker; with the episode's header and folder.
fn where_from(state: &AppState) -> Result<(AttackOrigin, Start, Option<Continued>), String> {
    if let Some(picker) = state.stack.top_state::<TaskPicker>() {
        let task = picker.selected_task().ok_or("no task selected")?.id.clone();
        return Ok((AttackOrigin::Task(task.clone()), Start::Task(task), None));
    }
    let view = state
        .stack
        .top_state::<InspectorScreen>()
        .and_then(InspectorScreen::view)
        .ok_or("an attack search starts from a turn of an episode or from a task")?;
    let turn = view.turn_at(view.cursor);
    let episode = &view.episode;
    let file =
        episode.file().ok_or("an attack search needs an episode from a file: its nodes go beside it")?;
    if turn == 0 {
        return Err("move to a turn the assistant answered: the search continues from it".into());
    }
    let origin = AttackOrigin::Episode { path: file.to_path_buf(), id: episode.id().to_string(), turn };
    let start = Start::Episode { file: file.to_path_buf(), id: Some(episode.id().to_string()), turn };
    Ok((origin, start, Some((Box::new(episode.header().clone()), file.parent().map(PathBuf::from)))))
}

/// The episode a search continues: its header (the models it recorded) and its folder.
type Continued = (Box<crate::core::episode::EpisodeHeader>, Option<PathBuf>);

/// Starts the search the prompt was answered with.
pub(super) fn start(state: &mut AppState, input: &str) {
    let (strategy, budget) = match parse_request(input) {
        Ok(asked) => asked,
        Err(problem) => return state.chrome.say(problem),
    };
    let (origin, start, episode) = match where_from(state) {
        Ok(from) => from,
        Err(problem) => return state.chrome.say(problem),
    };
    let (header, under) = match episode {
        Some((header, dir)) => (Some(header), dir),
        None => (None, None),
    };
    let request = AttackRequest { start, header, strategy, budget, under };
    state.chrome.effect(Effect::StartAttack(Box::new(request)));
    state.stack.retain(|s| s.kind() != Layer::Attack);
    state.stack.push(Screen::Attack(Box::new(AttackView::new(origin, strategy, budget, PathBuf::new()))));
}

pub(super) fn started(state: &mut AppState, result: Result<PathBuf, String>) {
    let chrome = &mut state.chrome;
    match result {
        Ok(dir) => {
            if let Some(view) = state.stack.find_mut::<AttackView>() {
                chrome.say(format!("attack search started in {}", dir.display()));
                view.dir = dir;
                view.started = true;
            }
        }
        Err(problem) => {
            state.stack.retain(|s| s.kind() != Layer::Attack);
            chrome.say(format!("cannot start the attack search: {problem}"));
        }
    }
}

pub(super) fn report(view: &mut AttackView, chrome: &mut Chrome, update: SearchUpdate) {
    if !view.started {
        return;
    }
    if let SearchUpdate::Problem(problem) = &update {
        chrome.say(problem.clone());
    }
    let finished = matches!(update, SearchUpdate::Finished(_));
    view.apply(update);
    if finished {
        let status = view.status.map_or("over", |s| s.as_str());
        chrome.say(match &view.problem {
            Some(problem) => format!("attack search {status}: {problem}"),
            None => {
                let nodes = view.node_count();
                // A search the judge never scored was steered by nothing: said, not left to `-`.
                let unscored = nodes > 0 && view.nodes.iter().all(|n| n.score().is_none());
                let note =
                    if unscored { " · no node was scored: the judge gave no usable score" } else { "" };
                format!("attack search {status}: {nodes} node(s), {} leak(s){note}", view.leaks())
            }
        });
    }
}

/// What a person asks of the running search, or why it cannot be asked.
fn hand(view: &AttackView, chrome: &mut Chrome, request: HandRequest) {
    if view.done() {
        return chrome.say("the search is over: start another with X");
    }
    chrome.effect(Effect::AttackHand(request));
}

pub(super) fn command(view: &mut AttackView, chrome: &mut Chrome, command: Command) {
    let page = chrome.area.height.saturating_sub(8).max(1) as isize;
    let selected = view.selected_node().cloned();
    let ended = selected.as_ref().filter(|n| n.ended());
    match command {
        Command::SelectNext | Command::ScrollDown => view.select_by(1),
        Command::SelectPrev | Command::ScrollUp => view.select_by(-1),
        Command::PageDown => view.select_by(page),
        Command::PageUp => view.select_by(-page),
        Command::First => view.selected = 0,
        Command::Last => view.select_by(isize::MAX),
        Command::OpenDetail => {
            if let (Some(_), AttackOrigin::Episode { path, id, .. }) =
                (ended.and_then(|n| n.episode_turn), &view.origin)
            {
                let (path, id) = (path.clone(), id.clone());
                chrome.effect(Effect::OpenEpisode { path, id, over: true });
            } else if let Some(record) = ended.and_then(|n| n.record.as_ref()) {
                let (path, id) = (record.journal.clone(), record.episode.clone());
                chrome.effect(Effect::OpenEpisode { path, id, over: true });
            }
        }
        Command::PlayPause | Command::Continue if !view.done() => {
            view.paused = command == Command::PlayPause && !view.paused;
            let control = if view.paused { SearchControl::Paused } else { SearchControl::Run };
            chrome.effect(Effect::AttackControl(control));
            chrome.say(if view.paused {
                "search paused: no node starts, running ones hold before their next call (c continues, . steps)"
            } else {
                "search running"
            });
        }
        Command::StepCall if view.paused && !view.done() => {
            view.steps += 1;
            chrome.effect(Effect::AttackControl(SearchControl::Step(view.steps)));
            chrome.say("step: one more node starts and runs its turn");
        }
        Command::PruneNode => match selected {
            Some(node) if node.id.is_root() => chrome.say("the root is the search itself: Esc leaves it"),
            Some(node) if view.greyed(&node) => chrome.say(format!("node {} is pruned already", node.id)),
            Some(node) => {
                if !view.done() {
                    view.pruned.insert(node.id.clone());
                }
                hand(view, chrome, HandRequest::Prune(node.id));
            }
            None => {}
        },
        Command::ExpandNode | Command::PinBranch => match ended {
            Some(node) => {
                let pin = command == Command::PinBranch;
                hand(view, chrome, HandRequest::Expand { node: node.id.clone(), text: None, pin });
            }
            None => chrome.say("select a node that has ended: the search continues from its reply"),
        },
        Command::EditNode => match ended.filter(|n| !n.id.is_root()) {
            Some(node) => chrome.prompt(PromptKind::EditNode, node.text.clone().unwrap_or_default()),
            None => chrome.say("select a node that has ended: its message is sent edited instead"),
        },
        Command::KeepCase => chrome.ask_suite(),
        // Back to where it started from.
        Command::Close => match &view.origin {
            AttackOrigin::Episode { path, id, .. } => {
                chrome.follow_up(FollowUp::ShowEpisode { path: path.clone(), id: id.clone() })
            }
            AttackOrigin::Task(_) => chrome.follow_up(FollowUp::Tasks),
        },
        _ => {}
    }
}

/// The edit prompt's answer: the text goes instead of the selected node's message (a sibling made
/// by hand), and its branch runs on.
pub(super) fn edit(state: &mut AppState, text: &str) {
    let chrome = &mut state.chrome;
    let Some(view) = state.stack.top_state::<AttackView>() else { return };
    let Some(node) = view.selected_node() else { return };
    if text.trim().is_empty() {
        return chrome.say("nothing to send: the node is left as it was");
    }
    let parent = node.id.parent().unwrap_or_else(crate::core::attack::node::NodeId::root);
    hand(view, chrome, HandRequest::Expand { node: parent, text: Some(text.to_string()), pin: true });
}
