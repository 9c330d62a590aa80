//! Bad input never panics and always fails with one line `path:line: problem`.

use std::path::{Path, PathBuf};

use converse_tui::core::episode::{
    End, EndReason, EpisodeConfig, EpisodeHeader, Event, EventBody, JournalWriter, Message, Party, TaskInfo,
    stamp_events,
};
use converse_tui::core::import::{LoadError, load_dir, load_path};
use pretty_assertions::assert_eq;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

fn error_of(path: &Path) -> LoadError {
    match load_path(path) {
        Ok(e) => panic!("{} loaded {} episodes", path.display(), e.len()),
        Err(e) => e,
    }
}

/// The message is one line and starts with `path:line: ` (or `path: ` for line 0).
fn assert_one_line(e: &LoadError, path: &Path, line: usize) {
    let text = e.to_string();
    assert!(!text.contains('\n'), "one line: {text:?}");
    let prefix =
        if line == 0 { format!("{}: ", path.display()) } else { format!("{}:{line}: ", path.display()) };
    assert!(text.starts_with(&prefix), "{text:?} starts with {prefix:?}");
    assert_eq!(e.line, line, "{text}");
}

fn header_and_messages(n: usize, text: &str) -> Vec<Event> {
    let mut bodies = vec![EventBody::Episode(Box::new(EpisodeHeader::new(
        "ep-1",
        TaskInfo::default(),
        EpisodeConfig::default(),
    )))];
    for turn in 1..=n as u32 {
        bodies.push(EventBody::Message(Message::new(turn, Party::Attacker, Party::Assistant, text)));
    }
    bodies.push(EventBody::End(End { reason: EndReason::MaxTurns, turns: n as u32 }));
    stamp_events(bodies, "2026-01-01T00:00:00Z")
}

fn journal_text(events: &[Event]) -> String {
    events.iter().map(|e| serde_json::to_string(e).expect("json") + "\n").collect()
}

#[test]
fn empty_and_blank_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, bytes) in [("empty.json", &b""[..]), ("blank.jsonl", &b"\n  \n\t\n"[..])] {
        let path = write(dir.path(), name, bytes);
        let e = error_of(&path);
        assert_one_line(&e, &path, 0);
        assert!(e.problem.contains("empty"), "{e}");
    }
}

#[test]
fn not_json_names_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "notes.json", b"\n\nhello, world\nmore\n");
    let e = error_of(&path);
    assert_one_line(&e, &path, 3);
    assert!(e.problem.starts_with("invalid JSON"), "{e}");
    // A syntax error deep in a pretty-printed file names its line too.
    let path = write(dir.path(), "list.json", b"[\n {\"from\": \"assistant\",\n  \"to\": }\n]");
    assert_one_line(&error_of(&path), &path, 3);
}

#[test]
fn valid_json_of_no_known_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: [(&str, &str, &str); 6] = [
        ("obj.json", r#"{"hello": 1, "world": [2]}"#, "'hello', 'world'"),
        ("list.json", r#"[{"a": 1}]"#, "list of objects"),
        ("nums.json", "[1, 2, 3]", "list of number"),
        ("str.json", r#""just a string""#, "a JSON string"),
        ("empty_list.json", "[]", "empty JSON list"),
        ("judge.json", r#"{"output_1.json": {"judge_text": "x", "final_assessment": {}}}"#, "judge file"),
    ];
    for (name, text, needle) in cases {
        let path = write(dir.path(), name, text.as_bytes());
        let e = error_of(&path);
        let line = if name == "empty_list.json" { 1 } else { 0 };
        assert_one_line(&e, &path, line);
        assert!(e.to_string().contains(needle), "{e} contains {needle}");
    }
    let path = write(dir.path(), "wrong.json", br#"{"hello": 1}"#);
    assert!(error_of(&path).to_string().contains("unrecognised format"));
}

#[test]
fn converse_records_of_the_wrong_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        r#"[{"from": "assistant", "to": "nobody", "short_answer": "x"}]"#,
        r#"[{"from": "assistant", "to": "environment", "short_answer": 5}]"#,
        r#"[{"from": "assistant", "to": "environment"}, 7]"#,
    ];
    for (i, text) in cases.iter().enumerate() {
        let path = write(dir.path(), &format!("c{i}.json"), text.as_bytes());
        let e = error_of(&path);
        assert_one_line(&e, &path, 0);
        assert!(e.problem.contains("record"), "{e}");
    }
}

#[test]
fn a_broken_line_in_the_middle_of_a_journal_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut lines: Vec<String> =
        journal_text(&header_and_messages(4, "hi")).lines().map(str::to_string).collect();
    lines[3] = "{\"seq\": 3, \"at\": oops".to_string();
    let path = write(dir.path(), "j.jsonl", (lines.join("\n") + "\n").as_bytes());
    let e = error_of(&path);
    assert_one_line(&e, &path, 4);
    assert!(e.problem.contains("invalid JSON"), "{e}");
}

#[test]
fn a_truncated_last_line_loads_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = header_and_messages(3, "hi");
    let mut text = journal_text(&events);
    let cut = text.len() - 10;
    text.truncate(cut);
    let path = write(dir.path(), "j.jsonl", text.as_bytes());
    let episodes = load_path(&path).expect("loads");
    assert_eq!(episodes[0].events, events[..events.len() - 1].to_vec());
    assert_eq!(episodes[0].warnings.len(), 1);
    assert!(episodes[0].warnings[0].contains(":5: truncated last line"));
}

