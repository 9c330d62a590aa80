//! One lifecycle for the processes we start for an agent (issue 36): a `cmd:` agent and a
//! launched one alike.
//!
//! - Each runs in a process group of its own, so stopping it reaches its children too.
//! - It is spawned from one thread that lives as long as converse-tui, with `PR_SET_PDEATHSIG`:
//!   the kernel kills it when that *thread* exits, so a killed converse-tui leaves no agent behind.
//! - Its pipes are non-blocking: a write to an agent that stopped reading waits no longer than
//!   the caller's deadline, and a read never holds a thread (a child keeping the pipe open can
//!   no longer keep converse-tui from exiting).
//! - Stopping it closes its stdin, then sends SIGTERM to its group, then SIGKILL after a grace.
//! - What it prints is bounded: an answer line, each log line and its log as a whole.

use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc as std_mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufRead, AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::unix::pipe;

use crate::core::sanitize;

/// Longest line an agent may answer with (a `cmd:` agent's `{"text": …}`).
pub const MAX_ANSWER_BYTES: usize = 8 * 1024 * 1024;
/// Longest line of an agent's log kept (the rest of the line is dropped).
pub const MAX_LOG_LINE_CHARS: usize = 2_000;
/// What an agent may write to the log in all; past it, its output is read and dropped.
pub const MAX_LOG_BYTES: usize = 1024 * 1024;
/// How long an agent has to exit after its stdin closes, and again after SIGTERM.
pub const GRACE: Duration = Duration::from_secs(2);

/// Where the agent's stdout goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdout {
    /// Read line by line as its answers (a `cmd:` agent).
    Answers,
    /// To the log, like its stderr (a launched A2A agent).
    Log,
}

/// A line read from an agent.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// Longer than the cap: the line was read to its end and dropped.
    TooLong,
    /// The pipe closed.
    Closed,
}

/// A process started for an agent; stopped (its whole group) when dropped.
pub struct AgentProcess {
    child: Option<Child>,
    /// The process group: the child's pid.
    group: libc::pid_t,
    stdin: Option<pipe::Sender>,
    stdout: Option<BufReader<pipe::Receiver>>,
    /// Which agent, in the log.
    name: String,
}

impl AgentProcess {
    /// Starts `words[0]` with the other words as its arguments and `env` added to its environment.
    /// Must be called within a tokio runtime (its pipes register with it).
    pub fn spawn(words: &[String], env: &[(String, String)], stdout: Stdout) -> std::io::Result<Self> {
        let name = words.first().map(|program| sanitize::excerpt(program, 80)).unwrap_or_default();
        Self::spawn_as(&name, words, env, stdout)
    }

    /// [`AgentProcess::spawn`], the agent called `name` in the log.
    pub fn spawn_as(
        name: &str,
        words: &[String],
        env: &[(String, String)],
        stdout: Stdout,
    ) -> std::io::Result<Self> {
        let Some((program, args)) = words.split_first() else {
            return Err(std::io::Error::other("an empty command"));
        };
        let mut command = Command::new(program);
        command.args(args).envs(env.iter().map(|(k, v)| (k, v))).stdin(Stdio::piped()).stdout(Stdio::piped());
        command.stderr(Stdio::piped()).process_group(0);
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // converse-tui died between the fork and the prctl: the signal will never come.
                if libc::getppid() != parent {
                    return Err(std::io::Error::other("converse-tui exited"));
                }
                Ok(())
            });
        }
        let mut child = on_spawner_thread(command)?;
        let group = child.id() as libc::pid_t;
        let name = name.to_string();
        let take = |fd: Option<OwnedFd>| fd.ok_or_else(|| std::io::Error::other("no pipe"));
        let stdin = pipe::Sender::from_owned_fd(take(child.stdin.take().map(OwnedFd::from))?)?;
        let out = pipe::Receiver::from_owned_fd(take(child.stdout.take().map(OwnedFd::from))?)?;
        let err = pipe::Receiver::from_owned_fd(take(child.stderr.take().map(OwnedFd::from))?)?;
        let budget = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(MAX_LOG_BYTES));
        tokio::spawn(log_lines(BufReader::new(err), name.clone(), budget.clone()));
        let stdout = match stdout {
            Stdout::Answers => Some(BufReader::new(out)),
            Stdout::Log => {
                tokio::spawn(log_lines(BufReader::new(out), name.clone(), budget));
                None
            }
        };
        Ok(AgentProcess { child: Some(child), group, stdin: Some(stdin), stdout, name })
    }

    /// Writes `line` to the agent's stdin. Never blocks a thread: a caller's deadline
    /// (dropping this future) ends a write to an agent that stopped reading.
    pub async fn write(&mut self, line: &[u8]) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().ok_or_else(|| std::io::Error::other("stdin closed"))?;
        stdin.write_all(line).await
    }

    /// Reads one line of the agent's stdout, at most [`MAX_ANSWER_BYTES`].
    pub async fn read_line(&mut self) -> std::io::Result<Line> {
        let stdout = self.stdout.as_mut().ok_or_else(|| std::io::Error::other("stdout goes to the log"))?;
        read_capped_line(stdout, MAX_ANSWER_BYTES).await
    }

    /// Whether the agent has exited (its group may live on).
    pub fn has_exited(&mut self) -> bool {
        self.exit_status().is_some()
    }

    /// How the agent exited (`exit status: 1`, `signal: 9`), if it has.
    pub fn exit_status(&mut self) -> Option<String> {
        let child = self.child.as_mut()?;
        match child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            Ok(None) => None,
            Err(e) => Some(e.to_string()),
        }
    }

    /// Closes its stdin, waits [`GRACE`] for the group to end, sends SIGTERM to the group, waits
    /// again, then SIGKILL. Returns once every process of the group is gone.
    pub async fn stop(mut self) {
        self.stdin = None;
        self.stdout = None;
        let (child, group) = (self.child.take(), self.group);
        let _ = tokio::task::spawn_blocking(move || stop_group(child, group)).await;
    }

    /// The agent's name in the log (its program).
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        // Not stopped by `stop` (an episode aborted, a panic): the same sequence, off this thread.
        if let Some(child) = self.child.take() {
            self.stdin = None;
            let group = self.group;
            std::thread::spawn(move || stop_group(Some(child), group));
        }
    }
}

