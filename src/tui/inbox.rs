//! The one inbox of the event loop: every background source (the terminal's events, the clock,
//! stop signals, the runner, the fan, loads, searches, the indexer) sends `Action`s into one
//! channel, and the loop reads them from here only.

use std::time::{Duration, Instant};

use crossterm::event::EventStream;
use futures_util::StreamExt;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::app::Action;

/// Actions waiting at most: a source sending faster than the screen folds them waits (a journal
/// read ahead holds its batches' events in memory, so few).
const CAPACITY: usize = 8;

pub struct Inbox {
    rx: mpsc::Receiver<Action>,
    /// An action read past a run of index batches (see [`merge_indexed`]), handed out next.
    held: Option<Action>,
}

/// Where the sources send.
pub type Outbox = mpsc::Sender<Action>;

impl Inbox {
    pub fn new() -> (Inbox, Outbox) {
        let (tx, rx) = mpsc::channel(CAPACITY);
        (Inbox { rx, held: None }, tx)
    }

    /// The next action (pending until one comes).
    pub async fn next(&mut self) -> Option<Action> {
        let action = match self.held.take() {
            Some(action) => action,
            None => self.rx.recv().await?,
        };
        Some(merge_indexed(action, &mut self.rx, &mut self.held))
    }

    /// An action already waiting, if one is.
    pub fn waiting(&mut self) -> Option<Action> {
        let action = self.held.take().or_else(|| self.rx.try_recv().ok())?;
        Some(merge_indexed(action, &mut self.rx, &mut self.held))
    }
}

/// An index batch with the batches already waiting behind it, as one: the browser rebuilds its
/// list once for them all, so the indexer is not held up by one rebuild per batch. An answer of
/// another kind read meanwhile is `held` for the next read.
fn merge_indexed(action: Action, rx: &mut mpsc::Receiver<Action>, held: &mut Option<Action>) -> Action {
    let Action::Indexed { mut rows, mut errors, mut progress, mut elapsed, mut done } = action else {
        return action;
    };
    while !done {
        match rx.try_recv() {
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

/// The terminal's events as actions; its end (or an error reading it) stops the screen. No
/// polling: nothing wakes the loop while idle. Aborting the task stops reading the keys (the
/// stream's reader thread leaves its poll when the stream is dropped).
pub fn read_terminal(inbox: Outbox) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut events = EventStream::new();
        while let Some(Ok(event)) = events.next().await {
            if inbox.send(Action::Terminal(event)).await.is_err() {
                return;
            }
        }
        let _ = inbox.send(Action::Stop).await;
    })
}

/// SIGINT, SIGTERM and SIGHUP as [`Action::Stop`].
pub fn read_signals(inbox: Outbox) -> std::io::Result<()> {
    let mut signals = crate::core::signals::stop_signals()?;
    tokio::spawn(async move {
        while signals.recv().await.is_some() {
            if inbox.send(Action::Stop).await.is_err() {
                return;
            }
        }
    });
    Ok(())
}

/// `Action::Tick`s every `period` while the switch is on (autoplay, a live clock), none otherwise:
/// an idle screen makes no system calls.
pub fn tick(inbox: Outbox, period: Duration) -> watch::Sender<bool> {
    let (switch, mut on) = watch::channel(false);
    tokio::spawn(async move {
        loop {
            while !*on.borrow_and_update() {
                if on.changed().await.is_err() {
                    return;
                }
            }
            let mut ticks = tokio::time::interval_at((Instant::now() + period).into(), period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            let mut last = Instant::now();
            loop {
                tokio::select! {
                    _ = ticks.tick() => {
                        let now = Instant::now();
                        if inbox.send(Action::Tick(now - last)).await.is_err() {
                            return;
                        }
                        last = now;
                    }
                    changed = on.changed() => match changed {
                        Ok(()) if *on.borrow_and_update() => {}
                        Ok(()) => break,
                        Err(_) => return,
                    },
                }
            }
        }
    });
    switch
}

/// Sends `started`, then each report of a background source (a fan, an attack search) as
/// `wrap` makes it an action, until its channel closes (the "started" action first, so the
/// screen tells its reports from those of one it replaced).
pub fn forward<T: Send + 'static>(
    inbox: Outbox,
    started: Action,
    mut reports: mpsc::Receiver<T>,
    wrap: fn(T) -> Action,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        if inbox.send(started).await.is_err() {
            return;
        }
        while let Some(report) = reports.recv().await {
            if inbox.send(wrap(report)).await.is_err() {
                return;
            }
        }
    })
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

    #[tokio::test]
    async fn waiting_index_batches_are_merged_and_another_answer_is_held() {
        let (mut inbox, tx) = Inbox::new();
        for action in [batch(10, &["a"], false), batch(20, &["b"], false), Action::Problem("p".into())] {
            tx.try_send(action).unwrap();
        }
        tx.try_send(batch(30, &[], true)).unwrap();
        assert_eq!(inbox.next().await, Some(batch(20, &["a", "b"], false)));
        assert_eq!(inbox.waiting(), Some(Action::Problem("p".into())));
        // The last batch ends the run: nothing after it is read.
        tx.try_send(Action::Problem("q".into())).unwrap();
        assert_eq!(inbox.waiting(), Some(batch(30, &[], true)));
        assert_eq!(inbox.waiting(), Some(Action::Problem("q".into())));
        assert_eq!(inbox.waiting(), None);
    }
}
