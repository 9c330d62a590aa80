//! The UI loop: terminal input, ticks and signals in; `update`, effects, `draw` out.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{self, Event as TermEvent};
use tokio::sync::mpsc;

use crate::app::{Action, AppState, Effect, update};
use crate::config::Theme;

use super::terminal::TerminalGuard;

/// How often time advances for autoplay (and the screen refreshes while playing).
const TICK: Duration = Duration::from_millis(50);

/// Runs the inspector until the user quits or a signal asks us to stop.
pub async fn run(mut state: AppState, theme: Theme) -> anyhow::Result<()> {
    let mut guard = TerminalGuard::new()?;
    let size = guard.terminal.size()?;
    update(&mut state, Action::Resize(size.width, size.height));
    let (tx, mut input) = mpsc::channel::<Action>(256);
    spawn_input_reader(tx);
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last_tick = Instant::now();
    let mut stop = stop_signals()?;
    let mut dirty = true;
    loop {
        if dirty {
            guard.terminal.draw(|frame| crate::ui::draw(frame, &state, &theme))?;
            dirty = false;
        }
        let action = tokio::select! {
            action = input.recv() => match action {
                Some(action) => action,
                None => break,
            },
            _ = ticks.tick() => {
                let now = Instant::now();
                let dt = now - last_tick;
                last_tick = now;
                if !state.autoplay.playing {
                    continue;
                }
                Action::Tick(dt)
            }
            _ = stop.recv() => break,
        };
        dirty = true;
        for effect in update(&mut state, action) {
            match effect {
                Effect::Quit => return finish(guard),
                Effect::RunTask(id) => {
                    state.message = Some(format!(
                        "run it with: converse-tui run --task {id} --assistant-model M --attacker-model M"
                    ))
                }
            }
        }
    }
    finish(guard)
}

fn finish(guard: TerminalGuard) -> anyhow::Result<()> {
    drop(guard);
    Ok(())
}

/// Reads terminal events on a thread of its own (crossterm's read blocks).
fn spawn_input_reader(tx: mpsc::Sender<Action>) {
    std::thread::spawn(move || {
        loop {
            if tx.is_closed() {
                return;
            }
            match event::poll(Duration::from_millis(100)) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(_) => return,
            }
            let action = match event::read() {
                Ok(TermEvent::Key(key)) => Action::Key(key),
                Ok(TermEvent::Mouse(mouse)) => Action::Mouse(mouse),
                Ok(TermEvent::Paste(text)) => Action::Paste(text),
                Ok(TermEvent::Resize(w, h)) => Action::Resize(w, h),
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.blocking_send(action).is_err() {
                return;
            }
        }
    });
}

/// SIGINT (from outside: in raw mode Ctrl-C is a key), SIGTERM and SIGHUP end the loop cleanly.
fn stop_signals() -> std::io::Result<mpsc::Receiver<()>> {
    let (tx, rx) = mpsc::channel(1);
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        for kind in [SignalKind::interrupt(), SignalKind::terminate(), SignalKind::hangup()] {
            let mut sig = signal(kind)?;
            let tx = tx.clone();
            tokio::spawn(async move {
                if sig.recv().await.is_some() {
                    let _ = tx.send(()).await;
                }
            });
        }
    }
    #[cfg(not(unix))]
    {
        let tx = tx.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                let _ = tx.send(()).await;
            }
        });
    }
    Ok(rx)
}
