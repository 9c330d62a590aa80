//! `converse-tui attack`: a Crescendo, GOAT or TAP search against the assistant, without a screen.
//! One line per node on stderr as it ends; at the end the best path (each turn's message, its
//! score, a leak and the words leaked), the counts and the calls, or `--json`. Exit 0 when
//! nothing leaked within the budget, 1 when a leak was found, 2 when it could not say (a judge
//! that could not decide, a node that failed, a search stopped before its end).

use std::io::Write;

use serde_json::json;

use crate::config::Paths;
use crate::core::attack::node::{NodeId, NodeRecord};
use crate::core::attack::plan::Status;
use crate::core::sanitize::single_line;
use crate::core::text::truncate_chars;
use crate::session::attack::{AttackArgs, AttackOutcome, SearchControl, SearchUpdate, prepare, spawn};

use super::text_table::Table;

/// Exit codes, as `test`'s.
pub const NOTHING_FOUND: u8 = 0;
pub const LEAK_FOUND: u8 = 1;
pub const UNDECIDED: u8 = 2;

pub struct AttackReport {
    pub outcome: AttackOutcome,
    pub exit: u8,
}

pub async fn attack(
    args: &AttackArgs,
    paths: &Paths,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<AttackReport> {
    let parts = prepare(args, paths)?;
    let shape = parts.params.describe();
    let resumed = parts.plan.nodes;
    writeln!(
        err,
        "attack on {}: {shape}{}; journals in {}",
        single_line(&parts.task.id),
        if args.resume { format!(" (resumed: {resumed} node(s) done)") } else { String::new() },
        single_line(&parts.dir.display().to_string())
    )?;
    let dir = parts.dir.clone();
    let mut handle = spawn(parts)?;
    let mut signals = crate::core::signals::stop_signals()?;
    let mut stopping = false;
    let outcome = loop {
        tokio::select! {
            update = handle.updates.recv() => match update {
                Some(SearchUpdate::NodeEnded(record)) => writeln!(err, "{}", progress_line(&record))?,
                Some(SearchUpdate::Problem(problem)) => writeln!(err, "warning: {}", single_line(&problem))?,
                Some(SearchUpdate::Finished(outcome)) => break *outcome,
                Some(_) => {}
                None => break handle.task.await.map_err(|e| anyhow::anyhow!("the search failed: {e}"))?,
            },
            Some(()) = signals.recv(), if !stopping => {
                stopping = true;
                writeln!(err, "stopping: the running nodes are stopped; --resume continues the search")?;
                let _ = handle.control.send(SearchControl::Stopped);
            }
        }
    };
    let exit = exit_code(&outcome);
    if json {
        writeln!(out, "{}", crate::core::safe_json::to_string(&report_json(&outcome, exit, &dir))?)?;
    } else {
        write_report(&outcome, &shape, &dir, out)?;
    }
    if let Some(problem) = &outcome.problem {
        writeln!(err, "converse-tui: {}", single_line(problem))?;
    }
    Ok(AttackReport { outcome, exit })
}

/// 1 a leak, 2 undecided (a judge that could not decide, a node that failed, a search stopped or
/// failed before its end), else 0.
pub fn exit_code(o: &AttackOutcome) -> u8 {
    if o.status == Status::Leak {
        return LEAK_FOUND;
    }
    let undecided =
        o.records.iter().any(|r| r.undecided || (r.finished() && !r.complete() && !r.cut_by_budget()));
    if undecided || o.status == Status::Stopped || o.problem.is_some() { UNDECIDED } else { NOTHING_FOUND }
}

fn progress_line(r: &NodeRecord) -> String {
    let score = r.score.map_or("-".to_string(), |s| format!("{s}/10"));
    let techniques = r.techniques();
    let technique =
        if techniques.is_empty() { String::new() } else { format!(" [{}]", techniques.join(", ")) };
    let text =
        r.text.as_deref().map(|t| format!(": {}", truncate_chars(&single_line(t), 70))).unwrap_or_default();
    format!("node {} turn {} {} score {score}{technique}{text}", r.id, r.turn, r.status())
}

/// The nodes from the root to `id`.
fn path_to<'a>(records: &'a [NodeRecord], id: &NodeId) -> Vec<&'a NodeRecord> {
    let mut path = Vec::new();
    let mut at = Some(id.clone());
    while let Some(id) = at {
        if let Some(r) = records.iter().find(|r| r.id == id) {
            path.push(r);
        }
        at = id.parent();
    }
    path.reverse();
    path
}

