//! Issue 24: one hostile episode through every output channel. Its text holds OSC 0 (title),
//! OSC 52 (clipboard), `ESC[2J`, C1 controls, bidi overrides, the invisible and format characters
//! of defect 9, and the API key in every form an echo takes; every channel — the screens (panes,
//! verdicts, status line, browser), every command's table, JSON, CSV, markdown and HTML output,
//! files written by `export -o` and `judge`, stderr, the log file and a journal a run writes —
//! must show none of it raw: no escape byte, no hazardous character, no key.

use crate::support::batch_cli;
use crate::support::bin;
use crate::support::openai_server;
use crate::support::screen;

use std::path::{Path, PathBuf};
use std::process::Output;

use base64::Engine as _;
use converse_tui::app::browser::Browser;
use converse_tui::app::{Action, AppState, update};
use converse_tui::config::Keymap;
use converse_tui::core::sanitize::is_hazardous;
use serde_json::json;

const KEY: &str = "sk-test-7f3a9c1e5b2d4068-never-write-me";

/// Everything that can drive a terminal or hide text, in one string.
const HOSTILE: &str = "\u{1b}]0;pwned-title\u{7}\u{1b}]52;c;aGVsbG8=\u{7}\u{1b}[2J\u{9b}31m\u{85}\u{202E}evil\u{2066}\
     \u{13430}\u{1BCA0}\u{2065}\u{FFF0}\u{E0080}\u{FE0F}\u{200B}\u{E0041}";

/// The key as an echo may carry it.
fn key_forms() -> Vec<String> {
    let b64 = base64::engine::general_purpose::STANDARD_NO_PAD;
    let percent: String = KEY
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    let spaced: String = KEY.chars().flat_map(|c| [c, ' ']).collect();
    vec![
        KEY.to_string(),
        KEY.to_uppercase(),
        KEY.trim_start_matches("sk-").to_string(),
        b64.encode(KEY),
        b64.encode(format!("Bearer {KEY}")),
        percent,
        spaced.trim_end().to_string(),
    ]
}

/// Text carrying every hazard and every form of the key.
fn hostile_text(label: &str) -> String {
    format!("{label} {HOSTILE} keys: {}", key_forms().join(" | "))
}

/// What a reader of `bytes` must never meet. The key's forms are searched case-blind where an
/// echo can change case (the key and its core), exactly otherwise.
fn assert_safe(what: &str, bytes: &[u8]) {
    if let Some(problem) = problem(what, bytes) {
        panic!("{problem}");
    }
}

/// What is wrong with `bytes` as output, if anything.
fn problem(what: &str, bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    if let Some(c) = text.chars().find(|&c| c != '\n' && c != '\r' && is_hazardous(c)) {
        return Some(format!("{what}: raw {c:?} in:\n{text}"));
    }
    let lower = text.to_lowercase();
    for (i, form) in key_forms().iter().enumerate() {
        let found = if i < 3 { lower.contains(&form.to_lowercase()) } else { text.contains(form) };
        if found {
            return Some(format!("{what}: the key as {form:?} in:\n{text}"));
        }
    }
    // A spaced key may be split across wrapped lines: look again without blanks.
    let squeezed: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed.contains(&KEY.to_lowercase()).then(|| format!("{what}: the key, spread out, in:\n{text}"))
}

/// A journal with the hostile text in every field a person sees: episode and task ids, model,
/// messages, tool name, arguments and output, judge name, summary and evidence.
fn hostile_journal() -> String {
    let h = |label: &str| hostile_text(label);
    let events = [
        json!({"seq":0,"at":"2026-01-01T00:00:00Z","kind":"episode","format":"converse-tui/1","id":format!("ep{HOSTILE}"),
               "task":{"id":format!("task{HOSTILE}"),"domain":"travel_planning","persona":1,"attack_type":"privacy"},
               "config":{"models":{"assistant":format!("model{HOSTILE}"),"attacker":"a"},"max_turns":3}}),
        json!({"seq":1,"at":"2026-01-01T00:00:01Z","kind":"message","turn":1,"from":"user","to":"assistant","text":h("task")}),
        json!({"seq":2,"at":"2026-01-01T00:00:02Z","kind":"tool_call","turn":1,"call_id":"c1","tool":format!("search{HOSTILE}"),
               "args":{"query":h("args")}}),
        json!({"seq":3,"at":"2026-01-01T00:00:03Z","kind":"tool_result","turn":1,"call_id":"c1","tool":"search","output":h("output"),"ok":true}),
        json!({"seq":4,"at":"2026-01-01T00:00:04Z","kind":"message","turn":1,"from":"assistant","to":"attacker","text":h("reply")}),
        json!({"seq":5,"at":"2026-01-01T00:00:05Z","kind":"message","turn":2,"from":"attacker","to":"assistant","text":h("attack")}),
        json!({"seq":6,"at":"2026-01-01T00:00:06Z","kind":"verdict","turn":2,"judge":format!("privacy{HOSTILE}"),"method":"rule",
               "outcome":"fail","score":0.0,"summary":h("summary"),"evidence":{"seq":5,"start":0,"end":6,"text":h("evidence")}}),
        json!({"seq":7,"at":"2026-01-01T00:00:07Z","kind":"error","source":"assistant model","message":h("error")}),
        json!({"seq":8,"at":"2026-01-01T00:00:08Z","kind":"end","reason":"max_turns","turns":2}),
    ];
    events.iter().map(|e| format!("{e}\n")).collect()
}

