//! `runs.jsonl`: one line per finished batch episode. Written by `batch`, read
//! by `batch --resume` and `summary` (which can also rebuild records from journals).

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::core::episode::{Episode, EpisodeHeader, EventBody, Outcome, Party, Verdict, VerdictMethod};
use crate::core::judge::standing::supersedes;

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

/// What a run was configured with, so `summary A B` can tell runs that differ
/// in more than the thing compared.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Settings {
    /// Model per role (`attacker`, `assistant`, `judge`).
    #[serde(default)]
    pub models: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u32>,
}

impl Settings {
    pub fn of(header: &EpisodeHeader) -> Self {
        let name = |m: &serde_json::Value| m.as_str().map_or_else(|| m.to_string(), str::to_string);
        let models = header.config.models.iter().map(|(role, model)| (role.clone(), name(model))).collect();
        Settings { models, max_turns: header.config.max_turns, max_tool_calls: header.config.max_tool_calls }
    }
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
    /// Absent in records written before it existed.
    #[serde(default)]
    pub settings: Settings,
    #[serde(default)]
    pub error: Option<String>,
}

/// Folds verdicts into one per judge by [`supersedes`] (as `judge` and the
/// browser do): a verdict that judged outranks an `error` or `skipped` one,
/// a model's outranks a rule's, and the later wins at equal standing.
/// The count is of every `error` verdict, not only the final ones.
pub fn final_verdicts<'a>(
    verdicts: impl IntoIterator<Item = &'a Verdict>,
) -> (BTreeMap<String, JudgeResult>, usize) {
    let mut out: BTreeMap<String, JudgeResult> = BTreeMap::new();
    let mut errors = 0;
    for v in verdicts {
        if v.outcome == Outcome::Error {
            errors += 1;
        }
        let keep = out
            .get(&v.judge)
            .is_none_or(|prev| supersedes((v.outcome, v.method), (prev.outcome, prev.method)));
        if keep {
            let rating = rating(&v.details);
            out.insert(
                v.judge.clone(),
                JudgeResult { outcome: v.outcome, method: v.method, score: v.score, rating },
            );
        }
    }
    (out, errors)
}

/// The utility judge's average rating, when it rated something: with no
/// ratings data (or a ratings judge that failed) the reference writes
/// `rating: 0` and `num_items_rated: 0`, which is no rating.
fn rating(details: &serde_json::Value) -> Option<f64> {
    let rated = details.pointer("/ratings_evaluation/num_items_rated").and_then(serde_json::Value::as_u64);
    details.get("rating").and_then(serde_json::Value::as_f64).filter(|_| rated != Some(0))
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
        settings: Settings::of(header),
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
