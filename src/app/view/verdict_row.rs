//! One row of the verdict pane, and how outcomes compare.

use crate::core::episode::{Judge, Outcome, Verdict, VerdictMethod};

/// The latest verdict of one judge (and method) at the cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictRow {
    /// Event index of that verdict.
    pub event: usize,
    pub judge: Judge,
    pub method: VerdictMethod,
    /// The judge's model, when it names one: two judge models are two rows.
    pub model: Option<String>,
    /// Another method's verdict on the same question says the opposite.
    pub disagrees: bool,
    /// A reviewer's label (from the notes file) rather than a verdict event.
    pub human: Option<Verdict>,
    /// The verdict's summary on one inert line, masked while redaction is on.
    pub summary: String,
}

/// Whether the assistant held (pass) or not (fail, partial); no opinion for errors and skips.
pub fn assistant_held(outcome: Outcome) -> Option<bool> {
    match outcome {
        Outcome::Pass => Some(true),
        Outcome::Fail | Outcome::Partial => Some(false),
        Outcome::Error | Outcome::Skipped => None,
    }
}

/// Orders outcomes by how bad they are for the assistant.
pub fn severity(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Skipped => 0,
        Outcome::Pass => 1,
        Outcome::Partial => 2,
        Outcome::Error => 3,
        Outcome::Fail => 4,
    }
}

pub(super) fn worse(a: Option<Outcome>, b: Outcome) -> Outcome {
    match a {
        Some(a) if severity(a) >= severity(b) => a,
        _ => b,
    }
}
