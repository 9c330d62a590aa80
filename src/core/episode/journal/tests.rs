//! The reader in batches and line by line, on every fixture and on crafted lines.

use std::path::Path;

use super::super::event::{Event, EventBody};
use super::reader::{Decoded, decode, grow_capped};
use super::unescape::decode_huge;
use super::*;

type Read = Result<(Vec<Event>, Vec<JournalWarning>), String>;

fn sequential(bytes: &[u8]) -> Read {
    let mut reader = JournalReader::new(bytes, "j.jsonl").with_limits(usize::MAX, 0);
    let events = reader.by_ref().collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?;
    Ok((events, reader.into_warnings()))
}

fn batched(bytes: &[u8], huge_line: usize, batch_bytes: usize) -> Read {
    let mut reader = JournalReader::new(bytes, "j.jsonl").with_limits(huge_line, batch_bytes);
    let events = reader.read_all().map_err(|e| e.to_string())?;
    Ok((events, reader.into_warnings()))
}

/// Batch by batch, as the TUI loads a journal: the same as reading it whole, and the
/// progress reaches the file's length once it is read to its end.
fn in_batches(bytes: &[u8], batch_bytes: usize) -> Read {
    let mut reader = JournalReader::new(bytes, "j.jsonl").with_limits(200, batch_bytes);
    let mut events = Vec::new();
    while reader.read_batch(&mut events).map_err(|e| e.to_string())? {}
    assert!(!reader.read_batch(&mut events).unwrap(), "done stays done");
    assert_eq!(reader.bytes_read(), bytes.len() as u64);
    Ok((events, reader.into_warnings()))
}

/// A batch's buffer grows as its lines come, up to a batch and a line and no further
/// unless one line needs more; a small journal does not pay for a whole batch.
#[test]
fn the_batch_buffer_grows_to_its_lines_and_stops_at_its_limit() {
    let most = 7 * 3_000;
    let mut bytes = Vec::new();
    grow_capped(&mut bytes, 10, most);
    assert_eq!(bytes.capacity(), 4096);
    let mut capacities = Vec::new();
    while bytes.len() < most {
        grow_capped(&mut bytes, 7, most);
        bytes.extend_from_slice(b"1234567");
        capacities.push(bytes.capacity());
    }
    capacities.dedup();
    assert_eq!(capacities, [4096, 8192, 16384, most]);
    grow_capped(&mut bytes, 50_000, most);
    assert!(bytes.capacity() >= most + 50_000);
}

/// Every journal among the fixtures (the hostile ones too) reads the same in parallel
/// batches, with huge lines read in place, as line by line: same events, warnings, first error.
#[test]
fn parallel_batches_and_huge_lines_read_every_fixture_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(&root).into_iter().filter_map(Result::ok) {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl")
            || entry.metadata().map_or(true, |m| m.len() > 8 << 20)
        {
            continue;
        }
        let bytes = std::fs::read(path).unwrap();
        let expected = sequential(&bytes);
        for (huge, batch) in [(usize::MAX, BATCH_BYTES), (64, 0), (200, 1000), (1 << 20, 64)] {
            assert_eq!(
                batched(&bytes, huge, batch),
                expected,
                "{} (huge {huge}, batch {batch})",
                path.display()
            );
        }
        assert_eq!(in_batches(&bytes, 300), expected, "{} in batches", path.display());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} journals found");
}

fn journal(lines: &[&str]) -> Vec<u8> {
    let header = r#"{"seq":0,"at":"t","kind":"episode","format":"converse-tui/1","id":"e"}"#;
    let mut out = format!("{header}\n");
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out.into_bytes()
}

#[test]
fn a_huge_text_is_unescaped_in_place_exactly_as_serde_json_does() {
    let text = r#"line \"one\"\n\ttab \\ slash \/ é \u00e9 \u2028 \u0000 \b\f\r "#.repeat(40);
    let cases = [
        format!(
            r#"{{"seq":1,"at":"t","kind":"message","turn":1,"from":"user","to":"assistant","text":"{text}"}}"#
        ),
        format!(
            r#"{{"seq":1,"at":"t","kind":"tool_result","turn":1,"call_id":"c","tool":"x","output":"{text}","ok":true}}"#
        ),
        format!(r#"{{"seq":1,"at":"t","kind":"error","source":"s","message":"{text}"}}"#),
        // Surrogate pairs and a lone one are left to serde_json.
        format!(
            r#"{{"seq":1,"at":"t","kind":"message","turn":1,"from":"user","to":"assistant","text":"{text}\ud83d\ude00"}}"#
        ),
        format!(
            r#"{{"seq":1,"at":"t","kind":"message","turn":1,"from":"user","to":"assistant","text":"{text}\ud83d"}}"#
        ),
        // A duplicate text and a wrong type are errors either way.
        format!(
            r#"{{"seq":1,"at":"t","kind":"message","turn":1,"from":"user","to":"assistant","text":"{text}","text":"x"}}"#
        ),
        format!(
            r#"{{"seq":1,"at":"t","kind":"message","turn":"1","from":"user","to":"assistant","text":"{text}"}}"#
        ),
        format!(
            r#"{{"seq":2,"at":"t","kind":"message","turn":1,"from":"user","to":"assistant","text":"{text}"}}"#
        ),
    ];
    for line in &cases {
        let bytes = journal(&[line]);
        let expected = sequential(&bytes);
        assert_eq!(batched(&bytes, 100, 0), expected, "{line}");
        let mut buf = format!("{line}\n").into_bytes();
        if let Some(event) = decode_huge(&mut buf) {
            let Decoded::Event(read) = decode(format!("{line}\n").as_bytes(), false) else {
                panic!("read in place, refused otherwise: {line}")
            };
            assert_eq!(event, read);
        }
    }
    let mut buf = format!("{}\n", cases[0]).into_bytes();
    let event = decode_huge(&mut buf).expect("read in place");
    let EventBody::Message(m) = &event.body else { panic!() };
    assert!(m.text.starts_with("line \"one\"\n\ttab \\ slash / é é \u{2028} \0"));
    assert!(decode_huge(&mut format!("{}\n", cases[3]).into_bytes()).is_none());
}
