//! What a ConVerse log's path says about its episode.
//!
//! Two layouts are known, and a file in neither gets only what its name
//! says for certain (never a guessed domain):
//! - the ConVerse benchmark: `…/<domain>/<model>/<defence>/persona<N>/<category>/<attack>/output_<YYYYMMDD>_<HHMMSS>_rep<k>[_retry<m>].json`,
//!   under any parent folder;
//! - the older Firewalled-agentic-network logs: `<experiment>/output_<YYYYMMDD>_<HHMMSS>.json`,
//!   the experiment folder naming persona, attack and setup (all travel-agency episodes).

use std::path::Path;
use std::str::FromStr;

use serde_json::Value;

use crate::core::dataset::Domain;
use crate::core::episode::{EpisodeConfig, TaskInfo};

/// The judges of a benchmark run, as its judge files name them.
const JUDGE_KINDS: &[&str] = &["privacy", "security", "utility"];

/// `(kind, judge model, suffix)` of a per-episode judge file name.
pub(crate) fn judge_file_name(name: &str) -> Option<(&'static str, &str, &str)> {
    let stem = name.strip_suffix(".json")?;
    JUDGE_KINDS.iter().find_map(|kind| {
        let rest = stem.strip_prefix(kind)?.strip_prefix("_judge_")?;
        // The suffix starts at the date: `<model>_<YYYYMMDD>_<HHMMSS>_rep<k>…`.
        let split = rest.match_indices('_').map(|(i, _)| i).find(|&i| {
            let tail = &rest[i + 1..];
            tail.len() > 15
                && tail.as_bytes()[..8].iter().all(u8::is_ascii_digit)
                && tail.as_bytes()[8] == b'_'
        })?;
        let (model, suffix) = (&rest[..split], &rest[split + 1..]);
        (!model.is_empty()).then_some((*kind, model, suffix))
    })
}

/// The header fields a path gives.
pub(super) struct PathMeta {
    pub id: String,
    pub task: TaskInfo,
    pub config: EpisodeConfig,
    /// The run's start from the file name (the log's own clock; its zone is unknown).
    pub at: Option<String>,
}

/// `output_<YYYYMMDD>_<HHMMSS>[_rep<k>[_retry<m>]]`, taken apart.
#[derive(Debug, PartialEq)]
pub(super) struct Stem {
    pub time: String,
    pub repetition: Option<u64>,
    pub retry: Option<u64>,
}

/// The benchmark's category folders.
const CATEGORIES: &[&str] = &["privacy", "security", "benign_easy", "benign_hard"];

