//! The browser at corpus scale over a generated corpus in the benchmark layout:
//! whole-screen snapshots (sorted, filtered, grouped, the agreement review) at
//! 160×48 and 80×24, and the behaviour behind them (sort order, field filter,
//! group counts, review → episode at the disputed turn, selection kept).

use crate::support::corpus as generated;

use std::path::Path;
use std::sync::OnceLock;

use converse_tui::app::browser::{AfterOpen, Browser, Column, GroupRate, ListLine};
use converse_tui::app::overlay::Overlay;
use converse_tui::app::{Action, AppState, Effect, update};
use converse_tui::config::Keymap;
use converse_tui::config::keymap::Layer;
use converse_tui::config::ui_state::UiState;
use converse_tui::core::annotate::{Annotation, Label};
use converse_tui::core::corpus::{CorpusRow, index};
use converse_tui::core::episode::{Judge, Outcome, VerdictMethod};

use crate::support::screen::{self, snapshot_screens};
use converse_tui::app::drive::handle;
use ratatui::crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};
use screen::{press, render};

/// 120 generated episodes, indexed once (the files stay in a temporary folder for the whole run).
fn rows() -> &'static (tempfile::TempDir, Vec<CorpusRow>) {
    static ROWS: OnceLock<(tempfile::TempDir, Vec<CorpusRow>)> = OnceLock::new();
    ROWS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        generated::generate(dir.path(), 120, 15);
        let corpus = index(&[dir.path().join("logs")]);
        assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
        (dir, corpus.rows)
    })
}

fn state() -> AppState {
    let browser = Browser::from_rows("generated corpus", rows().1.clone(), vec![]);
    let mut state = AppState::with_browser(browser, Keymap::default(), false);
    update(&mut state, Action::Resize(160, 48));
    state
}

fn snapshot(name: &str, keys: &str) {
    snapshot_screens!(name, state, keys);
}

/// `s` nine times: model, defence, domain, persona, category, attack, turns, events, privacy.
const SORT_BY_PRIVACY: &str = "sssssssss";

#[test]
fn sorted_by_privacy_outcome_leaks_first() {
    snapshot("corpus_sorted", &format!("{SORT_BY_PRIVACY}S"));
}

#[test]
fn filtered_by_field() {
    snapshot("corpus_filtered", "/model=gpt_5_chat defence=baseline\n");
}

#[test]
fn grouped_by_model_defence_domain() {
    // Unfold the first model, then its first defence.
    snapshot("corpus_grouped", "z\n\u{1}\n");
    // J: the rates of the next verdict source, named in the title.
    snapshot("corpus_grouped_next_source", "zJ");
}

#[test]
fn agreement_review_list() {
    snapshot("corpus_review", "A");
}

#[test]
fn sorting_orders_rows_by_the_column_and_reverses() {
    let mut s = state();
    press(&mut s, SORT_BY_PRIVACY);
    let b = s.browser().unwrap();
    assert_eq!(b.sort, Some((Column::Judge(0), false)));
    assert_eq!(b.judges[0], Judge::Privacy);
    let severity = |b: &Browser, i: usize| match b.entries[i].judge_outcome(&Judge::Privacy) {
        Some(Outcome::Fail) => 3,
        Some(Outcome::Partial) => 2,
        Some(Outcome::Error) => 1,
        _ => 0,
    };
    let order: Vec<u8> = b.shown.iter().map(|&i| severity(b, i)).collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    press(&mut s, "S");
    let b = s.browser().unwrap();
    let order: Vec<u8> = b.shown.iter().map(|&i| severity(b, i)).collect();
    assert!(order.windows(2).all(|w| w[0] >= w[1]), "{order:?}");
    assert_eq!(order.first(), Some(&3), "a leak first");
    // `s` past the last column (security, utility, path): unsorted again, in index order.
    press(&mut s, "ssss");
    let b = s.browser().unwrap();
    assert_eq!(b.sort, None);
    assert!(b.shown.windows(2).all(|w| w[0] < w[1]));
}

