//! The attempt fan: `f` asks how many attempts (and looks for a stopped fan of the same turn,
//! which Enter alone finishes), the answer starts it (an effect), its reports fill the fan screen,
//! and the fan screen's keys (open an attempt, compare it, pause).

use std::path::{Path, PathBuf};

use crate::config::keymap::Command;
use crate::core::episode::Episode;
use crate::core::fan::stopped::StoppedFan;
use crate::core::fan::{FanMode, fan_start};
use crate::session::fan::{FanControl, FanRequest, FanUpdate};

use super::super::action::{Effect, FollowUp};
use super::super::browser::EntrySource;
use super::super::chrome::Chrome;
use super::super::fan::FanView;
use super::super::inspector_screen::InspectorScreen;
use super::super::overlay::{Overlay, PromptKind};
use super::super::screen::Screen;
use super::super::state::AppState;
use crate::config::keymap::Layer;

/// Most attempts one fan on screen may have (its list and tallies are redrawn as it fills; the
/// headless `fan` takes more).
const MAX_ATTEMPTS: u32 = 1_000;

/// `f`: back to the running fan, else the question.
pub(super) fn prompt(state: &mut AppState) {
    if state.stack.find::<FanView>().is_some_and(|f| !f.done) {
        state.stack.show(Layer::Fan);
        return;
    }
    let chrome = &mut state.chrome;
    let Some(view) = state.stack.top_state::<InspectorScreen>().and_then(InspectorScreen::view) else {
        return;
    };
    let turn = view.turn_at(view.cursor);
    let look = episode_dir(&view.episode).map(|dir| Effect::FindStoppedFan {
        dir,
        episode: view.episode.id().to_string(),
        turn,
    });
    if let Ok(look) = look {
        chrome.effect(look);
    }
    chrome.say(format!("attempt fan from turn {turn}"));
    chrome.prompt(PromptKind::FanAttempts, "");
}

/// The folder a fan of `episode` goes under (its own), or why it has none.
fn episode_dir(episode: &Episode) -> Result<PathBuf, &'static str> {
    episode
        .file()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .ok_or("a fan needs an episode from a file: its attempts go beside it")
}

/// What the look for a stopped fan found, while the question is still asked.
pub(super) fn stopped_found(chrome: &mut Chrome, found: Result<Option<StoppedFan>, String>) {
    let Some(Overlay::Prompt(prompt)) = chrome.overlays.last_mut() else { return };
    if prompt.kind != PromptKind::FanAttempts {
        return;
    }
    match found {
        // The question says so (`Prompt::label`).
        Ok(Some(stopped)) => prompt.stopped_fan = Some(Box::new(stopped)),
        Ok(None) => {}
        Err(problem) => chrome.say(format!("cannot look for a stopped fan: {problem}")),
    }
}

/// `N` (the reply only) or `N r` / `N rest` (the rest, attacker live).
fn parse(input: &str) -> Result<(u32, FanMode), String> {
    let mut words = input.split_whitespace();
    let count = words.next().unwrap_or_default();
    let mode = match words.next() {
        None => FanMode::Reply,
        Some("r" | "rest") => FanMode::Rest,
        Some(other) => return Err(format!("'{other}': after the number, `r` (the rest) or nothing")),
    };
    match count.parse::<u32>() {
        Ok(n) if (1..=MAX_ATTEMPTS).contains(&n) && words.next().is_none() => Ok((n, mode)),
        _ => Err(format!("'{input}': a number of attempts from 1 to {MAX_ATTEMPTS}, then `r` for the rest")),
    }
}

/// Starts the fan the prompt was answered with, from the turn under the inspector's cursor: a new
/// one, or (nothing typed) the stopped fan found while it asked.
pub(super) fn start(state: &mut AppState, input: &str, stopped: Option<Box<StoppedFan>>) {
    let input = input.trim();
    let chrome = &mut state.chrome;
    let (attempts, mode, stopped_dir) = match stopped {
        // A plan is a file anyone could have written: the screen's limit holds for it too.
        Some(stopped) if input.is_empty() && stopped.plan.attempts > MAX_ATTEMPTS => {
            return chrome.say(format!(
                "the stopped fan plans {} attempts, more than a fan on screen runs ({MAX_ATTEMPTS}): \
                 finish it with `converse-tui fan … --resume`",
                stopped.plan.attempts
            ));
        }
        Some(stopped) if input.is_empty() => (stopped.plan.attempts, stopped.plan.mode, Some(stopped.dir)),
        _ => match parse(input) {
            Ok((attempts, mode)) => (attempts, mode, None),
            Err(problem) => return chrome.say(problem),
        },
    };
    let Some(view) = state.stack.top_state::<InspectorScreen>().and_then(InspectorScreen::view) else {
        return;
    };
    let turn = view.turn_at(view.cursor);
    let episode = &view.episode;
    let Some(task_id) = episode.header().task.id.clone() else {
        return chrome.say("this episode names no task, so it cannot be re-run");
    };
    let origin = PathBuf::from(&episode.origin);
    let resuming = stopped_dir.is_some();
    let dir = match (stopped_dir, episode_dir(episode)) {
        (Some(stopped_dir), _) => stopped_dir,
        (None, Ok(dir)) => dir,
        (None, Err(problem)) => return chrome.say(problem),
    };
    let resume = match fan_start(view.events(), episode.id(), turn) {
        Ok(resume) => resume,
        Err(e) => return chrome.say(e.to_string()),
    };
    let id = episode.id().to_string();
    let copied = resume.prefix.len();
    // Played on, an attempt has the room its parent had, as a take-over does.
    let max_turns_at_least = (mode == FanMode::Rest).then(|| resume.max_turns_to_continue(episode.turns()));
    let request = FanRequest {
        task_id,
        episode_id: id.clone(),
        turn,
        mode,
        attempts,
        resume,
        dir: dir.clone(),
        resuming,
        max_turns_at_least,
    };
    let mut fan = FanView::new(id, origin, turn, mode, attempts, dir, copied);
    fan.resumed = resuming;
    chrome.effect(Effect::StartFan(Box::new(request)));
    state.stack.push(Screen::Fan(Box::new(fan)));
}

