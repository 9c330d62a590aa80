//! The command catalogue: every command, its layers, help group, description and default keys,
//! and what each screen's footer names (the keys come from the keymap: [`super::Keymap::footer`]).

use strum::{EnumIter, EnumString, IntoEnumIterator, IntoStaticStr};

/// What a key can do. The names are the ones users write in keymap files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, EnumIter, EnumString, IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Command {
    NextEvent,
    PrevEvent,
    NextTurn,
    PrevTurn,
    First,
    Last,
    JumpToTurn,
    PlayPause,
    StepCall,
    StepTurn,
    Continue,
    Faster,
    Slower,
    FocusNext,
    FocusPrev,
    ScrollDown,
    ScrollUp,
    PageDown,
    PageUp,
    SelectNext,
    SelectPrev,
    OpenDetail,
    EpisodeInfo,
    GoToEvidence,
    ToggleTranscript,
    Search,
    SearchEpisodes,
    NextHit,
    PrevHit,
    Copy,
    OpenInPager,
    OpenInEditor,
    Browser,
    SortNext,
    SortReverse,
    GroupView,
    ChartView,
    NextSource,
    Review,
    Tasks,
    Compose,
    EditPending,
    EndEpisode,
    TakeOver,
    Fan,
    ForkTree,
    AttackSearch,
    PruneNode,
    ExpandNode,
    EditNode,
    PinBranch,
    CompareWithOriginal,
    Redact,
    Annotate,
    Annotations,
    DeleteNote,
    Mark,
    CompareMarked,
    KeepCase,
    CycleDomain,
    CyclePersona,
    CycleSplit,
    Send,
    NewLine,
    HistoryPrev,
    HistoryNext,
    Submit,
    NextField,
    Confirm,
    TakeOverHuman,
    TakeOverModel,
    Help,
    Close,
    Quit,
}

/// Where keys go; each layer has its own bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, EnumString, IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Layer {
    Inspector,
    Browser,
    Picker,
    /// Help, detail and the annotations panel.
    Overlay,
    /// The results of a search across episodes.
    Hits,
    /// Writing as the attacker (or editing the attacker's held message).
    Composer,
    /// The annotation form and the one-line prompts (search, filter, jump to turn).
    Form,
    /// A yes/no question: any key not bound here answers no.
    Confirm,
    /// "Take over: you or a model?": any key not bound here cancels.
    TakeOver,
    /// Two episodes side by side (`compare A B`, or `=` in the browser).
    Compare,
    /// An attempt fan filling: its tallies and attempts (`f` in the inspector).
    Fan,
    /// An episode's forks and fans as a tree.
    ForkTree,
    /// An attack search unfolding in its tree (`X` on a turn or a task).
    Attack,
}

impl Layer {
    /// Layers where printable characters are text.
    pub fn takes_text(self) -> bool {
        matches!(self, Layer::Composer | Layer::Form)
    }
}

/// Groups for the help overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, EnumIter)]
pub enum Group {
    Step,
    View,
    Human,
    Tasks,
    Dialogs,
    General,
}

impl Group {
    pub fn title(self) -> &'static str {
        match self {
            Group::Step => "Step through",
            Group::View => "Panes and views",
            Group::Tasks => "Task picker",
            Group::Human => "Playing the attacker",
            Group::Dialogs => "Composer, forms and questions",
            Group::General => "General",
        }
    }
}

use Layer::{
    Attack as K, Browser as B, Compare as X, Composer as C, Confirm as Y, Fan as A, ForkTree as W, Form as F,
    Hits as H, Inspector as I, Overlay as O, Picker as P,
};

const LISTS: &[Layer] = &[I, B, P, O, X, H, A, W, K];
const SCREENS: &[Layer] = &[I, B, P];
const EVERYWHERE: &[Layer] = &[I, B, P, O, H, C, F, Y, Layer::TakeOver, X, A, W, K];

/// One command's help entry and default keys.
pub struct Spec {
    pub group: Group,
    pub description: &'static str,
    pub keys: &'static [&'static str],
    pub layers: &'static [Layer],
}

const fn spec(
    group: Group,
    description: &'static str,
    keys: &'static [&'static str],
    layers: &'static [Layer],
) -> Spec {
    Spec { group, description, keys, layers }
}

impl Command {
    /// Every command, in help order.
    pub fn all() -> impl Iterator<Item = Command> {
        Command::iter()
    }

