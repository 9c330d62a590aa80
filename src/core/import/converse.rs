//! ConVerse / Firewalled-agentic-network logs: a JSON list of
//! `{from, to, short_answer, long_answer}` records → events.
//!
//! Text is kept exactly as recorded (padding, Python dict reprs, fences,
//! mojibake): the inspector shows what the agents saw, it does not clean up.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::Path;

use serde_json::{Value, json};

use super::defaults::NO_TIME;
use super::error::LoadError;
use super::{benchmark_judges, converse_judges, layout, run_log};
use crate::core::episode::{
    End, EndReason, Episode, EpisodeHeader, EventBody, Message, Party, SourceRef, ToolCall, ToolResult,
    stamp_events,
};

pub(super) const FORMAT: &str = "converse-log";

/// The assistant's last record starts with this when it finished the task.
const COMPLETED: &str = "THE TASK IS NOW COMPLETED";

/// The name the environment simulator gets in the tools pane.
const ENV_TOOL: &str = "environment";

struct Record<'a> {
    from: Party,
    to: Party,
    short: &'a str,
    long: Option<&'a str>,
}

pub(super) fn from_log(records: &[Value], path: &Path) -> Result<Episode, LoadError> {
    from_log_reading(records, path, true)
}

/// Like [`from_log`], reading nothing beside the log (no judge files, no run log): the same
/// messages, calls and results with the same `seq`, no verdicts (a search needs only the texts).
pub(super) fn from_log_alone(records: &[Value], path: &Path) -> Result<Episode, LoadError> {
    from_log_reading(records, path, false)
}

fn from_log_reading(records: &[Value], path: &Path, beside: bool) -> Result<Episode, LoadError> {
    let records =
        records.iter().enumerate().map(|(i, r)| record(r, i, path)).collect::<Result<Vec<_>, _>>()?;
    from_records(&records, path, beside)
}

/// A record as an index reads it: the texts are checked to be text, never kept.
#[derive(serde::Deserialize)]
struct Parties<'a> {
    #[serde(borrow)]
    from: Cow<'a, str>,
    #[serde(borrow)]
    to: Cow<'a, str>,
    #[serde(default)]
    short_answer: Option<Completion>,
    /// Read only so that a file the full loader refuses (a number here) is refused here too.
    #[serde(default)]
    #[allow(dead_code)]
    long_answer: Option<Completion>,
}

/// A text, read only for whether it is the assistant's completion mark.
struct Completion(bool);

impl<'de> serde::Deserialize<'de> for Completion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Completion;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            // serde_json unescapes into its scratch buffer: no allocation per text.
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Completion, E> {
                Ok(Completion(text.trim_start().starts_with(COMPLETED)))
            }
        }
        d.deserialize_str(Visitor)
    }
}

/// The episode of a ConVerse log with every text left empty (the completion mark
/// aside): the same events, turns, verdicts and header as [`from_log`], for an
/// index, without copying the texts (they are only checked to be text). `None` when `bytes` is not plainly a
/// ConVerse log: the caller loads it in full, which also words any error.
pub(super) fn from_log_without_texts(bytes: &[u8], path: &Path) -> Option<Result<Episode, LoadError>> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf".as_slice()).unwrap_or(bytes);
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
        return None;
    }
    let parties: Vec<Parties> = serde_json::from_slice(bytes).ok()?;
    let party = |name: &str| match name {
        "assistant" => Some(Party::Assistant),
        "environment" => Some(Party::Environment),
        "external_agent" => Some(Party::Attacker),
        "user" => Some(Party::User),
        _ => None,
    };
    let last = parties.len().checked_sub(1)?;
    let records = parties
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // The last record's text says whether the assistant finished: the end reason.
            let completed = i == last && p.short_answer.as_ref().is_some_and(|c| c.0);
            let short = if completed { COMPLETED } else { "" };
            Some(Record { from: party(&p.from)?, to: party(&p.to)?, short, long: None })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(from_records(&records, path, true))
}

