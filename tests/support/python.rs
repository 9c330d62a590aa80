//! The official implementations of the protocols and formats we speak (a2a-sdk, mcp, inspect-ai,
//! junitparser), pinned in `tests/python/requirements.txt` and installed on first use into one
//! venv under `target/`, so `cargo test` on a fresh machine needs nothing run before it.
//!
//! The venv is named after a hash of the requirements (a change makes a new one) and built under
//! a file lock: test threads and test binaries running at once build it once, and a half-built
//! venv is never used.

#![allow(dead_code)]

use std::fs::{self, File};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const REQUIREMENTS: &str = include_str!("../python/requirements.txt");

/// The venv's interpreter; builds the venv the first time. Panics with pip's output when it
/// cannot be built: a compatibility test never passes without the implementation it checks.
pub fn python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| ensure_venv(&venv_dir("py-venv", REQUIREMENTS), REQUIREMENTS)).clone()
}

/// An agent framework of `examples/agents/frameworks/`, each in a venv of its own: their pins
/// of `mcp`, `a2a-sdk` and `openai` conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Framework {
    PydanticAi,
    Strands,
    Adk,
    OpenAiAgents,
}

impl Framework {
    pub fn name(self) -> &'static str {
        match self {
            Framework::PydanticAi => "pydantic_ai",
            Framework::Strands => "strands",
            Framework::Adk => "adk",
            Framework::OpenAiAgents => "openai_agents",
        }
    }

    fn requirements(self) -> &'static str {
        match self {
            Framework::PydanticAi => include_str!("../python/frameworks/pydantic_ai.txt"),
            Framework::Strands => include_str!("../python/frameworks/strands.txt"),
            Framework::Adk => include_str!("../python/frameworks/adk.txt"),
            Framework::OpenAiAgents => include_str!("../python/frameworks/openai_agents.txt"),
        }
    }

    /// The framework's interpreter; builds its venv the first time (see [`python`]).
    pub fn python(self) -> PathBuf {
        let requirements = self.requirements();
        ensure_venv(&venv_dir(&format!("py-{}", self.name()), requirements), requirements)
    }

    /// The framework's example agent.
    pub fn agent(self) -> PathBuf {
        let file = match self {
            Framework::PydanticAi => "pydantic_ai_agent.py",
            Framework::Strands => "strands_agent.py",
            Framework::Adk => "adk_agent.py",
            Framework::OpenAiAgents => "openai_agents_agent.py",
        };
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agents/frameworks").join(file)
    }
}

/// Runs `python -c SCRIPT ARGS…` in the venv and returns its stdout; panics with stderr when it
/// fails.
pub fn run_script(script: &str, args: &[&str]) -> String {
    let output = Command::new(python()).arg("-c").arg(script).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "python failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn venv_dir(prefix: &str, requirements: &str) -> PathBuf {
    let mut hasher = DefaultHasher::new();
    requirements.hash(&mut hasher);
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{:016x}", hasher.finish()))
}

fn interpreter(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

fn ensure_venv(venv: &Path, requirements: &str) -> PathBuf {
    let done = venv.join(".complete");
    if done.exists() {
        return interpreter(venv);
    }
    let parent = venv.parent().unwrap();
    fs::create_dir_all(parent).unwrap();
    let lock = File::create(venv.with_extension("lock")).unwrap();
    lock.lock().unwrap();
    if !done.exists() {
        build(venv, requirements);
    }
    drop(lock);
    interpreter(venv)
}

fn build(venv: &Path, requirements_text: &str) {
    // The requirements are a complete lock (pip freeze), so pip resolves nothing (--no-deps).
    // Built in place under the lock; `.complete` is written last, so a build cut short (a
    // killed test run) is found incomplete next time and started again.
    let _ = fs::remove_dir_all(venv);
    let base = std::env::var("CONVERSE_TUI_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    run(Command::new(&base).args(["-m", "venv"]).arg(venv), "create the test venv");
    let requirements = venv.join("requirements.txt");
    fs::write(&requirements, requirements_text).unwrap();
    run(
        Command::new(interpreter(venv))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-input",
                "--no-deps",
                "-r",
            ])
            .arg(&requirements),
        &format!("install {}", requirements.display()),
    );
    fs::write(venv.join(".complete"), "").unwrap();
}

fn run(command: &mut Command, what: &str) {
    let output = command.output().unwrap_or_else(|e| panic!("cannot {what}: {e}"));
    assert!(
        output.status.success(),
        "cannot {what} ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
