//! `converse-tui run --headless`: one episode without a screen, one line per event.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;

use crate::core::episode::{EndReason, EventBody};
use crate::core::sanitize::single_line;
use crate::core::sim::emitter::RunnerUpdate;
use crate::core::sim::runner::RunOutcome;
use crate::session::launch::Launch;

/// Runs one episode without a screen, one line per event on `out`.
/// Ctrl-C / SIGTERM abort it cleanly (the journal ends with `end: aborted`).
pub async fn headless(launch: &Launch, task_id: &str, out: &mut dyn Write) -> anyhow::Result<RunOutcome> {
    launch.serve_agents(1, &mut crate::core::sanitize::SafeWriter::new(std::io::stderr()))?;
    let outcome = follow(launch, task_id, out).await;
    // A launched agent is stopped whatever happened (its group gone before the exit).
    launch.stop_agents().await;
    outcome
}

async fn follow(launch: &Launch, task_id: &str, out: &mut dyn Write) -> anyhow::Result<RunOutcome> {
    let mut handle = launch.start(task_id)?;
    for warning in &handle.warnings {
        writeln!(out, "warning: {}", single_line(warning))?;
    }
    writeln!(out, "episode {} → {}", handle.episode_id, handle.journal_path.display())?;
    let started = Instant::now();
    let mut stop = crate::core::signals::stop_signals()?;
    loop {
        let update = tokio::select! {
            update = handle.updates.recv() => update,
            _ = stop.recv() => {
                writeln!(out, "stopping: aborting the episode…")?;
                handle.gate.abort();
                continue;
            }
        };
        let Some(update) = update else { break };
        if let RunnerUpdate::Warning(text) = &update {
            // Said on stderr too: a run whose agent never saw its tools must not pass unnoticed.
            eprintln!("warning: {}", single_line(text));
        }
        if let Some(line) = progress_line(&update, started) {
            writeln!(out, "{line}")?;
            out.flush()?;
        }
    }
    let outcome = handle.task.await.context("the runner task failed")?;
    writeln!(
        out,
        "ended: {} after {} turns; journal {}",
        outcome.reason.as_str(),
        outcome.turns,
        handle.journal_path.display()
    )?;
    Ok(outcome)
}

/// One line per event, and retry notices.
fn progress_line(update: &RunnerUpdate, started: Instant) -> Option<String> {
    let secs = started.elapsed().as_secs();
    let clock = format!("[{:02}:{:02}]", secs / 60, secs % 60);
    let what = match update {
        RunnerUpdate::Notice(text) => format!("retry: {}", single_line(text)),
        RunnerUpdate::Warning(text) => format!("warning: {}", single_line(text)),
        RunnerUpdate::Event(event) => {
            let turn = event.body.turn().map(|t| format!("T{t} ")).unwrap_or_default();
            let body = event_line(&event.body);
            format!("{turn}#{} {body}", event.seq)
        }
        _ => return None,
    };
    Some(format!("{clock} {what}"))
}

/// What one event says, on one line (texts cut at 100 characters and made inert).
pub(super) fn event_line(body: &EventBody) -> String {
    match body {
        EventBody::Episode(h) => {
            format!("episode {} task {}", h.id, h.task.id.as_deref().unwrap_or("?"))
        }
        EventBody::Message(m) => {
            format!("{} → {}: {}", m.from.as_str(), m.to.as_str(), preview(&m.text))
        }
        EventBody::ToolCall(c) => format!("tool {} {}", single_line(&c.tool), preview(&c.args.to_string())),
        EventBody::ToolResult(r) => {
            format!(
                "result {} {}: {}",
                single_line(&r.tool),
                if r.ok { "ok" } else { "failed" },
                preview(&r.output)
            )
        }
        EventBody::Verdict(v) => format!("verdict {} {}", v.judge, v.outcome.as_str()),
        EventBody::Control(c) => format!("control {}", c.action.as_str()),
        EventBody::Error(e) => format!("error from {}: {}", e.source, single_line(&e.message)),
        EventBody::End(e) => format!("end: {} after {} turns", e.reason.as_str(), e.turns),
    }
}

fn preview(text: &str) -> String {
    let line = single_line(text.trim());
    match line.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.into_owned(),
    }
}

/// Did the episode complete (exit code 0) or end in an error?
pub fn completed(outcome: &RunOutcome) -> bool {
    // Stopped by SIGINT/SIGTERM is not complete either, as `batch` says too.
    !matches!(outcome.reason, EndReason::Error | EndReason::Aborted)
}