/// The episode of a log's records; `beside`: with the judge files and run log beside the log.
fn from_records(records: &[Record], path: &Path, beside: bool) -> Result<Episode, LoadError> {
    let file_name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut warnings = Vec::new();

    let layout::PathMeta { id, mut task, mut config, at } = layout::path_meta(path);
    if let Some(log) = beside.then(|| run_log::read_beside(path, &mut warnings)).flatten() {
        log.apply(&mut task, &mut config);
    }
    let mut header = EpisodeHeader::new(id, task, config);
    header.source = Some(SourceRef { format: FORMAT.to_string(), path: path.to_string_lossy().into_owned() });

    let mut bodies = vec![EventBody::Episode(Box::new(header))];
    let mut turn = 1u32;
    let mut calls = 0u32;
    let mut pending: VecDeque<String> = VecDeque::new();
    for (i, r) in records.iter().enumerate() {
        match (r.from, r.to) {
            (Party::Assistant, Party::Environment) => {
                calls += 1;
                let call_id = format!("env-{calls}");
                pending.push_back(call_id.clone());
                bodies.push(EventBody::from(ToolCall {
                    turn,
                    call_id,
                    tool: ENV_TOOL.to_string(),
                    args: json!({ "request": r.short }),
                    raw_args: None,
                    raw: r.long.filter(|l| *l != r.short).map(str::to_string),
                    late: false,
                }));
            }
            (Party::Environment, Party::Assistant) => {
                let call_id = pending.pop_front().unwrap_or_else(|| {
                    warnings.push(format!("record {}: an environment reply without a request", i + 1));
                    format!("env-unrequested-{}", i + 1)
                });
                bodies.push(EventBody::ToolResult(ToolResult {
                    turn,
                    call_id,
                    tool: ENV_TOOL.to_string(),
                    output: r.short.to_string(),
                    ok: true,
                    raw: r.long.filter(|l| *l != r.short).map(str::to_string),
                }));
            }
            (from, to) => {
                // Each provider message opens a turn; turn 1 is the opening work.
                if from == Party::Attacker && to == Party::Assistant && i > 0 {
                    turn += 1;
                }
                // assistant→assistant records (its plan, its completion mark) stay as they are:
                // the assistant's own notes, not messages to anyone.
                bodies.push(EventBody::Message(Message {
                    turn,
                    from,
                    to,
                    text: r.short.to_string(),
                    raw: r.long.filter(|l| *l != r.short).map(str::to_string),
                    model: None,
                    usage: None,
                    by: None,
                }));
            }
        }
    }
    let completed = records.last().is_some_and(|r| {
        r.from == Party::Assistant && r.to == Party::Assistant && r.short.trim_start().starts_with(COMPLETED)
    });

    if beside {
        bodies.extend(
            converse_judges::verdicts_for(path, &file_name, &mut warnings).into_iter().map(EventBody::from),
        );
        bodies.extend(benchmark_judges::verdicts_for(path, &mut warnings).into_iter().map(EventBody::from));
    }
    bodies.push(EventBody::End(End {
        reason: if completed { EndReason::AssistantDone } else { EndReason::MaxTurns },
        turns: turn,
    }));

    let at = at.unwrap_or_else(|| NO_TIME.to_string());
    let mut episode = Episode::new(stamp_events(bodies, &at), path.to_string_lossy());
    episode.warnings = warnings;
    Ok(episode)
}

fn record<'a>(value: &'a Value, index: usize, path: &Path) -> Result<Record<'a>, LoadError> {
    let n = index + 1;
    let Value::Object(obj) = value else {
        return Err(LoadError::new(path, 0, format!("ConVerse log record {n} is not an object")));
    };
    let text = |key: &str| -> Result<Option<&'a str>, LoadError> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => {
                Err(LoadError::new(path, 0, format!("ConVerse log record {n}: '{key}' is not a string")))
            }
        }
    };
    let party = |key: &str| -> Result<Party, LoadError> {
        let name = text(key)?
            .ok_or_else(|| LoadError::new(path, 0, format!("ConVerse log record {n}: no '{key}'")))?;
        match name {
            "assistant" => Ok(Party::Assistant),
            "environment" => Ok(Party::Environment),
            "external_agent" => Ok(Party::Attacker),
            "user" => Ok(Party::User),
            other => Err(LoadError::new(
                path,
                0,
                format!(
                    "ConVerse log record {n}: unknown party '{}'",
                    other.chars().take(40).collect::<String>()
                ),
            )),
        }
    };
    Ok(Record {
        from: party("from")?,
        to: party("to")?,
        short: text("short_answer")?.unwrap_or(""),
        long: text("long_answer")?,
    })
}