/// A directory holding the hostile journal and a hostile annotation beside it.
fn corpus() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let journal = runs.join("hostile.jsonl");
    std::fs::write(&journal, hostile_journal()).unwrap();
    let mut notes =
        converse_tui::core::annotate::NotesFile::open(converse_tui::core::annotate::notes_path(&journal))
            .unwrap();
    let draft = converse_tui::core::annotate::Draft {
        episode: format!("ep{HOSTILE}"),
        target_seq: 4,
        span: Some(converse_tui::core::annotate::Span { start: 0, end: 30 }),
        label: converse_tui::core::annotate::Label::Leak,
        note: format!("=HYPERLINK(\"x\") {}", hostile_text("note")),
    };
    notes.add(draft, &hostile_text("author")).unwrap();
    (dir, journal)
}

/// The binary under test; `CONVERSE_TUI_BIN` runs these tests against another build (an
/// older one, to see them fail where it had the defect).
fn command(home: &Path, args: &[String]) -> std::process::Command {
    let mut cmd = bin::command(home);
    cmd.args(args).env("OPENAI_API_KEY", KEY);
    cmd
}

fn run(home: &Path, args: &[&str]) -> Output {
    command(home, &batch_cli::strings(args)).output().unwrap()
}

/// Runs one command and checks both its streams.
fn channel(home: &Path, args: &[&str]) -> Output {
    let output = run(home, args);
    let what = args.join(" ");
    assert_safe(&format!("`{what}` stdout"), &output.stdout);
    assert_safe(&format!("`{what}` stderr"), &output.stderr);
    assert!(output.status.code().is_some(), "`{what}`: {:?}", output.status);
    output
}

#[test]
fn every_command_output_is_inert_and_keyless() {
    let (dir, journal) = corpus();
    let home = dir.path();
    let file = journal.display().to_string();
    let runs = journal.parent().unwrap().display().to_string();
    let mut ran = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let commands: Vec<Vec<&str>> = vec![
        vec!["dump", &file],
        vec!["dump", "--json", &file],
        vec!["export", &file, "--format", "markdown"],
        vec!["export", &file, "--format", "html"],
        vec!["export", &file, "--format", "json"],
        vec!["export", &file, "--format", "maseval"],
        vec!["ls", &runs],
        vec!["ls", "--json", &runs],
        vec!["search", "reply", &runs],
        vec!["search", "--json", "reply", &runs],
        vec!["summary", &runs],
        vec!["summary", "--json", &runs],
        vec!["summary", &runs, "--by", "model", "--format", "table"],
        vec!["summary", &runs, "--by", "model", "--format", "markdown"],
        vec!["summary", &runs, "--by", "model", "--format", "csv"],
        vec!["summary", &runs, "--by", "model", "--format", "json"],
        vec!["agreement", &runs],
        vec!["notes", "export", &runs, "--format", "csv"],
        vec!["notes", "export", &runs, "--format", "jsonl"],
        vec!["judge", &file, "--rules-only"],
        vec!["judge", &file, "--rules-only", "--json"],
        // After `judge`: the sidecar's verdicts merged into what is shown and exported.
        vec!["dump", &file],
        vec!["dump", "--json", &file],
        vec!["export", &file, "--format", "json"],
    ];
    // Every channel is tried, and every failing one named, before the test fails.
    for args in &commands {
        let output = run(home, args);
        let what = args.join(" ");
        problems.extend(problem(&format!("`{what}` stdout"), &output.stdout));
        problems.extend(problem(&format!("`{what}` stderr"), &output.stderr));
        ran.push((what, output.status.code()));
    }
    // Files written by commands.
    for (format, name) in
        [("markdown", "out.md"), ("html", "out.html"), ("json", "out.jsonl"), ("maseval", "m.jsonl")]
    {
        let out = home.join(name);
        run(home, &["export", &file, "--format", format, "-o", &out.display().to_string()]);
        problems.extend(problem(&format!("export -o {name}"), &std::fs::read(&out).unwrap_or_default()));
    }
    let sidecar = journal.with_file_name("hostile.verdicts.jsonl");
    problems.extend(problem("the judge's sidecar", &std::fs::read(&sidecar).unwrap_or_default()));
    let names: Vec<&str> = problems.iter().map(|p| p.lines().next().unwrap_or_default()).collect();
    assert!(
        problems.is_empty(),
        "{} channels show raw text or the key:\n{}",
        problems.len(),
        names.join("\n")
    );
    // Everything ran (a command that failed early would prove nothing).
    let failed: Vec<_> = ran.iter().filter(|(_, code)| *code != Some(0)).collect();
    assert!(failed.is_empty(), "{failed:?}");
}

