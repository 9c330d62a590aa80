//! The directory index: summaries from a journal's first line and tail agree
//! with a full load, and survive truncation; sidecar verdicts count.

use crate::support::journals;

use std::path::{Path, PathBuf};

use converse_tui::core::episode::index::{EpisodeSummary, TAIL_BYTES};
use converse_tui::core::episode::sidecar::{SidecarVerdict, sidecar_path, write_sidecar};
use converse_tui::core::episode::*;
use converse_tui::core::import::{index_dir, index_path, load_path};
use pretty_assertions::assert_eq;

fn demos() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
}

/// What a full load says about the file's one episode.
fn full(path: &Path) -> EpisodeSummary {
    let mut episodes = load_path(path).unwrap();
    assert_eq!(episodes.len(), 1);
    EpisodeSummary { path: path.to_path_buf(), ..EpisodeSummary::of(&episodes.remove(0)) }
}

fn fork_of_first_demo(dir: &Path) -> PathBuf {
    let events = load_path(&demos()[0]).unwrap().remove(0).events;
    let EventBody::Episode(mut header) = events[0].body.clone() else { panic!("header first") };
    header.id = "fork-of-travel".into();
    header.parent = Some(ParentRef { episode: "demo-travel-privacy-leak".into(), seq: 9 });
    let mut bodies = vec![EventBody::Episode(header)];
    bodies.extend(events[1..10].iter().map(|e| e.body.clone()));
    let path = dir.join("fork.jsonl");
    std::fs::write(&path, journals::journal_text(&stamp_events(bodies, "2025-05-01T09:20:00Z"))).unwrap();
    path
}

#[test]
fn demo_summaries_equal_the_full_load() {
    let dir = tempfile::tempdir().unwrap();
    for demo in demos() {
        std::fs::copy(&demo, dir.path().join(demo.file_name().unwrap())).unwrap();
    }
    let fork = fork_of_first_demo(dir.path());
    let (summaries, errors) = index_dir(dir.path());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(summaries.len(), 4);
    for summary in &summaries {
        assert_eq!(*summary, full(&summary.path));
    }
    let first = &summaries[0];
    assert_eq!(first.domain.as_deref(), Some("travel_planning"));
    assert_eq!(first.turns, 5);
    assert_eq!(first.end_reason, Some(EndReason::MaxTurns));
    assert!(first.verdicts.contains(&("privacy".into(), Outcome::Fail, Some(0.0))));
    assert!(first.models.contains(&("assistant".into(), "gpt-4o-mini-2024-07-18".into())));
    let fork = summaries.iter().find(|s| s.path == fork).unwrap();
    assert_eq!(fork.parent.as_deref(), Some("demo-travel-privacy-leak"));
    assert_eq!(fork.end_reason, None);
}

#[test]
fn a_truncated_journal_still_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&demos()[0]).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Crash mid-write: no verdicts, no end, half a line.
    let kept = lines.iter().take_while(|l| !l.contains("\"kind\": \"verdict\"")).count();
    let mut cut = lines[..kept].join("\n");
    cut.push('\n');
    cut.push_str(&lines[kept][..40]);
    let path = dir.path().join("crashed.jsonl");
    std::fs::write(&path, &cut).unwrap();
    let summary = index_path(&path).unwrap().remove(0);
    let full = full(&path);
    assert_eq!(summary, full);
    assert_eq!(summary.end_reason, None);
    assert!(summary.turns > 0);
    assert_eq!(summary.events, Some(kept));
}

#[test]
fn sidecar_verdicts_show_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ep.jsonl");
    std::fs::copy(&demos()[1], &path).unwrap();
    let id = full(&path).id;
    let judged = |judge: &str, outcome| SidecarVerdict {
        episode: id.clone(),
        after_seq: 1_000,
        at: "2025-05-02T10:00:00Z".into(),
        verdict: match journals::verdict(None, judge, outcome, Some(0.25)) {
            EventBody::Verdict(v) => *v,
            _ => unreachable!(),
        },
    };
    let other = SidecarVerdict { episode: "someone-else".into(), ..judged("x", Outcome::Error) };
    write_sidecar(
        &sidecar_path(&path),
        &[judged("privacy", Outcome::Fail), judged("rejudge", Outcome::Partial), other],
    )
    .unwrap();
    let summary = index_path(&path).unwrap().remove(0);
    assert_eq!(summary, full(&path));
    assert!(summary.verdicts.contains(&("privacy".into(), Outcome::Fail, Some(0.25))));
    assert!(summary.verdicts.contains(&("rejudge".into(), Outcome::Partial, Some(0.25))));
    assert!(!summary.verdicts.iter().any(|(j, ..)| j.as_str() == "x"));
}

#[test]
fn a_journal_longer_than_the_tail_window_reads_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut events = journals::journal_events(3);
    events.pop();
    let long = "x".repeat(4_000);
    let mut bodies: Vec<EventBody> = events.into_iter().map(|e| e.body).collect();
    let verdicts = bodies.split_off(bodies.len() - 3);
    for turn in 8..=60 {
        bodies.push(EventBody::ToolResult(ToolResult {
            turn,
            call_id: format!("c{turn}"),
            tool: "search".into(),
            output: long.clone(),
            ok: true,
            raw: None,
        }));
    }
    bodies.extend(verdicts);
    bodies.push(EventBody::End(End { reason: EndReason::AttackerDone, turns: 60 }));
    let text = journals::journal_text(&stamp_events(bodies, "t"));
    assert!(text.len() as u64 > 2 * TAIL_BYTES);
    let path = dir.path().join("long.jsonl");
    std::fs::write(&path, text).unwrap();
    let summary = index_path(&path).unwrap().remove(0);
    assert_eq!(summary, full(&path));
    assert_eq!((summary.turns, summary.end_reason), (60, Some(EndReason::AttackerDone)));
}

#[test]
fn other_formats_fall_back_to_a_full_load_and_bad_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let logs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-logs");
    let (expected, _) = converse_tui::core::import::load_dir(&logs);
    let (summaries, _) = index_dir(&logs);
    assert_eq!(summaries.len(), expected.len());
    assert!(!summaries.is_empty());
    std::fs::write(dir.path().join("bad.jsonl"), "{\"seq\": 0, \"kind\": \"message\"}\n").unwrap();
    std::fs::write(dir.path().join("empty.json"), "").unwrap();
    std::fs::write(dir.path().join("binary.jsonl"), [0xff, 0xfe, 0x00, b'\n']).unwrap();
    let (summaries, errors) = index_dir(dir.path());
    assert!(summaries.is_empty());
    assert_eq!(errors.len(), 3, "{errors:?}");
}

#[test]
fn two_thousand_generated_journals_index() {
    let dir = tempfile::tempdir().unwrap();
    journals::write_journals(dir.path(), 2_000);
    let (summaries, errors) = index_dir(dir.path());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(summaries.len(), 2_000);
    for (i, s) in summaries.iter().enumerate() {
        assert_eq!(s.id, format!("ep-{i:05}"));
        assert_eq!(s.turns, 7);
        assert_eq!(s.events, Some(journals::journal_events(i).len()));
        assert_eq!(s.end_reason, Some(EndReason::MaxTurns));
        assert_eq!(
            s.verdicts,
            [
                (Judge::Privacy, journals::privacy_outcome(i), Some(0.5)),
                (Judge::Utility, Outcome::Partial, Some(0.71))
            ]
        );
    }
    assert_eq!(summaries[7], full(&summaries[7].path));
}
