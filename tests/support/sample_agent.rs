//! The sample A2A agent of `examples/agents/` (official a2a-sdk and mcp client), started for a
//! test on a free port with its model at the scripted server; stopped when dropped.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use super::python;

pub struct SampleAgent {
    child: Child,
    /// `http://127.0.0.1:PORT`: what `--assistant a2a:` takes.
    pub url: String,
}

impl Drop for SampleAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl SampleAgent {
    /// Starts the agent speaking `dialect` ("1.0" or "0.3") with its model at `model_base_url`;
    /// returns once it listens.
    pub fn start(dialect: &str, model_base_url: &str) -> SampleAgent {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/agents/converse_agent.py");
        let mut child = Command::new(python::python())
            .arg(script)
            .args(["--port", "0", "--dialect", dialect, "--model", "scripted"])
            .env("OPENAI_BASE_URL", model_base_url)
            .env("OPENAI_API_KEY", "sk-test-agent-key")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the sample agent");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().rsplit(' ').next().unwrap_or_default().to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "the sample agent did not start: {line:?}");
        SampleAgent { child, url }
    }
}