/// Issue 35 item 8: "leaks first" (`s` to the privacy column, `S`) started with rows two judge
/// models dispute and, among leaks, the mildest scores. Leaks every source agrees on come
/// first, the lowest (most severe) score first; disputed ones after them.
#[test]
fn leaks_first_starts_with_the_undisputed_and_the_most_severe() {
    let mut s = state();
    press(&mut s, &format!("{SORT_BY_PRIVACY}S"));
    let b = s.browser().unwrap();
    let key = |i: usize| {
        let verdicts: Vec<_> = b.entries[i].row.verdicts_of(&Judge::Privacy).collect();
        let failed = verdicts.iter().filter(|v| v.outcome == Outcome::Fail).count();
        let score = verdicts.iter().find_map(|v| v.score);
        (failed > 0, failed == verdicts.len(), score)
    };
    let leaks: Vec<(bool, bool, Option<f64>)> = b.shown.iter().map(|&i| key(i)).take_while(|k| k.0).collect();
    let disputed = leaks.iter().filter(|k| !k.1).count();
    assert!(disputed > 0 && disputed < leaks.len(), "the corpus has both: {leaks:?}");
    assert!(leaks.iter().take(leaks.len() - disputed).all(|k| k.1), "undisputed first: {leaks:?}");
    let scores: Vec<f64> = leaks.iter().filter(|k| k.1).filter_map(|k| k.2).collect();
    assert!(scores.windows(2).all(|w| w[0] <= w[1]), "the most severe (lowest) score first: {scores:?}");
}

/// Issue 35 item 8: at 80 columns the browser dropped the path, and runs of one model, defence
/// and attack (repetitions) looked identical. The path's end stays: every row reads differently.
#[test]
fn at_80_columns_repetitions_of_one_run_read_differently() {
    let mut rows = rows().1.clone();
    let first = rows[0].clone();
    for rep in 7..10 {
        let mut again = first.clone();
        again.path = first.path.with_file_name(format!("output_20250101_000000_rep{rep}.json"));
        again.id = format!("{}-rep{rep}", first.id);
        rows.push(again);
    }
    let browser = Browser::from_rows("generated corpus", rows, vec![]);
    let mut s = AppState::with_browser(browser, Keymap::default(), false);
    let attack = first.attack.clone().unwrap();
    press(&mut s, &format!("/attack={attack} model={}\n", first.model.clone().unwrap()));
    let screen = render(&mut s, 80, 24);
    let lines: Vec<String> = screen
        .lines()
        .skip(2)
        .map(|l| l.replace('▶', " "))
        .filter(|l| l.contains('✓') || l.contains('✗') || l.contains('◐'))
        .collect();
    assert!(lines.len() >= 4, "{screen}");
    let distinct: std::collections::BTreeSet<&String> = lines.iter().collect();
    assert_eq!(distinct.len(), lines.len(), "two rows read the same:\n{screen}");
}

#[test]
fn the_field_filter_selects_exactly_the_matching_rows() {
    let mut s = state();
    press(&mut s, "/model=gpt_5_chat defence=baseline\n");
    let b = s.browser().unwrap();
    let expected: Vec<usize> = (0..b.entries.len())
        .filter(|&i| {
            let r = &b.entries[i].row;
            r.model.as_deref() == Some("gpt_5_chat") && r.defence.as_deref() == Some("baseline")
        })
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(b.shown, expected, "{:?} {:?}", b.filter, b.filter_error);
    // A term half typed does not parse: the list stays as it was, the prompt says why.
    let typed = "model=gpt_5_chat defence=baseline turns>".to_string();
    s.browser_mut().unwrap().set_filter(typed);
    press(&mut s, "/");
    let b = s.browser().unwrap();
    assert_eq!(b.shown, expected);
    assert!(b.filter_error.as_deref().unwrap().contains("'turns' compares numbers"));
    let screen = render(&mut s, 160, 48);
    assert!(screen.contains("⚠ 'turns' compares numbers"), "{screen}");
    press(&mut s, "3\n");
    let b = s.browser().unwrap();
    assert_eq!(b.filter_error, None);
    let more_than_3: Vec<usize> =
        expected.iter().copied().filter(|&i| b.entries[i].row.turns > Some(3)).collect();
    assert_eq!(b.shown, more_than_3);
}