    pub fn spec(self) -> Spec {
        use Command::*;
        use Group::{Dialogs, General, Human, Step, View};
        match self {
            NextEvent => spec(
                Step,
                "Reveal the next event (compare: the next turn)",
                &["n", "Right"],
                &[I, B, P, X, H],
            ),
            PrevEvent => spec(
                Step,
                "Step back one event (compare: the previous turn)",
                &["p", "Left"],
                &[I, B, P, X, H],
            ),
            NextTurn => spec(Step, "Reveal up to the end of the next turn", &["]"], &[I, X]),
            PrevTurn => spec(Step, "Step back to the end of the previous turn", &["["], &[I, X]),
            First => spec(Step, "Go to the first event", &["g", "Home"], LISTS),
            Last => spec(Step, "Go to the last event (follows the live tail)", &["G", "End"], LISTS),
            JumpToTurn => spec(Step, "Jump to turn N", &[":"], &[I]),
            PlayPause => spec(
                Step,
                "Play / pause (autoplay on replays, the runner live, a fan's attempts, an attack search)",
                &["Space"],
                &[I, A, K],
            ),
            StepCall => spec(
                Step,
                "Live: let one model call through, then pause (a paused fan: one per running attempt; a paused attack search: one node)",
                &["."],
                &[I, A, K],
            ),
            StepTurn => spec(Step, "Live: run to the end of the turn, then pause", &[">"], &[I]),
            Continue => spec(Step, "Live: continue running (a fan, an attack search)", &["c"], &[I, A, K]),
            Faster => spec(Step, "Autoplay faster", &["+", "="], &[I]),
            Slower => spec(Step, "Autoplay slower", &["-"], &[I]),
            FocusNext => spec(View, "Focus the next pane", &["Tab"], &[I]),
            FocusPrev => spec(View, "Focus the previous pane", &["Shift-Tab"], &[I]),
            ScrollDown => spec(View, "Scroll the focused pane down", &["j"], LISTS),
            ScrollUp => spec(View, "Scroll the focused pane up", &["k"], LISTS),
            PageDown => spec(View, "Scroll down a page", &["PageDown", "Ctrl-d"], LISTS),
            PageUp => spec(View, "Scroll up a page", &["PageUp", "Ctrl-u"], LISTS),
            SelectNext => spec(View, "Select the next item in the pane or list", &["Down"], LISTS),
            SelectPrev => spec(View, "Select the previous item", &["Up"], LISTS),
            OpenDetail => spec(View, "Open the selected event: raw text and JSON", &["Enter"], LISTS),
            EpisodeInfo => spec(View, "Episode info: task, models, defence, run log", &["I"], &[I]),
            GoToEvidence => spec(
                View,
                "Go to the selected verdict's evidence (the leak, the offending call)",
                &["V"],
                &[I],
            ),
            ToggleTranscript => spec(
                View,
                "Transcript layout: one chronological column (again: the three panes)",
                &["v"],
                &[I],
            ),
            Search => spec(View, "Search the episode (filter in the browser)", &["/"], SCREENS),
            SearchEpisodes => {
                spec(View, "Search every episode's text (inspector: back to the results)", &["F"], &[I, B, H])
            }
            NextHit => {
                spec(View, "Search results: open the next hit (across episodes)", &["Ctrl-n"], &[I, H])
            }
            PrevHit => spec(View, "Search results: open the previous hit", &["Ctrl-p"], &[I, H]),
            Copy => spec(View, "Copy the selected event's text (OSC 52 clipboard)", &["y"], &[I]),
            OpenInPager => spec(View, "Open the selected event's text in $PAGER", &["o"], &[I]),
            OpenInEditor => spec(View, "Open the selected event's text in $EDITOR", &["O"], &[I]),
            Browser => spec(View, "Episode browser", &["b"], &[I, B, P, H]),
            SortNext => spec(View, "Browser: sort by the next column (then unsorted)", &["s"], &[B]),
            SortReverse => spec(View, "Browser: reverse the sort", &["S"], &[B]),
            GroupView => spec(
                View,
                "Browser: group by model › defence › domain with rates (Enter folds)",
                &["z"],
                &[B],
            ),
            ChartView => spec(
                View,
                "Browser: charts of the grouped view (rates and curves, heatmaps; then the table)",
                &["c"],
                &[B],
            ),
            NextSource => spec(
                View,
                "Browser: the verdict source (rule, llm:MODEL, imported:MODEL, human) the grouped view's rates count",
                &["J"],
                &[B],
            ),
            Review => spec(
                View,
                "Browser: agreement review, the episodes whose verdict sources disagree",
                &["A"],
                &[B],
            ),
            Redact => spec(View, "Mask the persona's private values (screenshots, demos)", &["R"], &[I, X]),
            Mark => spec(View, "Browser: mark the episode for comparing (at most two)", &["m"], &[B]),
            CompareMarked => {
                spec(View, "Browser: compare the two marked episodes side by side", &["="], &[B])
            }
            KeepCase => spec(
                Human,
                "Keep as an attack case in a suite (browser: the marked episodes, else the selected; an attack search: the selected node)",
                &["K"],
                &[I, B, K],
            ),
            Compose => spec(Human, "Open the composer (when you play the attacker)", &["i"], &[I]),
            EditPending => spec(Human, "Edit the attacker's held message (live, paused)", &["e"], &[I]),
            EndEpisode => spec(Human, "End the episode (when you play the attacker)", &["E"], &[I]),
            TakeOver => spec(Human, "Take over here: fork and continue live", &["T"], &[I]),
            Fan => spec(
                Human,
                "Attempt fan: re-run from the turn under the cursor N times (reply only, or the rest live)",
                &["f"],
                &[I],
            ),
            ForkTree => spec(
                View,
                "Fork tree: the episode's forks and fans, where each branched, verdicts, first leak",
                &["B"],
                &[I, A],
            ),
            AttackSearch => spec(
                Human,
                "Attack search (TAP, Crescendo, GOAT) from the turn under the cursor or the selected task, live in its tree",
                &["X"],
                &[I, P],
            ),
            PruneNode => spec(Human, "Attack search: prune the selected node and its branch", &["x"], &[K]),
            ExpandNode => {
                spec(Human, "Attack search: one more candidate after the selected node", &["+"], &[K])
            }
            EditNode => spec(
                Human,
                "Attack search: edit the selected node's message, send it and run its branch on",
                &["e"],
                &[K],
            ),
            PinBranch => {
                spec(Human, "Attack search: run the selected node's branch on to the end", &["P"], &[K])
            }
            CompareWithOriginal => spec(
                View,
                "Fan, fork tree: compare the selected attempt or fork with the original episode",
                &["="],
                &[A, W],
            ),
            Annotate => spec(
                Human,
                "Annotate the selected event (label, note); in the review, at the disputed turn",
                &["a"],
                &[I, B],
            ),
            Annotations => spec(Human, "Annotations panel (Enter jumps to the event)", &["N"], &[I, O]),
            DeleteNote => spec(Human, "Annotations panel: delete the selected one", &["x", "Delete"], &[O]),
            Tasks => spec(Group::Tasks, "CONVERSE task picker", &["t"], SCREENS),
            CycleDomain => spec(Group::Tasks, "Picker: next domain filter", &["D"], &[P]),
            CyclePersona => spec(Group::Tasks, "Picker: next persona filter", &["P"], &[P]),
            CycleSplit => spec(Group::Tasks, "Picker: next split filter (privacy/security)", &["S"], &[P]),
            Send => spec(Dialogs, "Composer: send the message", &["Enter"], &[C]),
            NewLine => spec(Dialogs, "Composer: new line", &["Alt-Enter", "Shift-Enter", "Ctrl-j"], &[C]),
            HistoryPrev => {
                spec(Dialogs, "Composer: previous sent message (on the first line)", &["Up"], &[C])
            }
            HistoryNext => spec(Dialogs, "Composer: next sent message (on the last line)", &["Down"], &[C]),
            Submit => spec(Dialogs, "Form or prompt: save / go", &["Enter"], &[F]),
            NextField => spec(Dialogs, "Form: next field", &["Tab", "Shift-Tab"], &[F]),
            Confirm => spec(Dialogs, "Question: yes (any other key is no)", &["y", "Y"], &[Y]),
            TakeOverHuman => {
                spec(Dialogs, "Take over: you play the attacker", &["h", "y"], &[Layer::TakeOver])
            }
            TakeOverModel => {
                spec(Dialogs, "Take over: the attacker model plays", &["l", "m"], &[Layer::TakeOver])
            }
            Help => spec(General, "Show this help", &["?"], LISTS),
            Close => {
                spec(General, "Close the overlay, hide the composer, cancel, go back", &["Esc"], EVERYWHERE)
            }
            Quit => spec(General, "Quit", &["q", "Ctrl-c"], EVERYWHERE),
        }
    }

    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn group(self) -> Group {
        self.spec().group
    }

