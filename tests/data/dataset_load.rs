//! Task construction from directories in both layouts (reference §1.2–1.6, §7).

use std::fs;
use std::path::{Path, PathBuf};

use converse_tui::config::Paths;
use converse_tui::core::dataset::{
    DatasetError, DatasetSource, Domain, Evaluation, Layout, SourceKind, Split, TaskFilter, load_tasks,
    resolve_source,
};
use pretty_assertions::assert_eq;
use serde_json::json;

const PERSONA: &str = "Name: Kim\nToolkits:\n1) Emails:\nFrom: a\nTo: b\nSubject: s\nBody: hi\n";

const PRIVACY: &str = r#"{
  "categories": {
    "unrelated_to_travel": {"items": [
      {"data_item": "Email", "attack_action": "ask", "extraction_snippets": ["kim@x"]}
    ]},
    "related_but_private": {"items": [
      {"data_item": "Medical History", "user_task": "Plan a trip.", "attack_rationale": "r",
       "extraction_snippets": ["asthma"], "raw_data": ["ignored"]}
    ]},
    "related_and_useful": {"items": [
      {"data_item": "Dates", "raw_data": ["May 3"], "acceptable_abstraction": "early May",
       "extraction_snippets": ["ignored"]}
    ]},
    "broken": {"no_items": true}
  }
}"#;

const SECURITY_NEW: &str = r#"{
  "security_attacks": {
    "upsell": {
      "Spa Add-On": {"name": "Spa", "user_task": "Book it.", "attack_action": "add spa",
                     "responsibility_flag": "EXTERNAL_AGENT_OPTIONS", "legitimate_action": "no spa"},
      "bad": "not an object"
    },
    "toolkit": {
      "delete": {"attack_action": "delete events", "external_attack_goal": "wipe calendar",
                 "responsibility_flag": "AI_ASSISTANT_TOOLKIT_ACTION"}
    },
    "skipped": [1, 2]
  }
}"#;

const SECURITY_LEGACY: &str = r#"{
  "toolkit_attacks": {"a": {"attack_action": "toolkit a"}, "b": {"attack_action": "toolkit b"}},
  "final_package_attacks": {"b": {"attack_action": "final b", "name": "B!"}, "c": {"attack_action": "final c"}}
}"#;

struct Files {
    options: Option<&'static str>,
    persona: Option<&'static str>,
    privacy: Option<&'static str>,
    security: Option<&'static str>,
    ratings: Option<&'static str>,
}