/// Issue 35 item 4: the browser's `/` binds a judge term to a source as `ls --where` does:
/// `judge_model=gpt-5 privacy=fail` lists the runs gpt-5 failed, not those only claude failed;
/// a term it cannot read leaves the list and says so.
#[test]
fn the_filter_reads_the_verdicts_of_the_source_it_names() {
    let mut s = state();
    let failed_by = |b: &Browser, i: usize, model: &str| {
        b.entries[i].row.verdicts.iter().any(|v| {
            v.judge == Judge::Privacy && v.model.as_deref() == Some(model) && v.outcome == Outcome::Fail
        })
    };
    let gpt5: Vec<usize> = {
        let b = s.browser().unwrap();
        (0..b.entries.len()).filter(|&i| failed_by(b, i, "gpt-5")).collect()
    };
    let claude_only = {
        let b = s.browser().unwrap();
        (0..b.entries.len()).filter(|&i| failed_by(b, i, "claude-sonnet-4-5") && !gpt5.contains(&i)).count()
    };
    assert!(claude_only > 0, "the corpus has runs only claude failed");
    for expr in ["judge_model=gpt-5 privacy=fail", "privacy[imported:gpt-5]=fail"] {
        press(&mut s, &format!("/{expr}\n"));
        let b = s.browser().unwrap();
        assert_eq!(b.shown, gpt5, "{expr}: {:?}", b.filter_error);
        press(&mut s, "\u{1b}");
    }
    press(&mut s, "/privacy[rule=pass");
    let b = s.browser().unwrap();
    assert!(
        b.filter_error.as_deref().unwrap().contains("cannot read 'privacy[rule=pass'"),
        "{:?}",
        b.filter_error
    );
}

/// QA, 2026-11-27: `privacy[bogus]=fail`, `privcy=fail` and a source that gave no verdict here
/// (`privacy[imported:gpt5]`) left the list empty saying only "nothing matches the filter" once
/// the prompt closed, where `ls --where` rejects them: the status line now gives the command
/// line's error, and the list says to read it.
#[test]
fn a_filter_the_command_line_rejects_says_why_after_the_prompt_closes() {
    for expr in ["privacy[bogus]=fail", "privcy=fail", "privacy[imported:gpt5]=fail"] {
        let cli = converse_tui::core::corpus::Filter::parse_for(expr, &rows().1).unwrap_err();
        let mut s = state();
        press(&mut s, &format!("/{expr}\n"));
        // Wide enough for the whole line: the error lists every field or source.
        let screen = render(&mut s, 600, 48);
        let status =
            screen.lines().rev().find(|l| l.contains("⚠")).unwrap_or_else(|| panic!("{expr}: {screen}"));
        assert!(status.contains(&cli), "{expr}: {cli:?} not in {status}");
        assert!(!screen.contains("nothing matches the filter"), "{expr}: {screen}");
    }
    let cli =
        converse_tui::core::corpus::Filter::parse_for("privacy[imported:gpt5]=fail", &rows().1).unwrap_err();
    assert!(cli.contains("no verdict of that source here; sources: "), "{cli}");
}

