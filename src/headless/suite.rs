//! `converse-tui suite add SUITE PATH… [--where EXPR]` and `suite ls SUITE`: attack cases made
//! from saved episodes, one TOML file each, and the list of them.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::core::corpus::index::episode_files_of;
use crate::core::corpus::index_cached;
use crate::core::dataset::Task;
use crate::core::sanitize::single_line;
use crate::core::suite::from_episode::case_of;
use crate::core::suite::store::{Added, Suite, describe};
use crate::core::suite::{CaseFile, Continuation, read_suite};

use super::text_table::Table;

pub struct AddArgs {
    pub suite: PathBuf,
    pub paths: Vec<PathBuf>,
    /// Only the episodes of the corpus matching this filter (as `ls --where`).
    pub filter: Option<String>,
    /// Cases go on live (the attacker model plays on once the assistant diverges).
    pub live: bool,
    pub attacker_model: Option<String>,
    /// Where the corpus index cache lives (with `filter`).
    pub cache: Option<PathBuf>,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct AddReport {
    pub added: usize,
    pub duplicates: usize,
    /// Episodes that could not become a case (each said on stderr).
    pub failed: usize,
}

/// Adds a case per episode; `tasks` gives each task's hash. Problems are one line each on `err`.
pub fn add(
    args: &AddArgs,
    tasks: &[Task],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<AddReport> {
    let mut suite = Suite::open(&args.suite)?;
    let tasks: HashMap<&str, &Task> = tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut report = AddReport::default();
    let (sources, problems) = sources(args)?;
    for problem in problems {
        writeln!(err, "{}", single_line(&problem))?;
        report.failed += 1;
    }
    for (path, only) in sources {
        let episodes = match crate::core::import::load_path(&path) {
            Ok(episodes) => episodes,
            Err(e) => {
                writeln!(err, "{}", single_line(&e.to_string()))?;
                report.failed += 1;
                continue;
            }
        };
        let shown = path.display().to_string();
        for episode in
            episodes.iter().filter(|e| only.as_ref().is_none_or(|ids| ids.iter().any(|id| id == e.id())))
        {
            let task = episode.header().task.id.as_deref().and_then(|id| tasks.get(id).copied());
            let mut case = match case_of(episode, &shown, task) {
                Ok(case) => case,
                Err(e) => {
                    writeln!(err, "{}", single_line(&e.to_string()))?;
                    report.failed += 1;
                    continue;
                }
            };
            if args.live {
                case.continuation = Continuation::Live;
                case.attacker_model = args.attacker_model.clone();
            }
            match suite.add(&case)? {
                Added::New(id) => writeln!(out, "added {id}: {}", describe(&case))?,
                Added::Duplicate(same) => {
                    writeln!(
                        err,
                        "duplicate: {shown} ({}) is the attack of case {same}",
                        single_line(episode.id())
                    )?;
                    report.duplicates += 1;
                    continue;
                }
            }
            report.added += 1;
        }
    }
    writeln!(
        err,
        "{} case(s) added to {} ({} duplicate(s), {} not added)",
        report.added,
        args.suite.display(),
        report.duplicates,
        report.failed
    )?;
    Ok(report)
}

/// The files to read, each with the ids of the episodes wanted in it (`None`: all of them).
type Sources = (Vec<(PathBuf, Option<Vec<String>>)>, Vec<String>);

fn sources(args: &AddArgs) -> anyhow::Result<Sources> {
    let Some(expr) = args.filter.as_deref() else {
        let (files, errors) = episode_files_of(&args.paths);
        return Ok((
            files.into_iter().map(|f| (f, None)).collect(),
            errors.iter().map(ToString::to_string).collect(),
        ));
    };
    let corpus = index_cached(&args.paths, args.cache.as_deref());
    let rows = super::ls::filtered(&corpus, Some(expr))?;
    let mut by_file: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for row in rows {
        by_file.entry(row.path.clone()).or_default().push(row.id.clone());
    }
    let problems = corpus.errors.iter().map(ToString::to_string).collect();
    Ok((by_file.into_iter().map(|(f, ids)| (f, Some(ids))).collect(), problems))
}

/// `suite ls`: one line per case (or one JSON object with `json`).
pub fn ls(suite: &Path, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let cases = read_suite(suite)?;
    if json {
        for c in &cases {
            let row = serde_json::json!({
                "case": c.id,
                "path": c.path,
                "task": c.case.task,
                "turns": c.case.turns.len(),
                "continue": c.case.continuation,
                "expect": c.case.expect,
                "origin": c.case.origin,
            });
            writeln!(out, "{}", crate::core::safe_json::to_string(&row)?)?;
        }
        return Ok(());
    }
    let header = ["case", "task", "turns", "continue", "expect", "origin"].map(String::from).to_vec();
    let cells = cases.iter().map(ls_row).collect();
    Table::new(header, cells).write(out)?;
    Ok(())
}

fn ls_row(c: &CaseFile) -> Vec<String> {
    let continuation = match c.case.continuation {
        Continuation::Replay => "replay".to_string(),
        Continuation::Live => {
            format!("live ({})", c.case.attacker_model.as_deref().unwrap_or("--attacker-model"))
        }
    };
    let origin = match c.case.origin.verdicts.as_slice() {
        [] => c.case.origin.path.clone(),
        verdicts => format!("{} [{}]", c.case.origin.path, verdicts.join(", ")),
    };
    vec![
        c.id.clone(),
        c.case.task.clone(),
        c.case.turns.len().to_string(),
        continuation,
        c.case.expect.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        origin,
    ]
}
