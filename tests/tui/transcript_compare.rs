//! The transcript layout (`v`) and the compare screen (`compare A B`, `m` `=` in the browser):
//! whole-screen snapshots at 80×24 and 160×48, and what they show checked against the files.

use std::path::{Path, PathBuf};

use converse_tui::app::browser::Browser;
use converse_tui::app::drive::handle;
use converse_tui::app::{Action, AppState, Effect, update};
use converse_tui::config::Keymap;
use converse_tui::config::ui_state::{LayoutMode, UiState};
use converse_tui::core::demo::demo_episodes;
use converse_tui::core::episode::*;
use ratatui::crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};

use crate::support::bin;
use crate::support::screen::{self, snapshot_screens};
use screen::{demo_fork, press, render};

fn snapshot(name: &str, make: impl Fn() -> AppState, keys: &str) {
    snapshot_screens!(name, make, keys);
}

fn demo_state() -> AppState {
    let browser = Browser::new("demo episodes", demo_episodes(), Vec::new());
    AppState::with_browser(browser, Keymap::default(), true)
}

// ---------------------------------------------------------------- transcript

#[test]
fn transcript_replay() {
    // Two turns revealed: the user's task, both parties, folded tool calls, a verdict marker.
    snapshot("transcript_replay", demo_state, "v]]");
}

#[test]
fn transcript_with_a_tool_call_unfolded() {
    // The newest entry is the turn's verdict; up four entries is the first tool result shown.
    snapshot("transcript_unfolded", demo_state, "v]]↑↑↑↑\n");
}

#[test]
fn transcript_steps_with_the_cursor() {
    let mut state = demo_state();
    update(&mut state, Action::Resize(160, 48));
    press(&mut state, "v");
    let before = render(&mut state, 160, 48);
    press(&mut state, "n");
    let after = render(&mut state, 160, 48);
    assert_ne!(before, after);
    let cursor = state.view().unwrap().cursor;
    let seq = state.view().unwrap().events()[cursor].seq;
    // The event at the cursor is the one marked, in the transcript as in the panes.
    let marked: Vec<&str> = after.lines().filter(|l| l.contains('▶')).collect();
    assert_eq!(marked.len(), 1, "{after}");
    assert!(marked[0].contains(&format!("#{seq} ")), "{marked:?}");
}

/// `V` in the transcript selects the verdict's evidence there, and `a` would annotate it.
#[test]
fn evidence_is_selected_in_the_transcript() {
    let mut state = demo_state();
    update(&mut state, Action::Resize(160, 48));
    press(&mut state, "vG");
    // The evidence the rule judge names, read from the events directly.
    let view = state.view().unwrap();
    let named: Vec<u64> = view
        .events()
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Verdict(v) => v.evidence.as_ref().map(|ev| ev.seq),
            _ => None,
        })
        .collect();
    assert!(!named.is_empty(), "the demo's rule verdicts name their evidence");
    press(&mut state, "V");
    let inspector = state.inspector().unwrap();
    let t = &inspector.transcript;
    let selected = t.entries[t.selected_entry().unwrap()].event;
    let seq = inspector.view.events()[selected].seq;
    assert!(named.contains(&seq), "{seq} not in {named:?}");
    assert!(!matches!(inspector.view.events()[selected].body, EventBody::Verdict(_)));
    let screen = render(&mut state, 160, 48);
    assert!(screen.contains(&format!("#{seq} ")), "the evidence is on screen:\n{screen}");
}

/// A live episode fed update by update, as the runner would, with a reply streaming in.
fn live_state() -> AppState {
    use converse_tui::core::llm::Role;
    use converse_tui::core::sim::emitter::{Phase, RunnerUpdate};
    let demo = demo_episodes().remove(0);
    let mut state = AppState::live(Keymap::default(), "runs/ep-live.jsonl", false, false)
        .with_layout(LayoutMode::Transcript);
    update(&mut state, Action::Resize(160, 48));
    for event in demo.events.iter().take(11) {
        update(&mut state, Action::Runner(RunnerUpdate::Event(Box::new(event.clone()))));
    }
    update(&mut state, Action::Tick(std::time::Duration::from_secs(83)));
    update(&mut state, Action::Runner(RunnerUpdate::Phase(Phase::Waiting(Role::Assistant))));
    for part in
        ["Thanks, Lisbon sounds ", "lovely. Could you hold Casa do Largo ", "for 24–28 May while I check"]
    {
        let text = part.to_string();
        update(&mut state, Action::Runner(RunnerUpdate::Delta { role: Role::Assistant, text }));
    }
    state
}

