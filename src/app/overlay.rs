//! What sits above the screen: the modal stack of overlays and questions, the last one with the keys.

use std::borrow::Cow;

use crate::core::fan::stopped::StoppedFan;

use super::detail::Detail;
use super::notes::AnnotateForm;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    JumpToTurn,
    Search,
    Filter,
    /// A search across every episode (the browser's, or the one on screen).
    SearchEpisodes,
    /// The suite directory the episode (or the browser's marked ones) is kept in as attack cases.
    KeepCase,
    /// How many attempts of a fan from the turn under the cursor (`N`, or `N r` for the rest).
    FanAttempts,
    /// The strategy and budget of an attack search (`tap 60`).
    AttackStart,
    /// The message sent instead of the selected node's.
    EditNode,
}

impl PromptKind {
    pub fn label(self) -> &'static str {
        match self {
            PromptKind::JumpToTurn => "jump to turn",
            PromptKind::Search => "search",
            PromptKind::Filter => "filter",
            PromptKind::SearchEpisodes => "search all episodes",
            PromptKind::KeepCase => "keep as an attack case in suite",
            // Short enough that what is typed shows at 80 columns.
            PromptKind::FanAttempts => "re-run from here how many times? (N, or N r: the rest live)",
            PromptKind::AttackStart => "attack search: tap|crescendo|goat, then a budget of calls",
            PromptKind::EditNode => "send instead",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub input: String,
    /// The input is a suggestion (`tap 60`, the last suite): Enter takes it, the first key typed
    /// replaces it, Backspace clears it.
    pub offered: bool,
    /// `f`'s question: a stopped fan of the episode and turn, found while it asks; Enter alone
    /// finishes it.
    pub stopped_fan: Option<Box<StoppedFan>>,
}

impl Prompt {
    pub fn new(kind: PromptKind, input: impl Into<String>) -> Self {
        Prompt { kind, input: input.into(), offered: false, stopped_fan: None }
    }

    /// A key typed or a paste: what the input becomes.
    pub fn type_in(&mut self, typed: Option<&str>) {
        if std::mem::take(&mut self.offered) {
            self.input.clear();
        }
        match typed {
            Some(text) => self.input.push_str(text),
            None => {
                self.input.pop();
            }
        }
    }

    /// What the prompt asks, as the status line shows it: `f`'s question names a stopped fan of
    /// the turn, which Enter alone finishes.
    pub fn label(&self) -> Cow<'static, str> {
        match (&self.stopped_fan, self.kind) {
            (Some(stopped), PromptKind::FanAttempts) => {
                let rest =
                    if stopped.plan.mode == crate::core::fan::FanMode::Rest { " (rest live)" } else { "" };
                // Short enough that what is typed shows at 80 columns.
                let (ended, planned) = (stopped.recorded.len(), stopped.plan.attempts);
                format!("a fan{rest} stopped here at {ended}/{planned}: Enter runs the rest, or N (N r) anew")
                    .into()
            }
            _ => self.kind.label().into(),
        }
    }
}

/// What sits above the screen, innermost last (one modal stack: overlays and questions).
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Detail(Detail),
    Prompt(Prompt),
    /// "Take over at turn N: you or a model as the attacker?"
    TakeOver {
        turn: u32,
        /// The episode on screen is still running (taking over aborts it).
        aborts: bool,
    },
    Annotate(AnnotateForm),
    /// The annotations panel, with the selected row.
    Annotations {
        selected: usize,
    },
    /// Above the annotations panel: delete the selected one?
    ConfirmDelete,
    /// An episode or a fan is still running: abort and quit? (`question` says which.)
    ConfirmQuit {
        question: &'static str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offered_input_is_taken_as_is_or_replaced_by_the_first_key() {
        let offered = || Prompt { offered: true, ..Prompt::new(PromptKind::AttackStart, "tap 60") };
        let mut typed = offered();
        typed.type_in(Some("g"));
        typed.type_in(Some("oat"));
        assert_eq!(typed.input, "goat");
        let mut cleared = offered();
        cleared.type_in(None);
        assert_eq!(cleared.input, "");
        // A prompt that edits what it shows (a node's text) keeps it.
        let mut edited = Prompt::new(PromptKind::EditNode, "Hello");
        edited.type_in(Some("!"));
        assert_eq!(edited.input, "Hello!");
    }
}
