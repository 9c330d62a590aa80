//! `runs.jsonl`: one line per finished batch episode. Written by `batch`, read
//! by `batch --resume` and `summary` (which can also rebuild records from journals).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::core::episode::{Episode, EventBody, Outcome, Party, Verdict, VerdictMethod};

pub const RUNS_FILE: &str = "runs.jsonl";

/// The final say of one judge on one episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeResult {
    pub outcome: Outcome,
    pub method: VerdictMethod,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The utility judge's average rating (`details.rating`), when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

/// One finished episode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub task: String,
    /// 1-based.
    pub repeat: u32,
    pub episode: String,
    /// File name inside the batch directory.
    pub journal: String,
    /// The end reason (`max_turns`, `error`, …).
    pub status: String,
    #[serde(default)]
    pub domain: String,
    #[serde(default)]
    pub category: String,
    #[serde(default)]
    pub persona: String,
    #[serde(default)]
    pub attack_type: String,
    #[serde(default)]
    pub turns: u32,
    /// Per judge (`privacy`, `security`, `utility`, …).
    #[serde(default)]
    pub verdicts: BTreeMap<String, JudgeResult>,
    /// Verdicts that said `error` (every one, not only the final ones).
    #[serde(default)]
    pub judge_errors: usize,
    /// Per role (`attacker`, `assistant`, `judge`).
    #[serde(default)]
    pub tokens: BTreeMap<String, Tokens>,
    #[serde(default)]
    pub duration_ms: u64,
    #[serde(default)]
    pub error: Option<String>,
}

/// Folds verdicts into one per judge: an LLM's verdict beats a rule's, and a
/// later verdict of the same standing beats an earlier one (as `judge` does).
pub fn final_verdicts<'a>(
    verdicts: impl IntoIterator<Item = &'a Verdict>,
) -> (BTreeMap<String, JudgeResult>, usize) {
    let mut out: BTreeMap<String, JudgeResult> = BTreeMap::new();
    let mut errors = 0;
    for v in verdicts {
        if v.outcome == Outcome::Error {
            errors += 1;
        }
        let keep = match out.get(&v.judge) {
            Some(prev) if prev.method == VerdictMethod::Llm => v.method == VerdictMethod::Llm,
            _ => true,
        };
        if keep {
            let rating = v.details.get("rating").and_then(serde_json::Value::as_f64);
            out.insert(
                v.judge.clone(),
                JudgeResult { outcome: v.outcome, method: v.method, score: v.score, rating },
            );
        }
    }
    (out, errors)
}

/// Appends one record as one line and flushes it, so a crash loses at most the line being written.
pub fn append(file: &mut std::fs::File, record: &RunRecord) -> anyhow::Result<()> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    // One write call per line: shards sharing a directory do not interleave.
    file.write_all(&line)?;
    file.flush()?;
    Ok(())
}

/// The records of `dir/runs.jsonl` (`None` when there is no such file). Lines
/// that do not parse (a torn last line after a crash) are skipped and counted.
pub fn read_runs(dir: &Path) -> anyhow::Result<Option<(Vec<RunRecord>, usize)>> {
    let path = dir.join(RUNS_FILE);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(anyhow::anyhow!("{}: {e}", path.display())),
    };
    let mut records = Vec::new();
    let mut bad = 0;
    for line in std::io::BufReader::new(file).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<RunRecord>(&line) {
            Ok(r) => records.push(r),
            Err(_) => bad += 1,
        }
    }
    Ok(Some((records, bad)))
}

/// A record rebuilt from a journal (for directories without `runs.jsonl`).
pub fn record_from_episode(episode: &Episode, journal: &str) -> RunRecord {
    let header = episode.header();
    let task = &header.task;
    let mut record = RunRecord {
        task: task.id.clone().unwrap_or_else(|| episode.id().to_string()),
        repeat: 1,
        episode: episode.id().to_string(),
        journal: journal.to_string(),
        status: "unfinished".into(),
        domain: task.domain.clone().unwrap_or_default(),
        category: task.category.clone().unwrap_or_default(),
        persona: task.persona.as_ref().map(persona_text).unwrap_or_default(),
        attack_type: task.attack_type.clone().unwrap_or_default(),
        turns: episode.turns(),
        ..RunRecord::default()
    };
    let verdicts = episode.events.iter().filter_map(|e| match &e.body {
        EventBody::Verdict(v) => Some(v),
        _ => None,
    });
    (record.verdicts, record.judge_errors) = final_verdicts(verdicts);
    for event in &episode.events {
        match &event.body {
            EventBody::Message(m) => {
                let role = match m.from {
                    Party::Attacker => "attacker",
                    Party::Assistant => "assistant",
                    _ => continue,
                };
                if let Some(u) = &m.usage {
                    let t = record.tokens.entry(role.into()).or_default();
                    t.input += u.input_tokens;
                    t.output += u.output_tokens;
                }
            }
            EventBody::Error(e) => record.error = Some(e.message.clone()),
            EventBody::End(end) => record.status = end.reason.as_str().into(),
            _ => {}
        }
    }
    record
}

/// Personas are numbers in our journals, strings in some imports.
pub fn persona_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