#[test]
fn transcript_live_with_a_reply_streaming_in() {
    snapshot("transcript_live", live_state, "");
    // The next event arrives: the transcript follows it.
    let mut state = live_state();
    let demo = demo_episodes().remove(0);
    let next = demo.events[11].clone();
    update(
        &mut state,
        Action::Runner(converse_tui::core::sim::emitter::RunnerUpdate::Event(Box::new(next.clone()))),
    );
    let screen = render(&mut state, 160, 48);
    assert!(screen.contains(&format!("#{} ", next.seq)), "{screen}");
}

#[test]
fn v_toggles_the_layout_and_asks_to_remember_it() {
    let mut state = demo_state().with_ui_state(UiState::default(), Some(PathBuf::from("/config/state.toml")));
    assert_eq!(state.layout_mode(), LayoutMode::Panes, "the three panes are the default");
    let effects = press(&mut state, "v");
    assert_eq!(state.layout_mode(), LayoutMode::Transcript);
    let saved: Vec<&Effect> = effects.iter().filter(|e| matches!(e, Effect::SaveUiState { .. })).collect();
    match saved.as_slice() {
        [Effect::SaveUiState { path, contents }] => {
            assert_eq!(path, Path::new("/config/state.toml"));
            let written: UiState = toml::from_str(contents).unwrap();
            assert_eq!(written.layout, LayoutMode::Transcript);
        }
        other => panic!("expected one save, got {other:?}"),
    }
    press(&mut state, "v");
    assert_eq!(state.layout_mode(), LayoutMode::Panes);
    // Evidence moved to V.
    press(&mut state, "V");
    assert_eq!(state.layout_mode(), LayoutMode::Panes);
}

#[test]
fn a_huge_message_in_the_transcript_opens_and_scrolls() {
    let paragraph = "The assistant repeats itself at great length about Lisbon hotels. ".repeat(20) + "\n";
    let text = paragraph.repeat(20 * 1024 * 1024 / paragraph.len());
    let header = EpisodeHeader::new("huge", TaskInfo::default(), EpisodeConfig::default());
    let bodies = vec![
        EventBody::Episode(Box::new(header)),
        EventBody::Message(Message::new(1, Party::Attacker, Party::Assistant, text)),
    ];
    let episode = Episode::new(stamp_events(bodies, "2026-01-01T10:00:00Z"), "test:huge");
    let mut state = AppState::with_episode(episode, Keymap::default()).with_layout(LayoutMode::Transcript);
    let first = render(&mut state, 160, 48);
    assert!(first.contains("Lisbon"), "{first}");
    for _ in 0..20 {
        handle(&mut state, TermEvent::Key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE)));
    }
    let scrolled = render(&mut state, 160, 48);
    assert_ne!(first, scrolled);
    // 20 MB wrapped whole would be about 140,000 lines at this width; the first screen and 20
    // pages down are about 900, and that (with a screen read ahead) is all that may be wrapped.
    let wrapped = state.inspector().unwrap().transcript.wrapped_lines();
    assert!((800..4_000).contains(&wrapped), "{wrapped} lines wrapped");
}

// ---------------------------------------------------------------- compare

const PAIR: &str = "tests/fixtures/compare-pair/logs/insurance/claude_sonnet_4_0";
const ATTACK: &str = "persona2/privacy/unrelated_to_insurance_religious_and_cultural_practice_details";

fn run_file(defence: &str, stamp: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(PAIR)
        .join(defence)
        .join(ATTACK)
        .join(format!("output_{stamp}.json"))
}

fn baseline() -> PathBuf {
    run_file("baseline", "20250927_120944_rep1")
}

fn firewall() -> PathBuf {
    run_file("firewalls_data_abstraction_language_converter", "20260120_232234_rep1")
}

fn load(path: &Path) -> Episode {
    converse_tui::core::import::load_path(path).unwrap().remove(0)
}

fn pair_state() -> AppState {
    AppState::comparing(load(&baseline()), load(&firewall()), Keymap::default())
}

