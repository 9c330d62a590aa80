//! What a log's header gives every episode of it: the task, the models and their roles, the run.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::facts::Ending;
use super::schema::{LogHeader, SampleSummary, id_text};
use super::scores;
use super::text::{Attachments, input_text};
use crate::core::episode::{
    EpisodeConfig, EpisodeHeader, Event, EventBody, SourceRef, TaskInfo, stamp_events,
};

/// The format named in the episodes' `source`.
pub const FORMAT: &str = "inspect-eval";
/// The `source` format of an episode made from a sample's summary alone (no messages read).
pub const SUMMARY_FORMAT: &str = "inspect-eval-summary";

/// Inspect's model roles as our parties' roles (a Petri audit: the auditor attacks the target).
fn our_role(role: &str) -> &str {
    match role {
        "auditor" => "attacker",
        "target" => "assistant",
        other => other,
    }
}

/// The header every sample of a log shares.
pub struct LogInfo {
    pub task: String,
    pub created: Option<String>,
    pub models: Map<String, Value>,
    /// Whether the log names model roles an audit has (auditor or target).
    pub audit: bool,
    /// Whether converse-tui wrote the log (`export --format eval`): its samples' metadata then
    /// hold each episode's task and config, and its scores' metadata each verdict as it was.
    pub ours: bool,
    run: Value,
}

impl LogInfo {
    pub fn of(header: &LogHeader) -> Self {
        let eval = &header.eval;
        let mut models = Map::new();
        if let Some(model) = &eval.model {
            models.insert("assistant".into(), Value::String(model.clone()));
        }
        let mut audit = false;
        for (role, spec) in eval.model_roles.iter().flatten() {
            let model = spec.get("model").and_then(Value::as_str).map(str::to_string);
            audit |= role == "auditor" || role == "target";
            if let Some(model) = model {
                models.insert(our_role(role).to_string(), Value::String(model));
            }
        }
        let mut run = json!({
            "eval_id": eval.eval_id,
            "run_id": eval.run_id,
            "task_id": eval.task_id,
            "task_version": eval.task_version,
            "status": header.status,
            "created": eval.created,
        });
        for (key, value) in
            [("task_args", &eval.task_args), ("metadata", &eval.metadata), ("config", &eval.config)]
        {
            if let Some(value) = value.as_ref().filter(|m| !m.is_empty()) {
                run[key] = Value::Object(value.clone());
            }
        }
        if let Some(error) = &header.error {
            run["error"] = Value::String(error.message.clone());
        }
        let ours =
            eval.metadata.as_ref().and_then(|m| m.get("written_by")).and_then(Value::as_str) == Some(WRITER);
        LogInfo { task: eval.task.clone(), created: eval.created.clone(), models, audit, ours, run }
    }

    /// The header of the episode of sample `id`, epoch `epoch`.
    pub fn header(
        &self,
        path: &Path,
        (id, epoch): (&Value, u32),
        (input, target, metadata): (&Value, &Value, &Map<String, Value>),
        attachments: &Attachments,
        format: &str,
    ) -> EpisodeHeader {
        let written = if self.ours { episode_of(metadata, attachments) } else { None };
        let is_ours = written.is_some();
        // A sample we carried over from another Inspect task than the log's names its task.
        let carried_from = metadata.get(CARRIED_TASK).and_then(Value::as_str).filter(|_| self.ours);
        let inspect_task = carried_from.unwrap_or(&self.task);
        let (mut task, mut config) = written.unwrap_or_else(|| {
            let task = TaskInfo {
                // `{task}/{sample id}`: the same task in every epoch and every run of the log's task.
                id: Some(format!("{inspect_task}/{}", id_text(id))),
                // The Inspect task: what `domain` groups and filters by in `ls`, `summary` and the browser.
                domain: Some(inspect_task.to_string()),
                user_task: input_text(input, attachments),
                ..TaskInfo::default()
            };
            (task, EpisodeConfig { models: self.models.clone(), ..EpisodeConfig::default() })
        });
        task.extra.insert("inspect_task".into(), Value::String(inspect_task.to_string()));
        task.extra.insert("sample_id".into(), id.clone());
        task.extra.insert("epoch".into(), Value::from(epoch));
        // (A sample we wrote has its episode's attack goal as target.)
        if !target.is_null() && !is_ours {
            task.extra.insert("target".into(), attachments.resolve_value(target));
        }
        if !metadata.is_empty() && !is_ours {
            task.extra.insert(
                "sample_metadata".into(),
                attachments.resolve_value(&Value::Object(metadata.clone())),
            );
        }
        // An epoch is a repetition of the sample (the `rep` column).
        // (A log we wrote keeps the episode's own.)
        config.extra.entry("repetition").or_insert(Value::from(epoch));
        config.extra.insert("inspect".into(), self.run.clone());
        let mut header = EpisodeHeader::new(episode_id(id, epoch), task, config);
        header.source =
            Some(SourceRef { format: format.to_string(), path: path.to_string_lossy().into_owned() });
        header
    }
}

/// What `export --format eval` names itself in the header's `eval.metadata.written_by`.
pub const WRITER: &str = "converse-tui";

/// The metadata key of a sample `export --format eval` carried over from a log of another task
/// than the one it wrote (a log holds one task): that task's name.
pub const CARRIED_TASK: &str = "converse_inspect_task";

/// The task and config of the episode a sample we wrote was (its metadata's `task` and `config`,
/// their long texts attachments).
fn episode_of(metadata: &Map<String, Value>, attachments: &Attachments) -> Option<(TaskInfo, EpisodeConfig)> {
    let task = serde_json::from_value(attachments.resolve_value(metadata.get("task")?)).ok()?;
    let config = serde_json::from_value(attachments.resolve_value(metadata.get("config")?)).ok()?;
    Some((task, config))
}

/// `{id}_epoch_{n}`: the sample's episode id, as Inspect names its entry.
pub fn episode_id(id: &Value, epoch: u32) -> String {
    format!("{}_epoch_{epoch}", id_text(id))
}

/// The episode of a sample's summary: its header and scores, no message (the browser's row of a
/// sample not yet opened). Inspect's turn and message counts are kept in the header.
pub fn summary_events(summary: &SampleSummary, info: &LogInfo, path: &Path) -> Vec<Event> {
    let empty = Map::new();
    let attachments = Attachments(&empty);
    let mut header = info.header(
        path,
        (&summary.id, summary.epoch),
        (&summary.input, &summary.target, &summary.metadata),
        &attachments,
        SUMMARY_FORMAT,
    );
    if let Some(turns) = summary.turn_count {
        header.config.extra.insert("inspect_turns".into(), Value::from(turns));
    }
    if let Some(messages) = summary.message_count {
        header.config.extra.insert("inspect_messages".into(), Value::from(messages));
    }
    if !summary.model_usage.is_empty() {
        header.config.extra.insert("model_usage".into(), Value::Object(summary.model_usage.clone()));
    }
    let ending = Ending::of_summary(summary);
    header.config.extra.insert("inspect_sample".into(), Value::Object(ending.facts.clone()));
    let mut bodies = vec![EventBody::Episode(Box::new(header))];
    bodies.extend(
        scores::verdicts(summary.scores.as_ref(), &attachments, info.ours).into_iter().map(EventBody::from),
    );
    bodies.extend(ending.events(summary.turn_count.unwrap_or(0)));
    let at = summary
        .started_at
        .clone()
        .or_else(|| info.created.clone())
        .unwrap_or_else(|| crate::core::import::defaults::NO_TIME.to_string());
    stamp_events(bodies, &at)
}
