//! Episode summaries for the browser, built without loading whole episodes.
//!
//! A journal's header is its first line and everything a list row needs
//! besides (turns, end reason, final verdicts) sits at its end, so a summary
//! reads the first line and the last [`TAIL_BYTES`] only. Verdicts written
//! earlier than that window by a judge that never spoke again are not seen:
//! whole-episode verdicts sit just before `end`, which is what a row shows.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Episode;
use super::event::{EndReason, EpisodeHeader, Event, EventBody, FORMAT_V1, Outcome, VerdictMethod};
use super::judge::Judge;
use super::sidecar::{SidecarVerdict, read_sidecar, sidecar_path};
use super::standing::supersedes;

/// How much of a journal's end is read for a summary.
pub const TAIL_BYTES: u64 = 64 * 1024;

/// What the browser shows of one episode, and where to load it from.
#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeSummary {
    /// The file the episode is in (for in-memory episodes, their origin).
    pub path: PathBuf,
    pub id: String,
    pub task_id: Option<String>,
    pub domain: Option<String>,
    pub attack_type: Option<String>,
    pub category: Option<String>,
    pub data_item: Option<String>,
    /// The episode this one was forked from.
    pub parent: Option<String>,
    pub turns: u32,
    /// Number of events (with sidecar verdicts), when known.
    pub events: Option<usize>,
    /// `None` for an episode that did not end (still running, or crashed).
    pub end_reason: Option<EndReason>,
    /// The final verdict per judge (see [`supersedes`]): (judge, outcome, score).
    pub verdicts: Vec<(Judge, Outcome, Option<f64>)>,
    /// (role, model) from the header's config.
    pub models: Vec<(String, String)>,
    /// The header's timestamp.
    pub started_at: String,
}

impl EpisodeSummary {
    /// The summary of an episode already in memory (every field exact).
    pub fn of(episode: &Episode) -> Self {
        let at = episode.events.first().map(|e| e.at.as_str()).unwrap_or_default();
        let mut summary = from_header(PathBuf::from(&episode.origin), episode.header(), at);
        let mut verdicts = Verdicts::default();
        for event in &episode.events {
            match &event.body {
                EventBody::Verdict(v) => verdicts.push(&v.judge, v.outcome, v.method, v.score),
                EventBody::End(end) => {
                    summary.end_reason = Some(end.reason);
                    summary.turns = summary.turns.max(end.turns);
                }
                _ => {}
            }
            summary.turns = summary.turns.max(event.body.turn().unwrap_or(0));
        }
        summary.verdicts = verdicts.into_rows();
        summary.events = Some(episode.events.len());
        summary
    }
}