#[test]
fn compare_a_real_baseline_and_firewall_pair() {
    snapshot("compare_baseline_firewall", pair_state, "");
}

#[test]
fn compare_steps_both_sides_to_the_end_verdicts() {
    snapshot("compare_baseline_firewall_end", pair_state, "G");
}

/// What the compare says, checked against the run files and judge files read directly.
#[test]
fn compare_agrees_with_the_files() {
    let state = pair_state();
    let compare = &state.compare().unwrap().compare;
    let records = |path: &Path| -> Vec<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let (a, b) = (records(&baseline()), records(&firewall()));
    // The first record of each run is the assistant's plan: they differ, so turn 1 diverges.
    assert_ne!(a[0]["long_answer"], b[0]["long_answer"]);
    let first = compare.first_divergence.unwrap();
    assert_eq!(compare.rows[first].turn, Some(1));
    // The privacy judges: the baseline leaked, the firewall did not.
    let leaked = |defence: &str, stamp: &str| -> String {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(PAIR).join(defence).join(ATTACK);
        let judge = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                name.starts_with("privacy_judge_") && name.contains(stamp)
            })
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(judge).unwrap()).unwrap();
        v["llm_evaluation"]["leaked_information"].as_str().unwrap().to_lowercase()
    };
    assert_eq!(leaked("baseline", "20250927_120944"), "yes");
    assert_eq!(leaked("firewalls_data_abstraction_language_converter", "20260120_232234"), "no");
    let end = compare.rows.iter().find(|r| r.turn.is_none()).unwrap();
    let privacy = end.verdicts.iter().find(|v| v.judge == "privacy").unwrap();
    let outcome = |side: usize| privacy.sides[side].as_ref().unwrap().outcome;
    assert_eq!((outcome(0), outcome(1)), (Outcome::Fail, Outcome::Pass));
    assert!(privacy.differs());
    // The turns: as many rows as the longer run has turns (plus the end row).
    let turns = |path: &Path| load(path).events.iter().filter_map(|e| e.body.turn()).max().unwrap_or(0);
    let longest = turns(&baseline()).max(turns(&firewall()));
    assert_eq!(compare.rows.iter().filter(|r| r.turn.is_some_and(|t| t >= 1)).count(), longest as usize);
    // Titles name model, defence, persona and repeat.
    assert_eq!(compare.titles[0].name, "claude_sonnet_4_0 · baseline · persona2 · rep 1");
    assert!(compare.titles[1].name.contains("firewalls_data_abstraction_language_converter"));
}

/// The demo episode and a fork of it at turn 3 (the fork's first two turns are copies).
fn parent_and_fork() -> (Episode, Episode) {
    let source = demo_episodes().remove(0);
    let fork = demo_fork(&source);
    (source, fork)
}

#[test]
fn compare_a_fork_with_its_parent_shows_the_shared_prefix_once() {
    let make = || {
        let (parent, fork) = parent_and_fork();
        AppState::comparing(parent, fork, Keymap::default())
    };
    let state = make();
    let compare = &state.compare().unwrap().compare;
    assert_eq!(compare.shared, 2, "turns 1 and 2 are the fork's copied prefix");
    assert_eq!(compare.rows[compare.first_divergence.unwrap()].turn, Some(3));
    snapshot("compare_fork_and_parent", make, "g");
}

#[test]
fn the_browser_marks_two_episodes_and_compares_them() {
    let make = || {
        let (_, fork) = parent_and_fork();
        let mut episodes = demo_episodes();
        episodes.insert(1, fork);
        AppState::with_browser(Browser::new("runs", episodes, Vec::new()), Keymap::default(), false)
    };
    let mut state = make();
    update(&mut state, Action::Resize(160, 48));
    press(&mut state, "=");
    assert_eq!(state.message(), Some("mark 2 more episodes with m to compare two"));
    press(&mut state, "m");
    press(&mut state, "=");
    assert_eq!(state.message(), Some("mark 1 more episode with m to compare two"));
    snapshot("browser_marked", make, "mj");
    snapshot("browser_marked_compared", make, "mjm=");
    // Esc goes back to the browser with the marks kept.
    let mut state = make();
    update(&mut state, Action::Resize(160, 48));
    press(&mut state, "mjm=");
    assert!(state.compare().is_some());
    press(&mut state, "\x1b");
    assert!(state.compare().is_none());
    assert_eq!(state.browser().unwrap().marked.len(), 2);
}

