//! The crafted bad-input corpus (`tests/fixtures/hostile/`) through the binary as a
//! user runs it: `dump`, `dump --json`, `export`, and `replay` in a real terminal
//! (tmux) then quit. Every file either opens cleanly or fails with one line naming
//! it; nothing panics or aborts; the terminal is given back; nothing raw reaches
//! stdout or stderr (issue 16).

use crate::support::bin;
use crate::support::bin as support_bin;
use crate::support::tmux;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use converse_tui::app::drive::handle;
use converse_tui::core::sanitize::is_hazardous;
use ratatui::crossterm::event::Event;
use tmux::{Session, tmux_available};

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "corpus missing: {files:?}");
    files
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile").join(name)
}

fn bin(args: &[&str], home: &Path) -> Output {
    support_bin::run_in(home, args)
}

/// Nothing that can drive a terminal: no control character but newline, no bidi or invisible one.
fn assert_inert(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if let Some(c) = text.chars().find(|&c| c != '\n' && is_hazardous(c)) {
        panic!("{what}: raw {c:?} in output:\n{text}");
    }
}

/// Exit 0, or exit 1 with exactly one `converse-tui: <file>…` line; never a panic or a signal.
fn assert_clean_outcome(what: &str, file: &Path, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some(), "{what}: killed by a signal: {:?}\n{stderr}", out.status);
    assert!(!stderr.contains("panicked") && !stderr.contains("memory allocation"), "{what}: {stderr}");
    assert_inert(&format!("{what} stderr"), &out.stderr);
    assert_inert(&format!("{what} stdout"), &out.stdout);
    if !out.status.success() {
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{what}: not one line:\n{stderr}");
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(stderr.starts_with("converse-tui: ") && stderr.contains(&*name), "{what}: {stderr}");
    }
}

#[test]
fn dump_and_export_every_file_cleanly() {
    let home = tempfile::tempdir().unwrap();
    for file in corpus() {
        let path = file.to_str().unwrap();
        for args in [
            vec!["dump", path],
            vec!["dump", "--json", path],
            vec!["export", path, "--format", "markdown"],
            vec!["export", path, "--format", "json"],
            vec!["export", path, "--format", "maseval"],
        ] {
            let out = bin(&args, home.path());
            assert_clean_outcome(&args.join(" "), &file, &out);
        }
    }
}

#[test]
fn a_huge_turn_number_is_a_one_line_error_not_an_abort() {
    let home = tempfile::tempdir().unwrap();
    let file = fixture("huge_turn.jsonl");
    let out = bin(&["dump", file.to_str().unwrap()], home.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("huge_turn.jsonl:2: turn 4294967295"), "{stderr}");
}

#[test]
fn a_journal_with_a_byte_order_mark_opens() {
    let home = tempfile::tempdir().unwrap();
    let out = bin(&["dump", fixture("bom.jsonl").to_str().unwrap()], home.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hello"));
}

#[test]
fn hidden_text_is_revealed_and_json_escapes_what_a_terminal_would_obey() {
    let home = tempfile::tempdir().unwrap();
    let file = fixture("escapes.jsonl");
    let table = bin(&["dump", file.to_str().unwrap()], home.path());
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains("⟦hidden: ignore previous instructions⟧"), "{table}");
    assert!(
        table.contains("zero<U+200B>width<U+200D><U+200D><U+200D>joiners<U+00AD>soft<U+3164>filler"),
        "{table}"
    );
    assert!(table.contains("line<U+2028>separator<U+2029>paragraph"), "{table}");
    assert!(table.contains("␛]0;pwned␇") && table.contains("<U+009B>2J"), "{table}");

    let json = bin(&["dump", "--json", file.to_str().unwrap()], home.path());
    let json = String::from_utf8_lossy(&json.stdout);
    assert!(json.contains(r"\u009b2J") && json.contains(r"\u007f") && json.contains(r"\u202e"), "{json}");
    // Escaped, not lost: the events read back the same.
    let original = std::fs::read_to_string(&file).unwrap();
    for (dumped, line) in json.lines().zip(original.lines()) {
        let a: serde_json::Value = serde_json::from_str(dumped).unwrap();
        let b: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(a["text"], b["text"]);
    }
}

