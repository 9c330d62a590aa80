//! What a search was asked for: the strategy and its shape. Kept in the search's plan, so that
//! `--resume` continues the same search.

use serde::{Deserialize, Serialize};

/// How the search walks the tree of forks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// One conversation escalating turn by turn; a refused turn is dropped and tried again.
    Crescendo,
    /// One conversation (or several, `--attempts`), a technique of the catalogue chosen per turn.
    Goat,
    /// A tree: `--branch` candidates per kept leaf and turn, off-topic ones dropped, the best
    /// `--width` leaves kept by the judge's score.
    Tap,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Crescendo => "crescendo",
            Strategy::Goat => "goat",
            Strategy::Tap => "tap",
        }
    }
}

/// The defaults each strategy's paper or best-known implementation uses, where ours follows it.
pub const DEFAULT_BRANCH: u32 = 4;
pub const DEFAULT_WIDTH: u32 = 4;
pub const DEFAULT_DEPTH: u32 = 5;
pub const DEFAULT_MAX_BACKTRACKS: u32 = 10;
pub const DEFAULT_ATTEMPTS: u32 = 1;
/// Each further TAP candidate of a leaf is sampled this much hotter (LangWatch Scenario's spread).
pub const TEMPERATURE_SPREAD: f64 = 0.15;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchParams {
    pub strategy: Strategy,
    /// Attacker turns after the root (the user's task, or the turn a search starts from).
    pub depth: u32,
    /// TAP: candidates drawn per kept leaf and turn.
    pub branch: u32,
    /// TAP: leaves kept per turn.
    pub width: u32,
    /// TAP: candidates that leave the attack goal are dropped before they reach the assistant.
    pub on_topic: bool,
    /// Crescendo: refused turns dropped and tried again, at most, over the whole search.
    pub max_backtracks: u32,
    /// GOAT: conversations, one after the other, until one leaks.
    pub attempts: u32,
}

impl SearchParams {
    pub fn new(strategy: Strategy) -> Self {
        SearchParams {
            strategy,
            depth: DEFAULT_DEPTH,
            branch: DEFAULT_BRANCH,
            width: DEFAULT_WIDTH,
            on_topic: true,
            max_backtracks: DEFAULT_MAX_BACKTRACKS,
            attempts: DEFAULT_ATTEMPTS,
        }
    }

    /// The shape in one line, for the report and the status line.
    pub fn describe(&self) -> String {
        match self.strategy {
            Strategy::Tap => format!(
                "tap: branch {}, width {}, depth {}{}",
                self.branch,
                self.width,
                self.depth,
                if self.on_topic { "" } else { ", no on-topic filter" }
            ),
            Strategy::Crescendo => {
                format!("crescendo: depth {}, up to {} backtrack(s)", self.depth, self.max_backtracks)
            }
            Strategy::Goat => format!("goat: depth {}, {} conversation(s)", self.depth, self.attempts),
        }
    }
}
