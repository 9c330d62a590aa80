//! Commands on the episode browser (the list, its groups and the agreement
//! review), and opening the episode a row points at.

use crate::config::keymap::{Command, Layer};
use crate::core::sanitize::single_line;

use super::super::action::{Effect, FollowUp};
use super::super::browser::{AfterOpen, Browser, EntrySource};
use super::super::chrome::Chrome;
use super::super::overlay::PromptKind;

/// Compares the two marked rows (loading them first when they are files), or says what is missing.
fn compare_marked(browser: &Browser, chrome: &mut Chrome) {
    let [a, b] = match browser.marked.as_slice() {
        &[a, b] => [a, b],
        marked => {
            let missing = 2 - marked.len();
            chrome.message = Some(format!(
                "mark {missing} more episode{} with m to compare two",
                if missing == 1 { "" } else { "s" }
            ));
            return;
        }
    };
    let sources = [browser.sources[a].clone(), browser.sources[b].clone()];
    match sources {
        [EntrySource::Loaded(a), EntrySource::Loaded(b)] => {
            chrome.follow_up(FollowUp::Compare(Box::new([*a, *b])))
        }
        sources => {
            chrome.say("loading the two marked episodes…");
            chrome.effect(Effect::OpenCompare(Box::new(sources)));
        }
    }
}

pub(super) fn command(browser: &mut Browser, chrome: &mut Chrome, command: Command) {
    // Lines of the list on screen: the area less the list's borders and header, the errors and
    // the status line.
    let height = browser.list_height(chrome.area.height);
    if browser.review.is_some() {
        review_command(browser, chrome, command, height);
    } else {
        list_command(browser, chrome, command, height);
    }
    browser.scroll_into_view(height);
}

fn list_command(browser: &mut Browser, chrome: &mut Chrome, command: Command, height: usize) {
    let page = height as isize;
    // On the heatmap, the arrows move between cells and Enter lists a cell's episodes.
    if browser.chart.as_ref().is_some_and(|v| v.shown_heatmap().is_some()) {
        let moved = match command {
            Command::SelectNext | Command::ScrollDown => Some((1, 0)),
            Command::SelectPrev | Command::ScrollUp => Some((-1, 0)),
            Command::NextEvent => Some((0, 1)),
            Command::PrevEvent => Some((0, -1)),
            Command::PageDown => Some((page, 0)),
            Command::PageUp => Some((-page, 0)),
            _ => None,
        };
        if let Some((rows, columns)) = moved {
            browser.move_heat_cursor(rows, columns);
            return;
        }
        if command == Command::OpenDetail {
            if let Some(filter) = browser.open_heat_cell() {
                let shown = browser.shown.len();
                chrome.say(format!("{shown} episodes of the cell: {filter}"));
            }
            return;
        }
    }
    // A chart hides the list: what acts on its rows would act unseen.
    if browser.chart_hides(command) {
        return chrome.say("that acts on the table's rows: c until the table is back");
    }
    match command {
        Command::SelectNext | Command::ScrollDown | Command::NextEvent => browser.select_by(1),
        Command::SelectPrev | Command::ScrollUp | Command::PrevEvent => browser.select_by(-1),
        Command::PageDown => browser.select_by(page),
        Command::PageUp => browser.select_by(-page),
        Command::First => browser.select_by(isize::MIN / 2),
        Command::Last => browser.select_by(isize::MAX / 2),
        Command::OpenDetail if browser.selected_episode().is_none() => browser.toggle_fold(),
        Command::OpenDetail => {
            if let Some(i) = browser.selected_episode() {
                open(browser, chrome, i, None);
            }
        }
        Command::SortNext => browser.sort_next(),
        Command::SortReverse => browser.sort_reverse(),
        Command::GroupView => browser.toggle_grouped(),
        Command::ChartView => browser.cycle_chart(),
        Command::NextSource => {
            browser.next_source();
            chrome.prefs.ui.verdict_source = browser.source().cloned();
            chrome.save_ui_state();
        }
        Command::Review => {
            browser.open_review();
            let n = browser.review.as_ref().map_or(0, |r| r.items.len());
            chrome.say(format!("{n} disagreements between verdict sources on the shown episodes"));
        }
        Command::Mark => chrome.message = browser.toggle_mark(),
        Command::KeepCase => chrome.ask_suite(),
        Command::CompareMarked => compare_marked(browser, chrome),
        Command::Search => chrome.prompt(PromptKind::Filter, browser.filter.clone()),
        Command::SearchEpisodes => chrome.follow_up(FollowUp::SearchPrompt),
        Command::Close if !browser.filter.is_empty() => browser.set_filter(String::new()),
        // Back to the episode left on the inspector, if there is one.
        Command::Close | Command::Browser => chrome.follow_up(FollowUp::Show(Layer::Inspector)),
        Command::Tasks => chrome.follow_up(FollowUp::Tasks),
        _ => {}
    }
}

fn review_command(browser: &mut Browser, chrome: &mut Chrome, command: Command, height: usize) {
    let Some(review) = &mut browser.review else {
        return;
    };
    let last = review.items.len().saturating_sub(1) as isize;
    let mut select = |delta: isize| {
        review.selected = (review.selected as isize + delta).clamp(0, last.max(0)) as usize;
    };
    match command {
        Command::SelectNext | Command::ScrollDown | Command::NextEvent => select(1),
        Command::SelectPrev | Command::ScrollUp | Command::PrevEvent => select(-1),
        Command::PageDown => select(height as isize),
        Command::PageUp => select(-(height as isize)),
        Command::First => select(isize::MIN / 2),
        Command::Last => select(isize::MAX / 2),
        Command::OpenDetail | Command::Annotate => {
            let Some(d) = review.items.get(review.selected) else { return };
            let (row, turn) = (d.row, d.turn());
            open(browser, chrome, row, Some(AfterOpen { turn, annotate: command == Command::Annotate }));
        }
        // Words typed here are the filter's, never commands (issue 23).
        Command::Search => chrome.prompt(PromptKind::Filter, review.filter.clone()),
        Command::Close | Command::Review => browser.review = None,
        _ => {}
    }
}

/// Opens entry `i`: at once when it is in memory, else through the loop (I/O),
/// which answers with `Action::EpisodeLoaded`; `after` is applied once shown.
fn open(browser: &mut Browser, chrome: &mut Chrome, i: usize, after: Option<AfterOpen>) {
    browser.after_open = after;
    match browser.sources.get(i) {
        Some(EntrySource::Loaded(episode)) => chrome.follow_up(FollowUp::OpenEpisode(episode.clone())),
        Some(EntrySource::File { path, id }) => {
            chrome.say(format!("loading {}…", single_line(id)));
            chrome.effect(Effect::OpenEpisode { path: path.clone(), id: id.clone(), over: false });
        }
        None => {}
    }
}