/// Issue 35 item 6: an attack run no source judged is counted, never in a rate: its row says
/// `unjudged` in its judge's column, its groups `+1 unjudged` beside the rate.
#[test]
fn attack_runs_nobody_judged_are_counted_apart() {
    let mut rows = rows().1.clone();
    let at = rows.iter().position(|r| r.attack_type.as_deref() == Some("privacy")).unwrap();
    rows[at].verdicts.retain(|v| v.judge != Judge::Privacy);
    let model = rows[at].model.clone().unwrap();
    let browser = Browser::from_rows("generated corpus", rows.clone(), vec![]);
    let mut s = AppState::with_browser(browser, Keymap::default(), false);
    update(&mut s, Action::Resize(160, 48));
    let b = s.browser().unwrap();
    let privacy = b.judges.iter().position(|j| *j == Judge::Privacy).unwrap();
    let entry = b.entries.iter().find(|e| e.row.id == rows[at].id).unwrap();
    assert_eq!(entry.cell(Column::Judge(privacy), &b.judges), "unjudged");
    press(&mut s, "z");
    let b = s.browser().unwrap();
    let group = b.groups.iter().find(|g| g.key == [model.clone()]).unwrap();
    assert_eq!(group.unjudged[privacy], 1);
    let judged = rows
        .iter()
        .filter(|r| r.model.as_deref() == Some(&model) && r.excluded().is_none())
        .flat_map(|r| r.verdicts_of(&Judge::Privacy))
        .filter(|v| v.source() == b.verdict_sources[b.source] && v.outcome.severity() > 0)
        .count();
    match group.rates[privacy] {
        GroupRate::Rate { judged: n, .. } => assert_eq!(n, judged, "the unjudged run is not in n"),
        other => panic!("{other:?}"),
    }
    assert!(b.group_cell(group, Column::Judge(privacy)).ends_with(" +1 unjudged"));
}

/// Issue 23 item 1: a group's rate counts one verdict source (the one named in the title, `J`
/// for the next), never "some judge says fail".
#[test]
fn groups_count_their_episodes_and_the_leaks_of_one_source() {
    let mut s = state();
    press(&mut s, "z");
    let privacy = s.browser().unwrap().judges.iter().position(|j| *j == Judge::Privacy).unwrap();
    assert!(s.browser().unwrap().verdict_sources.len() > 1, "the generated corpus has several judge models");
    for _ in 0..s.browser().unwrap().verdict_sources.len() {
        let b = s.browser().unwrap();
        let source = b.verdict_sources[b.source].clone();
        // Folded: one line per model, counts adding up to the corpus.
        assert!(b.lines.iter().all(|l| matches!(l, ListLine::Group(_))));
        assert_eq!(b.groups.iter().map(|g| g.episodes).sum::<usize>(), b.entries.len());
        for group in &b.groups {
            let members: Vec<&CorpusRow> = b
                .entries
                .iter()
                .map(|e| &e.row)
                .filter(|r| r.model.as_deref() == Some(&group.key[0]))
                .collect();
            assert_eq!(group.episodes, members.len());
            let of_source: Vec<Outcome> = members
                .iter()
                .flat_map(|r| r.verdicts_of(&Judge::Privacy))
                .filter(|v| v.source() == source)
                .map(|v| v.outcome)
                .filter(|o| matches!(o, Outcome::Fail | Outcome::Partial | Outcome::Pass))
                .collect();
            let leaked = of_source.iter().filter(|o| **o == Outcome::Fail).count();
            let expected = if of_source.is_empty() {
                GroupRate::None
            } else {
                GroupRate::Rate { failed: leaked, judged: of_source.len() }
            };
            assert_eq!(group.rates[privacy], expected, "{:?} from {source}", group.key);
        }
        press(&mut s, "J");
    }
    assert_eq!(s.browser().unwrap().source, 0, "J comes back to the first source");
    let b = s.browser().unwrap();
    // Enter unfolds the selected model into its defences, Enter again folds it.
    let before = b.lines.len();
    press(&mut s, "\n");
    let b = s.browser().unwrap();
    assert!(b.lines.len() > before);
    assert!(matches!(b.lines[1], ListLine::Group(g) if b.groups[g].key.len() == 2));
    press(&mut s, "\n");
    assert_eq!(s.browser().unwrap().lines.len(), before);
}

