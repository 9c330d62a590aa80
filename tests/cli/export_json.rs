//! The json export is the journal: it reads back through the journal reader.

use crate::support::bin;
use converse_tui::core::demo::demo_episodes;
use converse_tui::core::episode::read_journal_from;
use converse_tui::core::export::to_json_lines;

#[test]
fn json_export_reads_back_as_the_same_journal() {
    for episode in demo_episodes() {
        let text = to_json_lines(&episode);
        let (events, warnings) = read_journal_from(text.as_bytes(), "export.jsonl").unwrap();
        assert!(warnings.is_empty());
        assert_eq!(events, episode.events, "{}", episode.id());
    }
}

/// Issue 24, defect 5: once a verdicts sidecar exists, `export --format json` and `dump --json`
/// wrote the merged verdicts where they show (after their `after_seq`), out of `seq` order, and
/// the reader refused the file (`expected seq 5, found 20`). They are written in `seq` order now.
#[test]
fn a_rejudged_episode_exports_as_a_journal_that_reads_back() {
    let home = tempfile::tempdir().unwrap();
    let journal = home.path().join("ep.jsonl");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl"),
        &journal,
    )
    .unwrap();
    let bin = |args: &[&str]| {
        let out = bin::command(home.path()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let file = journal.display().to_string();
    bin(&["judge", &file, "--rules-only"]);
    assert!(home.path().join("ep.verdicts.jsonl").exists(), "a sidecar to merge");
    let original = converse_tui::core::import::load_path(&journal).unwrap().remove(0);
    for args in [vec!["export", &file, "--format", "json"], vec!["dump", "--json", &file]] {
        let text = bin(&args);
        let (events, _) =
            read_journal_from(text.as_slice(), "out.jsonl").unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(events.len(), original.events.len(), "{args:?}: every event, the merged verdicts too");
        assert!(events.windows(2).all(|w| w[0].seq < w[1].seq));
    }
}

/// Issue 23 item 10: a JSON export keeps the episode's annotations — beside the journal, as the
/// notes file of `-o FILE` (they were dropped); to stdout, stderr says where they are.
#[test]
fn a_json_export_carries_the_annotations_beside_it() {
    use converse_tui::core::annotate::{Draft, Label, NotesFile, notes_path};
    let home = tempfile::tempdir().unwrap();
    let journal = home.path().join("ep.jsonl");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl"),
        &journal,
    )
    .unwrap();
    let episode = converse_tui::core::import::load_path(&journal).unwrap().remove(0);
    let mut notes = NotesFile::open(notes_path(&journal)).unwrap();
    let draft = Draft {
        episode: episode.id().into(),
        target_seq: 5,
        span: None,
        label: Label::Leak,
        note: "the cardiology visit".into(),
    };
    notes.add(draft, "tester").unwrap();
    let out = home.path().join("exported.jsonl");
    let run = bin::command(home.path())
        .args(["export", journal.to_str().unwrap(), "--format", "json", "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let carried = NotesFile::open(notes_path(&out)).unwrap();
    assert_eq!(carried.current().len(), 1);
    assert_eq!((carried.current()[0].target_seq, carried.current()[0].label), (5, Label::Leak));
    let to_stdout = bin::command(home.path())
        .args(["export", journal.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&to_stdout.stderr);
    assert!(stderr.contains("ep.notes.jsonl") && stderr.contains("-o FILE"), "{stderr}");
}
