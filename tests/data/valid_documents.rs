//! Every output a valid document (issue 36 F7): with noncharacters and controls in every field,
//! the JUnit report passes `xmllint` and the official `junitparser`, the HTML pages (an episode,
//! a corpus's charts with their SVG) parse with `html5lib` in strict mode and render in Chromium,
//! and CSV and JSON read back through Python's own readers to what was written. Characters XML
//! 1.0 cannot carry (and HTML calls errors) become U+FFFD.
//!
//! The fields are drawn by proptest from hostile pieces (controls, noncharacters, markup, CSV
//! syntax, bidi and tag characters) and any character; each writer's documents are checked in
//! one batch by the real tools (`tests/python/valid_documents.py`). Under CI=true a missing
//! xmllint or Chromium fails the test (.ci/run installs them).

use std::path::{Path, PathBuf};
use std::process::Command;

use converse_tui::core::corpus::series::{
    ChartSeries, Heatmap, RateBar, RateChart, SurvivalChart, SurvivalLine,
};
use converse_tui::core::corpus::survival::{Observation, kaplan_meier};
use converse_tui::core::episode::{
    Control, ControlAction, EndReason, Episode, EpisodeConfig, EpisodeHeader, ErrorEvent, EventBody,
    Evidence, Message, Outcome, Party, TaskInfo, ToolCall, ToolResult, Verdict, VerdictMethod, stamp_events,
};
use converse_tui::core::export::{AnnotationView, to_html};
use converse_tui::core::markup_chars::fit_for_markup;
use converse_tui::core::report::page::corpus_html;
use converse_tui::core::suite::expectation::{Check, Expectation};
use converse_tui::core::suite::outcome::{CaseResult, RunResult, TestReport, Verdict as CaseVerdict};
use converse_tui::headless::{csv, junit};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};

use crate::support::bin::run_in;
use crate::support::python;

/// Pieces no writer may pass on raw, and some it must keep.
const HOSTILE: &[&str] = &[
    "\u{0}",
    "\u{1}",
    "\u{8}",
    "\u{b}",
    "\u{c}",
    "\u{1b}[31m",
    "\u{7f}",
    "\u{85}",
    "\u{9f}",
    "\u{FDD0}",
    "\u{FDEF}",
    "\u{FFFE}",
    "\u{FFFF}",
    "\u{1FFFE}",
    "\u{10FFFF}",
    "\u{FEFF}",
    "\u{202E}",
    "\u{2028}",
    "\u{E0041}",
    "\r",
    "\r\n",
    "\n",
    "\t",
    "<",
    "&",
    "\"",
    "'",
    "]]>",
    "-->",
    "</script><script>alert(1)</script>",
    "<svg onload=alert(1)>",
    ",",
    "=cmd|' /C calc'!A0",
    "é漢🙂",
    " ",
];

fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => prop::sample::select(HOSTILE).prop_map(str::to_string),
        1 => any::<char>().prop_map(String::from),
        1 => "[a-z]{1,6}",
    ];
    prop::collection::vec(piece, 1..10).prop_map(|pieces| pieces.concat())
}

/// `n` draws of `fields` hostile texts each, the same on every run (a failure names its file).
fn draws(n: usize, fields: usize) -> Vec<Vec<String>> {
    let mut runner = TestRunner::deterministic();
    let strategy = prop::collection::vec(hostile_text(), fields);
    (0..n).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect()
}

/// Documents drawn per writer.
const DRAWS: usize = 24;

