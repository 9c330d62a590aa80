//! The UI loop: read an action from the inbox (and those already waiting), `update`, execute the
//! effects (an answer at once goes back to `update`), draw.

use std::ops::ControlFlow;
use std::time::Instant;

use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};

use crate::app::{Action, AppState, update};
use crate::config::Theme;

use super::executor::{Executor, Sources, TICK};
use super::inbox::Inbox;
use super::terminal::TerminalGuard;

/// Most actions folded into one frame (a fork's catch-up, a fast stream, a journal's batches).
const MAX_FOLD: usize = 4096;

/// Runs the screen until the user quits or a signal asks us to stop.
pub async fn run(mut state: AppState, theme: Theme, sources: Sources) -> anyhow::Result<()> {
    let (mut inbox, outbox) = Inbox::new();
    let mut executor = Executor::start(outbox, sources)?;
    let size = executor.terminal().terminal.size()?;
    let mut frames = Frames::default();
    let mut flow = step(&mut state, &mut executor, Action::Resize(size.width, size.height)).await;
    while flow.is_continue() {
        // Draw (at most once a tick), then read the rest of a journal whose start is drawn.
        frames.draw_if_due(executor.terminal(), &state, &theme)?;
        executor.drawn();
        // Read: the next action, or the next frame slot while a change waits for it.
        let read = tokio::select! {
            action = inbox.next() => action,
            () = frames.next_frame(), if frames.dirty => continue,
        };
        let Some(first) = read else { break };
        // Update and execute: that action and those already waiting, folded into one frame.
        let waiting = std::iter::from_fn(|| inbox.waiting());
        for action in std::iter::once(first).chain(waiting).take(MAX_FOLD) {
            flow = step(&mut state, &mut executor, action).await;
            if flow.is_break() {
                break;
            }
        }
        frames.dirty = true;
    }
    executor.close().await;
    Ok(())
}

/// `update` with one action, then its effects carried out, and what they answer at once.
async fn step(state: &mut AppState, executor: &mut Executor, action: Action) -> ControlFlow<()> {
    let mut effects = std::collections::VecDeque::from(update(state, action));
    while let Some(effect) = effects.pop_front() {
        if let Some(answer) = executor.execute(effect).await? {
            effects.extend(update(state, answer));
        }
    }
    ControlFlow::Continue(())
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
