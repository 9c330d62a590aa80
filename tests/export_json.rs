//! The json export is the journal: it reads back through the journal reader.

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