pub(super) fn started(state: &mut AppState, result: Result<PathBuf, String>) {
    let chrome = &mut state.chrome;
    match result {
        Ok(dir) => {
            if let Some(fan) = state.stack.find_mut::<FanView>() {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let how = if fan.resumed { "resumed" } else { "started" };
                chrome.say(format!("fan {how} in fans/{name}"));
                fan.dir = dir;
                fan.started = true;
            }
        }
        Err(problem) => {
            state.stack.retain(|s| s.kind() != Layer::Fan);
            state.stack.show(Layer::Inspector);
            chrome.say(format!("cannot start the fan: {problem}"));
        }
    }
}

pub(super) fn report(fan: &mut FanView, chrome: &mut Chrome, update: FanUpdate) {
    if !fan.started {
        return;
    }
    let done = update == FanUpdate::Done;
    if let FanUpdate::Problem(problem) = &update {
        chrome.say(problem.clone());
    }
    fan.apply(update);
    if done {
        chrome.say(match &fan.problem {
            Some(problem) => problem.clone(),
            None => format!("fan done: {} of {} attempts ended", fan.ended(), fan.planned),
        });
    }
}

pub(super) fn command(fan: &mut FanView, chrome: &mut Chrome, command: Command) {
    let page = chrome.area.height.saturating_sub(12).max(1) as isize;
    match command {
        Command::SelectNext | Command::ScrollDown => fan.select_by(1),
        Command::SelectPrev | Command::ScrollUp => fan.select_by(-1),
        Command::PageDown => fan.select_by(page),
        Command::PageUp => fan.select_by(-page),
        Command::First => fan.selected = 0,
        Command::Last => fan.select_by(isize::MAX),
        Command::OpenDetail => {
            if let Some(a) = fan.selected_attempt() {
                let (path, id) = (a.journal.clone(), a.episode.clone());
                chrome.effect(Effect::OpenEpisode { path, id, over: true });
            }
        }
        Command::CompareWithOriginal => {
            if let Some(a) = fan.selected_attempt() {
                let original = EntrySource::File { path: fan.origin.clone(), id: fan.episode_id.clone() };
                let attempt = EntrySource::File { path: a.journal.clone(), id: a.episode.clone() };
                chrome.effect(Effect::OpenCompare(Box::new([original, attempt])));
            }
        }
        Command::PlayPause | Command::Continue if !fan.done => {
            fan.paused = command == Command::PlayPause && !fan.paused;
            let control = if fan.paused { FanControl::Paused } else { FanControl::Run };
            chrome.effect(Effect::FanControl(control));
            chrome.message = Some(
                if fan.paused {
                    "fan paused: no attempt starts and no new request is sent (Space or c continues, . steps)"
                } else {
                    "fan running"
                }
                .into(),
            );
        }
        Command::StepCall if fan.paused && !fan.done => {
            fan.steps += 1;
            chrome.effect(Effect::FanControl(FanControl::Step(fan.steps)));
            chrome.say(match fan.running() {
                0 => "step: the next attempt starts and makes its first model call".into(),
                n => format!("step: each of the {n} running attempt(s) makes one model call"),
            });
        }
        // Back to the episode fanned out.
        Command::Close => {
            let (path, id) = (fan.origin.clone(), fan.episode_id.clone());
            chrome.follow_up(FollowUp::ShowEpisode { path, id });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_a_count_and_maybe_the_rest() {
        assert_eq!(parse("20"), Ok((20, FanMode::Reply)));
        assert_eq!(parse("5 r"), Ok((5, FanMode::Rest)));
        assert_eq!(parse("5 rest"), Ok((5, FanMode::Rest)));
        assert!(parse("0").is_err());
        assert!(parse("x").is_err());
        assert!(parse("5 z").unwrap_err().contains("'z'"));
    }
}