fn junit_report(f: &[String]) -> String {
    let run = |i: usize, error: Option<String>| {
        let checks = vec![
            (
                Expectation::Judge { judge: f[i].clone(), outcome: Outcome::Pass },
                Check::Broken {
                    by: f[i + 1].clone(),
                    turn: Some(3),
                    words: Some(f[i + 2].clone()),
                    why: f[i + 3].clone(),
                },
            ),
            (Expectation::NoTool(f[i + 4].clone()), Check::Undecided { why: f[i + 5].clone() }),
            (Expectation::NoTool(f[i + 6].clone()), Check::Held { by: vec![f[i + 7].clone()] }),
        ];
        RunResult::new(1, PathBuf::from(&f[i + 8]), checks, error)
    };
    let case = |name: &String, verdict, runs| CaseResult {
        case: name.clone(),
        task: f[1].clone(),
        verdict,
        passed: 0,
        runs,
        missing: 1,
        interval: Some((0.0, 0.5)),
        min_pass: Some(0.5),
    };
    let test = TestReport {
        cases: vec![
            case(&f[0], CaseVerdict::Fail, vec![run(2, None)]),
            case(&f[11], CaseVerdict::Error, vec![run(3, Some(f[12].clone()))]),
            case(&f[13], CaseVerdict::Pass, Vec::new()),
        ],
        dry_run: false,
    };
    junit::report(Path::new(&f[14]), &test).unwrap()
}

fn episode(f: &[String]) -> Episode {
    let mut task = TaskInfo {
        id: Some(f[0].clone()),
        domain: Some(f[1].clone()),
        attack_type: Some("privacy".into()),
        category: Some(f[2].clone()),
        data_item: Some(f[3].clone()),
        user_task: Some(f[4].clone()),
        attack_goal: Some(f[5].clone()),
        ..TaskInfo::default()
    };
    task.extra.insert(f[6].clone(), json!([f[7], {"k": f[8]}]));
    let mut config = EpisodeConfig { defence: Some(f[9].clone()), ..EpisodeConfig::default() };
    config.models.insert("assistant".into(), json!(f[10]));
    config.extra.insert(f[11].clone(), json!(f[12]));
    let verdict = Verdict {
        turn: Some(1),
        judge: f[13].clone(),
        method: VerdictMethod::Llm,
        model: Some(f[14].clone()),
        outcome: Outcome::Fail,
        score: Some(0.0),
        summary: Some(f[15].clone()),
        details: json!({ f[16].clone(): f[17] }),
        evidence: Some(Evidence { seq: 1, start: Some(0), end: Some(2), text: Some(f[18].clone()) }),
        usage: None,
    };
    let bodies = vec![
        EventBody::Episode(Box::new(EpisodeHeader::new(f[19].clone(), task, config))),
        EventBody::Message(Message::new(1, Party::Attacker, Party::Assistant, f[20].clone())),
        EventBody::from(ToolCall {
            turn: 1,
            call_id: f[21].clone(),
            tool: f[22].clone(),
            args: json!({ f[23].clone(): f[24] }),
            raw_args: Some(f[25].clone()),
            raw: None,
            late: false,
        }),
        EventBody::ToolResult(ToolResult {
            turn: 1,
            call_id: f[21].clone(),
            tool: f[22].clone(),
            output: f[26].clone(),
            ok: false,
            raw: None,
        }),
        EventBody::Message(Message::new(1, Party::Assistant, Party::Attacker, f[27].clone())),
        EventBody::from(verdict),
        EventBody::Control(Control {
            by: Some(f[28].clone()),
            ..Control::new(ControlAction::Pause, "", Some(1))
        }),
        EventBody::Error(ErrorEvent { source: f[29].clone(), message: f[30].clone(), turn: Some(1) }),
        EventBody::End(converse_tui::core::episode::End { reason: EndReason::Error, turns: 1 }),
    ];
    Episode::new(stamp_events(bodies, "2026-11-27T00:00:00Z"), f[31].clone())
}

/// The events of [`episode`] a page shows as a block each (two messages, the tool call and its
/// result, the verdict, the error; the control and the end are a line each).
const EVENT_BLOCKS: usize = 6;

