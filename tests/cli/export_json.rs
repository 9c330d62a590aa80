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