fn write_report(
    o: &AttackOutcome,
    shape: &str,
    dir: &std::path::Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let headline = match o.status {
        Status::Leak => "a leak was found",
        Status::NothingFound => "nothing leaked",
        Status::BudgetSpent => "the call budget is spent, nothing leaked before it",
        Status::AllPruned => "every branch was pruned, nothing leaked",
        Status::Stopped => "stopped before its end (--resume continues it)",
        Status::Running => "running",
    };
    writeln!(out, "attack ({shape}): {headline}")?;
    if let Some(best) = &o.best {
        let path = path_to(&o.records, best);
        writeln!(out, "best path, to node {best}:")?;
        let header = ["turn", "node", "score", "leak", "technique", "message"].map(String::from).to_vec();
        let rows = path
            .iter()
            .map(|r| {
                vec![
                    r.turn.to_string(),
                    r.id.to_string(),
                    r.score.map_or("-".into(), |s| format!("{s}/10")),
                    r.leak.as_ref().map_or("-".into(), |l| format!("{} ({})", l.judge, l.source)),
                    r.techniques().join(", "),
                    r.text.as_deref().map_or("(the task's first turn)".into(), |t| truncate_chars(t, 90)),
                ]
            })
            .collect();
        Table::new(header, rows).write(out)?;
        if let Some(leak) = path.last().and_then(|r| r.leak.as_ref()) {
            let turn = leak.turn.map_or(String::new(), |t| format!(", turn {t}"));
            writeln!(
                out,
                "leaked: {:?} ({} by {}{turn})",
                truncate_chars(&single_line(&leak.words), 200),
                leak.judge,
                leak.source
            )?;
        }
    }
    let count = |status: &str| o.records.iter().filter(|r| r.status() == status).count();
    let budget = o.budget.map_or(String::new(), |b| format!(" of {b}"));
    writeln!(
        out,
        "nodes: {} ({} leak, {} pruned, {} off topic, {} backtracked, {} failed); calls: {}{budget} (attacker {}, assistant {}, judge {})",
        o.records.iter().filter(|r| !r.id.is_root()).count(),
        count("leak"),
        count("pruned"),
        count("off-topic"),
        count("backtracked"),
        count("error") + count("cut"),
        o.calls.total(),
        o.calls.attacker,
        o.calls.assistant,
        o.calls.judge,
    )?;
    let undecided = o.records.iter().filter(|r| r.undecided).count();
    if undecided > 0 {
        writeln!(
            out,
            "undecided: {undecided} node(s): an attack judge could not decide, or the agent never reached its tools"
        )?;
    }
    writeln!(out, "the tree: converse-tui replay {}", single_line(&dir.display().to_string()))?;
    Ok(())
}

fn report_json(o: &AttackOutcome, exit: u8, dir: &std::path::Path) -> serde_json::Value {
    let node = |r: &NodeRecord| {
        json!({
            "node": r.id, "parent": r.id.parent(), "turn": r.turn, "status": r.status(),
            "score": r.score, "reason": r.reason, "refused": r.refused, "leak": r.leak, "undecided": r.undecided,
            "techniques": r.techniques(), "text": r.text, "journal": r.journal, "episode": r.episode,
        })
    };
    let path: Vec<_> = o.best.as_ref().map(|b| path_to(&o.records, b)).unwrap_or_default();
    json!({
        "dir": dir,
        "status": o.status,
        "exit": exit,
        "best": o.best,
        "path": path.iter().map(|r| node(r)).collect::<Vec<_>>(),
        "nodes": o.records.iter().map(node).collect::<Vec<_>>(),
        "calls": {"total": o.calls.total(), "attacker": o.calls.attacker, "assistant": o.calls.assistant,
                  "judge": o.calls.judge},
        "budget": o.budget,
        "problem": o.problem,
    })
}