/// Summarises a journal from its first line and its tail, with its verdict
/// sidecar. `Ok(None)` when the file is not one of our journals (the caller
/// falls back to a full load, which also words any error).
pub fn summarize_journal(path: &Path) -> std::io::Result<Option<EpisodeSummary>> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut reader = BufReader::with_capacity(8 * 1024, file);
    let mut first = Vec::new();
    let header_end = reader.read_until(b'\n', &mut first)? as u64;
    let line = first.strip_prefix(b"\xef\xbb\xbf".as_slice()).unwrap_or(&first);
    let Ok(header) = serde_json::from_slice::<Event>(line) else {
        return Ok(None);
    };
    let mut summary = match &header.body {
        EventBody::Episode(h) if header.seq == 0 && h.format == FORMAT_V1 => {
            from_header(path.to_path_buf(), h, &header.at)
        }
        _ => return Ok(None),
    };

    let start = header_end.max(len.saturating_sub(TAIL_BYTES));
    let mut file = reader.into_inner();
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::with_capacity((len - start.min(len)) as usize);
    file.take(TAIL_BYTES).read_to_end(&mut tail)?;
    // Starting inside the file, the first piece is the end of a line we cannot parse.
    let tail = if start > header_end {
        match tail.iter().position(|&b| b == b'\n') {
            Some(i) => &tail[i + 1..],
            None => &[][..],
        }
    } else {
        &tail[..]
    };

    let mut last_seq = 0u64;
    // Sidecar verdicts sort after their event: (seq, from the sidecar).
    let mut placed: Vec<((u64, bool), PlacedVerdict)> = Vec::new();
    for line in tail.split(|&b| b == b'\n') {
        // A line that does not parse (truncated by a crash) is skipped; opening the episode reports it.
        let Ok(event) = serde_json::from_slice::<TailEvent>(line) else {
            continue;
        };
        last_seq = last_seq.max(event.seq);
        summary.turns = summary.turns.max(event.turn.unwrap_or(0));
        match event.kind.as_str() {
            "verdict" => {
                if let (Some(judge), Some(outcome), Some(method)) = (event.judge, event.outcome, event.method)
                {
                    placed.push(((event.seq, false), (judge, outcome, method, event.score)));
                }
            }
            "end" => {
                summary.end_reason = event.reason;
                summary.turns = summary.turns.max(event.turns.unwrap_or(0));
            }
            _ => {}
        }
    }
    let mut events = last_seq as usize + 1;
    // A sidecar that cannot be read is a warning when the episode opens; here it is just absent.
    let sidecar = read_sidecar(&sidecar_path(path)).unwrap_or_default();
    for SidecarVerdict { episode, after_seq, verdict, .. } in sidecar {
        if episode == summary.id {
            events += 1;
            summary.turns = summary.turns.max(verdict.turn.unwrap_or(0));
            let v = (verdict.judge, verdict.outcome, verdict.method, verdict.score);
            placed.push(((after_seq.min(last_seq), true), v));
        }
    }
    // Stable, so verdicts at one position keep their file order, as `merge_verdicts` does.
    placed.sort_by_key(|(key, _)| *key);
    let mut verdicts = Verdicts::default();
    for (_, (judge, outcome, method, score)) in &placed {
        verdicts.push(judge, *outcome, *method, *score);
    }
    summary.verdicts = verdicts.into_rows();
    summary.events = Some(events);
    Ok(Some(summary))
}

/// (judge, outcome, method, score).
type PlacedVerdict = (Judge, Outcome, VerdictMethod, Option<f64>);

/// The few fields of any event a summary needs; the rest is skipped unparsed.
#[derive(Deserialize)]
struct TailEvent {
    seq: u64,
    kind: String,
    #[serde(default)]
    turn: Option<u32>,
    #[serde(default)]
    judge: Option<Judge>,
    #[serde(default)]
    outcome: Option<Outcome>,
    #[serde(default)]
    method: Option<VerdictMethod>,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    reason: Option<EndReason>,
    #[serde(default)]
    turns: Option<u32>,
}

#[derive(Default)]
struct Verdicts(Vec<(Judge, Outcome, VerdictMethod, Option<f64>)>);

impl Verdicts {
    /// A verdict replaces the judge's earlier one, in place, when it [`supersedes`] it.
    fn push(&mut self, judge: &Judge, outcome: Outcome, method: VerdictMethod, score: Option<f64>) {
        match self.0.iter_mut().find(|(j, ..)| j == judge) {
            Some(slot) if supersedes((outcome, method), (slot.1, slot.2)) => {
                (slot.1, slot.2, slot.3) = (outcome, method, score)
            }
            Some(_) => {}
            None => self.0.push((judge.clone(), outcome, method, score)),
        }
    }

    fn into_rows(self) -> Vec<(Judge, Outcome, Option<f64>)> {
        self.0.into_iter().map(|(judge, outcome, _, score)| (judge, outcome, score)).collect()
    }
}

/// Everything the header gives; the caller fills in what the body says.
fn from_header(path: PathBuf, header: &EpisodeHeader, at: &str) -> EpisodeSummary {
    let task = &header.task;
    let models = header
        .config
        .models
        .iter()
        .map(|(role, model)| {
            let model = model.as_str().map(str::to_string).unwrap_or_else(|| model.to_string());
            (role.clone(), model)
        })
        .collect();
    EpisodeSummary {
        path,
        id: header.id.clone(),
        task_id: task.id.clone(),
        domain: task.domain.clone(),
        attack_type: task.attack_type.clone(),
        category: task.category.clone(),
        data_item: task.data_item.clone(),
        parent: header.parent.as_ref().map(|p| p.episode.clone()),
        turns: 0,
        events: None,
        end_reason: None,
        verdicts: Vec::new(),
        models,
        started_at: at.to_string(),
    }
}