fn episode_page(f: &[String]) -> String {
    let notes = vec![AnnotationView {
        target_seq: 4,
        label: f[32].clone(),
        note: f[33].clone(),
        author: Some(f[34].clone()),
        quote: Some(f[35].clone()),
        judged: Some((f[36].clone(), Outcome::Pass)),
    }];
    to_html(&episode(f), &notes)
}

fn series(f: &[String]) -> ChartSeries {
    let curve = kaplan_meier(&[Observation { turn: 2, event: true }, Observation { turn: 5, event: false }]);
    let rates = RateChart {
        judge: f[0].clone(),
        source: f[1].clone(),
        bars: vec![
            RateBar { label: f[2].clone(), succeeded: 1, n: 3, rate: 1.0 / 3.0, ci95: (0.06, 0.79) },
            RateBar { label: f[3].clone(), succeeded: 0, n: 2, rate: 0.0, ci95: (0.0, 0.66) },
        ],
    };
    let survival = SurvivalChart {
        judge: f[0].clone(),
        source: f[1].clone(),
        event: f[4].clone(),
        lines: vec![SurvivalLine {
            label: f[5].clone(),
            curve: curve.unwrap(),
            unknown_turn: 1,
            unknown_length: 0,
        }],
    };
    let heatmap = Heatmap {
        judge: f[0].clone(),
        source: f[1].clone(),
        rows: vec![f[6].clone()],
        columns: vec![f[7].clone(), f[8].clone()],
        cells: vec![vec![Some((1, 3)), None]],
    };
    ChartSeries {
        by: vec![f[9].clone()],
        source: f[1].clone(),
        rates: vec![rates],
        survival: vec![survival],
        heatmaps: vec![heatmap],
    }
}

fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()));
    if found.is_none() {
        assert!(std::env::var("CI").is_err(), "CI installs chromium (.ci/run)");
        eprintln!("skipped the rendering: no chromium on this machine");
    }
    found
}

/// The DOM Chromium builds of a page.
fn rendered(chromium: &str, page: &Path) -> String {
    let dom = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(dom.status.success(), "{}: {}", page.display(), String::from_utf8_lossy(&dom.stderr));
    String::from_utf8_lossy(&dom.stdout).into_owned()
}

