//! The UI loop: terminal input, runner updates, ticks and signals in;
//! `update`, effects, `draw` out.

use std::time::{Duration, Instant};

use std::collections::VecDeque;

use crossterm::event::EventStream;
use futures_util::StreamExt;
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use tokio::sync::mpsc;

use crate::app::{Action, AppState, Effect, update};
use crate::config::Theme;
use crate::core::sim::runner::RunnerHandle;
use crate::session::journal_load::JournalLoad;

use super::effects::{carry_out, keep_cases, read_rest};
pub use super::live::Launcher;
use super::live::Live;
use super::terminal::TerminalGuard;

/// How often time advances for autoplay and the live clock.
const TICK: Duration = Duration::from_millis(50);
/// Most runner updates folded into one frame (a fork's catch-up, a fast stream).
const MAX_FOLD: usize = 4096;

/// Runs the inspector until the user quits or a signal asks us to stop.
/// With a runner, its episode streams in; with a launcher, the task picker can start runs;
/// with a journal load, the rest of the episode on screen is read once its start is drawn.
pub async fn run(
    mut state: AppState,
    theme: Theme,
    runner: Option<RunnerHandle>,
    mut launcher: Option<Launcher>,
    mut rest: Option<JournalLoad>,
    fan_launcher: Option<super::fan::FanLauncher>,
) -> anyhow::Result<()> {
    let mut fans = super::fan::Fans { launcher: fan_launcher, running: None };
    let mut guard = TerminalGuard::new()?;
    let size = guard.terminal.size()?;
    // Answers of effects done off the loop (an episode loaded from the browser).
    let (answers_tx, mut answers) = mpsc::channel::<Action>(16);
    // An answer read past a run of index batches (see `merge_indexed`), handled next.
    let mut held: Option<Action> = None;
    // No polling: the terminal's events arrive as a stream, and nothing wakes the loop while idle.
    let mut terminal_events = EventStream::new();
    let mut live = runner.map(Live::new);
    // A journal being read off the loop (issue 14): its batches, then its end, as actions.
    let mut loader: Option<mpsc::Receiver<Action>> = None;
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut ticking = false;
    let mut last_tick = Instant::now();
    let mut stop = crate::core::signals::stop_signals()?;
    let mut frames = Frames::default();
    let first = update(&mut state, Action::Resize(size.width, size.height));
    let mut pending: VecDeque<Effect> = first.into();
    loop {
        // Effects, and the actions they answer with, until none is left.
        while let Some(effect) = pending.pop_front() {
            match effect {
                Effect::Quit => {
                    if let Some(l) = live.take() {
                        l.stop().await;
                    }
                    fans.stop().await;
                    drop(guard);
                    return Ok(());
                }
                Effect::HandOff { text, editor } => {
                    // The pager reads the keys meanwhile: stop reading them (the stream's reader
                    // thread leaves its poll when the stream is dropped), then read anew.
                    drop(std::mem::replace(&mut terminal_events, EventStream::new()));
                    let problem = super::handoff::hand_off(&mut guard, &text, editor);
                    if let Some(problem) = problem {
                        pending.extend(update(&mut state, Action::Problem(problem)));
                    }
                    frames.dirty = true;
                }
                // The dataset's tasks give each case its task hash.
                Effect::KeepCases { suite, sources, tasks } => {
                    keep_cases(answers_tx.clone(), suite, sources, tasks)
                }
                Effect::StartFan(request) => {
                    let answer = fans.start(*request).await;
                    pending.extend(update(&mut state, answer));
                    frames.dirty = true;
                }
                Effect::FanControl(control) => fans.control(control),
                Effect::FindForks { journal, root } => {
                    super::fan::find_forks(answers_tx.clone(), journal, root)
                }
                Effect::FindStoppedFan { dir, episode, turn } => {
                    super::fan::find_stopped_fan(answers_tx.clone(), dir, episode, turn)
                }
                effect => {
                    let answer = carry_out(effect, &mut live, &mut launcher, &answers_tx, &mut loader).await;
                    if let Some(action) = answer {
                        pending.extend(update(&mut state, action));
                    }
                    frames.dirty = true;
                }
            }
        }
        frames.draw_if_due(&mut guard, &state, &theme)?;
        // The start of the journal is on screen: now read the rest (not before, so the first
        // frame has the cores to itself).
        if let Some(rest) = rest.take() {
            loader = Some(read_rest(rest));
        }
        // Time only flows while it matters (autoplay, a live clock): an idle screen sleeps.
        let wants_ticks = state.wants_ticks();
        if wants_ticks && !ticking {
            ticks.reset();
            last_tick = Instant::now();
        }
        ticking = wants_ticks;
        let action = if let Some(action) = held.take() {
            action
        } else {
            tokio::select! {
                event = terminal_events.next() => match event {
                    Some(Ok(event)) => Action::Terminal(event),
                    Some(Err(_)) | None => break,
                },
                Some(action) = answers.recv() => merge_indexed(action, &mut answers, &mut held),
                loaded = async {
                    match loader.as_mut() {
                        Some(rx) => rx.recv().await,
                        None => std::future::pending().await,
                    }
                } => match loaded {
                    Some(action) => action,
                    None => {
                        loader = None;
                        continue;
                    }
                },
                Some(from_runner) = async {
                    match live.as_mut() {
                        Some(l) => tokio::select! {
                            update = l.updates.recv() => update.map(Action::Runner),
                            changed = l.gate_changes.changed() => {
                                changed.ok().map(|()| Action::Gate(*l.gate_changes.borrow_and_update()))
                            }
                        },
                        None => std::future::pending().await,
                    }
                } => from_runner,
                report = fans.next() => match report {
                    Some(report) => Action::Fan(report),
                    None => {
                        fans.finished();
                        continue;
                    }
                },
                _ = ticks.tick(), if ticking => {
                    let now = Instant::now();
                    let dt = now - last_tick;
                    last_tick = now;
                    Action::Tick(dt)
                }
                // A change waits for the next frame slot.
                _ = frames.next_frame(), if frames.dirty => continue,
                _ = stop.recv() => break,
            }
        };
        let runner_update = matches!(action, Action::Runner(_));
        let fan_report = matches!(action, Action::Fan(_));
        let loaded = matches!(action, Action::Loaded { .. } | Action::LoadEnded { .. });
        pending.extend(update(&mut state, action));
        // Fold the updates already waiting (a runner's, a journal's batches) into the same frame.
        if let (true, Some(l)) = (runner_update, live.as_mut()) {
            fold_waiting(&mut state, &mut pending, || l.updates.try_recv().ok().map(Action::Runner));
        }
        if fan_report {
            fold_waiting(&mut state, &mut pending, || fans.waiting().map(Action::Fan));
        }
        if let (true, Some(rx)) = (loaded, loader.as_mut()) {
            fold_waiting(&mut state, &mut pending, || rx.try_recv().ok());
        }
        // Nothing reads that journal any more (it ended, or another episode replaced it).
        if loaded && !state.loading() {
            loader = None;
        }
        frames.dirty = true;
    }
    if let Some(l) = live.take() {
        l.stop().await;
    }
    fans.stop().await;
    drop(guard);
    Ok(())
}

