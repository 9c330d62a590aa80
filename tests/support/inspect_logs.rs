//! Inspect logs in the tests: written by a script of tests/python with Inspect's own `eval()`, and
//! read back by the binary (`dump --json`, split per episode).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{bin, python};

/// Runs `tests/python/SCRIPT OUT_DIR` in the venv, `OUT_DIR` a fresh `DIR_NAME` under the test
/// binary's scratch folder; gives the folder and what the script printed (Inspect's view).
pub fn written_by_inspect(script: &str, dir_name: &str) -> (PathBuf, Value) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir_name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python").join(script);
    let output = Command::new(python::python()).arg(&script).arg(&dir).output().unwrap();
    assert!(
        output.status.success(),
        "{} failed:\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    (dir, serde_json::from_slice(&output.stdout).unwrap())
}

/// `converse-tui ARGS` in a private home: (status, stdout, stderr).
pub fn run(args: &[&str]) -> (bool, String, String) {
    let home = tempfile::tempdir().unwrap();
    let out = bin::command(home.path()).args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// The events `dump --json` prints, per episode id.
pub fn dumped(path: &Path) -> Vec<(String, Vec<Value>)> {
    let (ok, stdout, stderr) = run(&["dump", "--json", path.to_str().unwrap()]);
    assert!(ok, "dump failed: {stderr}");
    let mut episodes: Vec<(String, Vec<Value>)> = Vec::new();
    for line in stdout.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        if event["kind"] == "episode" {
            episodes.push((event["id"].as_str().unwrap().to_string(), Vec::new()));
        }
        episodes.last_mut().unwrap().1.push(event);
    }
    episodes
}