#[test]
fn the_review_opens_the_episode_at_the_disputed_turn_and_can_label_it() {
    let mut s = state();
    press(&mut s, "A");
    let b = s.browser().unwrap();
    let review = b.review.as_ref().unwrap();
    assert!(!review.items.is_empty(), "two judge models disagree somewhere");
    for d in &review.items {
        assert_ne!(d.a.outcome, d.b.outcome);
        assert_eq!(d.a.judge, d.b.judge);
    }
    let first = review.items[0].clone();
    let effects = press(&mut s, "a");
    let path = &b_path(&s, first.row);
    assert_eq!(
        effects,
        vec![Effect::OpenEpisode {
            path: path.clone(),
            id: s.browser().unwrap().entries[first.row].row.id.clone(),
            over: false
        }]
    );
    assert_eq!(s.browser().unwrap().after_open, Some(AfterOpen { turn: first.turn(), annotate: true }));
    // Loaded: at the disputed turn (the end, where the verdicts are, when no turn is named);
    // the annotate form opens once the notes file is read.
    let id = s.browser().unwrap().entries[first.row].row.id.clone();
    let episode = converse_tui::core::import::load_episode(path, &id).unwrap();
    let effects = update(&mut s, Action::EpisodeLoaded { episode: Ok(Box::new(episode)), over: false });
    let notes = converse_tui::core::annotate::notes_path(path);
    assert_eq!(effects, vec![Effect::LoadNotes(notes.clone())]);
    let view = s.view().unwrap();
    let expected = match first.turn() {
        Some(t) => view.end_of_turn(t).unwrap(),
        None => view.events().len() - 1,
    };
    assert_eq!(view.cursor, expected);
    assert!(s.overlays().is_empty(), "not before the notes are read");
    update(&mut s, Action::NotesLoaded { path: notes, result: Ok(vec![]) });
    assert!(matches!(s.overlays().last(), Some(Overlay::Annotate(_))), "the annotate form is open");
    // A label saved (the loop answers a save with the notes as written): the row and the
    // review count it as a `human` source at once, as the next index would.
    let view = s.view().unwrap();
    let label = match first.judge.as_str() {
        "privacy" => Label::Leak,
        "security" => Label::UnauthorizedAction,
        _ => Label::FalseRefusal,
    };
    let annotation = Annotation {
        id: "n-1".into(),
        episode: id.clone(),
        target_seq: view.events()[view.cursor].seq,
        span: None,
        label,
        note: "checked by hand".into(),
        author: "tester".into(),
        created: "2025-01-01T00:00:00Z".into(),
        at: "2025-01-01T00:00:00Z".into(),
    };
    let notes = converse_tui::core::annotate::notes_path(path);
    press(&mut s, "\x1b");
    update(&mut s, Action::NotesLoaded { path: notes, result: Ok(vec![annotation]) });
    let b = s.browser().unwrap();
    let human = b.entries[first.row].row.verdicts_of(&first.judge).find(|v| v.method == VerdictMethod::Human);
    assert_eq!(human.map(|v| v.outcome), Some(Outcome::Fail));
    let review = b.review.as_ref().unwrap();
    assert!(
        review.items.iter().any(|d| d.row == first.row
            && (d.a.method == VerdictMethod::Human || d.b.method == VerdictMethod::Human)),
        "the label disagrees with the judge that said it held"
    );
    // Back in the browser, still in the review; Esc leaves it for the list.
    press(&mut s, "\x1b");
    press(&mut s, "b");
    assert_eq!(s.screen(), Layer::Browser);
    assert!(s.browser().unwrap().review.is_some());
    press(&mut s, "\x1b");
    assert!(s.browser().unwrap().review.is_none());
}

fn b_path(s: &AppState, i: usize) -> std::path::PathBuf {
    s.browser().unwrap().entries[i].row.path.clone()
}

#[test]
fn the_selection_is_kept_when_returning_from_an_episode() {
    let mut s = state();
    press(&mut s, &format!("{SORT_BY_PRIVACY}S/defence=baseline\n\u{1}\u{1}\u{1}"));
    let (selected, shown) = {
        let b = s.browser().unwrap();
        (b.selected, b.shown.clone())
    };
    let effects = press(&mut s, "\n");
    let Effect::OpenEpisode { path, id, .. } = &effects[0] else { panic!("{effects:?}") };
    let episode = converse_tui::core::import::load_episode(path, id).unwrap();
    update(&mut s, Action::EpisodeLoaded { episode: Ok(Box::new(episode)), over: false });
    assert_eq!(s.screen(), Layer::Inspector);
    press(&mut s, "b");
    assert_eq!(s.screen(), Layer::Browser);
    let b = s.browser().unwrap();
    assert_eq!((b.selected, &b.shown), (selected, &shown));
    assert!(Path::new(path).exists());
}

