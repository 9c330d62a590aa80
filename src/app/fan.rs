//! An attempt fan on screen: the attempts as they start, stream and end, and the tallies of
//! their verdicts (per judge source, with the Wilson interval) recomputed as verdicts arrive.
//! Only ended attempts are tallied: a running one is neither a leak nor undecided yet.

use std::path::PathBuf;

use crate::core::episode::{Event, EventBody};
use crate::core::fan::{Attempt, FanMode, SourceTally, tally};
use crate::session::fan::FanUpdate;

/// One attempt of the fan.
#[derive(Debug, Clone)]
pub struct FanAttempt {
    pub index: u32,
    pub journal: PathBuf,
    pub episode: String,
    /// Its events as its journal has them (the copied part first).
    pub events: Vec<Event>,
    /// How it ended (`None` while it runs).
    pub end: Option<String>,
    pub error: Option<String>,
    /// Its own verdicts, per (judge, source).
    pub summary: Attempt,
}

impl FanAttempt {
    /// The last turn it reached.
    pub fn turn(&self) -> u32 {
        self.events
            .iter()
            .rev()
            .find_map(|e| match &e.body {
                EventBody::Message(m) => Some(m.turn),
                _ => None,
            })
            .unwrap_or(0)
    }
}

pub struct FanView {
    /// The episode fanned out, and where it is (reopened when the fan screen closes).
    pub episode_id: String,
    pub origin: PathBuf,
    pub turn: u32,
    pub mode: FanMode,
    pub planned: u32,
    pub dir: PathBuf,
    /// It goes on with a stopped fan (whose ended attempts are reported first).
    pub resumed: bool,
    /// The loop said it started: reports before that are another fan's, still on their way.
    pub started: bool,
    /// Events copied from the episode into each attempt (header included): its own come after.
    pub copied: usize,
    pub attempts: Vec<FanAttempt>,
    pub selected: usize,
    pub paused: bool,
    /// Steps taken while paused (each lets every running attempt make one model call).
    pub steps: u32,
    pub done: bool,
    /// Why the fan stopped early (an attempt could not start).
    pub problem: Option<String>,
    /// The tallies of the ended attempts.
    pub tallies: Vec<SourceTally>,
}

impl FanView {
    pub fn new(
        episode_id: String,
        origin: PathBuf,
        turn: u32,
        mode: FanMode,
        planned: u32,
        dir: PathBuf,
        copied: usize,
    ) -> FanView {
        FanView {
            episode_id,
            origin,
            turn,
            mode,
            planned,
            dir,
            resumed: false,
            started: false,
            copied,
            attempts: Vec::new(),
            selected: 0,
            paused: false,
            steps: 0,
            done: false,
            problem: None,
            tallies: Vec::new(),
        }
    }

    /// Folds one report of the fan in.
    pub fn apply(&mut self, update: FanUpdate) {
        match update {
            FanUpdate::Started { index, journal, episode } => {
                let summary = Attempt::of(index, journal.clone(), String::new(), &[], 0);
                self.attempts.push(FanAttempt {
                    index,
                    journal,
                    episode,
                    events: Vec::new(),
                    end: None,
                    error: None,
                    summary,
                });
                self.attempts.sort_by_key(|a| a.index);
            }
            FanUpdate::Recorded { index, journal, events, reason, error } => {
                let episode = match events.first().map(|e| &e.body) {
                    Some(EventBody::Episode(header)) => header.id.clone(),
                    _ => String::new(),
                };
                let summary = Attempt::of(index, journal.clone(), reason.clone(), &events, self.copied);
                self.attempts.push(FanAttempt {
                    index,
                    journal,
                    episode,
                    events,
                    end: Some(reason),
                    error,
                    summary,
                });
                self.attempts.sort_by_key(|a| a.index);
                self.retally();
            }
            FanUpdate::Event { index, event } => {
                let verdict = matches!(event.body, EventBody::Verdict(_));
                let copied = self.copied;
                if let Some(a) = self.attempt_mut(index) {
                    a.events.push(*event);
                    if verdict {
                        a.summary = Attempt::of(index, a.journal.clone(), String::new(), &a.events, copied);
                    }
                }
            }
            FanUpdate::Ended { index, reason, error } => {
                let copied = self.copied;
                if let Some(a) = self.attempt_mut(index) {
                    a.summary = Attempt::of(index, a.journal.clone(), reason.clone(), &a.events, copied);
                    a.end = Some(reason);
                    a.error = error;
                }
                self.retally();
            }
            FanUpdate::NotStarted { index, problem } => {
                self.problem = Some(format!("attempt {index} could not start: {problem}"))
            }
            FanUpdate::Problem(problem) => self.problem = Some(problem),
            FanUpdate::Done => self.done = true,
        }
    }

    fn attempt_mut(&mut self, index: u32) -> Option<&mut FanAttempt> {
        self.attempts.iter_mut().find(|a| a.index == index)
    }

    fn retally(&mut self) {
        let ended: Vec<Attempt> =
            self.attempts.iter().filter(|a| a.end.is_some()).map(|a| a.summary.clone()).collect();
        self.tallies = tally(&ended, self.turn);
    }

    pub fn ended(&self) -> usize {
        self.attempts.iter().filter(|a| a.end.is_some()).count()
    }

    pub fn running(&self) -> usize {
        self.attempts.len() - self.ended()
    }

    pub fn select_by(&mut self, delta: isize) {
        let last = self.attempts.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }

    pub fn selected_attempt(&self) -> Option<&FanAttempt> {
        self.attempts.get(self.selected)
    }
}
