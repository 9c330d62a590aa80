//! The footers: what each screen's status line names when it has nothing else to say, as
//! commands with the word the footer gives them. The keys come from the keymap
//! ([`super::Keymap::footer`]), so a footer names the keys the user's keymap binds, and a test
//! checks that every command a footer names is one of its layer's.

use super::command::{Command, Layer};

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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::IntoEnumIterator;

    #[test]
    fn a_footer_names_only_commands_of_its_layer() {
        for footer in Footer::iter() {
            for command in footer.entries().iter().flat_map(|(commands, _)| commands.iter()) {
                assert!(command.spec().layers.contains(&footer.layer()), "{footer:?} names {command:?}");
            }
        }
    }
}