/// Issue 23 item 10: the review filters by judge or source with `/` (letters typed there are the
/// filter's, never commands), and Ctrl-U clears the prompt.
#[test]
fn the_review_filters_by_judge_and_letters_are_text() {
    let mut s = state();
    press(&mut s, "A");
    let all = s.browser().unwrap().review.as_ref().unwrap().items.len();
    // `q` would quit and `s` sort on the list: in the prompt they are letters.
    let effects = press(&mut s, "/security");
    assert!(!effects.contains(&Effect::Quit));
    let review = s.browser().unwrap().review.as_ref().unwrap();
    assert_eq!(review.filter, "security");
    assert!(!review.items.is_empty() && review.items.len() < all, "{} of {all}", review.items.len());
    assert!(review.items.iter().all(|d| d.judge == Judge::Security));
    handle(&mut s, TermEvent::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)));
    assert_eq!(s.browser().unwrap().review.as_ref().unwrap().items.len(), all, "Ctrl-U cleared it");
    let effects = press(&mut s, "quality\n");
    assert!(
        !effects.contains(&Effect::Quit) && s.browser().unwrap().review.as_ref().unwrap().items.is_empty()
    );
}

/// Issue 23 item 10: notes of another episode in an episode's notes file are said, not dropped in
/// silence.
#[test]
fn notes_naming_another_episode_are_reported() {
    let episode = converse_tui::core::demo::demo_episodes().remove(0);
    let episode = converse_tui::core::episode::Episode::new(episode.events, "/tmp/runs/ep.jsonl".to_string());
    let id = episode.id().to_string();
    let mut s = AppState::with_episode(episode, Keymap::default());
    let note = |episode: &str| Annotation {
        id: format!("n-{episode}"),
        episode: episode.into(),
        target_seq: 1,
        span: None,
        label: Label::Note,
        note: "x".into(),
        author: "tester".into(),
        created: "2025-01-01T00:00:00Z".into(),
        at: "2025-01-01T00:00:00Z".into(),
    };
    let path = s.inspector().unwrap().notes_file().unwrap();
    update(&mut s, Action::NotesLoaded { path, result: Ok(vec![note(&id), note("some-other-run")]) });
    let message = s.message().unwrap_or_default().to_string();
    assert!(message.contains("1 note(s)") && message.contains("another episode"), "{message}");
    assert_eq!(s.inspector().unwrap().notes.list.len(), 1);
}

/// Issue 23 item 8: a corpus opens like a file — the browser is there at once, the rows arrive
/// batch by batch with how far the index has got, and what was selected stays selected.
#[test]
fn the_browser_fills_as_the_corpus_is_indexed() {
    let all = rows().1.clone();
    let make = || {
        let mut browser = Browser::from_rows("generated corpus", Vec::new(), vec![]);
        browser.indexing = Some((
            converse_tui::core::corpus::index::IndexProgress { files_total: all.len(), ..Default::default() },
            std::time::Duration::ZERO,
        ));
        let mut state = AppState::with_browser(browser, Keymap::default(), false);
        let half = all.len() / 2;
        let progress = converse_tui::core::corpus::index::IndexProgress {
            files_done: half,
            files_total: all.len(),
            bytes_done: 3_400_000,
        };
        let rows = all[..half].to_vec();
        let elapsed = std::time::Duration::from_millis(500);
        update(&mut state, Action::Indexed { rows, errors: vec![], progress, elapsed, done: false });
        state
    };
    snapshot_screens!("corpus_while_indexing", make, "\u{1}\u{1}");
    let mut state = make();
    press(&mut state, "\u{1}\u{1}");
    let selected = state.browser().unwrap().selected_episode();
    let rest = all[all.len() / 2..].to_vec();
    let progress = converse_tui::core::corpus::index::IndexProgress {
        files_done: all.len(),
        files_total: all.len(),
        bytes_done: 6_800_000,
    };
    let elapsed = std::time::Duration::from_secs(1);
    update(&mut state, Action::Indexed { rows: rest, errors: vec![], progress, elapsed, done: true });
    let b = state.browser().unwrap();
    assert_eq!(b.entries.len(), all.len());
    assert_eq!(b.indexing, None, "done");
    assert_eq!(b.selected_episode(), selected, "the selection stays");
}

