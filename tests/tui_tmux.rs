//! The binary in a real terminal (tmux), driven with keys as a person would.
//!
//! Needs `tmux` (CI installs it). Set `CONVERSE_TUI_SKIP_TMUX=1` to skip on a
//! machine without it; otherwise a missing tmux fails the test rather than
//! passing silently.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

struct Session {
    name: String,
}

impl Session {
    /// Starts `args` in a detached 120×40 tmux session; after the program exits
    /// the shell prints its exit code and waits, so the screen can be read.
    fn start(args: &str, home: &Path) -> Session {
        let name = format!("ctui-{}-{}", std::process::id(), rand_suffix());
        let bin = env!("CARGO_BIN_EXE_converse-tui");
        let script = format!(
            "HOME='{home}' CONVERSE_TUI_CONFIG='{home}/config' CONVERSE_TUI_DATA='{home}/data' \
             TERM=xterm-256color '{bin}' {args}; echo EXIT=$?; sleep 30",
            home = home.display()
        );
        let status = Command::new("tmux")
            .args(["new-session", "-d", "-x", "120", "-y", "40", "-s", &name, "sh", "-c", &script])
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        Session { name }
    }

    fn keys(&self, keys: &[&str]) {
        for key in keys {
            let status = Command::new("tmux").args(["send-keys", "-t", &self.name, key]).status().unwrap();
            assert!(status.success());
            std::thread::sleep(Duration::from_millis(120));
        }
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux").args(["capture-pane", "-p", "-t", &self.name]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen contains `text`, and returns the screen.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(15), "'{text}' never appeared; screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["kill-session", "-t", &self.name]).status();
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() % 1_000_000
}

fn tmux_available() -> bool {
    if std::env::var_os("CONVERSE_TUI_SKIP_TMUX").is_some() {
        return false;
    }
    assert!(
        Command::new("tmux").arg("-V").output().is_ok(),
        "tmux is not installed (CI installs it; set CONVERSE_TUI_SKIP_TMUX=1 to skip)"
    );
    true
}

#[test]
fn replay_a_converse_log_step_through_and_quit() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/converse-logs/persona1_adv_security_attack_delete_calendar_baseline/output_20241227_121521.json");
    let s = Session::start(&format!("replay '{}'", fixture.display()), home.path());
    let screen = s.wait_for("turn 1/");
    assert!(screen.contains("Attacker") && screen.contains("Assistant") && screen.contains("Tools"));
    assert!(screen.contains("REPLAY"));

    s.keys(&["]", "]"]);
    let screen = s.wait_for("turn 2/");
    assert!(screen.contains("▶ T2 #8 assistant → attacker"), "the new message from its header:\n{screen}");

    s.keys(&[":", "4", "Enter"]);
    let screen = s.wait_for("turn 4/");
    assert!(screen.contains("env-4"), "the turn-4 deletion is in the tools pane:\n{screen}");

    s.keys(&["G"]);
    let screen = s.wait_for("Verdicts 2");
    assert!(screen.contains("utility_other_adv/conversation"), "{screen}");

    s.keys(&["?"]);
    s.wait_for("Help — keys");
    s.keys(&["Escape", "Enter"]);
    s.wait_for("── assistant → user ──");
    s.keys(&["Escape", "q"]);
    let screen = s.wait_for("EXIT=0");
    // The alternate screen is gone: the shell's output is all that is left.
    assert!(!screen.contains("REPLAY"), "terminal not restored:\n{screen}");
}

#[test]
fn demo_opens_with_autoplay_and_the_browser_is_one_key_away() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let s = Session::start("", home.path());
    s.wait_for("▶ REPLAY");
    s.keys(&["Space"]);
    s.wait_for("⏸ REPLAY");
    s.keys(&["b"]);
    let screen = s.wait_for("Episodes — demo episodes");
    assert!(screen.contains("demo-insurance-security"), "{screen}");
    s.keys(&["/", "real", "Enter", "Enter"]);
    s.wait_for("demo-real-estate");
    s.keys(&["t"]);
    s.wait_for("bundled sample");
    s.keys(&["C-c"]);
    s.wait_for("EXIT=0");
}

#[test]
fn a_file_that_cannot_be_read_is_one_clear_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.jsonl");
    std::fs::write(&bad, "{\"seq\":0,\"at\":\"x\",\"kind\":\"episode\",\"format\":\"converse-tui/1\",\"id\":\"a\"}\nnot json\n{}\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_converse-tui"))
        .arg("replay")
        .arg(&bad)
        .env("CONVERSE_TUI_CONFIG", dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("{}:2: invalid JSON", bad.display())), "{stderr}");
}