/// `xmllint --noout` over every file; `false` when xmllint is not installed (outside CI).
fn xmllint(files: &[PathBuf]) -> bool {
    let Ok(out) = Command::new("xmllint").arg("--noout").args(files).output() else {
        assert!(std::env::var("CI").is_err(), "CI installs xmllint (libxml2-utils, .ci/run)");
        eprintln!("skipped xmllint: not on this machine");
        return false;
    };
    assert!(out.status.success(), "xmllint rejects a report:\n{}", String::from_utf8_lossy(&out.stderr));
    true
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_writer_writes_a_valid_document_whatever_its_fields_hold() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let mut manifest = json!({"junit": [], "html": [], "csv": [], "json": []});
    let mut reports = Vec::new();
    for (i, f) in draws(DRAWS, 40).iter().enumerate() {
        let report = write(dir, &format!("junit-{i}.xml"), &junit_report(f));
        let names: Vec<String> =
            [&f[0], &f[11], &f[13]].iter().map(|n| fit_for_markup(n).into_owned()).collect();
        manifest["junit"].as_array_mut().unwrap().push(json!({"file": report, "names": names}));
        reports.push(report);

        let page = write(dir, &format!("episode-{i}.html"), &episode_page(f));
        manifest["html"].as_array_mut().unwrap().push(json!({"file": page, "blocks": EVENT_BLOCKS}));
        let page = write(dir, &format!("corpus-{i}.html"), &corpus_html(&series(f), &f[38], &f[39]));
        manifest["html"].as_array_mut().unwrap().push(json!({"file": page, "svg": 2}));

        let rows: Vec<&[String]> = f.chunks(5).collect();
        let mut text = Vec::new();
        for row in &rows {
            csv::write_record(&mut text, row).unwrap();
        }
        let shown: Vec<Vec<String>> =
            rows.iter().map(|r| r.iter().map(|c| csv::shown(c).into_owned()).collect()).collect();
        let file = write(dir, &format!("rows-{i}.csv"), &String::from_utf8(text).unwrap());
        manifest["csv"].as_array_mut().unwrap().push(json!({"file": file, "rows": shown}));

        let value = json!({ f[0].clone(): f[1..].to_vec(), "nested": {f[2].clone(): [f[3], null, 1.5]} });
        let ours = write(
            dir,
            &format!("value-{i}.json"),
            &converse_tui::core::safe_json::to_string(&value).unwrap(),
        );
        let plain = write(dir, &format!("value-{i}.plain.json"), &serde_json::to_string(&value).unwrap());
        manifest["json"].as_array_mut().unwrap().push(json!({"file": ours, "expected": plain}));
    }
    let manifest_file = write(dir, "manifest.json", &manifest.to_string());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/valid_documents.py");
    let checked = Command::new(python::python()).arg(script).arg(&manifest_file).output().unwrap();
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    eprintln!("{}", String::from_utf8_lossy(&checked.stdout).trim());
    xmllint(&reports);

    let Some(chromium) = chromium() else { return };
    // A few of each page: Chromium parses them into the structure written (every event block,
    // every chart), with no element an attacker's text made.
    for i in 0..3 {
        let dom = rendered(chromium, &dir.join(format!("episode-{i}.html")));
        assert_eq!(dom.matches("class=\"ev ").count(), EVENT_BLOCKS, "episode-{i}: {dom}");
        assert!(!dom.contains("<script") && !dom.contains("<svg onload"), "episode-{i}: {dom}");
        let dom = rendered(chromium, &dir.join(format!("corpus-{i}.html")));
        assert_eq!(dom.matches("<svg").count(), 2, "corpus-{i}: {dom}");
        assert!(!dom.contains("<script") && !dom.contains("<svg onload"), "corpus-{i}: {dom}");
    }
}

/// F7 from the binary: a case file whose name holds U+FFFE, run against a `cmd:` agent that
/// answers U+FFFF and a control: the JUnit report is read by xmllint and junitparser, with
/// U+FFFD in their place.
#[test]
fn test_junit_of_a_hostile_case_name_and_agent_error_is_valid_xml() {
    let home = tempfile::tempdir().unwrap();
    let suite = home.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let case =
        std::fs::read_dir(fixtures.join("attack-suite/suite")).unwrap().flatten().next().unwrap().path();
    std::fs::copy(&case, suite.join("passport\u{FFFE}.toml")).unwrap();
    let report = home.path().join("report.xml");
    let dataset = fixtures.join("converse-dataset/resources");
    let out = run_in(
        home.path(),
        &[
            "test",
            suite.to_str().unwrap(),
            "--data-dir",
            dataset.to_str().unwrap(),
            "--assistant",
            "cmd:sh -c 'read line; printf \"\\357\\277\\277 oops \\001\\n\"'",
            "--max-turns",
            "2",
            "--out",
            home.path().join("runs").to_str().unwrap(),
            "--junit",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "undecided: {}", String::from_utf8_lossy(&out.stderr));
    let xml = std::fs::read_to_string(&report).unwrap();
    assert!(!xml.contains(['\u{FFFE}', '\u{FFFF}', '\u{1}']), "{xml}");
    xmllint(std::slice::from_ref(&report));
    let script = r#"
import sys, json
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
print(json.dumps([[c.name, [r.message for r in c.result]] for s in xml for c in s]))
"#;
    let cases: Value =
        serde_json::from_str(&python::run_script(script, &[report.to_str().unwrap()])).unwrap();
    assert_eq!(cases[0][0], "passport\u{FFFD}", "{cases}");
    let message = cases[0][1][0].as_str().unwrap();
    // The agent's error is quoted inert (as on the terminal): the noncharacter shown by its code.
    assert!(message.contains("<U+FFFF> oops"), "{message}");
}