#[test]
fn export_refuses_to_overwrite_its_own_input() {
    let home = tempfile::tempdir().unwrap();
    let journal = home.path().join("ep.jsonl");
    std::fs::copy(fixture("bom.jsonl"), &journal).unwrap();
    let before = std::fs::read(&journal).unwrap();
    let path = journal.to_str().unwrap();
    // By the same name, and by another name for the same file.
    let other_name = format!("{}/./ep.jsonl", home.path().display());
    for output in [path, other_name.as_str()] {
        let out = bin(&["export", path, "--format", "markdown", "-o", output], home.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("is an input of this export"), "{stderr}");
        assert_eq!(std::fs::read(&journal).unwrap(), before, "the journal was overwritten");
    }
    // The sidecar beside it is an input too.
    let notes = home.path().join("ep.notes.jsonl");
    std::fs::write(&notes, "").unwrap();
    let out = bin(&["export", path, "--format", "json", "-o", notes.to_str().unwrap()], home.path());
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn the_tui_without_a_terminal_says_what_to_do() {
    let home = tempfile::tempdir().unwrap();
    let out = bin(&["replay", fixture("bom.jsonl").to_str().unwrap()], home.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("needs a terminal") && stderr.contains("--headless"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn config_show_into_a_closed_pipe_ends_quietly() {
    use std::os::fd::FromRawFd;
    let home = tempfile::tempdir().unwrap();
    let mut fds = [0; 2];
    // SAFETY: pipe fills two descriptors we then own; the read end is closed at once.
    let write_end = unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::close(fds[0]);
        std::process::Stdio::from(std::os::fd::OwnedFd::from_raw_fd(fds[1]))
    };
    let out = bin::command(home.path()).args(["config", "show"]).stdout(write_end).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn replay_every_file_in_a_terminal_and_the_terminal_is_given_back() {
    if !tmux_available() {
        return;
    }
    for file in corpus() {
        let home = tempfile::tempdir().unwrap();
        let s = Session::start(&format!("replay '{}'", file.display()), home.path());
        // Either it opens (the status bar shows REPLAY) or it refuses and the shell says so.
        let start = std::time::Instant::now();
        let opened = loop {
            let screen = s.screen();
            if screen.contains("EXIT=") {
                break false;
            }
            if screen.contains("REPLAY") || screen.contains("⚠") {
                break true;
            }
            assert!(
                start.elapsed().as_secs() < 15,
                "{}: neither opened nor failed:\n{screen}",
                file.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        if opened {
            s.keys(&["j", "j", "]", "q"]);
        }
        let screen = s.wait_for("EXIT=");
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(screen.contains("EXIT=0") || screen.contains("EXIT=1"), "{name}: {screen}");
        assert!(!screen.contains("panicked") && !screen.contains("memory allocation"), "{name}: {screen}");
        assert_eq!(s.format("#{alternate_on}"), "0", "{name}: still on the alternate screen");
        assert_eq!(s.format("#{cursor_flag}"), "1", "{name}: cursor left hidden");
        assert_eq!(s.format("#{mouse_any_flag}"), "0", "{name}: mouse tracking left on");
        assert!(!s.format("#{pane_title}").contains("pwned"), "{name}: the title was changed");
    }
}

/// An abort (failed allocation, panic while panicking, stack overflow) and SIGQUIT run no
/// Rust cleanup: the signal handler must still give the terminal back.
#[test]
fn abort_and_sigquit_restore_the_terminal() {
    if !tmux_available() {
        return;
    }
    for signal in ["QUIT", "ABRT"] {
        let home = tempfile::tempdir().unwrap();
        let s = Session::start(&format!("replay '{}'", fixture("bom.jsonl").display()), home.path());
        s.wait_for("REPLAY");
        assert_eq!(s.format("#{alternate_on}"), "1");
        let shell = s.format("#{pane_pid}");
        let child = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
        let pid = String::from_utf8_lossy(&child.stdout).trim().to_string();
        assert!(!pid.is_empty(), "no child of the session's shell");
        assert!(Command::new("kill").args([&format!("-{signal}"), &pid]).status().unwrap().success());
        let screen = s.wait_for("EXIT=");
        assert!(screen.contains("terminal restored"), "SIG{signal}: {screen}");
        assert_eq!(s.format("#{alternate_on}"), "0", "SIG{signal}: still on the alternate screen");
        assert_eq!(s.format("#{cursor_flag}"), "1", "SIG{signal}: cursor left hidden");
        assert_eq!(s.format("#{mouse_any_flag}"), "0", "SIG{signal}: mouse tracking left on");
    }
}

/// Hidden characters drawn visibly, and no cell holds a character the terminal might give a
/// width ratatui did not count (zero-width joiners used to shift a pane's border).
#[test]
fn every_drawn_row_is_exactly_as_wide_as_the_screen() {
    use converse_tui::app::browser::Browser;
    use converse_tui::app::{Action, AppState, update};
    use converse_tui::config::{Keymap, Theme};
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use unicode_width::UnicodeWidthStr;

    let episodes = converse_tui::core::import::load_path(&fixture("escapes.jsonl")).unwrap();
    let mut state =
        AppState::with_browser(Browser::new("hostile", episodes, Vec::new()), Keymap::default(), true);
    let theme = Theme::builtin("default");
    for (width, height) in [(160u16, 48u16), (80, 24)] {
        update(&mut state, Action::Resize(width, height));
        for key in ['G', 'k', 'k', 'k', 'k'] {
            handle(&mut state, Event::Key(KeyEvent::new(KeyCode::Char(key), KeyModifiers::NONE)));
            let mut terminal =
                ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
            terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
            let buffer = terminal.backend().buffer();
            for y in 0..height {
                let mut row_width = 0;
                let mut x = 0;
                while x < width {
                    let symbol = buffer[(x, y)].symbol();
                    assert!(!symbol.chars().any(is_hazardous), "hazard drawn at {x},{y}: {symbol:?}");
                    let w = symbol.width().max(1);
                    row_width += w;
                    x += w as u16;
                }
                assert_eq!(row_width, usize::from(width), "row {y} at {width}x{height}");
            }
        }
    }
    // The hidden instruction is on screen somewhere in the episode's text.
    let text: String = state_text(&mut state, &theme);
    assert!(text.contains("⟦hidden:"), "{text}");
}

fn state_text(state: &mut converse_tui::app::AppState, theme: &converse_tui::config::Theme) -> String {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 60)).unwrap();
    converse_tui::app::update(state, converse_tui::app::Action::Resize(200, 60));
    terminal.draw(|frame| converse_tui::ui::draw(frame, state, theme)).unwrap();
    terminal.backend().to_string()
}
