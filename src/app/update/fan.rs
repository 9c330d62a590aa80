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
use super::super::fan::FanView;
use super::super::state::{AppState, Overlay, Prompt, PromptKind, Screen};

/// Most attempts one fan on screen may have (its list and tallies are redrawn as it fills; the
/// headless `fan` takes more).
const MAX_ATTEMPTS: u32 = 1_000;

/// `f`: back to the running fan, else the question.
pub(super) fn prompt(state: &mut AppState) {
    if state.fan.as_ref().is_some_and(|f| !f.done) {
        state.screen = Screen::Fan;
        return;
    }
    let Some(view) = state.view() else { return };
    let turn = view.turn_at(view.cursor);
    let look = episode_dir(&view.episode).map(|dir| Effect::FindStoppedFan {
        dir,
        episode: view.episode.id().to_string(),
        turn,
    });
    state.effects.extend(look.ok());
    state.stopped_fan = None;
    state.message = Some(format!("attempt fan from turn {turn}"));
    state.overlays.push(Overlay::Prompt(Prompt { kind: PromptKind::FanAttempts, input: String::new() }));
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
pub(super) fn stopped_found(state: &mut AppState, found: Result<Option<StoppedFan>, String>) {
    let asking = matches!(state.overlay(), Some(Overlay::Prompt(p)) if p.kind == PromptKind::FanAttempts);
    if !asking {
        return;
    }
    match found {
        // The question says so (`AppState::prompt_label`).
        Ok(Some(stopped)) => state.stopped_fan = Some(stopped),
        Ok(None) => {}
        Err(problem) => state.message = Some(format!("cannot look for a stopped fan: {problem}")),
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
pub(super) fn start(state: &mut AppState, input: &str) {
    let input = input.trim();
    let stopped = state.stopped_fan.take();
    let (attempts, mode, stopped_dir) = match stopped {
        Some(stopped) if input.is_empty() => (stopped.plan.attempts, stopped.plan.mode, Some(stopped.dir)),
        _ => match parse(input) {
            Ok((attempts, mode)) => (attempts, mode, None),
            Err(problem) => {
                state.message = Some(problem);
                return;
            }
        },
    };
    let Some(view) = state.view() else { return };
    let turn = view.turn_at(view.cursor);
    let episode = &view.episode;
    let Some(task_id) = episode.header().task.id.clone() else {
        state.message = Some("this episode names no task, so it cannot be re-run".into());
        return;
    };
    let origin = PathBuf::from(&episode.origin);
    let resuming = stopped_dir.is_some();
    let dir = match (stopped_dir, episode_dir(episode)) {
        (Some(stopped_dir), _) => stopped_dir,
        (None, Ok(dir)) => dir,
        (None, Err(problem)) => {
            state.message = Some(problem.into());
            return;
        }
    };
    let resume = match fan_start(view.events(), episode.id(), turn) {
        Ok(resume) => resume,
        Err(e) => {
            state.message = Some(e.to_string());
            return;
        }
    };
    let id = episode.id().to_string();
    let copied = resume.prefix.len();
    let request = FanRequest {
        task_id,
        episode_id: id.clone(),
        turn,
        mode,
        attempts,
        resume,
        dir: dir.clone(),
        resuming,
    };
    let mut fan = FanView::new(id, origin, turn, mode, attempts, dir, copied);
    fan.resumed = resuming;
    state.fan = Some(fan);
    state.effects.push(Effect::StartFan(Box::new(request)));
    state.screen = Screen::Fan;
}

pub(super) fn started(state: &mut AppState, result: Result<PathBuf, String>) {
    match result {
        Ok(dir) => {
            if let Some(fan) = &mut state.fan {
                let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let how = if fan.resumed { "resumed" } else { "started" };
                state.message = Some(format!("fan {how} in fans/{name}"));
                fan.dir = dir;
            }
        }
        Err(problem) => {
            state.fan = None;
            state.screen = Screen::Inspector;
            state.message = Some(format!("cannot start the fan: {problem}"));
        }
    }
}

pub(super) fn report(state: &mut AppState, update: FanUpdate) {
    let Some(fan) = &mut state.fan else { return };
    let done = update == FanUpdate::Done;
    if let FanUpdate::Problem(problem) = &update {
        state.message = Some(problem.clone());
    }
    fan.apply(update);
    if done {
        state.message = Some(match &fan.problem {
            Some(problem) => problem.clone(),
            None => format!("fan done: {} of {} attempts ended", fan.ended(), fan.planned),
        });
    }
}

pub(super) fn command(state: &mut AppState, command: Command) {
    let page = state.area.height.saturating_sub(12).max(1) as isize;
    let on_screen = state.view().map(|v| v.episode.id().to_string());
    let Some(fan) = &mut state.fan else { return };
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
                state.open_from(Screen::Fan, path, id);
            }
        }
        Command::CompareWithOriginal => {
            if let Some(a) = fan.selected_attempt() {
                let original = EntrySource::File { path: fan.origin.clone(), id: fan.episode_id.clone() };
                let attempt = EntrySource::File { path: a.journal.clone(), id: a.episode.clone() };
                state.compare_from(Screen::Fan, [original, attempt]);
            }
        }
        Command::PlayPause | Command::Continue if !fan.done => {
            fan.paused = command == Command::PlayPause && !fan.paused;
            let control = if fan.paused { FanControl::Paused } else { FanControl::Run };
            state.effects.push(Effect::FanControl(control));
            state.message = Some(
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
            state.effects.push(Effect::FanControl(FanControl::Step(fan.steps)));
            state.message = Some(match fan.running() {
                0 => "step: the next attempt starts and makes its first model call".into(),
                n => format!("step: each of the {n} running attempt(s) makes one model call"),
            });
        }
        Command::ForkTree => state.follow_up(FollowUp::ForkTree),
        Command::Close => {
            if on_screen.as_deref() != Some(fan.episode_id.as_str()) {
                let (path, id) = (fan.origin.clone(), fan.episode_id.clone());
                state.effects.push(Effect::OpenEpisode { path, id });
            }
            state.screen = Screen::Inspector;
        }
        Command::Help => state.overlays.push(Overlay::Help { scroll: 0 }),
        Command::Quit => state.request_quit(),
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