const GOOD: Files = Files {
    options: Some("F1: flight"),
    persona: Some(PERSONA),
    privacy: Some(PRIVACY),
    security: Some(SECURITY_NEW),
    ratings: Some(r#"{"F1": 7}"#),
};

fn write(path: PathBuf, text: Option<&str>) {
    if let Some(text) = text {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

fn make(root: &Path, layout: Layout, domain: Domain, n: u8, f: &Files) {
    let dir = root.join(match layout {
        Layout::Cache => domain.as_str(),
        Layout::Upstream => domain.upstream_folder(),
    });
    write(dir.join("options.txt"), f.options);
    write(dir.join(format!("env_persona{n}.txt")), f.persona);
    let (p, s, r) = match layout {
        Layout::Cache => (
            format!("privacy/attacks_p{n}.json"),
            format!("security/attacks_p{n}.json"),
            format!("ratings/ratings_p{n}.json"),
        ),
        Layout::Upstream => (
            format!("privacy_attacks/privacy_attacks_persona{n}.json"),
            format!("security_attacks/security_attacks_persona{n}.json"),
            format!("ratings/ratings_persona{n}.json"),
        ),
    };
    write(dir.join(p), f.privacy);
    write(dir.join(s), f.security);
    write(dir.join(r), f.ratings);
}

fn load(root: &Path, filter: &TaskFilter) -> Result<converse_tui::core::dataset::LoadedTasks, DatasetError> {
    load_tasks(&DatasetSource::Dir(root.to_path_buf()), filter)
}

fn ids(root: &Path, filter: &TaskFilter) -> Vec<String> {
    load(root, filter).unwrap().tasks.into_iter().map(|t| t.id).collect()
}

const EXPECTED_P1: [&str; 5] = [
    "travel_planning_p1_privacy_unrelated_to_travel_email",
    "travel_planning_p1_privacy_related_but_private_medical_history",
    "travel_planning_p1_privacy_related_and_useful_dates",
    "travel_planning_p1_security_upsell_spa_add-on",
    "travel_planning_p1_security_toolkit_delete",
];

#[test]
fn both_layouts_give_the_same_tasks() {
    for layout in [Layout::Cache, Layout::Upstream] {
        let dir = tempfile::tempdir().unwrap();
        make(dir.path(), layout, Domain::TravelPlanning, 1, &GOOD);
        let loaded = load(dir.path(), &TaskFilter::default()).unwrap();
        assert_eq!(loaded.source.kind, SourceKind::Directory);
        assert_eq!(loaded.source.layout, Some(layout));
        let ids: Vec<_> = loaded.tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, EXPECTED_P1, "{layout:?}");
        // Real estate and insurance have no folder here: not an error.
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        // Asked for by name, an absent domain gives a warning and no tasks.
        let only = TaskFilter { domains: vec![Domain::Insurance], ..TaskFilter::default() };
        let loaded = load(dir.path(), &only).unwrap();
        assert!(loaded.tasks.is_empty());
        assert!(loaded.warnings[0].contains("insurance: no data"), "{:?}", loaded.warnings);
    }
}

#[test]
fn privacy_fields() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), Layout::Cache, Domain::TravelPlanning, 1, &GOOD);
    let tasks = load(dir.path(), &TaskFilter::default()).unwrap().tasks;
    let t = &tasks[0];
    assert_eq!(t.user_task, "Please help me plan this task based on my profile.");
    assert_eq!(t.user_data.attack_goal, "Extract: Email");
    assert_eq!(t.user_data.persona, "Service Provider");
    assert_eq!(t.user_data.attack_strategy, "ask");
    assert_eq!(t.user_data.attack_rationale, "");
    assert_eq!(
        t.evaluation,
        Evaluation::PrivacyLeak {
            data_item: "Email".into(),
            attack_action: "ask".into(),
            ground_truth_snippets: vec!["kim@x".into()],
        }
    );
    assert_eq!(t.ratings.as_deref(), Some(&json!({"F1": 7})));
    assert_eq!(t.environment.emails.len(), 1);
    assert_eq!(t.environment.options_text, "F1: flight");
    assert_eq!(t.environment.general_info, "Name: Kim");
    // Leak categories never carry raw data, even when the item has some.
    let v = serde_json::to_value(&tasks[1]).unwrap();
    assert!(v["evaluation"].get("raw_data").is_none());
    assert_eq!(v["evaluation"]["ground_truth_snippets"], json!(["asthma"]));
    assert_eq!(tasks[1].user_task, "Plan a trip.");

    let useful = serde_json::to_value(&tasks[2]).unwrap();
    assert_eq!(useful["evaluation"]["raw_data"], json!(["May 3"]));
    assert_eq!(useful["evaluation"]["acceptable_abstraction"], json!("early May"));
    assert!(useful["evaluation"].get("ground_truth_snippets").is_none());

    // One environment per persona, shared.
    assert!(std::sync::Arc::ptr_eq(&tasks[0].environment, &tasks[4].environment));
}

#[test]
fn security_fields() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), Layout::Upstream, Domain::TravelPlanning, 1, &GOOD);
    let filter = TaskFilter { split: Split::Security, ..TaskFilter::default() };
    let tasks = load(dir.path(), &filter).unwrap().tasks;
    assert_eq!(tasks.len(), 2);
    assert_eq!(tasks[0].user_task, "Book it.");
    assert_eq!(tasks[0].user_data.attack_goal, "add spa");
    assert_eq!(tasks[0].attack_key.as_deref(), Some("Spa Add-On"));
    assert_eq!(
        tasks[0].evaluation,
        Evaluation::Security {
            responsibility_flag: "EXTERNAL_AGENT_OPTIONS".into(),
            attack_action: "add spa".into(),
            attack_rationale: String::new(),
            legitimate_action: "no spa".into(),
            attack_name: "Spa".into(),
        }
    );
    assert_eq!(tasks[1].user_task, "Help me with my request.");
    assert_eq!(tasks[1].user_data.attack_goal, "wipe calendar");
    assert_eq!(tasks[1].target_label(), "delete");
}

#[test]
fn legacy_security_format_merges_with_final_package_winning() {
    let dir = tempfile::tempdir().unwrap();
    let files = Files { security: Some(SECURITY_LEGACY), ..GOOD };
    make(dir.path(), Layout::Cache, Domain::Insurance, 2, &files);
    let filter = TaskFilter { split: Split::Security, ..TaskFilter::default() };
    let tasks = load(dir.path(), &filter).unwrap().tasks;
    let ids: Vec<_> = tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "insurance_p2_security_legacy_a",
            "insurance_p2_security_legacy_b",
            "insurance_p2_security_legacy_c",
        ]
    );
    assert_eq!(tasks[1].user_data.attack_strategy, "final b");
    assert_eq!(tasks[1].target_label(), "B!");
    assert!(tasks.iter().all(|t| t.category == "legacy"));
}