#[test]
fn the_chosen_source_is_remembered_and_taken_again_as_rows_arrive() {
    let file = Some(std::path::PathBuf::from("/nonexistent/state.toml"));
    let mut state = state().with_ui_state(Default::default(), file);
    let first = state.browser().unwrap().source().cloned().unwrap();
    let effects = press(&mut state, "zJ");
    let chosen = state.browser().unwrap().source().cloned().unwrap();
    assert_ne!(chosen, first, "J moved on");
    let saved: Vec<&String> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::SaveUiState { contents, .. } => Some(contents),
            _ => None,
        })
        .collect();
    assert_eq!(saved.len(), 1, "{effects:?}");
    assert!(saved[0].contains(&format!("verdict_source = \"{chosen}\"")), "{}", saved[0]);
    // A later session remembers it: the rows of a corpus being indexed open on that source.
    let remembered = UiState { verdict_source: Some(chosen.clone()), ..UiState::default() };
    let mut later = AppState::with_browser(
        Browser::from_rows("generated corpus", vec![], vec![]),
        Keymap::default(),
        false,
    )
    .with_ui_state(remembered, None);
    let all = rows().1.clone();
    let progress = converse_tui::core::corpus::index::IndexProgress {
        files_done: all.len(),
        files_total: all.len(),
        bytes_done: 0,
    };
    let elapsed = std::time::Duration::ZERO;
    update(&mut later, Action::Indexed { rows: all, errors: vec![], progress, elapsed, done: true });
    assert_eq!(later.browser().unwrap().source(), Some(&chosen));
}

/// Issue 27: `K` keeps the marked episodes as attack cases in the suite the prompt names (offered
/// again next time); the cases are written once, a second `K` finds them there.
#[test]
fn k_keeps_the_marked_episodes_as_attack_cases() {
    let mut s = state();
    press(&mut s, "/privacy=fail\nm\u{1}m");
    let effects = press(&mut s, "K");
    assert!(effects.is_empty());
    let Some(Overlay::Prompt(prompt)) = s.overlays().last() else { panic!("no prompt") };
    assert_eq!(prompt.input, "attacks", "the default suite is offered");
    let ctrl_u = TermEvent::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    handle(&mut s, ctrl_u);
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    let effects = press(&mut s, &format!("{}\n", suite.display()));
    let Some(Effect::KeepCases { suite: asked, sources, .. }) = effects.first() else {
        panic!("{effects:?}")
    };
    assert_eq!((asked, sources.len()), (&suite, 2));

    let tasks = converse_tui::core::dataset::TaskLookup::default();
    let load = |sources: &[converse_tui::app::browser::EntrySource]| {
        sources
            .iter()
            .map(|source| match source {
                converse_tui::app::browser::EntrySource::File { path, id } => {
                    converse_tui::core::import::load_episode(path, id).map_err(|e| e.to_string())
                }
                converse_tui::app::browser::EntrySource::Loaded(e) => Ok((**e).clone()),
            })
            .collect::<Vec<_>>()
    };
    let said = converse_tui::core::suite::store::keep(&suite, load(sources), &tasks).unwrap();
    assert!(said.starts_with("kept 2 cases in "), "{said}");
    assert_eq!(std::fs::read_dir(&suite).unwrap().count(), 2);
    let again = converse_tui::core::suite::store::keep(&suite, load(sources), &tasks).unwrap();
    assert!(again.starts_with("already there: "), "{again}");
    update(&mut s, Action::Done(said));
    assert!(s.message().unwrap().starts_with("kept 2 cases"));

    // The suite is offered again.
    press(&mut s, "K");
    let Some(Overlay::Prompt(prompt)) = s.overlays().last() else { panic!("no prompt") };
    assert_eq!(prompt.input, suite.display().to_string());
}

#[test]
fn keep_case_prompt() {
    snapshot("corpus_keep_case_prompt", "mK");
}