#[test]
fn binary_garbage_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = b"[\n".to_vec();
    bytes.extend((0..=255u8).cycle().take(4096));
    let path = write(dir.path(), "garbage.json", &bytes);
    let e = error_of(&path);
    assert!(!e.to_string().contains('\n'));
    assert!(e.to_string().starts_with(&format!("{}:", path.display())));
    assert!(e.problem.contains("not UTF-8"), "{e}");
    // Control bytes in otherwise valid UTF-8, and deep nesting, fail cleanly too.
    let path = write(dir.path(), "ctl.json", b"\x1b[31m\x00\x07{");
    assert!(!error_of(&path).to_string().contains('\x1b'));
    let deep = "[".repeat(100_000);
    let path = write(dir.path(), "deep.json", deep.as_bytes());
    assert_one_line(&error_of(&path), &path, 1);
}

#[test]
fn a_50_mb_message_loads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = "x".repeat(50 * 1024 * 1024);
    let events = header_and_messages(1, &big);
    let path = dir.path().join("big.jsonl");
    let mut writer = JournalWriter::create(&path).expect("create");
    for e in &events {
        writer.write_event(e).expect("write");
    }
    let episodes = load_path(&path).expect("loads");
    match &episodes[0].events[1].body {
        EventBody::Message(m) => assert_eq!(m.text.len(), big.len()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn journal_round_trip() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = header_and_messages(3, "ünïcode ✓ \u{1b}[31m and \"quotes\"\n");
    let path = dir.path().join("sub/round.jsonl");
    let mut writer = JournalWriter::create(&path).expect("create");
    for e in &events {
        writer.write_event(e).expect("write");
    }
    writer.sync().expect("sync");
    let episodes = load_path(&path).expect("loads");
    assert_eq!(episodes.len(), 1);
    assert_eq!(episodes[0].events, events);
    assert_eq!(episodes[0].origin, path.to_string_lossy());
    assert!(episodes[0].warnings.is_empty());
    // Imported episodes survive a round trip through our own journal format too.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/converse-logs/persona1_adv_security_attack_delete_calendar_baseline/output_20241227_121521.json",
    );
    let imported = load_path(&fixture).expect("fixture").remove(0);
    let copy = dir.path().join("copy.jsonl");
    converse_tui::core::episode::write_journal(&copy, &imported.events).expect("write");
    assert_eq!(load_path(&copy).expect("reads").remove(0).events, imported.events);
}

#[test]
fn load_dir_collects_errors_and_skips_sidecars() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("b/c")).expect("mkdir");
    let journal = journal_text(&header_and_messages(1, "hi"));
    write(root, "a.jsonl", journal.as_bytes());
    write(root, "a.notes.jsonl", b"{\"id\": 1}\n");
    write(root, "a.verdicts.jsonl", b"not even json");
    write(root, "readme.txt", b"not json");
    write(root, "b/bad.json", b"{oops");
    write(root, "b/c/z.JSONL", journal.as_bytes());
    write(root, "b/privacy_judge.json", br#"{"a.json": {"judge_text": "x", "final_assessment": {}}}"#);
    let (episodes, errors) = load_dir(root);
    let origins: Vec<_> = episodes
        .iter()
        .map(|e| Path::new(&e.origin).strip_prefix(root).expect("under root").to_string_lossy().into_owned())
        .collect();
    assert_eq!(origins, vec!["a.jsonl", "b/c/z.JSONL"]);
    assert_eq!(errors.len(), 1);
    assert_one_line(&errors[0], &root.join("b/bad.json"), 1);

    let (episodes, errors) = load_dir(&root.join("missing"));
    assert!(episodes.is_empty());
    assert_eq!(errors.len(), 1);
    assert!(!errors[0].to_string().contains('\n'));
}

