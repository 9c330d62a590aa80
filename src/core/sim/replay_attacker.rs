//! A recorded attack replayed while the assistant answers as it did when it was recorded; from
//! the first reply that differs, a model plays the attacker on (an attack case's
//! `continue = "live"`). The replayed messages are marked `by: script`, the model's are not, so
//! the journal shows where the run diverged.

use futures_util::future::BoxFuture;

use crate::core::llm::Endpoint;

use super::attacker::{Attacker, AttackerContext, AttackerMove, LlmAttacker};
use super::prompts::AttackerHistoryRole;
use super::run_error::RunError;

/// A recorded attack to play instead of the launcher's attacker (an attack case's run).
#[derive(Debug, Clone, Default)]
pub struct RecordedAttack {
    /// The attacker messages after the user's task.
    pub lines: Vec<String>,
    /// The assistant's recorded replies, for `live`.
    pub replies: Vec<String>,
    /// From the first reply that differs, a model plays on (else every line is sent verbatim).
    pub live: bool,
    /// The model for `live` when not the launcher's attacker model.
    pub attacker_model: Option<String>,
    /// Where it was recorded (the case file), for the journal header.
    pub source: String,
}

impl RecordedAttack {
    /// The `max_turns` that sends every recorded line: the user's task is turn 1, the lines
    /// turns 2 … n + 1, each answered.
    pub fn max_turns_to_send_all(&self) -> u32 {
        u32::try_from(self.lines.len()).unwrap_or(u32::MAX).saturating_add(2)
    }
}

pub struct ReplayThenLive {
    /// The recorded attacker messages after the user's task.
    lines: Vec<String>,
    /// The recorded assistant replies (the first answers the user's task).
    replies: Vec<String>,
    model: LlmAttacker,
    source: String,
    diverged: bool,
}

impl ReplayThenLive {
    pub fn new(lines: Vec<String>, replies: Vec<String>, model: LlmAttacker, source: String) -> Self {
        ReplayThenLive { lines, replies, model, source, diverged: false }
    }

    /// The recorded line for the next turn, unless the last reply left the recording.
    fn recorded_next(&mut self, history: &[(AttackerHistoryRole, String)]) -> Option<String> {
        let replies: Vec<&str> = history
            .iter()
            .filter(|(role, _)| *role == AttackerHistoryRole::Assistant)
            .map(|(_, text)| text.as_str())
            .collect();
        let answered = replies.len();
        let last = answered.checked_sub(1)?;
        let as_recorded = self.replies.get(last).is_some_and(|r| same_words(r, replies[last]));
        if !as_recorded {
            self.diverged = true;
        }
        if self.diverged { None } else { self.lines.get(last).cloned() }
    }
}

/// Equal but for whitespace: a reply re-wrapped by a transport is the same reply.
fn same_words(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

impl Attacker for ReplayThenLive {
    fn next<'a>(&'a mut self, ctx: AttackerContext<'a>) -> BoxFuture<'a, Result<AttackerMove, RunError>> {
        match self.recorded_next(ctx.history) {
            Some(text) => Box::pin(async move {
                Ok(AttackerMove::Say { text, raw: None, model: None, usage: None, by: Some("script".into()) })
            }),
            None => self.model.next(ctx),
        }
    }

    fn kind(&self) -> &'static str {
        "scripted"
    }

    fn source(&self) -> Option<&str> {
        Some(&self.source)
    }

    fn endpoint(&self) -> Option<&Endpoint> {
        Some(&self.model.endpoint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::llm::{GenerationParams, Role};

    fn attacker() -> ReplayThenLive {
        let model = LlmAttacker {
            endpoint: Endpoint::new(Role::Attacker, "http://127.0.0.1:9", "m"),
            params: GenerationParams::default(),
        };
        ReplayThenLive::new(
            vec!["second".into(), "third".into()],
            vec!["reply one".into(), "reply two".into()],
            model,
            "case.toml".into(),
        )
    }

    fn history(replies: &[&str]) -> Vec<(AttackerHistoryRole, String)> {
        let mut h = vec![(AttackerHistoryRole::Attacker, "task".to_string())];
        for r in replies {
            h.push((AttackerHistoryRole::Assistant, r.to_string()));
            h.push((AttackerHistoryRole::Attacker, "…".to_string()));
        }
        h.pop();
        h
    }

    #[test]
    fn replays_while_the_replies_match_and_stops_at_the_first_that_differs() {
        let mut a = attacker();
        assert_eq!(a.recorded_next(&history(&["reply  one\n"])).as_deref(), Some("second"));
        assert_eq!(a.recorded_next(&history(&["reply one", "reply two"])).as_deref(), Some("third"));
        let mut b = attacker();
        assert_eq!(b.recorded_next(&history(&["something else"])), None);
        // Once diverged, never back to the recording.
        assert_eq!(b.recorded_next(&history(&["reply one", "reply two"])), None);
    }

    #[test]
    fn past_the_recording_the_model_plays_on() {
        let mut a = attacker();
        assert_eq!(a.recorded_next(&history(&["reply one", "reply two", "reply three"])), None);
    }
}
