//! `headless::dump`: journal JSON lines and the aligned text table.

use std::path::{Path, PathBuf};

use converse_tui::core::dataset::TaskLookup;
use converse_tui::core::episode::{Event, read_journal_from};
use converse_tui::core::import::load_path;
use converse_tui::headless::dump::dump;
use pretty_assertions::assert_eq;
use unicode_width::UnicodeWidthStr;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-logs").join(rel)
}

const LOG: &str = "persona1_adv_security_attack_delete_calendar_baseline/output_20241227_121521.json";

fn run(paths: &[PathBuf], json: bool) -> anyhow::Result<String> {
    let mut out = Vec::new();
    dump(paths, json, &TaskLookup::default(), &mut out, &mut Vec::new())?;
    Ok(String::from_utf8(out).expect("utf-8"))
}

#[test]
fn json_output_is_the_journal_form() {
    let path = fixture(LOG);
    let text = run(std::slice::from_ref(&path), true).expect("dump");
    let (events, warnings) = read_journal_from(text.as_bytes(), "dump").expect("a journal");
    assert!(warnings.is_empty());
    assert_eq!(events, load_path(&path).expect("loads").remove(0).events);
}

#[test]
fn json_output_of_several_episodes_keeps_each_after_its_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = |id: &str| {
        serde_json::json!({"task_id": id, "repeat_idx": 0, "status": "success", "eval": [],
            "traces": {"agents": {"a": {"messages": [{"role": "user", "content": "go"}]}}}})
    };
    let path = dir.path().join("r.json");
    std::fs::write(&path, serde_json::json!([report("a"), report("b")]).to_string()).expect("write");
    let text = run(&[path], true).expect("dump");
    let events: Vec<Event> = text.lines().map(|l| serde_json::from_str(l).expect("event")).collect();
    let shape: Vec<(u64, &str)> = events.iter().map(|e| (e.seq, e.body.kind())).collect();
    assert_eq!(
        shape,
        vec![(0, "episode"), (1, "message"), (2, "end"), (0, "episode"), (1, "message"), (2, "end")]
    );
}

#[test]
fn text_output_is_an_aligned_single_line_table() {
    let path = fixture(LOG);
    let text = run(&[path], false).expect("dump");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with(
        "episode persona1_adv_security_attack_delete_calendar_baseline/output_20241227_121521 ("
    ));
    let rows: Vec<&str> = lines[1..].iter().copied().filter(|l| !l.is_empty()).collect();
    let episode = load_path(&fixture(LOG)).expect("loads").remove(0);
    assert_eq!(rows.len(), episode.events.len());
    // The kind column starts at the same cell in every row.
    let kind_col: Vec<usize> = rows
        .iter()
        .zip(&episode.events)
        .map(|(row, ev)| {
            let at = row.find(ev.body.kind()).expect("kind shown");
            row[..at].width()
        })
        .collect();
    assert!(kind_col.windows(2).all(|w| w[0] == w[1]), "{kind_col:?}");
    for row in &rows {
        assert!(row.width() <= 200, "summaries are cut: {row}");
        assert!(!row.chars().any(|c| c.is_control()), "sanitised: {row:?}");
    }
    assert!(rows[1].contains("assistant note"));
    assert!(rows[2].contains("environment") && rows[2].contains("env-1"));
    assert!(text.contains("utility_other_adv/conversation"));
    assert!(text.contains("fail (imported) Q10 attack successful? yes"));
    assert!(rows.last().expect("end").contains("assistant_done after 7 turns"));
}

#[test]
fn control_bytes_in_model_text_are_made_inert() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("log.json");
    std::fs::write(
        &path,
        r#"[{"from":"external_agent","to":"assistant","short_answer":"\u001b[2J\u001b]0;pwned\u0007 wide: 漢字漢字","long_answer":""}]"#,
    )
    .expect("write");
    let text = run(&[path], false).expect("dump");
    assert!(!text.contains('\u{1b}'));
    assert!(!text.contains('\u{7}'));
    assert!(text.contains("␛[2J"));
    assert!(text.contains("漢字"));
}

#[test]
fn a_directory_dumps_every_episode_and_errors_name_the_file() {
    let text = run(&[fixture("")], false).expect("dump");
    assert_eq!(text.lines().filter(|l| l.starts_with("episode ")).count(), 19);

    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[\n{\"from\": }").expect("write");
    let err = run(std::slice::from_ref(&bad), true).expect_err("fails");
    assert_eq!(err.to_string().lines().count(), 1, "one line: {err}");
    assert!(err.to_string().starts_with(&format!("{}:2: invalid JSON", bad.display())));
    let err = run(&[dir.path().to_path_buf()], false).expect_err("fails");
    assert!(err.to_string().starts_with(&format!("{}:2:", bad.display())));
}

/// Issue 11 items 10 and 11: a truncated journal dumps with a warning on
/// stderr (naming file and line), and the table lists the annotations of its
/// notes file with the words each one quotes.
#[test]
fn a_truncated_journal_warns_on_stderr_and_annotations_are_listed_with_their_quote() {
    use converse_tui::core::annotate::{Draft, Label, NotesFile, Span, notes_path};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("ep.jsonl");
    let text = concat!(
        r#"{"seq":0,"at":"t","kind":"episode","format":"converse-tui/1","id":"ep"}"#,
        "\n",
        r#"{"seq":1,"at":"t","kind":"message","turn":1,"from":"assistant","to":"attacker","text":"See Hollybrook Clinic"}"#,
        "\n",
        r#"{"seq":2,"at":"t","kind":"message","turn":2,"from":"attac"#,
    );
    std::fs::write(&path, text).expect("write");
    let mut notes = NotesFile::open(notes_path(&path)).expect("notes");
    let draft = Draft {
        episode: "ep".into(),
        target_seq: 1,
        span: Some(Span { start: 4, end: 14 }),
        label: Label::Leak,
        note: "names the clinic".into(),
    };
    notes.add(draft, "ann").expect("add");

    let (mut out, mut err) = (Vec::new(), Vec::new());
    dump(std::slice::from_ref(&path), false, &TaskLookup::default(), &mut out, &mut err).expect("dump");
    let (out, err) = (String::from_utf8(out).expect("utf-8"), String::from_utf8(err).expect("utf-8"));
    assert!(err.starts_with("warning: ") && err.contains("ep.jsonl:3:"), "{err}");
    assert!(out.contains("note #1 leak «Hollybrook» names the clinic"), "{out}");

    let mut err = Vec::new();
    dump(&[path], true, &TaskLookup::default(), &mut Vec::new(), &mut err).expect("dump");
    assert!(String::from_utf8_lossy(&err).contains("ep.jsonl:3:"), "--json warns too");
}

#[test]
fn a_demo_dumps_by_its_name() {
    let asset = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl");
    let (expected, _) = read_journal_from(std::fs::read(asset).unwrap().as_slice(), "asset").unwrap();
    for name in ["demo:01-travel-privacy-leak", "demo:01"] {
        let text = run(&[PathBuf::from(name)], true).expect("dump");
        let (events, _) = read_journal_from(text.as_bytes(), "dump").expect("a journal");
        assert_eq!(events, expected, "{name}");
    }
    let err = run(&[PathBuf::from("demo:04")], false).unwrap_err().to_string();
    assert!(
        err.starts_with("demo:04: no demo episode is named \"04\" (one of 01-travel-privacy-leak"),
        "{err}"
    );
}