    pub fn description(self) -> &'static str {
        self.spec().description
    }

    pub fn from_name(name: &str) -> Option<Command> {
        name.parse().ok()
    }

    /// The screen this command opens over the one on top, from any screen whose layer binds it
    /// (`app/update` builds it: the fan's question, the fork tree of the episode on screen).
    pub fn opens(self) -> Option<Layer> {
        match self {
            Command::Fan => Some(Layer::Fan),
            Command::ForkTree => Some(Layer::ForkTree),
            Command::AttackSearch => Some(Layer::Attack),
            _ => None,
        }
    }
}

/// What a footer names: a command (or a pair) and what it does there.
pub type Entry = (&'static [Command], &'static str);

/// A screen's footer (the browser has two: its list and its agreement review).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter)]
pub enum Footer {
    Inspector,
    Browser,
    Review,
    Tasks,
    Hits,
    Compare,
    Fan,
    ForkTree,
    Attack,
}

impl Footer {
    /// The layer whose keys the footer names.
    pub fn layer(self) -> Layer {
        match self {
            Footer::Inspector => Layer::Inspector,
            Footer::Browser | Footer::Review => Layer::Browser,
            Footer::Tasks => Layer::Picker,
            Footer::Hits => Layer::Hits,
            Footer::Compare => Layer::Compare,
            Footer::Fan => Layer::Fan,
            Footer::ForkTree => Layer::ForkTree,
            Footer::Attack => Layer::Attack,
        }
    }