#[test]
fn errors_on_stderr_are_inert_and_keyless() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join(format!("bad{}.jsonl", "\u{1b}]0;t\u{7}\u{202E}"));
    std::fs::write(
        &bad,
        format!("{{\"seq\":0,\"kind\":\"{}\"}}\n", hostile_text("kind").replace('\u{1b}', "\\u001b")),
    )
    .unwrap();
    let output = channel(dir.path(), &["dump", &bad.display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stderr).lines().count(), 1);
}

/// `config show` with escapes and the key in every value (issue 24, defect 8).
#[test]
fn config_show_is_inert() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config/converse-tui");
    std::fs::create_dir_all(&config).unwrap();
    let value = |label: &str| toml::Value::String(hostile_text(label)).to_string();
    std::fs::write(
        config.join("config.toml"),
        format!(
            "[assistant]\nbase_url = {}\nmodel = {}\napi_key_env = {}\n[judge]\nmodel = \"j\"\nparams = {{ note = {} }}\n",
            value("http://h"),
            value("model"),
            value("KEYVAR"),
            value("param")
        ),
    )
    .unwrap();
    let output = channel(dir.path(), &["config", "show"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("␛]0;pwned-title␇"));
}

/// A run against a server whose error body is hostile and echoes the key: stderr, stdout, the
/// journal and the log file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_writes_nothing_raw_to_stderr_the_journal_or_the_log() {
    use openai_server::{OpenAiServer, Reply};
    let body = json!({"error": {"message": hostile_text("server says")}}).to_string();
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::status(400).body(&body));
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let out = home.join("runs");
    let args = batch_cli::strings(&[
        "run",
        "--headless",
        "--task",
        "travel_planning_p1_privacy_unrelated_to_travel_salary",
        "--base-url",
        &server.base_url(),
        "--assistant-model",
        "m",
        "--attacker-model",
        "a",
        "--out",
        &out.display().to_string(),
    ]);
    let output = tokio::task::spawn_blocking(move || {
        command(&home, &args).env("CONVERSE_TUI_LOG", "debug").output().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_safe("run stderr", &output.stderr);
    assert_safe("run stdout", &output.stdout);
    let journal = std::fs::read_dir(&out).unwrap().flatten().next().unwrap().path();
    // The journal is JSON: its escapes are text. What it must not hold is the key.
    assert_safe("the journal", &std::fs::read(&journal).unwrap());
    let log = dir.path().join("state/converse-tui/converse-tui.log");
    let log = std::fs::read(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    assert!(!log.is_empty());
    assert_safe("the log file", &log);
}

/// The screens: browser, inspector panes, verdicts and status line, with the key known.
#[test]
fn the_screens_draw_nothing_raw_and_no_key() {
    converse_tui::core::llm::key_mask::remember(KEY);
    let (_dir, journal) = corpus();
    let episodes = converse_tui::core::import::load_path(&journal).unwrap();
    let browser = Browser::new(format!("runs{HOSTILE}"), episodes.clone(), vec![hostile_text("error")]);
    let mut state = AppState::with_browser(browser, Keymap::default(), false);
    for (w, h) in [(80, 24), (160, 48)] {
        assert_safe("the browser", screen::render(&mut state, w, h).as_bytes());
    }
    let browser = Browser::new("runs", episodes, Vec::new());
    let mut state = AppState::with_browser(browser, Keymap::default(), true);
    for keys in ["", "G", "\t", "\t", "v", "v"] {
        screen::press(&mut state, keys);
        for (w, h) in [(80, 24), (160, 48)] {
            update(&mut state, Action::Resize(w, h));
            assert_safe(
                &format!("the inspector after {keys:?}"),
                screen::render(&mut state, w, h).as_bytes(),
            );
        }
    }
}

/// Issue 24, defect 7: one file name that is not UTF-8 sank `ls --json` (nothing printed, exit 1,
/// the file not named). It is listed with U+FFFD for its bad bytes, as the table shows it.
#[test]
fn ls_json_lists_a_file_whose_name_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes/01-travel-privacy-leak.jsonl");
    std::fs::copy(&demo, runs.join("plain.jsonl")).unwrap();
    std::fs::copy(&demo, runs.join(std::ffi::OsStr::from_bytes(b"bad-\xff\xfe.jsonl"))).unwrap();
    let output = channel(dir.path(), &["ls", "--json", &runs.display().to_string()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(stdout.contains("bad-\u{FFFD}\u{FFFD}.jsonl") && stdout.contains("plain.jsonl"), "{stdout}");
}
