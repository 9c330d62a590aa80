//! Runs files: one line per finished batch episode, in `runs.jsonl` or, for a
//! shard, `runs-<k>-of-<n>.jsonl`. Written by `batch` and `fan` (and the screen's fans), read
//! (all of a directory's, merged) by `batch --resume` and `summary` (which can also rebuild
//! records from journals).

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use crate::core::batch_files::RUNS_FILE;
use crate::core::batch_files::is_runs_file;
use crate::core::episode::Judge;
use crate::core::episode::standing::supersedes;
use crate::core::episode::{
    Episode, EpisodeHeader, EventBody, Outcome, Party, Usage, Verdict, VerdictMethod,
};

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

impl Tokens {
    pub fn add(&mut self, usage: &Usage) {
        self.input += usage.input_tokens;
        self.output += usage.output_tokens;
    }
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
    /// The attack case it ran (`test`), keyed on instead of the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
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
    pub verdicts: BTreeMap<Judge, JudgeResult>,
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
    /// What decides its verdicts, checked by `--resume` (absent before it existed: the journal's
    /// header says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_with: Option<crate::core::run_with::RunWith>,
    #[serde(default)]
    pub error: Option<String>,
    /// What the batch warned about when it started the episode (e.g. an attacker
    /// script recorded for another task).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl RunRecord {
    /// What it is recorded under: the case it ran, else its task.
    pub fn key(&self) -> &str {
        self.case.as_deref().unwrap_or(&self.task)
    }
}

/// Folds verdicts into one per judge by [`supersedes`] (as `judge` and the
/// browser do): a verdict that judged outranks an `error` or `skipped` one,
/// a model's outranks a rule's, and the later wins at equal standing.
/// The count is of every `error` verdict, not only the final ones.
pub fn final_verdicts<'a>(
    verdicts: impl IntoIterator<Item = &'a Verdict>,
) -> (BTreeMap<Judge, JudgeResult>, usize) {
    let mut out: BTreeMap<Judge, JudgeResult> = BTreeMap::new();
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
/// Written like every JSON output (`safe_json`): a server's error text in `error` has its keys
/// masked and its control characters escaped (`summary` and cluster shards read this file).
pub fn append(file: &mut File, record: &RunRecord) -> anyhow::Result<()> {
    let mut line = crate::core::safe_json::to_string(record)?.into_bytes();
    line.push(b'\n');
    // One write call per line; each shard has its own file, as appends are not atomic on network file systems.
    file.write_all(&line)?;
    file.flush()?;
    Ok(())
}

/// Every runs file of a directory, merged.
#[derive(Debug, Default)]
pub struct MergedRuns {
    /// One per (task or case, repeat), the first met (runs files in name order).
    pub records: Vec<RunRecord>,
    /// Lines that do not parse (a torn last line after a crash).
    pub unreadable: usize,
    /// Records of a (task, repeat) already met (shards of different `n` in one directory).
    pub duplicates: usize,
}

/// The runs files of `dir`, in name order (`runs.jsonl` first).
pub fn runs_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("{}: cannot list: {e}", dir.display()),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
        if entry.file_name().to_str().is_some_and(is_runs_file) && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    // `runs.jsonl` sorts after `runs-…`: put it first, the shards by name after it.
    files.sort_by_key(|p| (!p.ends_with(RUNS_FILE), p.clone()));
    Ok(files)
}

/// The records of every runs file of `dir` (`None` when it has none).
pub fn read_runs(dir: &Path) -> anyhow::Result<Option<MergedRuns>> {
    let files = runs_files(dir)?;
    if files.is_empty() {
        return Ok(None);
    }
    let mut merged = MergedRuns::default();
    let mut seen = HashSet::new();
    for path in files {
        let file = File::open(&path).with_context(|| format!("{}: cannot open", path.display()))?;
        for line in std::io::BufReader::new(file).lines() {
            let line = line.with_context(|| format!("{}: cannot read", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<RunRecord>(&line) {
                Ok(r) if seen.insert((r.key().to_string(), r.repeat)) => merged.records.push(r),
                Ok(_) => merged.duplicates += 1,
                Err(_) => merged.unreadable += 1,
            }
        }
    }
    Ok(Some(merged))
}

/// Opens a runs file for appending. A torn last line (a crash mid-write) is
/// cut off first and kept as `<file>.torn-<n>`, so the next record starts on
/// its own line; returns where the fragment went.
pub fn open_for_append(path: &Path) -> anyhow::Result<(File, Option<PathBuf>)> {
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .with_context(|| format!("{}: cannot open", path.display()))?;
    let torn =
        repair_torn_tail(&mut file, path).with_context(|| format!("{}: cannot repair", path.display()))?;
    Ok((file, torn))
}

fn repair_torn_tail(file: &mut File, path: &Path) -> std::io::Result<Option<PathBuf>> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    if last[0] == b'\n' {
        return Ok(None);
    }
    let mut content = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    file.read_to_end(&mut content)?;
    let keep = content.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let aside = free_name(path, "torn");
    // The fragment is safe on disk before the runs file loses it.
    let mut fragment = File::create(&aside)?;
    fragment.write_all(&content[keep..])?;
    fragment.sync_all()?;
    file.set_len(keep as u64)?;
    file.sync_all()?;
    Ok(Some(aside))
}

/// Renames an unfinished journal to `<name>.aborted-<n>` (first free n), so that the episode can
/// be run again under its name and what it had written is kept where readers skip it.
pub fn set_aside(path: &Path) -> anyhow::Result<()> {
    std::fs::rename(path, free_name(path, "aborted"))
        .with_context(|| format!("{}: cannot set the partial journal aside", path.display()))
}

/// `<path>.<tag>-<n>` with the first n (from 1) not taken.
pub fn free_name(path: &Path, tag: &str) -> PathBuf {
    (1..)
        .map(|n| {
            let mut name = path.as_os_str().to_owned();
            name.push(format!(".{tag}-{n}"));
            PathBuf::from(name)
        })
        .find(|p| !p.exists())
        .expect("an unbounded range has a free name")
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
        EventBody::Verdict(v) => Some(&**v),
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
                    record.tokens.entry(role.into()).or_default().add(u);
                }
            }
            EventBody::Verdict(v) => {
                if let Some(u) = &v.usage {
                    record.tokens.entry("judge".into()).or_default().add(u)
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