#[test]
fn a_missing_file_is_a_one_line_error() {
    let path = PathBuf::from("/nonexistent/dir/x.json");
    assert_one_line(&error_of(&path), &path, 0);
}

#[test]
fn mangled_inputs_never_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/converse-logs/persona3_benign_without_offer_taskConfined/output_20241222_203229.json",
    );
    let log = std::fs::read(&fixture).expect("fixture");
    let journal = journal_text(&header_and_messages(3, "hi")).into_bytes();
    let report = br#"{"task_id": "t", "status": "success", "traces": {"agents": {"a": {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "zz", "content": 5}]}}}, "eval": [{"privacy_leak": true}]}"#.to_vec();
    // A fixed pseudo-random sequence keeps the test deterministic.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let path = dir.path().join("m.json");
    for source in [&log, &journal, &report] {
        for _ in 0..150 {
            let mut bytes = source.clone();
            match next(3) {
                0 => bytes.truncate(next(bytes.len())),
                1 => {
                    for _ in 0..4 {
                        let i = next(bytes.len());
                        bytes[i] = next(256) as u8;
                    }
                }
                _ => {
                    let i = next(bytes.len());
                    bytes.insert(i, b"{}[]\",:\n"[next(8)]);
                }
            }
            std::fs::write(&path, &bytes).expect("write");
            if let Err(e) = load_path(&path) {
                let text = e.to_string();
                assert!(!text.contains('\n'), "{text}");
                assert!(text.starts_with(&path.display().to_string()), "{text}");
            }
        }
    }
}

/// Found by the `journal` fuzz target: a value the error quotes (an unsupported
/// `format`, an unknown `kind`) holding an escaped newline made the error two lines.
#[test]
fn values_quoted_in_an_error_keep_it_on_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let header = r#"{"seq": 0, "at": "2026-01-01T00:00:00Z", "kind": "episode", "format": "FORMAT", "id": "e", "task": {}, "config": {}}"#;
    let bad_format = header.replace("FORMAT", r"converse\ntui/1\u001b]0;pwned\u0007");
    let bad_kind = format!(
        "{}\n{}\n",
        header.replace("FORMAT", "converse-tui/1"),
        r#"{"seq": 1, "at": "x", "kind": "end\nnow"}"#
    );
    let torn = format!(
        "{}\n{}",
        header.replace("FORMAT", "converse-tui/1"),
        r#"{"seq": 1, "at": "x", "kind": "end\nnow"#
    );
    for (name, text, line) in [("format.jsonl", format!("{bad_format}\n"), 1), ("kind.jsonl", bad_kind, 2)] {
        let path = write(dir.path(), name, text.as_bytes());
        let e = error_of(&path);
        assert_one_line(&e, &path, line);
        assert!(!e.to_string().contains('\u{1b}') && !e.to_string().contains('\u{7}'), "{e}");
        let direct = converse_tui::core::episode::read_journal_from(text.as_bytes(), "j.jsonl").unwrap_err();
        assert!(!direct.to_string().contains('\n'), "{direct}");
    }
    let (_, warnings) = converse_tui::core::episode::read_journal_from(torn.as_bytes(), "j.jsonl").unwrap();
    assert!(warnings.iter().all(|w| !w.to_string().contains('\n')), "{warnings:?}");
}

/// Issue 23 item 7: a ConVerse log cut short (a copy or a download stopped, maybe with a newline
/// after the cut) says so, where it said "control character … (column 0)".
#[test]
fn a_log_cut_short_says_unexpected_end_of_file() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/converse-logs/persona4_adv_upselling_baseline/output_20250101_212805.json"),
    )
    .unwrap();
    for (name, bytes) in
        [("cut.json", full[..2500].to_vec()), ("cut-newline.json", [&full[..2500], b"\n"].concat())]
    {
        let path = write(dir.path(), name, &bytes);
        let e = error_of(&path);
        assert!(e.problem.starts_with("unexpected end of file"), "{name}: {e}");
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}
