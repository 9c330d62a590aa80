//! What has the keys: the screen, and the modal stack of overlays and questions above it.

use super::detail::Detail;
use super::notes::AnnotateForm;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Inspector,
    Browser,
    Tasks,
    /// Two episodes side by side, turn by turn (`inspectors[0]` and `[1]`).
    Compare,
    /// The results of a search across episodes.
    Hits,
    /// An attempt fan filling (`state.fan`).
    Fan,
    /// The forks and fans of an episode as a tree (`state.fork_tree`).
    ForkTree,
}

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
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub input: String,
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
    },
    Annotate(AnnotateForm),
    /// The annotations panel, with the selected row.
    Annotations {
        selected: usize,
    },
    /// Above the annotations panel: delete the selected one?
    ConfirmDelete,
    /// The episode is still running: abort it and quit?
    ConfirmQuit,
}