/// The stop sequence, blocking: stdin is closed by now.
fn stop_group(mut child: Option<Child>, group: libc::pid_t) {
    for signal in [None, Some(libc::SIGTERM), Some(libc::SIGKILL)] {
        if let Some(signal) = signal {
            // SAFETY: a plain syscall on a group we created.
            unsafe { libc::killpg(group, signal) };
        }
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline {
            if group_gone(&mut child, group) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    if let Some(child) = child.as_mut() {
        let _ = child.wait();
    }
}

/// Reaps the leader if it exited, then asks whether any process of the group is left.
fn group_gone(child: &mut Option<Child>, group: libc::pid_t) -> bool {
    if let Some(c) = child.as_mut()
        && !matches!(c.try_wait(), Ok(None))
    {
        *child = None;
    }
    // SAFETY: signal 0 only checks for existence.
    child.is_none() && unsafe { libc::killpg(group, 0) } != 0
}

/// Spawns on one thread that lives as long as the process: `PR_SET_PDEATHSIG` fires when the
/// thread that forked the child exits, and tokio's blocking threads come and go.
fn on_spawner_thread(command: Command) -> std::io::Result<Child> {
    type Job = (Command, std_mpsc::Sender<std::io::Result<Child>>);
    static SPAWNER: OnceLock<Mutex<std_mpsc::Sender<Job>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = std_mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("agent-spawner".into())
            .spawn(move || {
                for (mut command, answer) in rx {
                    let _ = answer.send(command.spawn());
                }
            })
            .expect("a thread");
        Mutex::new(tx)
    });
    let (answer, result) = std_mpsc::channel();
    let sent = spawner.lock().is_ok_and(|tx| tx.send((command, answer)).is_ok());
    if !sent {
        return Err(std::io::Error::other("the agent spawner thread is gone"));
    }
    result.recv().map_err(std::io::Error::other)?
}

/// One line (without its end) of at most `cap` bytes; a longer one is read to its end and
/// dropped, so memory stays bounded whatever the agent prints.
pub async fn read_capped_line(reader: &mut (impl AsyncBufRead + Unpin), cap: usize) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(if line.is_empty() && !too_long { Line::Closed } else { finish(line, too_long) });
        }
        let (piece, found) = match memchr::memchr(b'\n', buffer) {
            Some(end) => (&buffer[..end], Some(end + 1)),
            None => (buffer, None),
        };
        if !too_long && line.len() + piece.len() <= cap {
            line.extend_from_slice(piece);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = found.unwrap_or(buffer.len());
        reader.consume(used);
        if found.is_some() {
            return Ok(finish(line, too_long));
        }
    }
}

fn finish(line: Vec<u8>, too_long: bool) -> Line {
    if too_long {
        return Line::TooLong;
    }
    let mut text =
        String::from_utf8(line).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    if text.ends_with('\r') {
        text.pop();
    }
    Line::Text(text)
}

/// The agent's output to the log: each line cut to [`MAX_LOG_LINE_CHARS`], made inert, and
/// [`MAX_LOG_BYTES`] in all (shared by its stdout and stderr); past it, read and dropped.
async fn log_lines(
    mut reader: BufReader<pipe::Receiver>,
    name: String,
    budget: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    use std::sync::atomic::Ordering;
    loop {
        let line = match read_capped_line(&mut reader, MAX_LOG_LINE_CHARS * 4).await {
            Ok(Line::Closed) | Err(_) => return,
            Ok(Line::TooLong) => format!("(a line over {} bytes, dropped)", MAX_LOG_LINE_CHARS * 4),
            Ok(Line::Text(text)) => sanitize::excerpt(&text, MAX_LOG_LINE_CHARS),
        };
        let left = budget.load(Ordering::Relaxed);
        if left == 0 {
            continue;
        }
        let cost = line.len().max(1);
        budget.store(left.saturating_sub(cost), Ordering::Relaxed);
        if cost >= left {
            tracing::info!(target: "agent", "{name}: its output passed {MAX_LOG_BYTES} bytes; the rest is not logged");
        } else {
            tracing::info!(target: "agent", "{name}: {line}");
        }
    }
}