/// Folds the updates already waiting into the state, up to [`MAX_FOLD`], so that they make one
/// frame (a fork's catch-up, a fast stream, a journal's batches).
fn fold_waiting(
    state: &mut AppState,
    pending: &mut VecDeque<Effect>,
    mut next: impl FnMut() -> Option<Action>,
) {
    for _ in 1..MAX_FOLD {
        let Some(more) = next() else { break };
        pending.extend(update(state, more));
    }
}

/// An index batch with the batches already waiting behind it, as one: the browser rebuilds its
/// list once for them all, so the indexer is not held up by one rebuild per batch. An answer of
/// another kind read meanwhile is `held` for the next turn of the loop.
fn merge_indexed(action: Action, answers: &mut mpsc::Receiver<Action>, held: &mut Option<Action>) -> Action {
    let Action::Indexed { mut rows, mut errors, mut progress, mut elapsed, mut done } = action else {
        return action;
    };
    while !done {
        match answers.try_recv() {
            Ok(Action::Indexed { rows: more, errors: more_errors, progress: p, elapsed: e, done: d }) => {
                rows.extend(more);
                errors.extend(more_errors);
                (progress, elapsed, done) = (p, e, d);
            }
            Ok(other) => {
                *held = Some(other);
                break;
            }
            Err(_) => break,
        }
    }
    Action::Indexed { rows, errors, progress, elapsed, done }
}

/// At most one frame per tick, drawn only when something changed, inside a synchronized update
/// (the terminal shows it whole, never half-drawn).
struct Frames {
    dirty: bool,
    last: Instant,
}

impl Default for Frames {
    fn default() -> Self {
        Frames { dirty: true, last: Instant::now() - TICK }
    }
}

impl Frames {
    fn draw_if_due(
        &mut self,
        guard: &mut TerminalGuard,
        state: &AppState,
        theme: &Theme,
    ) -> anyhow::Result<()> {
        if !self.dirty || self.last.elapsed() < TICK {
            return Ok(());
        }
        let terminal = &mut guard.terminal;
        ratatui::crossterm::queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
        terminal.draw(|frame| crate::ui::draw(frame, state, theme))?;
        ratatui::crossterm::execute!(terminal.backend_mut(), EndSynchronizedUpdate)?;
        self.dirty = false;
        self.last = Instant::now();
        Ok(())
    }

    async fn next_frame(&self) {
        tokio::time::sleep_until((self.last + TICK).into()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::corpus::index::IndexProgress;

    fn batch(files_done: usize, errors: &[&str], done: bool) -> Action {
        Action::Indexed {
            rows: Vec::new(),
            errors: errors.iter().map(|e| e.to_string()).collect(),
            progress: IndexProgress { files_done, files_total: 30, bytes_done: 0 },
            elapsed: Duration::from_millis(files_done as u64),
            done,
        }
    }

    #[test]
    fn waiting_index_batches_are_merged_and_another_answer_is_held() {
        let (tx, mut rx) = mpsc::channel(8);
        for action in [batch(20, &["b"], false), Action::Problem("p".into()), batch(30, &[], true)] {
            tx.try_send(action).unwrap();
        }
        let mut held = None;
        let merged = merge_indexed(batch(10, &["a"], false), &mut rx, &mut held);
        assert_eq!(merged, batch(20, &["a", "b"], false));
        assert_eq!(held, Some(Action::Problem("p".into())));
        // The last batch ends the run: nothing after it is read.
        let mut held = None;
        tx.try_send(Action::Problem("q".into())).unwrap();
        assert_eq!(merge_indexed(rx.try_recv().unwrap(), &mut rx, &mut held), batch(30, &[], true));
        assert_eq!(held, None);
        assert_eq!(rx.try_recv().unwrap(), Action::Problem("q".into()));
    }
}
