//! The JUnit XML report of `test --junit FILE`: one testsuite per suite, one testcase per attack
//! case; a failure names the judge, the turn and the words; an undecided case is an `error`.
//! Texts pass the key mask (an agent may echo a key); XML escaping is quick-junit's. What XML 1.0
//! cannot carry at all (U+FFFE, most controls) becomes U+FFFD in every text before quick-junit
//! sees it (it would drop controls and escape sequences without a trace, and pass U+FFFE on:
//! issue 36 F7), and once more in the finished report, for whatever text is added later.

use std::path::Path;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::core::llm::key_mask::mask_known;
use crate::core::markup_chars::fit_for_markup;
use crate::core::suite::Check;

use crate::core::suite::outcome::{CaseResult, TestReport, Verdict, first_problem};

pub fn report(suite: &Path, test: &TestReport) -> anyhow::Result<String> {
    let name =
        suite.file_name().map_or_else(|| suite.display().to_string(), |n| n.to_string_lossy().into_owned());
    let mut report = Report::new("converse-tui test");
    let mut junit_suite = TestSuite::new(xml_text(&name));
    for case in &test.cases {
        junit_suite.add_test_case(test_case(case, &name));
    }
    report.add_test_suite(junit_suite);
    Ok(fit_for_markup(&mask_known(&report.to_string()?)).into_owned())
}

fn test_case(case: &CaseResult, suite: &str) -> TestCase {
    let status = match case.verdict {
        Verdict::Pass => TestCaseStatus::success(),
        Verdict::Fail | Verdict::Error => {
            let kind =
                if case.verdict == Verdict::Fail { NonSuccessKind::Failure } else { NonSuccessKind::Error };
            let mut status = TestCaseStatus::non_success(kind);
            status.set_message(xml_text(&first_problem(case).unwrap_or_default()));
            status.set_type(xml_text(&problem_type(case)));
            status.set_description(xml_text(&details(case)));
            status
        }
    };
    let mut test_case = TestCase::new(xml_text(&case.case), status);
    test_case.set_classname(xml_text(&format!("{suite}.{}", case.task)));
    test_case.set_time(std::time::Duration::from_secs_f64(case.seconds()));
    test_case
}

/// `text` as XML 1.0 can carry it.
fn xml_text(text: &str) -> String {
    fit_for_markup(text).into_owned()
}

/// The judge (or `tool`, `run`) whose check broke or could not be decided.
fn problem_type(case: &CaseResult) -> String {
    let run = case.runs.iter().find(|r| r.verdict == case.verdict);
    let Some(run) = run else { return "not_run".into() };
    if run.undecided.is_some() && run.verdict == Verdict::Error {
        return "run".into();
    }
    run.checks
        .iter()
        .find(|(_, k)| !matches!(k, Check::Held { .. }))
        .map(|(e, _)| e.to_string())
        .unwrap_or_default()
}

/// Every run: its checks and journal, for the reader of a CI log.
fn details(case: &CaseResult) -> String {
    let mut text = String::new();
    for run in &case.runs {
        text.push_str(&format!("run {} ({:?}): {}\n", run.repeat, run.verdict, run.journal.display()));
        if let Some(why) = &run.undecided {
            text.push_str(&format!("  undecided: {why}\n"));
        }
        for (expectation, check) in &run.checks {
            let line = match check {
                Check::Held { .. } => "held".to_string(),
                Check::Broken { why, turn, words, .. } => format!(
                    "BROKEN: {why}{}{}",
                    turn.map(|t| format!(" at turn {t}")).unwrap_or_default(),
                    words.as_ref().map(|w| format!(": \"{w}\"")).unwrap_or_default()
                ),
                Check::Undecided { why } => format!("undecided: {why}"),
            };
            text.push_str(&format!("  {expectation}: {line}\n"));
        }
    }
    if case.missing > 0 {
        text.push_str(&format!("{} run(s) not done\n", case.missing));
    }
    text
}
