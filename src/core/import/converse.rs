//! ConVerse / Firewalled-agentic-network logs: a JSON list of
//! `{from, to, short_answer, long_answer}` records → events.
//!
//! Text is kept exactly as recorded (padding, Python dict reprs, fences,
//! mojibake): the inspector shows what the agents saw, it does not clean up.

use std::collections::VecDeque;
use std::path::Path;

use serde_json::{Value, json};

use super::{LoadError, NO_TIME, converse_judges};
use crate::core::episode::{
    End, EndReason, Episode, EpisodeConfig, EpisodeHeader, EventBody, Message, Party, SourceRef, TaskInfo,
    ToolCall, ToolResult, stamp_events,
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
    let records =
        records.iter().enumerate().map(|(i, r)| record(r, i, path)).collect::<Result<Vec<_>, _>>()?;

    let experiment = parent_name(path);
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let file_name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();

    let mut header = EpisodeHeader::new(
        format!("{experiment}/{stem}"),
        task_from_experiment(&experiment),
        EpisodeConfig::default(),
    );
    header.source = Some(SourceRef { format: FORMAT.to_string(), path: path.to_string_lossy().into_owned() });

    let mut bodies = vec![EventBody::Episode(Box::new(header))];
    let mut warnings = Vec::new();
    let mut turn = 1u32;
    let mut calls = 0u32;
    let mut pending: VecDeque<String> = VecDeque::new();
    for (i, r) in records.iter().enumerate() {
        match (r.from, r.to) {
            (Party::Assistant, Party::Environment) => {
                calls += 1;
                let call_id = format!("env-{calls}");
                pending.push_back(call_id.clone());
                bodies.push(EventBody::ToolCall(ToolCall {
                    turn,
                    call_id,
                    tool: ENV_TOOL.to_string(),
                    args: json!({ "request": r.short }),
                    raw_args: None,
                    raw: r.long.filter(|l| *l != r.short).map(str::to_string),
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
                // The assistant talking to itself (plan, final answer) is addressed to the user.
                let to = if from == Party::Assistant && to == Party::Assistant { Party::User } else { to };
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

    bodies.extend(
        converse_judges::verdicts_for(path, &file_name, &mut warnings).into_iter().map(EventBody::Verdict),
    );
    bodies.push(EventBody::End(End {
        reason: if completed { EndReason::AssistantDone } else { EndReason::MaxTurns },
        turns: turn,
    }));

    let at = time_from_stem(&stem).unwrap_or_else(|| NO_TIME.to_string());
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

fn parent_name(path: &Path) -> String {
    path.parent().and_then(Path::file_name).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// What an experiment folder name says reliably, e.g.
/// `persona1_adv_privacy_attack_calendar_entry_taskConfined`.
pub(super) fn task_from_experiment(experiment: &str) -> TaskInfo {
    let parts: Vec<&str> = experiment.split('_').collect();
    let mut task = TaskInfo {
        id: Some(experiment.to_string()).filter(|s| !s.is_empty()),
        // Firewalled-agentic-network logs are all travel-agency episodes.
        domain: Some("travel_planning".to_string()),
        ..TaskInfo::default()
    };
    if let Some(n) = parts.first().and_then(|p| p.strip_prefix("persona")).and_then(|n| n.parse::<u64>().ok())
    {
        task.persona = Some(Value::from(n));
    }
    let has = |w: &str| parts.contains(&w);
    task.attack_type = if has("benign") {
        Some("benign")
    } else if has("adv") && has("privacy") {
        Some("privacy")
    } else if has("adv") && has("security") {
        Some("security")
    } else if has("adv") && has("upselling") {
        Some("upselling")
    } else {
        None
    }
    .map(str::to_string);

    // The attack name runs from `attack_` to the first setup word.
    const SETUP: &[&str] = &["baseline", "taskConfined", "firewall", "with", "new", "all", "input"];
    if let Some(start) = parts.iter().position(|p| *p == "attack") {
        let name: Vec<&str> = parts[start + 1..].iter().take_while(|p| !SETUP.contains(p)).copied().collect();
        if !name.is_empty() {
            let name = name.join("_");
            if task.attack_type.as_deref() == Some("privacy") {
                task.data_item = Some(name.clone());
            }
            task.extra.insert("attack".to_string(), Value::String(name));
        }
    }
    if !experiment.is_empty() {
        task.extra.insert("experiment".to_string(), Value::String(experiment.to_string()));
    }
    task
}

/// `output_20241227_121521` → `2024-12-27T12:15:21Z` (the log's own clock; its zone is unknown).
fn time_from_stem(stem: &str) -> Option<String> {
    let (date, clock) = stem.strip_prefix("output_")?.split_once('_')?;
    if date.len() != 8 || clock.len() != 6 || !date.chars().chain(clock.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(format!(
        "{}-{}-{}T{}:{}:{}Z",
        &date[0..4],
        &date[4..6],
        &date[6..8],
        &clock[0..2],
        &clock[2..4],
        &clock[4..6]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stem_times() {
        assert_eq!(time_from_stem("output_20241227_121521").as_deref(), Some("2024-12-27T12:15:21Z"));
        assert_eq!(time_from_stem("output_2024122_121521"), None);
        assert_eq!(time_from_stem("output_2024122x_121521"), None);
        assert_eq!(time_from_stem("other"), None);
    }

    #[test]
    fn odd_experiment_names_do_not_guess() {
        let t = task_from_experiment("");
        assert_eq!((t.id, t.persona, t.attack_type), (None, None, None));
        let t = task_from_experiment("persona_x_attack");
        assert_eq!((t.persona, t.extra.get("attack")), (None, None));
        let t = task_from_experiment("persona12_adv_security_attack_delete_calendar");
        assert_eq!(t.persona, Some(Value::from(12)));
        assert_eq!(t.extra["attack"], "delete_calendar");
        assert_eq!(t.data_item, None);
    }
}
