//! Killing a writer at any moment never leaves a notes file that fails to open.
//!
//! The test binary re-invokes itself to run the ignored `child_writer`, which appends annotations
//! in a tight loop until killed (it is ignored so a plain test run never takes it for a test).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use converse_tui::core::annotate::{Draft, Label, NotesFile, Span};

const CHILD_ENV: &str = "NOTES_CRASH_CHILD";

/// Notes of varied length, so kills land at different offsets within lines.
fn note_for(n: u64) -> String {
    format!("note {n}: {}", "xé\"\n".repeat((n % 37) as usize))
}

#[test]
#[ignore = "the writer the crash test spawns and kills, not a test of its own"]
fn child_writer() {
    let path = std::env::var(CHILD_ENV).expect("run by the crash test, which names the notes file");
    let mut notes = NotesFile::open(&path).expect("child opens the notes");
    let mut n = notes.log().len() as u64;
    loop {
        let draft = Draft {
            episode: "ep".into(),
            target_seq: n,
            span: Some(Span { start: 0, end: n as usize }),
            label: Label::all().nth((n % 9) as usize).unwrap(),
            note: note_for(n),
        };
        notes.add(draft, "child").expect("append");
        n += 1;
    }
}

fn count_checked(path: &Path) -> usize {
    let notes = NotesFile::open(path).unwrap_or_else(|e| panic!("notes must open after a kill: {e}"));
    for record in notes.log() {
        let n = record.target_seq;
        assert_eq!(record.note, note_for(n), "record intact");
        assert_eq!(record.span, Some(Span { start: 0, end: n as usize }));
        assert_eq!(record.label, Label::all().nth((n % 9) as usize).unwrap());
    }
    assert_eq!(notes.current().len(), notes.log().len());
    notes.log().len()
}

#[test]
fn killed_writers_leave_a_readable_growing_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ep.notes.jsonl");
    let exe = std::env::current_exe().unwrap();
    let mut previous = 0;
    for round in 0..6u64 {
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let before = size(&path);
        let mut child = Command::new(&exe)
            .args(["--exact", "annotate_crash::child_writer", "--ignored", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, &path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait for the child to have written something, then a varying delay.
        let started = Instant::now();
        while size(&path) <= before && started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(2));
        }
        let jitter =
            (std::process::id() as u64 + round * 7919 + started.elapsed().subsec_nanos() as u64) % 40;
        std::thread::sleep(Duration::from_millis(5 + jitter));
        child.kill().unwrap();
        child.wait().unwrap();

        let count = count_checked(&path);
        assert!(count >= previous, "round {round}: {count} records after {previous}");
        previous = count;
    }
    assert!(previous > 0, "the children wrote something");
}
