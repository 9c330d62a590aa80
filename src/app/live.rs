//! A live episode on the inspector screen: what the runner is doing, tokens
//! per role, elapsed time, the reply being streamed, and the quit question.

use std::ops::Range;
use std::time::Duration;

use crate::core::episode::{EndReason, EventBody, Party};
use crate::core::llm::{PerRole, Role};
use crate::core::sim::emitter::{Phase, RunnerUpdate};
use crate::core::sim::gate::GateMode;

use super::wrap::wrap;

/// What the UI asks the runner to do (the loop applies it to the step gate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunnerControl {
    Pause,
    Resume,
    StepCall,
    StepTurn,
    Abort,
}

/// Tokens in and out for one role.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Streaming {
    pub role: Role,
    pub text: String,
    /// `text` wrapped at the width of the pane it shows in.
    pub lines: Vec<Range<usize>>,
    width: usize,
    /// Characters of `text` so far.
    pub chars: usize,
}

impl Streaming {
    /// Appends a delta and wraps only the last line onwards: the lines before it cannot change
    /// (greedy wrapping decides a line from its own words), so a long reply costs per delta
    /// what its tail costs, not the whole text.
    fn append(&mut self, delta: &str) {
        let start = self.lines.pop().map_or(0, |last| last.start);
        self.text.push_str(delta);
        self.chars += delta.chars().count();
        let tail = wrap(&self.text[start..], self.width);
        self.lines.extend(tail.into_iter().map(|line| line.start + start..line.end + start));
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LiveState {
    pub phase: Option<Phase>,
    /// The gate as it last reported itself.
    pub gate: GateMode,
    pub elapsed: Duration,
    pub tokens: PerRole<Tokens>,
    pub streaming: Option<Streaming>,
    /// The latest retry notice.
    pub notice: Option<String>,
    /// What the runner warned of (the agent never reached its tools…): kept to the end.
    pub warning: Option<String>,
    pub finished: bool,
    /// How the episode ended, once its `end` event came.
    pub end_reason: Option<EndReason>,
    /// The last error the runner journaled ("assistant: HTTP 503 …"): why it ended in error.
    pub error: Option<String>,
    pub journal: String,
    /// The attacker's next message, held for an edit while paused.
    pub pending: Option<String>,
    /// A human plays the attacker (the composer sends their messages).
    pub human: bool,
}

impl LiveState {
    pub fn new(journal: impl Into<String>, paused: bool) -> Self {
        LiveState {
            phase: None,
            gate: if paused { GateMode::Paused } else { GateMode::Running },
            elapsed: Duration::ZERO,
            tokens: PerRole::default(),
            streaming: None,
            notice: None,
            warning: None,
            finished: false,
            end_reason: None,
            error: None,
            journal: journal.into(),
            pending: None,
            human: false,
        }
    }

    pub fn tokens(&self, role: Role) -> Tokens {
        self.tokens[role]
    }

    pub fn paused(&self) -> bool {
        self.gate == GateMode::Paused
    }

    /// Whether the episode's clock runs: not finished, and not held by a pause
    /// (a call already in flight while pausing still counts).
    pub fn clock_runs(&self) -> bool {
        !self.finished && (!self.paused() || matches!(self.phase, Some(Phase::Waiting(_))))
    }

    /// Why the episode ended in error, when it did.
    pub fn ended_in_error(&self) -> Option<&str> {
        (self.end_reason == Some(EndReason::Error))
            .then(|| self.error.as_deref().unwrap_or("the runner gave no reason"))
    }

    /// Folds a runner update in (events themselves go to the episode view).
    pub fn apply(&mut self, update: &RunnerUpdate, stream_width: usize) {
        match update {
            RunnerUpdate::Event(event) => {
                if matches!(&event.body, EventBody::Message(m) if m.from == Party::Attacker) {
                    self.pending = None;
                }
                if let EventBody::Message(m) = &event.body {
                    let role = match m.from {
                        Party::Attacker => Some(Role::Attacker),
                        Party::Assistant => Some(Role::Assistant),
                        _ => None,
                    };
                    if self.streaming.as_ref().is_some_and(|s| Some(s.role) == role) {
                        self.streaming = None;
                    }
                }
                if let EventBody::Error(error) = &event.body {
                    self.error = Some(format!("{}: {}", error.source, error.message));
                }
                if let EventBody::End(end) = &event.body {
                    self.finished = true;
                    self.end_reason = Some(end.reason);
                    self.streaming = None;
                    // A retry notice is stale once the episode is over.
                    self.notice = None;
                }
            }
            RunnerUpdate::Delta { role, text } => {
                let streaming = self.streaming.get_or_insert_with(|| Streaming {
                    role: *role,
                    text: String::new(),
                    lines: Vec::new(),
                    width: stream_width,
                    chars: 0,
                });
                if streaming.role != *role {
                    *streaming = Streaming {
                        role: *role,
                        text: String::new(),
                        lines: Vec::new(),
                        width: stream_width,
                        chars: 0,
                    };
                }
                streaming.append(&crate::core::sanitize::inert(text));
            }
            RunnerUpdate::Usage { role, usage } => {
                let t = &mut self.tokens[*role];
                t.input += usage.input_tokens;
                t.output += usage.output_tokens;
            }
            RunnerUpdate::Phase(phase) => {
                self.phase = Some(*phase);
                if matches!(phase, Phase::Waiting(_)) {
                    self.notice = None;
                    // A new call starts a new stream.
                    self.streaming = None;
                }
                if *phase == Phase::Finished {
                    self.finished = true;
                }
            }
            RunnerUpdate::Notice(text) => self.notice = Some(text.clone()),
            RunnerUpdate::Warning(text) => {
                self.warning = Some(crate::core::sanitize::inert(text).into_owned())
            }
            RunnerUpdate::Pending(text) => self.pending = Some(text.clone()),
        }
    }

    pub fn set_stream_width(&mut self, width: usize) {
        if let Some(s) = &mut self.streaming
            && s.width != width
        {
            s.width = width;
            s.lines = wrap(&s.text, width);
        }
    }
}

/// `12.3k`
pub fn short_count(n: u64) -> String {
    if n >= 1000 { format!("{:.1}k", n as f64 / 1000.0) } else { n.to_string() }
}