    /// The commands named, in order, each with what it does there (two commands of one entry are
    /// a pair, `n/p turn`). A screen leaves out those that do not apply at the moment (the rates'
    /// source outside the grouped view…).
    pub fn entries(self) -> &'static [Entry] {
        use Command::*;
        const BACK: Entry = (&[Close], "back");
        const HELP: Entry = (&[Help], "help");
        const QUIT: Entry = (&[Quit], "quit");
        const OPEN: Entry = (&[OpenDetail], "open");
        const FILTER: Entry = (&[Search], "filter");
        const ORIGINAL: Entry = (&[CompareWithOriginal], "compare with the original");
        match self {
            Footer::Inspector => &[HELP, QUIT],
            Footer::Browser => &[
                (&[NextSource], "source"),
                (&[ChartView], "chart"),
                OPEN,
                FILTER,
                (&[SortNext], "sort"),
                (&[SortReverse], "reverse"),
                (&[GroupView], "group"),
                (&[Review], "review"),
                BACK,
                HELP,
                QUIT,
            ],
            Footer::Review => &[
                (&[OpenDetail], "open at the disputed turn"),
                (&[Annotate], "label it there"),
                (&[Search], "filter by judge or source"),
                (&[Close], "back to the episodes"),
                HELP,
                QUIT,
            ],
            Footer::Tasks => &[
                (&[OpenDetail], "run"),
                (&[CycleDomain], "domain"),
                (&[CyclePersona], "persona"),
                (&[CycleSplit], "split"),
                FILTER,
                (&[PageDown], "detail scroll"),
                BACK,
                HELP,
            ],
            Footer::Hits => &[
                OPEN,
                (&[NextHit, PrevHit], "next/previous hit"),
                (&[SearchEpisodes], "new search"),
                BACK,
                HELP,
                QUIT,
            ],
            Footer::Compare => &[(&[NextEvent, PrevEvent], "turn"), (&[ScrollDown], "scroll"), BACK, HELP],
            Footer::Fan => &[
                OPEN,
                ORIGINAL,
                (&[PlayPause], "pause"),
                (&[Continue], "continue"),
                (&[StepCall], "step"),
                (&[ForkTree], "fork tree"),
                BACK,
                HELP,
            ],
            Footer::ForkTree => &[OPEN, ORIGINAL, BACK, HELP],
            Footer::Attack => &[
                OPEN,
                (&[PlayPause], "pause"),
                (&[Continue], "continue"),
                (&[StepCall], "step"),
                (&[PruneNode], "prune"),
                (&[ExpandNode], "expand"),
                (&[EditNode], "edit"),
                (&[PinBranch], "pin"),
                (&[KeepCase], "keep"),
                BACK,
                HELP,
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_footer_names_only_commands_of_its_layer() {
        for footer in Footer::iter() {
            for command in footer.entries().iter().flat_map(|(commands, _)| commands.iter()) {
                assert!(command.spec().layers.contains(&footer.layer()), "{footer:?} names {command:?}");
            }
        }
    }
}
