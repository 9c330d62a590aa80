//! The bundled sample: loads offline, with the expected tasks, and its
//! snippets really occur in the persona text.

use std::collections::BTreeMap;

use converse_tui::config::Paths;
use converse_tui::core::dataset::{
    AttackType, DatasetSource, Domain, Evaluation, Split, TaskFilter, load_tasks, sample,
};
use converse_tui::headless::tasks::{TasksArgs, tasks};
use converse_tui::session::TaskSelection;
use pretty_assertions::assert_eq;

fn all() -> Vec<converse_tui::core::dataset::Task> {
    let loaded = load_tasks(&DatasetSource::Sample, &TaskFilter::default()).unwrap();
    assert!(loaded.source.is_sample());
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    loaded.tasks
}

#[test]
fn counts_per_domain_and_split() {
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for t in all() {
        *counts.entry((t.domain.to_string(), t.attack_type.as_str())).or_default() += 1;
    }
    let expected: BTreeMap<(String, &str), usize> = [
        // (Each domain's persona 1, and a demo episode's task with its persona.)
        (("insurance".to_string(), "privacy"), 4),
        (("insurance".to_string(), "security"), 2 + 1),
        (("real_estate".to_string(), "privacy"), 3 + 1),
        (("real_estate".to_string(), "security"), 2),
        (("travel_planning".to_string(), "privacy"), 4 + 1),
        (("travel_planning".to_string(), "security"), 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    let sec =
        load_tasks(&DatasetSource::Sample, &TaskFilter { split: Split::Security, ..TaskFilter::default() })
            .unwrap();
    assert_eq!(sec.tasks.len(), 7);
    assert!(sample::files().len() >= 15);
}

#[test]
fn ids_the_docs_rely_on() {
    let ids: Vec<String> = all().into_iter().map(|t| t.id).collect();
    for id in [
        "travel_planning_p1_privacy_unrelated_to_travel_salary",
        "travel_planning_p1_privacy_related_and_useful_travel_dates",
        "travel_planning_p1_security_toolkit_manipulation_cancel_competition",
        "real_estate_p1_privacy_related_but_private_therapy_appointments",
        "insurance_p1_privacy_related_but_private_heart_condition",
        "insurance_p1_security_legacy_gold_plan",
    ] {
        assert!(ids.iter().any(|i| i == id), "{id} missing from {ids:#?}");
    }
}

#[test]
fn every_category_and_flag_is_covered() {
    let tasks = all();
    for d in Domain::ALL {
        let of = |c: &str| tasks.iter().any(|t| t.domain == d && t.category == c);
        assert!(of(d.unrelated_category()), "{d}");
        assert!(of("related_but_private"), "{d}");
        assert!(of("related_and_useful"), "{d}");
        let flags: Vec<&str> = tasks
            .iter()
            .filter(|t| t.domain == d)
            .filter_map(|t| match &t.evaluation {
                Evaluation::Security { responsibility_flag, .. } => Some(responsibility_flag.as_str()),
                _ => None,
            })
            .collect();
        assert!(flags.contains(&"EXTERNAL_AGENT_OPTIONS"), "{d}");
        assert!(flags.contains(&"AI_ASSISTANT_TOOLKIT_ACTION"), "{d}");
    }
}

#[test]
fn snippets_and_raw_data_occur_in_the_persona() {
    for t in all() {
        let text = &t.environment.persona_text;
        let needles = match &t.evaluation {
            Evaluation::PrivacyLeak { ground_truth_snippets, .. } => ground_truth_snippets.clone(),
            Evaluation::PrivacyAbstraction { raw_data, .. } => raw_data.clone(),
            Evaluation::Security { .. } => continue,
        };
        assert!(!needles.is_empty(), "{}", t.id);
        for n in needles {
            assert!(text.contains(&n), "{}: {n:?} not in persona", t.id);
        }
        if t.attack_type == AttackType::Privacy && !t.category.starts_with("unrelated") {
            assert_ne!(t.user_task, "Please help me plan this task based on my profile.", "{}", t.id);
        }
    }
}

#[test]
fn sample_personas_parse_fully() {
    for t in all().into_iter().filter(|t| t.persona == 1) {
        let e = &t.environment;
        assert!(e.emails.len() >= 3, "{}", t.id);
        assert!(e.calendar.len() >= 3, "{}", t.id);
        assert!(!e.medical.is_empty() && !e.banking.is_empty(), "{}", t.id);
        assert!(e.emails.iter().all(|m| !m.from.is_empty() && !m.to.is_empty() && !m.body.is_empty()));
        assert!(!e.options_text.is_empty());
        assert!(t.ratings.is_some());
    }
    // The travel persona exercises both parser fixes.
    let travel = all().into_iter().find(|t| t.domain == Domain::TravelPlanning).unwrap();
    let emails = &travel.environment.emails;
    assert_eq!(emails.len(), 4);
    assert!(emails[0].body.contains("2) a quiet hotel in Alfama"));
    assert_eq!(emails[2].to, "marisol.tb@fernmail.example");
}

#[test]
fn listing_says_it_is_the_sample() {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths {
        config_dir: dir.path().join("c"),
        dataset_dir: dir.path().join("empty-cache"),
        episodes_dir: dir.path().join("e"),
        log_dir: dir.path().join("l"),
        cache_dir: dir.path().join("ic"),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    tasks(&TasksArgs::default(), &paths, &mut out, &mut err).unwrap();
    let text = String::from_utf8(out).unwrap();
    let notes = String::from_utf8(err.clone()).unwrap();
    // Issue 23: what is not a row goes to stderr, so a pipe gets the table alone.
    let first = notes.lines().next().unwrap();
    assert!(first.contains("bundled sample") && first.contains("data fetch"), "{first}");
    assert!(notes.contains("20 tasks (13 privacy, 7 security)"), "{notes}");
    assert!(text.lines().next().unwrap().starts_with("ID "), "{text}");
    assert_eq!(text.lines().count(), 21, "the header and 20 tasks: {text}");

    let select = TaskSelection {
        domain: Some("insurance".into()),
        split: Some("privacy".into()),
        ..Default::default()
    };
    let args = TasksArgs { select, json: true };
    let mut out = Vec::new();
    tasks(&args, &paths, &mut out, &mut err).unwrap();
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[1]["id"], "insurance_p1_privacy_related_but_private_heart_condition");
    assert_eq!(lines[1]["domain"], "insurance");
    assert_eq!(lines[1]["persona"], 1);
    assert_eq!(lines[1]["attack_type"], "privacy");
    assert_eq!(lines[1]["category"], "related_but_private");
    assert_eq!(lines[1]["evaluation"]["ground_truth_snippets"][0], "atrial fibrillation");

    let select = TaskSelection { domain: Some("moon".into()), ..Default::default() };
    let bad = TasksArgs { select, json: false };
    let msg = tasks(&bad, &paths, &mut Vec::new(), &mut err).unwrap_err().to_string();
    assert!(msg.contains("invalid domain 'moon'"), "{msg}");
}