pub(super) fn path_meta(path: &Path) -> PathMeta {
    let stem_text = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = parse_stem(&stem_text);
    let folders: Vec<String> = path
        .parent()
        .map(|p| p.iter().map(|c| c.to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    let at = time_from_stem(&stem_text);
    if let Some(meta) = stem.as_ref().and_then(|s| benchmark(&folders, &stem_text, s)) {
        return meta;
    }
    let experiment = folders.last().cloned().unwrap_or_default();
    let id = format!("{experiment}/{stem_text}");
    let firewalled =
        stem.as_ref().is_some_and(|s| s.repetition.is_none()) && is_firewalled_experiment(&experiment);
    let task = if firewalled { task_from_experiment(&experiment) } else { TaskInfo::default() };
    PathMeta { id, task, config: EpisodeConfig::default(), at }
}

/// The benchmark layout, read from the end of the path so any parent folder works.
fn benchmark(folders: &[String], stem_text: &str, stem: &Stem) -> Option<PathMeta> {
    let repetition = stem.repetition?;
    let [.., domain, model, defence, persona, category, attack] = folders else {
        return None;
    };
    let domain = Domain::from_str(domain).ok().filter(|d| d.as_str() == domain.as_str())?;
    let persona: u64 = persona.strip_prefix("persona")?.parse().ok()?;
    if !CATEGORIES.contains(&category.as_str()) || [model, defence, attack].iter().any(|f| f.is_empty()) {
        return None;
    }
    let attack_type = if category.starts_with("benign") { "benign" } else { category.as_str() };
    let mut task = TaskInfo {
        domain: Some(domain.as_str().to_string()),
        persona: Some(Value::from(persona)),
        attack_type: Some(attack_type.to_string()),
        category: Some(dataset_category(attack_type, category, attack)),
        ..TaskInfo::default()
    };
    if attack_type != "benign" {
        // Exactly the dataset's task id (true for every attack run of the repository).
        task.id = Some(format!("{}_p{persona}_{category}_{attack}", domain.as_str()));
    }
    // The attack folder (`benign_simulation` for benign runs): what `ls` and `summary --by attack` show.
    task.extra.insert("attack".to_string(), Value::String(attack.clone()));
    let mut config = EpisodeConfig { defence: Some(defence.clone()), ..EpisodeConfig::default() };
    config.models.insert("assistant".to_string(), Value::String(model.clone()));
    config.extra.insert("repetition".to_string(), Value::from(repetition));
    if let Some(retry) = stem.retry {
        config.extra.insert("retry".to_string(), Value::from(retry));
    }
    // Two runs can share attack folder and file name (persona2 and persona3): the id keeps the whole layout.
    let id =
        format!("{}/{model}/{defence}/persona{persona}/{category}/{attack}/{stem_text}", domain.as_str());
    Some(PathMeta { id, task, config, at: Some(stem.time.clone()) })
}

/// The dataset's sub-category of a run (issue 23: `category` has one meaning, the same as in our
/// journals): for privacy the attack folder's prefix (`unrelated_to_travel_bank_ifsc_code` →
/// `unrelated_to_travel`), for security the folder less its `_attack_<n>` (`calendar_manipulation_attack_2`
/// → `calendar_manipulation`), for benign runs the folder (`benign_easy`, `benign_hard`).
pub(crate) fn dataset_category(attack_type: &str, folder: &str, attack: &str) -> String {
    const PRIVACY: [&str; 5] = [
        "related_and_useful",
        "related_but_private",
        "unrelated_to_travel",
        "unrelated_to_real_estate",
        "unrelated_to_insurance",
    ];
    match attack_type {
        "privacy" => PRIVACY.iter().find(|c| attack.starts_with(*c)).map_or(attack, |c| c).to_string(),
        "security" => match attack.rfind("_attack") {
            Some(at)
                if attack[at + "_attack".len()..]
                    .trim_start_matches('_')
                    .chars()
                    .all(|c| c.is_ascii_digit()) =>
            {
                attack[..at].to_string()
            }
            _ => attack.to_string(),
        },
        _ => folder.to_string(),
    }
}

/// A Firewalled experiment folder: `persona<N>_…`, or named by its setup (`new_input_firewall`).
fn is_firewalled_experiment(experiment: &str) -> bool {
    let words: Vec<&str> = experiment.split('_').collect();
    let persona =
        words.first().and_then(|w| w.strip_prefix("persona")).is_some_and(|n| n.parse::<u64>().is_ok());
    persona || words.iter().any(|w| ["adv", "benign", "firewall", "baseline", "taskConfined"].contains(w))
}

/// What a Firewalled experiment folder name says reliably, e.g.
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

/// The run's time from a log's file name (`output_<date>_<time>[_rep<k>[_retry<m>]]`).
pub(super) fn time_from_stem(stem: &str) -> Option<String> {
    parse_stem(stem).map(|s| s.time)
}

/// `output_20241227_121521_rep1_retry2` → `2024-12-27T12:15:21Z`, repetition 1, retry 2.
/// Anything else after the time is not a name we know, so nothing is read from it.
pub(super) fn parse_stem(stem: &str) -> Option<Stem> {
    let mut parts = stem.strip_prefix("output_")?.split('_');
    let (date, clock) = (parts.next()?, parts.next()?);
    if date.len() != 8 || clock.len() != 6 || !date.chars().chain(clock.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let number = |part: Option<&str>, prefix: &str| -> Result<Option<u64>, ()> {
        match part {
            None => Ok(None),
            Some(p) => p.strip_prefix(prefix).and_then(|n| n.parse().ok()).map(Some).ok_or(()),
        }
    };
    let repetition = number(parts.next(), "rep").ok()?;
    let retry = number(parts.next(), "retry").ok()?;
    if parts.next().is_some() || (retry.is_some() && repetition.is_none()) {
        return None;
    }
    let time = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &date[0..4],
        &date[4..6],
        &date[6..8],
        &clock[0..2],
        &clock[2..4],
        &clock[4..6]
    );
    Some(Stem { time, repetition, retry })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn stem_times() {
        assert_eq!(time_from_stem("output_20241227_121521").as_deref(), Some("2024-12-27T12:15:21Z"));
        assert_eq!(time_from_stem("output_2024122_121521"), None);
        assert_eq!(time_from_stem("output_2024122x_121521"), None);
        assert_eq!(time_from_stem("other"), None);
    }

    #[test]
    fn stems_with_repetition_and_retry() {
        let s = parse_stem("output_20250915_004709_rep1").expect("parses");
        assert_eq!((s.time.as_str(), s.repetition, s.retry), ("2025-09-15T00:47:09Z", Some(1), None));
        let s = parse_stem("output_20260116_011201_rep1_retry2").expect("parses");
        assert_eq!((s.repetition, s.retry), (Some(1), Some(2)));
        assert_eq!(parse_stem("output_20260116_011201_rep1_retry2_x"), None);
        assert_eq!(parse_stem("output_20260116_011201_repx"), None);
        assert_eq!(parse_stem("output_20260116_011201_retry2"), None);
    }

    #[test]
    fn category_is_the_datasets_sub_category() {
        assert_eq!(
            dataset_category("privacy", "privacy", "unrelated_to_travel_bank_ifsc_code"),
            "unrelated_to_travel"
        );
        assert_eq!(
            dataset_category("privacy", "privacy", "related_but_private_heart_condition"),
            "related_but_private"
        );
        assert_eq!(
            dataset_category("security", "security", "calendar_manipulation_attack_2"),
            "calendar_manipulation"
        );
        assert_eq!(
            dataset_category("security", "security", "email_manipulation_attack"),
            "email_manipulation"
        );
        assert_eq!(dataset_category("benign", "benign_easy", "benign_simulation"), "benign_easy");
    }

    #[test]
    fn benchmark_layout_under_any_parent() {
        let path = PathBuf::from(
            "/data/runs/insurance/gpt_5_chat/baseline/persona2/security/coverage_cancellation_attack_1/output_20250915_004709_rep3_retry1.json",
        );
        let m = path_meta(&path);
        assert_eq!(m.task.domain.as_deref(), Some("insurance"));
        assert_eq!(m.task.persona, Some(Value::from(2)));
        assert_eq!(m.task.attack_type.as_deref(), Some("security"));
        assert_eq!(m.task.category.as_deref(), Some("coverage_cancellation"), "the dataset's sub-category");
        assert_eq!(m.task.id.as_deref(), Some("insurance_p2_security_coverage_cancellation_attack_1"));
        assert_eq!(m.config.models["assistant"], "gpt_5_chat");
        assert_eq!(m.config.defence.as_deref(), Some("baseline"));
        assert_eq!(
            (m.config.extra["repetition"].as_u64(), m.config.extra["retry"].as_u64()),
            (Some(3), Some(1))
        );
        assert_eq!(m.at.as_deref(), Some("2025-09-15T00:47:09Z"));
    }

    #[test]
    fn outside_any_layout_nothing_is_guessed() {
        for path in [
            "somewhere/output_20250915_004709_rep1.json",
            "mystuff/output_20250915_004709.json",
            "x/insurance/m/d/personaX/security/a/output_20250915_004709_rep1.json",
            "x/travel/m/d/persona1/security/a/output_20250915_004709_rep1.json",
            "persona1_adv_privacy_attack_x/episode.json",
        ] {
            let m = path_meta(Path::new(path));
            assert_eq!(m.task.domain, None, "{path}");
            assert_eq!(m.task.id, None, "{path}");
            assert_eq!(m.config, EpisodeConfig::default(), "{path}");
        }
    }

    #[test]
    fn firewalled_experiments_are_travel() {
        let m = path_meta(Path::new("logs/new_input_firewall/output_20250422_182507.json"));
        assert_eq!(m.task.domain.as_deref(), Some("travel_planning"));
        assert_eq!(m.id, "new_input_firewall/output_20250422_182507");
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
