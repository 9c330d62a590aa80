//! Issue 28: the browser's grouped view as charts (`c`): rates with their intervals, sorted, and
//! Kaplan–Meier curves of turns to the first leak, one judge source at a time; whole-screen
//! snapshots at 160×48 and 80×24, without colour (the text a NO_COLOR terminal shows) and with
//! it (the buffer with its styles).

use std::path::PathBuf;

use converse_tui::app::browser::Browser;
use converse_tui::app::{Action, AppState, update};
use converse_tui::config::{Keymap, Theme};
use converse_tui::core::corpus::series::{chart_series, groups_by};
use converse_tui::core::corpus::{CorpusRow, SourceVerdict};
use converse_tui::core::episode::{Judge, JudgeSource, Outcome, VerdictMethod};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::support::screen::{SIZES, press};

fn verdict(judge: &str, outcome: Outcome, turn: Option<u32>) -> SourceVerdict {
    SourceVerdict {
        judge: judge.into(),
        method: VerdictMethod::Rule,
        model: None,
        outcome,
        score: None,
        rating: None,
        turn,
        turn_inferred: false,
    }
}

/// Three defences × 12 episodes of 8 turns: the baseline leaks in 9 (turns 1–5), the firewall
/// in 4 (turns 4–7), the confined one in 1 (turn 8); security fails a third as often, later.
pub fn rows() -> Vec<CorpusRow> {
    let plans: [(&str, &[u32]); 3] =
        [("baseline", &[1, 1, 2, 2, 2, 3, 4, 5, 5]), ("firewall", &[4, 5, 6, 7]), ("confined", &[8])];
    let mut rows = Vec::new();
    for (defence, leaks) in plans {
        for i in 0..12u32 {
            let leak = leaks.get(i as usize).copied();
            let attack = (i % 3 == 0).then(|| leak.map(|t| (t + 1).min(8))).flatten();
            let outcome = |turn: Option<u32>| if turn.is_some() { Outcome::Fail } else { Outcome::Pass };
            rows.push(CorpusRow {
                path: PathBuf::from(format!("runs/{defence}/ep{i}.jsonl")),
                id: format!("{defence}-{i}"),
                task_id: Some(format!("travel_planning_p1_privacy_task_{i}")),
                domain: Some("travel_planning".into()),
                persona: Some("1".into()),
                attack_type: Some("privacy".into()),
                category: None,
                attack: None,
                model: Some("gpt_5_chat".into()),
                defence: Some(defence.into()),
                repeat: Some(1),
                retry: None,
                turns: Some(8),
                events: Some(20),
                verdicts: vec![
                    verdict("privacy", outcome(leak), leak),
                    verdict("security", outcome(attack), attack.filter(|_| i != 3)),
                ],
                parent: None,
                end: Some("max_turns".into()),
                human: false,
                tools_unreached: false,
                tokens: 0,
                judge_tokens: 0,
            });
        }
    }
    rows
}

fn state() -> AppState {
    let browser = Browser::from_rows("charted corpus", rows(), vec![]);
    AppState::with_browser(browser, Keymap::default(), false)
}

/// The screen after `keys`, as text (colour off) or as the buffer with its styles (colour on).
fn screen(keys: &str, w: u16, h: u16, colour: bool) -> String {
    let mut state = state();
    update(&mut state, Action::Resize(w, h));
    press(&mut state, keys);
    let mut theme = Theme::builtin("default");
    theme.color = colour;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
    if colour { format!("{:?}", terminal.backend().buffer()) } else { terminal.backend().to_string() }
}

#[test]
fn c_shows_the_privacy_charts_then_security_then_the_heatmaps_then_the_table() {
    for (w, h) in SIZES {
        for (keys, page) in [
            ("zc", "privacy"),
            ("zcc", "security"),
            ("zccc", "heatmap_privacy"),
            ("zcccc", "heatmap_security"),
        ] {
            insta::assert_snapshot!(format!("charts_{page}_{w}x{h}_no_colour"), screen(keys, w, h, false));
            insta::assert_snapshot!(format!("charts_{page}_{w}x{h}_colour"), screen(keys, w, h, true));
        }
    }
    // A fifth `c`: the table again; `c` from the plain list opens the grouped view's charts.
    let table = screen("zccccc", 160, 48, false);
    assert!(table.contains("— charted corpus"), "{table}");
    let charts = screen("c", 160, 48, false);
    assert!(charts.contains("privacy · rule · rate with 95% CI"), "{charts}");
}

