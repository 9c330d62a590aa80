//! The episode-info overlay: what an episode was about and how it was run — the task, the
//! models, the defence, the repetition and the run log an imported benchmark run came with.

use serde_json::{Map, Value};

use crate::core::episode::{EpisodeHeader, Event, EventBody};

use super::detail::{Detail, section};

/// Task fields shown in the TASK table or their own sections; every other one is listed after.
const TASK_SHOWN: [&str; 13] = [
    "id",
    "domain",
    "persona",
    "attack_type",
    "category",
    "data_item",
    "user_task",
    "attack_goal",
    "attack",
    "attack_name",
    "responsibility_flag",
    "attack_action",
    "legitimate_action",
];

/// The info of the episode whose first event is `first` (its header), or `None` for a stream
/// that has no header yet.
pub fn episode_info(first: &Event) -> Option<Detail> {
    let EventBody::Episode(header) = &first.body else { return None };
    let mut body = String::new();
    section(&mut body, "EPISODE", &table(&episode_rows(header, &first.at)));
    section(&mut body, "TASK", &table(&task_rows(header)));
    for (heading, text) in [("USER TASK", &header.task.user_task), ("ATTACK GOAL", &header.task.attack_goal)]
    {
        if let Some(text) = text {
            section(&mut body, heading, text);
        }
    }
    section(&mut body, "CONFIGURATION", &table(&config_rows(header)));
    if let Some(Value::Object(log)) = header.config.extra.get("run_log") {
        let rows: Vec<(String, String)> = log.iter().map(|(k, v)| (k.clone(), plain(v))).collect();
        section(&mut body, "RUN LOG (the run's .txt beside it)", &table(&rows));
    }
    inspect_sections(&mut body, &header.config.extra);
    let others: Vec<(&String, &Value)> =
        header.task.extra.iter().filter(|(k, _)| !TASK_SHOWN.contains(&k.as_str())).collect();
    for (key, value) in others {
        let text = match value {
            Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        };
        section(&mut body, &format!("task.{key}"), &text);
    }
    let title = format!("episode {}", header.id);
    Some(Detail::new(title, body))
}

/// How an Inspect log and its sample ran (`config.inspect`, `config.inspect_sample`): the log's
/// status, the sample's times, counts, limit and error with its traceback, the errors it was
/// retried after, its store.
fn inspect_sections(body: &mut String, config: &Map<String, Value>) {
    if let Some(Value::Object(run)) = config.get("inspect") {
        section(body, "INSPECT LOG", &table(&scalars(run).collect::<Vec<_>>()));
    }
    let Some(Value::Object(sample)) = config.get("inspect_sample") else { return };
    let mut rows: Vec<(String, String)> = scalars(sample).collect();
    if let Some(limit) = sample.get("limit") {
        let text =
            [&limit["type"], &limit["limit"], &limit["reason"]].map(|v| (!v.is_null()).then(|| plain(v)));
        rows.push(("limit".into(), text.into_iter().flatten().collect::<Vec<_>>().join(" · ")));
    }
    section(body, "INSPECT SAMPLE", &table(&rows));
    let errors = sample.get("error").into_iter().map(|e| ("ERROR", e));
    let retried = sample.get("retried_after").and_then(Value::as_array).into_iter().flatten();
    for (heading, error) in errors.chain(retried.map(|e| ("RETRIED AFTER", e))) {
        let traceback = error.get("traceback").map(plain).unwrap_or_default();
        section(body, heading, format!("{}\n{traceback}", plain(&error["message"])).trim_end());
    }
    if let Some(store) = sample.get("store") {
        section(body, "STORE", &serde_json::to_string_pretty(store).unwrap_or_default());
    }
}

fn episode_rows(header: &EpisodeHeader, at: &str) -> Vec<(String, String)> {
    let mut rows = vec![("id".to_string(), header.id.clone())];
    // Importers write the epoch when a file gives no time: say nothing rather than 1970.
    if !at.is_empty() && !at.starts_with("1970-01-01") {
        rows.push(("started".into(), at.to_string()));
    }
    if let Some(source) = &header.source {
        rows.push(("imported from".into(), format!("{} ({})", source.path, source.format)));
    }
    if let Some(parent) = &header.parent {
        rows.push(("forked from".into(), format!("{} at #{}", parent.episode, parent.seq)));
    }
    rows
}

fn task_rows(header: &EpisodeHeader) -> Vec<(String, String)> {
    let task = &header.task;
    let extra = |key: &str| task.extra.get(key).map(plain);
    let attack = match (extra("attack"), extra("attack_name")) {
        (Some(id), Some(name)) => Some(format!("{id} — {name}")),
        (id, name) => id.or(name),
    };
    let rows = [
        ("id", task.id.clone()),
        ("domain", task.domain.clone()),
        ("persona", task.persona.as_ref().map(plain)),
        ("attack type", task.attack_type.clone()),
        ("category", task.category.clone()),
        ("data item", task.data_item.clone()),
        ("attack", attack),
        ("attack action", extra("attack_action")),
        ("legitimate action", extra("legitimate_action")),
        ("responsibility", extra("responsibility_flag")),
    ];
    let known: Vec<(String, String)> =
        rows.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect();
    if known.is_empty() { vec![("(unknown)".into(), "the episode names no task".into())] } else { known }
}