/// `compare` with a file it cannot use: one line naming the file and the problem, exit code 1.
#[test]
fn compare_refuses_bad_input_in_one_line() {
    let home = tempfile::tempdir().unwrap();
    let run = |a: &Path, b: &Path| bin::command(home.path()).arg("compare").arg(a).arg(b).output().unwrap();
    let missing = home.path().join("missing.json");
    let out = run(&missing, &baseline());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("missing.json") && err.contains("cannot read"), "{err}");
    // A file of several episodes: compare takes one per side.
    let reports = home.path().join("reports.jsonl");
    let one = load(&baseline());
    let mut lines = String::new();
    for id in ["first", "second"] {
        let mut episode = one.clone();
        if let EventBody::Episode(header) = &mut episode.events[0].body {
            header.id = id.into();
        }
        for event in &episode.events {
            lines.push_str(&serde_json::to_string(event).unwrap());
            lines.push('\n');
        }
    }
    std::fs::write(&reports, lines).unwrap();
    let out = run(&baseline(), &reports);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("reports.jsonl") && err.lines().count() == 1, "{err}");
}

/// An annotation shows as `✎ label` on the entry it annotates, in the transcript as in the panes.
#[test]
fn annotations_are_inline_markers_in_the_transcript() {
    use converse_tui::core::annotate::{Draft, Label, NotesFile, notes_path};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ep-travel.jsonl");
    let mut demo = demo_episodes().remove(0);
    write_journal(&path, &demo.events).unwrap();
    demo.origin = path.display().to_string();
    let leak = demo
        .events
        .iter()
        .find(|e| matches!(&e.body, EventBody::Message(m) if m.turn == 3 && m.from == Party::Assistant))
        .unwrap()
        .seq;
    let mut notes = NotesFile::open(notes_path(&path)).unwrap();
    let draft = Draft {
        episode: demo.id().into(),
        target_seq: leak,
        span: None,
        label: Label::Leak,
        note: "x".into(),
    };
    notes.add(draft, "reviewer").unwrap();
    let list = notes.current().into_iter().cloned().collect();
    let mut state = AppState::with_episode(demo, Keymap::default()).with_layout(LayoutMode::Transcript);
    update(&mut state, Action::Resize(160, 48));
    update(&mut state, Action::NotesLoaded { path: notes_path(&path), result: Ok(list) });
    press(&mut state, ":3\n");
    let screen = render(&mut state, 160, 48);
    let marked: Vec<&str> = screen.lines().filter(|l| l.contains("✎ leak")).collect();
    assert_eq!(marked.len(), 1, "{screen}");
    assert!(marked[0].contains(&format!("#{leak} ")), "{marked:?}");
}

// ---------------------------------------------------------------- an attack case's failed run

const SUITE_FIXTURE: &str = "tests/fixtures/attack-suite";

/// `compare CASE.toml RUN.jsonl`: the case stands for its source run (issue 27).
fn failed_case_state() -> AppState {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(SUITE_FIXTURE);
    let case =
        fixture.join("suite/travel_planning_p2_privacy_unrelated_to_travel_passport_number-9aa1316f.toml");
    let run = fixture
        .join("runs/travel_planning_p2_privacy_unrelated_to_travel_passport_number-9aa1316f__r1.jsonl");
    let tasks = converse_tui::core::dataset::TaskLookup::default();
    let source = converse_tui::session::loader::load_one(&case, &tasks).unwrap();
    let run = converse_tui::session::loader::load_one(&run, &tasks).unwrap();
    AppState::comparing(source, run, Keymap::default())
}

#[test]
fn compare_a_failed_attack_case_with_its_source_run() {
    snapshot("compare_failed_case", failed_case_state, "");
}

#[test]
fn a_case_stands_for_its_source_run_in_compare() {
    let state = failed_case_state();
    let [a, b] = &state.compare().unwrap().sides;
    assert_eq!(
        a.view.episode.id(),
        "travel_planning/grok_3/baseline/persona2/privacy/unrelated_to_travel_passport_number/output_20250918_222632_rep1"
    );
    assert!(b.view.episode.header().config.models["assistant"] == "cmd:python my_agent.py");
}