#[test]
fn the_charts_read_the_series_computed_when_the_groups_change() {
    let mut state = state();
    update(&mut state, Action::Resize(160, 48));
    press(&mut state, "c");
    let browser = state.browser().unwrap();
    let view = browser.chart.as_ref().unwrap();
    // The grouped view's top level is the model: one group of all 36 episodes, named with the
    // defences it pools.
    let privacy = &view.series.rates[0];
    assert_eq!((privacy.bars.len(), privacy.bars[0].succeeded, privacy.bars[0].n), (1, 14, 36));
    assert_eq!(privacy.bars[0].label, "gpt_5_chat (3 defences)");
    // The same as the series of the rows grouped by model directly, but for that name.
    let rows = rows();
    let mut groups = groups_by(&rows, &[converse_tui::core::corpus::GroupField::Model]);
    groups[0].0 = "gpt_5_chat (3 defences)".into();
    let direct = chart_series(&groups, &[], &JudgeSource::Rule, false);
    assert_eq!(view.series.rates, direct.rates);
    assert_eq!(view.series.survival, direct.survival);
    // Issue 35 item 5: unfolding the model lists its defences, and they are charted instead of
    // it (each episode once, never in a group and its parent), highest rate first.
    press(&mut state, "\n");
    let view = state.browser().unwrap().chart.as_ref().unwrap();
    let labels: Vec<&str> = view.series.rates[0].bars.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["gpt_5_chat / baseline", "gpt_5_chat / firewall", "gpt_5_chat / confined"]);
    assert_eq!(view.series.rates[0].bars.iter().map(|b| b.n).sum::<usize>(), 36);
    // Sorting acts on the rows the chart hides: said, not done.
    press(&mut state, "s");
    assert_eq!(state.browser().unwrap().sort, None);
    assert_eq!(state.message(), Some("that acts on the table's rows: c until the table is back"));
}

/// The heatmap: attacks × the groups listed; the arrows move between cells and Enter lists the
/// episodes of the cell (the filter of its group and attack).
#[test]
fn enter_on_a_heatmap_cell_lists_its_episodes() {
    let mut rows = rows();
    for (i, row) in rows.iter_mut().enumerate() {
        row.attack = Some(format!("attack_{}", i % 2));
    }
    let browser = Browser::from_rows("charted corpus", rows, vec![]);
    let mut state = AppState::with_browser(browser, Keymap::default(), false);
    update(&mut state, Action::Resize(160, 48));
    // Unfold the model: its defences are listed, so charted instead of it: columns 0 to 2.
    press(&mut state, "z\nccc");
    let view = state.browser().unwrap().chart.as_ref().unwrap();
    let map = view.shown_heatmap().unwrap();
    assert_eq!(map.judge, Judge::Privacy);
    assert_eq!(map.columns, ["gpt_5_chat / baseline", "gpt_5_chat / confined", "gpt_5_chat / firewall"]);
    // The baseline leaked in 9 of 12: attack_0 (even episodes) 5 of 6, attack_1 4 of 6.
    assert_eq!(map.rows, ["attack_0", "attack_1"]);
    assert_eq!(map.cells[0][0], Some((5, 6)));
    assert_eq!(map.cells[1][0], Some((4, 6)));
    // Down, right, and back left to the baseline's column: Enter lists the 6 episodes of
    // (attack_1, baseline). ↓ a row, n (or →) and p (or ←) a column.
    press(&mut state, "↓np");
    let browser = state.browser().unwrap();
    assert_eq!(browser.chart.as_ref().unwrap().cursor, (1, 0));
    press(&mut state, "\n");
    let browser = state.browser().unwrap();
    assert!(browser.chart.is_none() && !browser.grouped);
    assert_eq!(browser.filter, "model=gpt_5_chat defence=baseline attack=attack_1");
    assert_eq!(browser.shown.len(), 6);
    let leaked = browser
        .shown
        .iter()
        .filter(|&&i| browser.entries[i].judge_outcome(&Judge::Privacy) == Some(Outcome::Fail))
        .count();
    assert_eq!(leaked, 4);
}
