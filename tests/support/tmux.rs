//! A detached tmux session running the binary, driven with keys and read back: the
//! end-to-end tests of the TUI as a person uses it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Session {
    pub name: String,
}

impl Session {
    /// Starts `args` in a detached 120×40 tmux session; after the program exits
    /// the shell prints its exit code and waits, so the screen can be read.
    pub fn start(args: &str, home: &Path) -> Session {
        Self::start_with(&[], args, home)
    }

    /// [`Session::start`] with environment variables (`NAME=value`) set for the binary.
    pub fn start_with(env: &[&str], args: &str, home: &Path) -> Session {
        let name = format!("ctui-{}-{}", std::process::id(), rand_suffix());
        let bin = super::bin::path();
        // The tmux server has the caller's environment: the same isolation as `bin::command`.
        let unset: String =
            super::bin::inherited_settings().iter().map(|name| format!("-u {name} ")).collect();
        let script = format!(
            "env {unset}HOME='{home}' XDG_CONFIG_HOME='{home}/config' XDG_DATA_HOME='{home}/data' \
             XDG_STATE_HOME='{home}/state' XDG_CACHE_HOME='{home}/cache' \
             CONVERSE_TUI_DATA='{home}/data' CONVERSE_TUI_CACHE='{home}/cache' \
             TERM=xterm-256color {env} '{bin}' {args}; echo EXIT=$?; sleep 30",
            home = home.display(),
            env = env.join(" ")
        );
        let _starting = server_lock();
        // The server a just-ended last session stopped may still be going away: try again.
        let mut problem = String::new();
        for _ in 0..5 {
            let out = Command::new("tmux")
                .args(["new-session", "-d", "-x", "120", "-y", "40", "-s", &name, "sh", "-c", &script])
                .output()
                .expect("tmux runs");
            if out.status.success() {
                return Session { name };
            }
            problem = String::from_utf8_lossy(&out.stderr).into_owned();
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("tmux new-session failed: {problem}");
    }

    pub fn keys(&self, keys: &[&str]) {
        for key in keys {
            let status = Command::new("tmux").args(["send-keys", "-t", &self.name, key]).status().unwrap();
            assert!(status.success());
            std::thread::sleep(Duration::from_millis(120));
        }
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux").args(["capture-pane", "-p", "-t", &self.name]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen contains `text`, and returns the screen.
    pub fn wait_for(&self, text: &str) -> String {
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
        let _killing = server_lock();
        let _ = Command::new("tmux").args(["kill-session", "-t", &self.name]).status();
    }
}

/// Tests of one binary run in parallel: a first session starting while another starts the tmux
/// server, or while the last one's end stops it, fails. Sessions start and end one at a time.
fn server_lock() -> std::sync::MutexGuard<'static, ()> {
    static SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERVER.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub fn rand_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() % 1_000_000
}

pub fn tmux_available() -> bool {
    if std::env::var_os("CONVERSE_TUI_SKIP_TMUX").is_some() {
        // CI must run what it claims to test: a skip there would be a silent pass.
        assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true: CONVERSE_TUI_SKIP_TMUX is refused");
        return false;
    }
    assert!(
        Command::new("tmux").arg("-V").output().is_ok(),
        "tmux is not installed (CI installs it; set CONVERSE_TUI_SKIP_TMUX=1 to skip)"
    );
    true
}

impl Session {
    /// A tmux format value of the session's pane, e.g. `#{alternate_on}`.
    #[allow(dead_code)]
    pub fn format(&self, format: &str) -> String {
        let out =
            Command::new("tmux").args(["display-message", "-p", "-t", &self.name, format]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}
