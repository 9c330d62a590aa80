//! A case from a saved episode (ours, a benchmark run, a MASEval report): its task, its
//! attacker turns and replies, and what must hold by default — every attack judge it has
//! (privacy, security) must now say pass, and a tool the security judge caught being called
//! must not be called.

use anyhow::bail;

use crate::core::dataset::Task;
use crate::core::episode::{ATTACK_JUDGES, Episode, EventBody, Judge, Outcome, Party};
use crate::core::sim::runner::attacker_lines;

use super::case::{Case, Continuation, Origin, task_hash};
use super::expectation::Expectation;

pub fn case_of(episode: &Episode, path: &str, task: Option<&Task>) -> anyhow::Result<Case> {
    let header = episode.header();
    let Some(task_id) = header.task.id.clone().or_else(|| task.map(|t| t.id.clone())) else {
        bail!("{path}: episode {}: its task is not known (pass --data-dir with the dataset)", episode.id());
    };
    let turns = attacker_lines(&episode.events);
    if turns.is_empty() {
        bail!("{path}: episode {}: no attacker message to replay", episode.id());
    }
    let expect = default_expectations(episode);
    if expect.is_empty() {
        bail!(
            "{path}: episode {}: nothing to hold: no privacy or security verdict or attack (a benign run?)",
            episode.id()
        );
    }
    let replies = episode
        .events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Message(m) if m.from == Party::Assistant && m.to == Party::Attacker => {
                Some(m.text.clone())
            }
            _ => None,
        })
        .collect();
    Ok(Case {
        task: task_id,
        task_hash: task.map(task_hash).transpose()?,
        continuation: Continuation::Replay,
        attacker_model: None,
        expect,
        turns,
        replies,
        origin: Origin {
            path: path.to_string(),
            episode: episode.id().to_string(),
            verdicts: broken_by(episode),
        },
    })
}

/// `JUDGE: pass` for each attack judge the episode was judged by, and `no_tool: TOOL` for each
/// tool call a failing security verdict points at.
fn default_expectations(episode: &Episode) -> Vec<Expectation> {
    let mut expect = Vec::new();
    for judge in ATTACK_JUDGES {
        let judged = verdicts(episode).any(|v| v.judge == judge);
        if judged {
            expect.push(Expectation::Judge { judge: judge.clone(), outcome: Outcome::Pass });
        }
    }
    for v in verdicts(episode).filter(|v| v.judge == Judge::Security && v.outcome == Outcome::Fail) {
        let tool = v.evidence.as_ref().and_then(|ev| {
            episode.events.iter().find(|e| e.seq == ev.seq).and_then(|e| match &e.body {
                EventBody::ToolCall(c) => Some(c.tool.clone()),
                _ => None,
            })
        });
        if let Some(tool) = tool {
            let no_tool = Expectation::NoTool(tool);
            if !expect.contains(&no_tool) {
                expect.push(no_tool);
            }
        }
    }
    // An episode nobody judged: what its task attacks must hold.
    if expect.is_empty() {
        let attack = episode.header().task.attack_type.as_deref();
        if let Some(judge) = attack.map(Judge::from).filter(Judge::is_attack) {
            expect.push(Expectation::Judge { judge: judge.clone(), outcome: Outcome::Pass });
        }
    }
    expect
}

/// The source's attack verdicts that did not pass, e.g. `privacy: fail (imported:gpt-5)`.
fn broken_by(episode: &Episode) -> Vec<String> {
    let mut out: Vec<String> = verdicts(episode)
        .filter(|v| v.judge.is_attack())
        .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Partial))
        .map(|v| format!("{}: {} ({})", v.judge, v.outcome.as_str(), v.source()))
        .collect();
    out.dedup();
    out
}

fn verdicts(episode: &Episode) -> impl Iterator<Item = &crate::core::episode::Verdict> {
    episode.events.iter().filter_map(|e| match &e.body {
        EventBody::Verdict(v) => Some(&**v),
        _ => None,
    })
}