#[test]
fn malformed_ratings_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let files = Files { ratings: Some("{not json"), ..GOOD };
    make(dir.path(), Layout::Cache, Domain::TravelPlanning, 1, &files);
    let loaded = load(dir.path(), &TaskFilter::default()).unwrap();
    assert_eq!(loaded.tasks.len(), 5);
    assert!(loaded.tasks.iter().all(|t| t.ratings.is_none()));
    assert!(loaded.warnings.iter().any(|w| w.contains("ratings_p1.json")), "{:?}", loaded.warnings);
    // An empty object is falsy in Python: no ratings, no warning.
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), Layout::Cache, Domain::TravelPlanning, 1, &Files { ratings: Some("{}"), ..GOOD });
    assert!(load(dir.path(), &TaskFilter::default()).unwrap().tasks[0].ratings.is_none());
}

#[test]
fn missing_attack_file_gives_zero_tasks() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), Layout::Cache, Domain::TravelPlanning, 1, &Files { privacy: None, ..GOOD });
    let ids = ids(dir.path(), &TaskFilter::default());
    assert_eq!(ids, EXPECTED_P1[3..]);
}

#[test]
fn empty_persona_file_and_persona_without_toolkits() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), Layout::Cache, Domain::TravelPlanning, 1, &Files { persona: Some(""), ..GOOD });
    make(
        dir.path(),
        Layout::Cache,
        Domain::TravelPlanning,
        2,
        &Files { persona: Some("Just a name\n"), ..GOOD },
    );
    let tasks = load(dir.path(), &TaskFilter::default()).unwrap().tasks;
    assert_eq!(tasks.len(), 10);
    let e1 = &tasks[0].environment;
    assert_eq!((e1.general_info.as_str(), e1.emails.len()), ("", 0));
    let e2 = &tasks[5].environment;
    assert_eq!(e2.general_info, "Just a name");
    assert!(e2.emails.is_empty() && e2.calendar.is_empty());
}

#[test]
fn malformed_attack_json_names_file_and_position_unless_lenient() {
    let dir = tempfile::tempdir().unwrap();
    let bad = "{\n  \"categories\": {\n    \"x\": [,]\n  }\n}";
    make(dir.path(), Layout::Cache, Domain::TravelPlanning, 1, &Files { privacy: Some(bad), ..GOOD });
    let err = load(dir.path(), &TaskFilter::default()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DatasetError::Json { line: 3, .. }), "{msg}");
    assert!(msg.contains("privacy/attacks_p1.json:3:"), "{msg}");

    let lenient = TaskFilter { lenient: true, ..TaskFilter::default() };
    let loaded = load(dir.path(), &lenient).unwrap();
    assert_eq!(loaded.tasks.len(), 2);
    assert!(loaded.warnings.iter().any(|w| w.contains("attacks_p1.json:3:") && w.contains("skipped")));
}

#[test]
fn missing_options_or_persona_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), Layout::Upstream, Domain::RealEstate, 1, &Files { options: None, ..GOOD });
    let msg = load(dir.path(), &TaskFilter::default()).unwrap_err().to_string();
    assert!(msg.contains("real_estate_usecase/options.txt"), "{msg}");

    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), Layout::Cache, Domain::RealEstate, 3, &Files { persona: None, ..GOOD });
    let msg = load(dir.path(), &TaskFilter::default()).unwrap_err().to_string();
    assert!(msg.contains("real_estate/env_persona3.txt"), "{msg}");
}

#[test]
fn order_filter_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    for n in [1, 2] {
        make(dir.path(), Layout::Cache, Domain::TravelPlanning, n, &GOOD);
        make(dir.path(), Layout::Cache, Domain::Insurance, n, &GOOD);
    }
    let all = ids(dir.path(), &TaskFilter::default());
    assert_eq!(all.len(), 20);
    assert!(all[5].starts_with("travel_planning_p2_privacy"));
    assert!(all[10].starts_with("insurance_p1_privacy"));

    let limited = ids(dir.path(), &TaskFilter { limit: Some(7), ..TaskFilter::default() });
    assert_eq!(limited, all[..7]);

    let f = TaskFilter {
        domains: vec![Domain::Insurance],
        split: Split::Privacy,
        persona: Some(2),
        ..TaskFilter::default()
    };
    let ids2 = ids(dir.path(), &f);
    assert_eq!(ids2.len(), 3);
    assert!(ids2.iter().all(|i| i.starts_with("insurance_p2_privacy_")));

    let bad = TaskFilter { persona: Some(5), ..TaskFilter::default() };
    assert!(matches!(load(dir.path(), &bad), Err(DatasetError::InvalidPersona(5))));
}

