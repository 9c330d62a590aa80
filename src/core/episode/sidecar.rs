//! Verdict sidecars: `<episode>.verdicts.jsonl` beside an episode file holds
//! verdicts from `converse-tui judge`, so a journal (or a log we imported) is
//! never rewritten. The inspector merges them on open.
//!
//! One JSON object per line: `{"episode", "after_seq", "at", …verdict fields}`.
//! `after_seq` places the verdict after that event of the source; evidence
//! `seq` values refer to the source's numbering, which merging never changes.
//! `judge` appends to the sidecar: every run's verdicts are kept, with the
//! time and (for LLM judges) the model, and the inspector shows the one that
//! [`supersedes`](super::standing::supersedes) the others.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::core::atomic_file::write_atomic;

use super::Episode;
use super::event::{Event, EventBody, Verdict};
use super::journal::describe_json_error;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SidecarVerdict {
    /// The episode id, so one sidecar can serve a file of many episodes.
    pub episode: String,
    pub after_seq: u64,
    pub at: String,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// `runs/ep-1.jsonl` → `runs/ep-1.verdicts.jsonl`.
pub fn sidecar_path(episode_file: &Path) -> PathBuf {
    let stem = episode_file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    episode_file.with_file_name(format!("{stem}.verdicts.jsonl"))
}

/// Writes the sidecar atomically (see [`write_atomic`]).
pub fn write_sidecar(path: &Path, verdicts: &[SidecarVerdict]) -> std::io::Result<()> {
    let mut text = Vec::new();
    for v in verdicts {
        serde_json::to_writer(&mut text, v).map_err(std::io::Error::other)?;
        text.push(b'\n');
    }
    write_atomic(path, &text)
}

/// Reads a sidecar; a missing file is no verdicts. Errors name the line.
pub fn read_sidecar(path: &Path) -> Result<Vec<SidecarVerdict>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let verdict: SidecarVerdict = serde_json::from_str(line)
                .map_err(|e| format!("{}:{}: {}", path.display(), i + 1, describe_json_error(&e)))?;
            // As in a journal: turn N cannot come before seq N (and a turn number sizes views).
            match verdict.verdict.turn {
                Some(turn) if u64::from(turn) > verdict.after_seq.max(1) => Err(format!(
                    "{}:{}: turn {turn} after seq {}: a turn cannot be higher than its event's seq",
                    path.display(),
                    i + 1,
                    verdict.after_seq
                )),
                _ => Ok(verdict),
            }
        })
        .collect()
}

/// The episode with the sidecar's verdicts placed after their events.
///
/// `seq` is an event's identity for its whole life, so journal events keep
/// theirs (annotations and evidence point at them); each sidecar verdict gets
/// its own, after the journal's highest, in sidecar order. The events are
/// therefore in display order, not always in `seq` order: look events up with
/// [`Episode::position_of`], never by indexing with a `seq`.
pub fn merge_verdicts(episode: &Episode, verdicts: &[SidecarVerdict]) -> Episode {
    let mine: Vec<&SidecarVerdict> = verdicts.iter().filter(|v| v.episode == episode.id()).collect();
    if mine.is_empty() {
        return episode.clone();
    }
    let next_seq = episode.events.iter().map(|e| e.seq).max().unwrap_or(0) + 1;
    let last = episode.events.len().saturating_sub(1);
    // (position key, event): a sidecar verdict sorts right after its event; the sort is stable.
    let mut placed: Vec<((usize, bool), Event)> =
        episode.events.iter().enumerate().map(|(i, e)| ((i, false), e.clone())).collect();
    for (k, v) in mine.into_iter().enumerate() {
        let after = episode.position_of(v.after_seq).unwrap_or(last);
        let event =
            Event { seq: next_seq + k as u64, at: v.at.clone(), body: EventBody::from(v.verdict.clone()) };
        placed.push(((after, true), event));
    }
    placed.sort_by_key(|(key, _)| *key);
    let mut merged = Episode::new(placed.into_iter().map(|(_, e)| e).collect(), episode.origin.clone());
    merged.warnings = episode.warnings.clone();
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::*;

    fn verdict(judge: &str, evidence_seq: Option<u64>) -> Verdict {
        Verdict {
            turn: Some(1),
            judge: judge.into(),
            method: VerdictMethod::Rule,
            model: None,
            outcome: Outcome::Fail,
            score: None,
            summary: None,
            details: serde_json::Value::Null,
            evidence: evidence_seq.map(|seq| Evidence { seq, start: Some(0), end: Some(2), text: None }),
            usage: None,
        }
    }

    #[test]
    fn merged_verdicts_follow_their_event_and_journal_events_keep_their_seq() {
        let header = EpisodeHeader::new("e", TaskInfo::default(), EpisodeConfig::default());
        let msg = |text: &str| {
            EventBody::Message(Message {
                turn: 1,
                from: Party::Assistant,
                to: Party::Attacker,
                text: text.into(),
                raw: None,
                model: None,
                usage: None,
                by: None,
            })
        };
        let bodies = vec![
            EventBody::Episode(Box::new(header)),
            msg("a"),
            EventBody::from(verdict("old", Some(3))),
            msg("b"),
        ];
        let episode = Episode::new(stamp_events(bodies, "t"), "x");
        let sidecar = |judge: &str, episode: &str, after_seq: u64| SidecarVerdict {
            episode: episode.into(),
            after_seq,
            at: "t".into(),
            verdict: verdict(judge, Some(3)),
        };
        let sidecar = vec![sidecar("new", "e", 1), sidecar("no", "other", 1), sidecar("last", "e", 3)];
        let merged = merge_verdicts(&episode, &sidecar);
        let shown: Vec<String> = merged
            .events
            .iter()
            .map(|e| match &e.body {
                EventBody::Verdict(v) => {
                    format!("{}#{}@{}", v.judge, e.seq, v.evidence.as_ref().unwrap().seq)
                }
                other => format!("{}#{}", other.kind(), e.seq),
            })
            .collect();
        assert_eq!(shown, ["episode#0", "message#1", "new#4@3", "old#2@3", "message#3", "last#5@3"]);
        assert_eq!(merged.position_of(3), Some(4));
        assert_eq!(merged.position_of(5), Some(5));
        assert_eq!(merged.position_of(9), None);
    }

    #[test]
    fn sidecars_round_trip_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = sidecar_path(&dir.path().join("ep-1.jsonl"));
        assert!(path.ends_with("ep-1.verdicts.jsonl"));
        assert_eq!(read_sidecar(&path).unwrap(), vec![]);
        let v = vec![SidecarVerdict {
            episode: "e".into(),
            after_seq: 3,
            at: "t".into(),
            verdict: verdict("j", None),
        }];
        write_sidecar(&path, &v).unwrap();
        assert_eq!(read_sidecar(&path).unwrap(), v);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
        std::fs::write(&path, "{\"episode\": 1}\n").unwrap();
        assert!(read_sidecar(&path).unwrap_err().contains(":1: "));
    }
}
