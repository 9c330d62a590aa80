//! `converse-tui test SUITE`: every attack case of a suite run against the assistant given, as a
//! batch (concurrency, rate limits, resume, one journal per run), each run checked against the
//! case's expectations. Exit 0 when every case holds, 1 when one fails, 2 when none failed but
//! one was left undecided (a judge that could not answer, a run that ended in error, a run not
//! done): an undecided case is never a pass.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::config::Paths;
use crate::core::episode::{EndReason, Event};
use crate::core::sanitize::single_line;
use crate::core::sim::external_assistant::TOOLS_UNREACHED;
use crate::core::sim::replay_attacker::RecordedAttack;
use crate::core::sim::runner::Start;
use crate::core::suite::case::task_hash;
use crate::core::suite::outcome::{CaseResult, RunResult, TestReport, Verdict, case_result, first_problem};
use crate::core::suite::run_length::{last_recorded_turn, stopped_short};
use crate::core::suite::{CaseFile, Continuation, check, read_suite};
use crate::session::launch::Launch;

use super::batch::{BatchArgs, Planned, execute, journal_name};
use super::runs::{RunRecord, read_runs};
use super::text_table::Table;

pub struct TestArgs {
    /// Models, assistant, dataset and limits as for `batch` (`out`: where the runs go).
    pub batch: BatchArgs,
    pub suite: PathBuf,
    /// With `repeat`: a case passes when the lower 95 % Wilson bound of its pass rate is at least this.
    pub min_pass: Option<f64>,
    pub junit: Option<PathBuf>,
    pub json: bool,
}

pub async fn test(
    args: &TestArgs,
    paths: &Paths,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<TestReport> {
    let cases = read_suite(&args.suite)?;
    if cases.is_empty() {
        bail!("{}: no case in the suite (add some with `converse-tui suite add`)", args.suite.display());
    }
    let repeat = args.batch.repeat.max(1);
    let plan = plan(&cases, repeat);
    if args.batch.dry_run {
        for p in &plan {
            writeln!(out, "{}  {}", p.label(repeat), p.task)?;
        }
        return Ok(TestReport { dry_run: true, ..TestReport::default() });
    }
    let mut run = args.batch.run.clone();
    run.out = Some(args.batch.out.clone());
    let mut launch = Launch::new(&run, paths)?;
    check_tasks(&cases, &launch, err)?;
    note_lifted_limits(&cases, launch.settings.max_turns, err)?;
    let b = &args.batch;
    launch.set_rate_limits(b.rpm.limits());
    let attacks: HashMap<&str, RecordedAttack> = cases.iter().map(|c| (c.id.as_str(), recorded(c))).collect();
    let start_of = |p: &Planned| Start {
        recorded: p.case.as_deref().and_then(|id| attacks.get(id)).cloned(),
        ..Start::default()
    };
    // The batch's closing line (runs finished, where) is a note on stderr here: stdout has the results.
    let mut closing = Vec::new();
    let batch = execute(&args.batch, &launch, &plan, &start_of, &mut closing, err).await?;
    err.write_all(&closing)?;
    let report =
        TestReport { cases: results(&cases, repeat, args.min_pass, &args.batch.out)?, dry_run: false };
    if batch.stopped {
        writeln!(err, "stopped: the cases not run are undecided; `--resume` runs the rest")?;
    }
    for case in report.cases.iter().filter(|c| c.verdict != Verdict::Pass) {
        if let (Some(file), Some(run)) =
            (cases.iter().find(|f| f.id == case.case), case.runs.iter().find(|r| r.verdict != Verdict::Pass))
        {
            writeln!(err, "compare: converse-tui compare {} {}", file.path.display(), run.journal.display())?;
        }
    }
    if args.json {
        for case in &report.cases {
            writeln!(out, "{}", crate::core::safe_json::to_string(case)?)?;
        }
    } else {
        write_table(&report, out)?;
    }
    if let Some(path) = &args.junit {
        let xml = super::junit::report(&args.suite, &report)?;
        crate::core::atomic_file::write_atomic(path, xml.as_bytes())
            .with_context(|| format!("{}: cannot write the JUnit report", path.display()))?;
    }
    Ok(report)
}

/// Where a test's runs go without `--out`: a new folder per test, named by its start time, in
/// `<episodes>/tests/<suite>-<hash of its path>/`; with `resume`, the newest folder there.
pub fn default_out(suite: &Path, paths: &Paths, resume: bool) -> anyhow::Result<PathBuf> {
    use sha2::{Digest, Sha256};
    let place = std::fs::canonicalize(suite).unwrap_or_else(|_| suite.to_path_buf());
    let hash: String =
        Sha256::digest(place.to_string_lossy().as_bytes())[..4].iter().map(|b| format!("{b:02x}")).collect();
    let name = place.file_name().map_or_else(|| "suite".into(), |n| n.to_string_lossy().into_owned());
    let runs = paths.episodes_dir.join("tests").join(format!("{name}-{hash}"));
    if !resume {
        let now = time::OffsetDateTime::now_utc();
        let stamp = format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            now.year(),
            now.month() as u8,
            now.day(),
            now.hour(),
            now.minute(),
            now.second()
        );
        // A second test in the same second gets a folder of its own too.
        let fresh = (1..).map(|k| if k == 1 { runs.join(&stamp) } else { runs.join(format!("{stamp}-{k}")) });
        return Ok(fresh.take(1000).find(|p| !p.exists()).unwrap_or_else(|| runs.join(stamp)));
    }
    let newest = std::fs::read_dir(&runs)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .max();
    newest.with_context(|| {
        format!("{}: no earlier test of this suite to resume (pass --out DIR)", runs.display())
    })
}