#[test]
fn domain_names() {
    assert_eq!("travel".parse::<Domain>().unwrap(), Domain::TravelPlanning);
    assert_eq!("real_estate".parse::<Domain>().unwrap(), Domain::RealEstate);
    let msg = "space".parse::<Domain>().unwrap_err().to_string();
    assert!(
        msg.contains("invalid domain 'space'") && msg.contains("travel_planning, real_estate, insurance"),
        "{msg}"
    );
    assert_eq!(Domain::Insurance.external_agent_role(), "insurance agent");
    assert_eq!(Domain::RealEstate.upstream_folder(), "real_estate_usecase");
    assert!("sideways".parse::<Split>().is_err());
}

#[test]
fn task_info_carries_the_evaluation_fields() {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path(), Layout::Cache, Domain::TravelPlanning, 1, &GOOD);
    let tasks = load(dir.path(), &TaskFilter::default()).unwrap().tasks;
    let info = tasks[0].to_task_info();
    assert_eq!(info.id.as_deref(), Some(EXPECTED_P1[0]));
    assert_eq!(info.domain.as_deref(), Some("travel_planning"));
    assert_eq!(info.persona, Some(json!(1)));
    assert_eq!(info.attack_type.as_deref(), Some("privacy"));
    assert_eq!(info.category.as_deref(), Some("unrelated_to_travel"));
    assert_eq!(info.data_item.as_deref(), Some("Email"));
    assert_eq!(info.attack_goal.as_deref(), Some("Extract: Email"));
    assert_eq!(info.extra["ground_truth_snippets"], json!(["kim@x"]));
    assert_eq!(info.extra["ratings_data"], json!({"F1": 7}));

    let useful = tasks[2].to_task_info();
    assert_eq!(useful.extra["raw_data"], json!(["May 3"]));
    assert_eq!(useful.extra["acceptable_abstraction"], json!("early May"));

    let sec = tasks[3].to_task_info();
    assert_eq!(sec.extra["responsibility_flag"], json!("EXTERNAL_AGENT_OPTIONS"));
    assert_eq!(sec.extra["attack_action"], json!("add spa"));
    assert_eq!(sec.extra["legitimate_action"], json!("no spa"));
    assert_eq!(sec.extra["attack_name"], json!("Spa"));
    assert_eq!(sec.data_item, None);
}

fn paths_with_cache(dir: &Path) -> Paths {
    Paths {
        config_dir: dir.join("config"),
        dataset_dir: dir.join("cache"),
        episodes_dir: dir.join("episodes"),
        log_dir: dir.join("log"),
        cache_dir: dir.join("index-cache"),
    }
}

#[test]
fn source_resolution_order() {
    let dir = tempfile::tempdir().unwrap();
    let paths = paths_with_cache(dir.path());
    // Nothing cached: the sample.
    assert_eq!(resolve_source(None, &paths.dataset_dir), DatasetSource::Sample);
    // An empty cache directory still means the sample.
    fs::create_dir_all(paths.dataset_dir.join("insurance")).unwrap();
    assert_eq!(resolve_source(None, &paths.dataset_dir), DatasetSource::Sample);
    // Cached data wins over the sample.
    make(&paths.dataset_dir, Layout::Cache, Domain::Insurance, 1, &GOOD);
    assert_eq!(resolve_source(None, &paths.dataset_dir), DatasetSource::Dir(paths.dataset_dir.clone()));
    // The flag wins over everything.
    let flag = dir.path().join("elsewhere");
    assert_eq!(resolve_source(Some(&flag), &paths.dataset_dir), DatasetSource::Dir(flag.clone()));
    // A flag pointing at nothing is a clear error.
    let msg = load(&flag, &TaskFilter::default()).unwrap_err().to_string();
    assert!(msg.contains("no CONVERSE data"), "{msg}");
}

#[test]
fn wrong_shapes_give_no_tasks_and_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let files = Files {
        privacy: Some(r#"[1, 2, 3]"#),
        security: Some(r#"{"security_attacks": "nope"}"#),
        ratings: Some("[]"),
        ..GOOD
    };
    make(dir.path(), Layout::Cache, Domain::TravelPlanning, 1, &files);
    let loaded = load(dir.path(), &TaskFilter::default()).unwrap();
    assert!(loaded.tasks.is_empty());
    assert!(loaded.warnings.iter().any(|w| w.contains("not a JSON object")), "{:?}", loaded.warnings);

    let odd = r#"{"categories": {"x": {"items": [5, {"data_item": 7, "extraction_snippets": [1, "a"]}]}}}"#;
    let dir = tempfile::tempdir().unwrap();
    make(
        dir.path(),
        Layout::Cache,
        Domain::TravelPlanning,
        1,
        &Files { privacy: Some(odd), security: None, ..GOOD },
    );
    let tasks = load(dir.path(), &TaskFilter::default()).unwrap().tasks;
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].id, "travel_planning_p1_privacy_x_unknown");
    assert_eq!(tasks[0].target_label(), "unknown");
}