fn config_rows(header: &EpisodeHeader) -> Vec<(String, String)> {
    let config = &header.config;
    let mut rows: Vec<(String, String)> =
        config.models.iter().map(|(role, model)| (format!("{role} model"), plain(model))).collect();
    let numbers = [
        ("defence", config.defence.clone()),
        ("max turns", config.max_turns.map(|n| n.to_string())),
        ("max tool calls", config.max_tool_calls.map(|n| n.to_string())),
        ("seed", config.seed.map(|n| n.to_string())),
    ];
    rows.extend(numbers.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))));
    rows.extend(scalars(&config.extra));
    if rows.is_empty() {
        rows.push(("(none)".into(), "the episode records no configuration".into()));
    }
    rows
}

/// The scalar entries of a map (objects such as the run log get their own section).
fn scalars(map: &Map<String, Value>) -> impl Iterator<Item = (String, String)> + '_ {
    map.iter().filter(|(_, v)| !v.is_object() && !v.is_array()).map(|(k, v)| (k.replace('_', " "), plain(v)))
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `key  value` rows with the values aligned.
fn table(rows: &[(String, String)]) -> String {
    let width = rows.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    let lines: Vec<String> = rows.iter().map(|(k, v)| format!("{k:<width$}  {v}")).collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{EpisodeConfig, TaskInfo};
    use serde_json::json;

    fn header_event(task: TaskInfo, config: EpisodeConfig) -> Event {
        let header = EpisodeHeader::new("ep", task, config);
        Event { seq: 0, at: "1970-01-01T00:00:00Z".into(), body: EventBody::Episode(Box::new(header)) }
    }

    #[test]
    fn shows_task_config_and_run_log_and_lists_every_other_task_field() {
        let mut task = TaskInfo {
            id: Some("travel_planning_p3_security_x".into()),
            persona: Some(json!(3)),
            user_task: Some("Email the network.".into()),
            ..TaskInfo::default()
        };
        task.extra.insert("attack_info".into(), json!("Your task is related to security"));
        let mut config = EpisodeConfig { defence: Some("baseline".into()), ..EpisodeConfig::default() };
        config.models.insert("assistant".into(), json!("gemini_2.5_flash"));
        config.extra.insert("repetition".into(), json!(1));
        config.extra.insert("run_log".into(), json!({"provider": "google", "simulation_timeout": "600"}));
        let body = episode_info(&header_event(task, config)).unwrap().body;
        // Rows are aligned per table; compare with the padding collapsed.
        let lines: Vec<String> =
            body.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        for expected in [
            "id travel_planning_p3_security_x",
            "persona 3",
            "assistant model gemini_2.5_flash",
            "defence baseline",
            "repetition 1",
            "provider google",
            "simulation_timeout 600",
        ] {
            assert!(lines.iter().any(|l| l == expected), "missing {expected:?} in\n{body}");
        }
        assert!(body.contains("── USER TASK ──\nEmail the network."), "{body}");
        assert!(body.contains("── task.attack_info ──\nYour task is related to security"), "{body}");
        assert!(!body.contains("started"), "an unknown time (1970) is not shown:\n{body}");
    }

    #[test]
    fn an_inspect_sample_shows_how_it_ran() {
        let mut config = EpisodeConfig::default();
        config.extra.insert("inspect".into(), json!({"status": "error", "eval_id": "e1"}));
        config.extra.insert(
            "inspect_sample".into(),
            json!({"total_time": 3.5, "turn_count": 2, "retries": 1,
                "limit": {"type": "message", "limit": 4},
                "error": {"message": "RuntimeError: boom", "traceback": "Traceback …\n  line 3"},
                "retried_after": [{"message": "TimeoutError"}],
                "store": {"count": 3}}),
        );
        let body = episode_info(&header_event(TaskInfo::default(), config)).unwrap().body;
        let lines: Vec<String> =
            body.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        for expected in ["status error", "total time 3.5", "turn count 2", "retries 1", "limit message · 4"]
        {
            assert!(lines.iter().any(|l| l == expected), "missing {expected:?} in\n{body}");
        }
        assert!(body.contains("── ERROR ──\nRuntimeError: boom\nTraceback …\n  line 3"), "{body}");
        assert!(body.contains("── RETRIED AFTER ──\nTimeoutError"), "{body}");
        assert!(body.contains("── STORE ──\n{\n  \"count\": 3\n}"), "{body}");
    }

    #[test]
    fn an_episode_without_task_or_config_says_so() {
        let body = episode_info(&header_event(TaskInfo::default(), EpisodeConfig::default())).unwrap().body;
        assert!(body.contains("the episode names no task"), "{body}");
        assert!(body.contains("the episode records no configuration"), "{body}");
    }
}