fn plan(cases: &[CaseFile], repeat: u32) -> Vec<Planned> {
    let mut plan = Vec::new();
    for c in cases {
        for k in 1..=repeat {
            plan.push(Planned {
                task: c.case.task.clone(),
                repeat: k,
                journal: journal_name(&c.id, k),
                case: Some(c.id.clone()),
            });
        }
    }
    plan
}

fn recorded(c: &CaseFile) -> RecordedAttack {
    RecordedAttack {
        lines: c.case.turns.clone(),
        replies: c.case.replies.clone(),
        live: c.case.continuation == Continuation::Live,
        attacker_model: c.case.attacker_model.clone(),
        source: c.path.display().to_string(),
    }
}

/// Every case's task must be in the dataset; one whose content changed since the case was made
/// is run, with a warning.
fn check_tasks(cases: &[CaseFile], launch: &Launch, err: &mut dyn Write) -> anyhow::Result<()> {
    for c in cases {
        let task = launch.find_task(&c.case.task).with_context(|| format!("{}", c.path.display()))?;
        if let Some(recorded) = &c.case.task_hash
            && task_hash(task)? != *recorded
        {
            writeln!(
                err,
                "warning: {}: task {} differs from when the case was made (another dataset version?)",
                c.path.display(),
                single_line(&c.case.task)
            )?;
        }
    }
    Ok(())
}

fn results(
    cases: &[CaseFile],
    repeat: u32,
    min_pass: Option<f64>,
    out_dir: &Path,
) -> anyhow::Result<Vec<CaseResult>> {
    let records = read_runs(out_dir)?.map(|m| m.records).unwrap_or_default();
    let mut by_case: HashMap<&str, Vec<&RunRecord>> = HashMap::new();
    for r in &records {
        if r.repeat <= repeat {
            by_case.entry(r.key()).or_default().push(r);
        }
    }
    let mut out = Vec::new();
    for c in cases {
        let mut runs = Vec::new();
        let mut records = by_case.remove(c.id.as_str()).unwrap_or_default();
        records.sort_by_key(|r| r.repeat);
        for r in records {
            runs.push(run_result(c, r, out_dir)?);
        }
        out.push(case_result(c, runs, repeat as usize, min_pass));
    }
    Ok(out)
}

fn run_result(c: &CaseFile, r: &RunRecord, out_dir: &Path) -> anyhow::Result<RunResult> {
    let journal = out_dir.join(&r.journal);
    let episodes = crate::core::import::load_path(&journal)?;
    let events = episodes.first().map(|e| e.events.as_slice()).unwrap_or_default();
    let checks = check(&c.case.expect, events);
    let run = RunResult::new(r.repeat, journal, checks, undecided(c, r, events));
    Ok(run.taking(r.duration_ms as f64 / 1000.0))
}

/// Why a run decides nothing: it stopped before the case's last recorded turn, or ended in an
/// error (both, when an error stopped it).
fn undecided(c: &CaseFile, r: &RunRecord, events: &[Event]) -> Option<String> {
    let errored = r.status == EndReason::Error.as_str();
    let error = errored.then(|| r.error.clone().unwrap_or_else(|| "the run ended in an error".into()));
    // An agent that never reached its tools was not tested (issue 37).
    let unreached = events.iter().any(|e| {
        matches!(&e.body, crate::core::episode::EventBody::Control(c)
            if c.action == crate::core::episode::ControlAction::ToolsUnreached)
    });
    let error = error.or_else(|| unreached.then(|| TOOLS_UNREACHED.to_string()));
    match (stopped_short(&c.case, events), error) {
        (Some(stop), Some(error)) => Some(format!("{stop}: {error}")),
        (stop, error) => stop.or(error),
    }
}

/// Cases longer than `--max-turns` allows run in full all the same: said once, not silently.
fn note_lifted_limits(cases: &[CaseFile], max_turns: u32, err: &mut dyn Write) -> std::io::Result<()> {
    let long: Vec<&CaseFile> = cases.iter().filter(|c| last_recorded_turn(&c.case) + 1 > max_turns).collect();
    let Some(longest) = long.iter().map(|c| c.case.turns.len()).max() else { return Ok(()) };
    writeln!(
        err,
        "note: {} case(s) have more recorded turns than --max-turns {max_turns} sends (up to {longest} recorded turns): each runs all its turns",
        long.len()
    )
}

fn write_table(report: &TestReport, out: &mut dyn Write) -> anyhow::Result<()> {
    let header = ["case", "result", "runs", "why", "journal"].map(String::from).to_vec();
    let cells = report
        .cases
        .iter()
        .map(|c| {
            let planned = c.planned();
            let runs = match c.interval {
                Some((lo, hi)) => {
                    format!("{}/{planned} pass [{:.0}%, {:.0}%]", c.passed, lo * 100.0, hi * 100.0)
                }
                None => format!("{}/{planned} pass", c.passed),
            };
            let journal = c
                .runs
                .iter()
                .find(|r| r.verdict != Verdict::Pass)
                .or(c.runs.first())
                .map(|r| r.journal.display().to_string())
                .unwrap_or_default();
            let result = match c.verdict {
                Verdict::Pass => "pass",
                Verdict::Fail => "FAIL",
                Verdict::Error => "UNDECIDED",
            };
            vec![c.case.clone(), result.into(), runs, first_problem(c).unwrap_or_default(), journal]
        })
        .collect();
    Table::new(header, cells).write(out)?;
    let count = |v: Verdict| report.cases.iter().filter(|c| c.verdict == v).count();
    writeln!(
        out,
        "{} case(s): {} pass, {} fail, {} undecided",
        report.cases.len(),
        count(Verdict::Pass),
        count(Verdict::Fail),
        count(Verdict::Error)
    )?;
    Ok(())
}
