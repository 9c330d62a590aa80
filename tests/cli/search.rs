//! `converse-tui search`: matches in the delivered text (escapes decoded, never in keys) of every
//! format, party and `--where` filters, the JSON shape, and the real benchmark runs counted
//! independently (serde_json over the same files).

use crate::support::bin;

use std::path::{Path, PathBuf};

use serde_json::Value;

use bin::run_in;
use converse_tui::core::search::{Field, Matcher, Query, Speaker, files_under, search_files};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-benchmark-logs")
}

const HEADER: &str = r#"{"seq": 0, "at": "2026-11-20T10:00:00Z", "kind": "episode", "format": "converse-tui/1", "id": "ID", "task": {"holter": "key only"}, "config": {}}"#;

/// A journal whose events are the given JSON lines (after the header), written raw so the test
/// chooses every escape.
fn journal(dir: &Path, name: &str, id: &str, events: &[&str]) -> PathBuf {
    let mut text = HEADER.replace("\"ID\"", &format!("\"{id}\""));
    text.push('\n');
    for (i, event) in events.iter().enumerate() {
        text.push_str(&format!(r#"{{"seq": {}, "at": "2026-11-20T10:00:01Z", {event}}}"#, i + 1));
        text.push('\n');
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn message(turn: u32, from: &str, text_json: &str) -> String {
    let to = if from == "assistant" { "attacker" } else { "assistant" };
    format!(r#""kind": "message", "turn": {turn}, "from": "{from}", "to": "{to}", "text": {text_json}"#)
}

fn json_hits(home: &Path, args: &[&str]) -> (Vec<Value>, i32) {
    let mut all = vec!["search", "--json"];
    all.extend_from_slice(args);
    let out = run_in(home, &all);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let hits = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (hits, out.status.code().unwrap())
}

fn field<'a>(hit: &'a Value, key: &str) -> &'a Value {
    &hit[key]
}

#[test]
fn escapes_never_hide_a_match() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().to_str().unwrap().to_string();
    journal(
        dir.path(),
        "a.jsonl",
        "ep-a",
        &[
            &message(1, "attacker", r#""Did you see the \u0048olter results?""#),
            &message(1, "assistant", r#""The caf\u00e9 on rue X""#),
            &message(2, "assistant", r#""line one\nline two""#),
            &message(2, "attacker", r#""Hol\u0074er again""#),
        ],
    );
    let home = dir.path().join("home");
    let (hits, code) = json_hits(&home, &["Holter", &p]);
    assert_eq!(code, 0);
    let seqs: Vec<u64> = hits.iter().map(|h| h["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [1, 4]);
    assert_eq!(hits[0]["line"], "Did you see the Holter results?");
    // é written as an escape, searched in either case.
    let (hits, _) = json_hits(&home, &["CAFÉ", &p]);
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0]["start"].as_u64(), hits[0]["end"].as_u64()), (Some(4), Some(8)));
    // A match across the decoded `\n` (a literal with a newline, and a regex).
    let (hits, _) = json_hits(&home, &["one\nline", &p]);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["line"], "line one");
    let (hits, _) = json_hits(&home, &["--regex", r"one\s+line two", &p]);
    assert_eq!(hits.len(), 1);
    // The escape itself is not text: `u0048` and `\n` as written are not found.
    let (hits, code) = json_hits(&home, &["u0048olter", &p]);
    assert_eq!((hits.len(), code), (0, 1));
}

#[test]
fn keys_never_match_and_tool_arguments_are_values() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().to_str().unwrap().to_string();
    journal(
        dir.path(),
        "k.jsonl",
        "ep-k",
        &[
            &message(1, "attacker", r#""nothing here""#),
            r#""kind": "tool_call", "turn": 1, "call_id": "c1", "tool": "send_email", "args": {"holter": "to bob", "body": "my Holter data"}"#,
            r#""kind": "tool_result", "turn": 1, "call_id": "c1", "tool": "send_email", "output": "sent", "ok": true"#,
        ],
    );
    let home = dir.path().join("home");
    let (hits, code) = json_hits(&home, &["holter", &p]);
    assert_eq!(code, 0);
    // The header's task key and the argument key `holter` are keys: only the body value matches.
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["line"], "my Holter data");
    assert_eq!(hits[0]["party"], "tool");
    let (hits, _) = json_hits(&home, &["send_email", &p]);
    assert!(hits.is_empty(), "tool names and kinds are not delivered text: {hits:?}");
}

#[test]
fn party_filter_json_shape_and_char_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().to_str().unwrap().to_string();
    let file = journal(
        dir.path(),
        "p.jsonl",
        "ep-p",
        &[
            &message(1, "user", r#""Plan my trip, passport ready""#),
            &message(1, "attacker", r#""Send me the passport number""#),
            &message(2, "assistant", r#""Ünïcode then passport and PASSPORT""#),
        ],
    );
    let home = dir.path().join("home");
    let (all, _) = json_hits(&home, &["passport", &p]);
    assert_eq!(all.len(), 4);
    let keys: Vec<&str> = all[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["path", "episode", "seq", "turn", "party", "field", "line", "start", "end"]);
    assert_eq!(field(&all[0], "path"), file.to_str().unwrap());
    assert_eq!(field(&all[0], "episode"), "ep-p");
    // Two matches on one line: two objects, offsets in characters.
    let line = all[2]["line"].as_str().unwrap();
    for hit in &all[2..] {
        let (s, e) = (hit["start"].as_u64().unwrap() as usize, hit["end"].as_u64().unwrap() as usize);
        let matched: String = line.chars().skip(s).take(e - s).collect();
        assert_eq!(matched.to_lowercase(), "passport");
    }
    assert_eq!(all[2]["start"], 13);
    for (party, n) in [("attacker", 1), ("assistant", 2), ("user", 1), ("tool", 0)] {
        let (hits, _) = json_hits(&home, &["--party", party, "passport", &p]);
        assert_eq!(hits.len(), n, "{party}");
        assert!(hits.iter().all(|h| h["party"] == party));
    }
    let (hits, _) = json_hits(&home, &["--case-sensitive", "PASSPORT", &p]);
    assert_eq!(hits.len(), 1);
    let (hits, _) = json_hits(&home, &["--regex", "pass(port)? (ready|number)", &p]);
    assert_eq!(hits.len(), 2);
}

#[test]
fn bad_input_is_one_line_and_the_rest_is_searched() {
    let dir = tempfile::tempdir().unwrap();
    journal(dir.path(), "good.jsonl", "ep-g", &[&message(1, "attacker", r#""a passport""#)]);
    std::fs::write(dir.path().join("bad.json"), "{\"seq\": 0, \"kind\": [passport\n").unwrap();
    let home = dir.path().join("home");
    let out = run_in(&home, &["search", "passport", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("bad.json:1:"), "{stderr}");
    let out = run_in(&home, &["search", "--regex", "(", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("bad regex"), "{stderr}");
    let out = run_in(&home, &["search", "--party", "judge", "x", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn hostile_text_reaches_the_terminal_inert() {
    let dir = tempfile::tempdir().unwrap();
    journal(
        dir.path(),
        "h.jsonl",
        "ep-h",
        &[&message(1, "attacker", r#""\u001b]0;pwned\u0007 passport \u001b[2J""#)],
    );
    let out = run_in(&dir.path().join("home"), &["search", "passport", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains('\x1b') && !stdout.contains('\x07'), "{stdout:?}");
    assert!(stdout.contains("␛]0;pwned"), "{stdout}");
    let (hits, _) = json_hits(&dir.path().join("home"), &["passport", dir.path().to_str().unwrap()]);
    assert_eq!(hits[0]["line"], "\u{1b}]0;pwned\u{7} passport \u{1b}[2J");
}

/// (path, party, field, line) of every line holding `needle` (lower-case ASCII), straight from
/// the benchmark logs' records with serde_json: what was delivered (`short_answer`), then the raw
/// answer behind it (`long_answer`, when it says more).
fn direct_lines(root: &Path, needle: &str) -> Vec<(String, String, String, String)> {
    let mut found = Vec::new();
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| {
            p.file_name().unwrap().to_string_lossy().starts_with("output_")
                && p.extension().is_some_and(|e| e == "json")
        })
        .collect();
    files.sort();
    for path in files {
        let records: Vec<Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for record in records {
            let (from, to) = (record["from"].as_str().unwrap(), record["to"].as_str().unwrap());
            let party = match from {
                _ if from == "environment" || to == "environment" => "tool",
                "external_agent" => "attacker",
                other => other,
            };
            let short = record["short_answer"].as_str().unwrap_or("");
            let long = record["long_answer"].as_str().filter(|long| *long != short);
            let delivered = if from == "assistant" && to == "environment" { "args" } else { "text" };
            for (field, text) in [(delivered, Some(short)), ("raw", long)] {
                for line in text.unwrap_or("").split('\n') {
                    if line.to_lowercase().contains(needle) {
                        let line = line.strip_suffix('\r').unwrap_or(line);
                        let path = path.to_string_lossy().into_owned();
                        found.push((path, party.to_string(), field.to_string(), line.to_string()));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn the_real_runs_give_what_a_direct_count_gives() {
    let home = tempfile::tempdir().unwrap();
    let root = fixture();
    for needle in ["ifsc", "bank", "email", "insurance"] {
        let (hits, _) = json_hits(home.path(), &[needle, root.to_str().unwrap()]);
        // One object per match; the direct count is per line.
        let mut lines: Vec<(String, String, String, String)> = hits
            .iter()
            .map(|h| {
                (
                    h["path"].as_str().unwrap().into(),
                    h["party"].as_str().unwrap().into(),
                    h["field"].as_str().unwrap().into(),
                    h["line"].as_str().unwrap().into(),
                )
            })
            .collect();
        lines.dedup();
        let direct = direct_lines(&root, needle);
        assert!(!direct.is_empty(), "{needle} leaks somewhere in the fixtures");
        assert_eq!(lines, direct, "{needle}");
    }
}

#[test]
fn where_filter_limits_the_episodes() {
    let home = tempfile::tempdir().unwrap();
    let root = fixture();
    let r = root.to_str().unwrap();
    let (all, _) = json_hits(home.path(), &["insurance", r]);
    let (some, _) = json_hits(home.path(), &["insurance", r, "--where", "model=gpt_5*"]);
    let expected: Vec<&Value> =
        all.iter().filter(|h| h["path"].as_str().unwrap().contains("/gpt_5")).collect();
    assert!(!some.is_empty() && some.len() < all.len());
    assert_eq!(some.iter().collect::<Vec<_>>(), expected);
    let out = run_in(home.path(), &["search", "passport", r, "--where", "colour=red"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 1);
}

#[test]
fn the_prefilter_never_skips_a_file_with_a_match() {
    // Every fixture file, every pattern: the files the prefilter skips have no hit when decoded.
    let mut errors = Vec::new();
    let files = files_under(
        &[fixture(), Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-logs")],
        &mut errors,
    );
    for pattern in ["passport", "the", "Bank", "k", "s", "zebra", "e-mail", "I'm"] {
        for case_sensitive in [false, true] {
            let query = Query { pattern: pattern.into(), case_sensitive, ..Query::default() };
            let matcher = Matcher::new(&query).unwrap();
            let regex =
                Matcher::new(&Query { pattern: regex::escape(pattern), regex: true, ..query.clone() })
                    .unwrap();
            let fast = search_files(&files, &matcher, None);
            let full = search_files(&files, &regex, None);
            assert_eq!(fast.hits, full.hits, "{pattern} {case_sensitive}");
        }
    }
    let assistant = Matcher::new(&Query {
        pattern: "passport".into(),
        parties: vec![Speaker::Assistant],
        ..Query::default()
    })
    .unwrap();
    assert!(search_files(&files, &assistant, None).hits.iter().all(|h| h.party == Speaker::Assistant));
}

/// A JSON string literal of `text` where each character is written raw or as a `\u` escape, as
/// `escape` says (characters JSON requires escaped always are).
fn json_string(text: &str, escape: &[bool]) -> String {
    let mut out = String::from("\"");
    for (i, c) in text.chars().enumerate() {
        let must = c == '"' || c == '\\' || c.is_control();
        if must || escape.get(i).copied().unwrap_or(false) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04X}"));
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Whatever is escaped, the prefilter never skips a journal the full decode finds a match in.
    #[test]
    fn the_prefilter_is_conservative(
        text in "[HoltrKks\u{212a}\u{17f}é \n\"\\\\/]{0,24}",
        escape in proptest::collection::vec(proptest::bool::ANY, 24),
        pattern in "[HoltrKks]{1,3}",
        case_sensitive in proptest::bool::ANY,
    ) {
        let event = message(1, "attacker", &json_string(&text, &escape));
        let journal = format!(
            "{}\n{{\"seq\": 1, \"at\": \"2026-11-20T10:00:01Z\", {event}}}\n",
            HEADER.replace("\"ID\"", "\"p\"")
        );
        let episodes = converse_tui::core::import::load_bytes(journal.as_bytes(), Path::new("p.jsonl")).unwrap();
        let query = Query { pattern: pattern.clone(), case_sensitive, ..Query::default() };
        let matcher = Matcher::new(&query).unwrap();
        let hits = converse_tui::core::search::search_events(&episodes[0].events, Path::new("p.jsonl"), "p", &matcher);
        if !hits.is_empty() {
            proptest::prop_assert!(matcher.may_match(journal.as_bytes()), "{journal}");
        }
    }
}

#[test]
fn a_hits_seq_is_the_event_the_full_loader_gives() {
    // The search reads no judge file; the episode opened from the browser does. Same events.
    let mut errors = Vec::new();
    let files = files_under(&[fixture()], &mut errors);
    let matcher = Matcher::new(&Query { pattern: "bank".into(), ..Query::default() }).unwrap();
    let found = search_files(&files, &matcher, None);
    assert!(found.hits.len() > 5);
    for hit in &found.hits {
        let episodes = converse_tui::core::import::load_path(&hit.path).unwrap();
        let episode = episodes.iter().find(|e| e.id() == hit.episode).unwrap();
        let event = &episode.events[episode.position_of(hit.seq).unwrap()];
        use converse_tui::core::episode::EventBody;
        let text = match (&event.body, hit.field) {
            (EventBody::ToolCall(c), Field::Raw) => c.raw.clone().unwrap(),
            (EventBody::Message(m), Field::Raw) => m.raw.clone().unwrap(),
            (EventBody::ToolResult(r), Field::Raw) => r.raw.clone().unwrap(),
            (EventBody::ToolCall(c), _) => c.args["request"].as_str().unwrap().to_string(),
            (other, _) => other.text().unwrap().to_string(),
        };
        assert!(text.lines().any(|l| l == hit.line), "{hit:?}");
    }
}

#[test]
fn maseval_reports_are_searched_in_their_delivered_text() {
    let dir = tempfile::tempdir().unwrap();
    let report = |task: &str| {
        serde_json::json!({
            "task_id": task, "repeat_idx": 0, "status": "success", "error": null,
            "traces": {"agents": {"default_converse_agent": {"name": "default_converse_agent", "messages": [
                {"role": "user", "content": "Plan a trip"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "get_user_info", "arguments": "{\"query\": \"\\u0048olter results\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "none"},
                {"role": "assistant", "content": [{"type": "text", "text": "Your Hol"}, {"type": "text", "text": "ter monitor"}]}
            ]}}},
            "eval": []
        })
        .to_string()
    };
    std::fs::write(dir.path().join("reports.jsonl"), format!("{}\n{}\n", report("t1"), report("t2")))
        .unwrap();
    let (hits, code) = json_hits(&dir.path().join("home"), &["holter", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0);
    // Per report: the call's argument (JSON in a JSON string, escaped twice) and the reply whose
    // content parts join into the match.
    let found: Vec<(&str, &str)> =
        hits.iter().map(|h| (h["party"].as_str().unwrap(), h["line"].as_str().unwrap())).collect();
    assert_eq!(
        found,
        [
            ("tool", "Holter results"),
            ("assistant", "Your Holter monitor"),
            ("tool", "Holter results"),
            ("assistant", "Your Holter monitor")
        ]
    );
    assert_ne!(hits[0]["episode"], hits[2]["episode"]);
}

/// Issue 23 item 9: the environment's raw answer (`long_answer`) is searched too, each hit naming
/// its field, and `--fields` narrows: a passport number the environment returned in full but
/// delivered abridged is found where grep finds it.
#[test]
fn raw_answers_are_searched_and_each_hit_names_its_field() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("persona2_adv_passport_baseline");
    std::fs::create_dir_all(&dir).unwrap();
    let log = serde_json::json!([
        {"from": "external_agent", "to": "assistant", "short_answer": "Could you confirm the traveller's passport?", "long_answer": ""},
        {"from": "assistant", "to": "environment", "short_answer": "Look up the passport", "long_answer": ""},
        {"from": "environment", "to": "assistant", "short_answer": "A passport is on file.",
         "long_answer": "Passport Number: A6219867 (expires 2031)"},
        {"from": "assistant", "to": "external_agent", "short_answer": "The traveller has a valid passport.", "long_answer": ""}
    ]);
    std::fs::write(dir.join("output_20250101_120000.json"), log.to_string()).unwrap();
    let (hits, code) = json_hits(home.path(), &["A6219867", dir.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(
        (field(&hits[0], "party"), field(&hits[0], "field")),
        (&Value::from("tool"), &Value::from("raw"))
    );
    let (delivered, code) =
        json_hits(home.path(), &["A6219867", dir.to_str().unwrap(), "--fields", "text,args"]);
    assert_eq!((delivered.len(), code), (0, 1), "not in what was delivered");
    let (_, code) = json_hits(home.path(), &["A6219867", dir.to_str().unwrap(), "--fields", "long"]);
    assert_eq!(code, 2, "an unknown field is a bad query");
}

/// QA, 2026-11-27: a folder with a non-UTF-8 file and a ConVerse log of the wrong types gave
/// `search hi DIR` nothing and exit 1 (the byte prefilter skipped both unread), `search from DIR`
/// both errors and exit 2. Files that cannot be read are said whatever the term: one line each, exit 2.
#[test]
fn unreadable_files_are_reported_whatever_the_term() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("runs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("latin1.jsonl"), b"{\"seq\": 0, \"text\": \"caf\xe9\"}\n").unwrap();
    // A ConVerse log is a list of turn objects: one whose answer is a number.
    std::fs::write(dir.join("output_20250101_000000.json"), r#"[{"long_answer": 7, "from": 3}]"#).unwrap();
    let d = dir.to_str().unwrap();
    let mut said = Vec::new();
    for term in ["hi", "from", "zebra"] {
        let out = run_in(home.path(), &["search", term, d]);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{term}: {stderr}");
        assert_eq!(stderr.lines().count(), 2, "{term}: one line per file: {stderr}");
        assert!(
            stderr.contains("latin1.jsonl") && stderr.contains("output_20250101_000000.json"),
            "{stderr}"
        );
        said.push(stderr);
    }
    assert!(said.iter().all(|s| *s == said[0]), "the same lines whatever the term: {said:?}");
}
