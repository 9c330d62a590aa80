//! `converse-tui fan EPISODE --turn N -n K`: the episode re-run K times from turn N — the
//! assistant's reply to that turn's message drawn again (`--rest`: and the conversation played on
//! by the attacker model) — as a resumable batch of fork journals, then how often and how soon
//! each judge source saw a leak.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::config::Paths;
use crate::config::settings::ModelFlags;
use crate::core::episode::{Episode, EventBody, Outcome};
use crate::core::fan::plan::FanPlan;
use crate::core::fan::{Attempt, FanMode, SourceTally, fan_start, tally};
use crate::core::sanitize::single_line;
use crate::core::sim::runner::{Start, assistant_turns};
use crate::session::launch::{Launch, fork_args};

use super::attack::{LEAK_FOUND, NOTHING_FOUND, UNDECIDED};
use super::batch::{BatchArgs, Planned, execute};
use super::text_table::Table;

pub struct FanArgs {
    /// Concurrency, rate limits, resume and the directory (`out`); `repeat` is the number of attempts.
    pub batch: BatchArgs,
    pub episode: PathBuf,
    pub turn: u32,
    pub mode: FanMode,
    pub models: ModelFlags,
    pub data_dir: Option<PathBuf>,
    pub json: bool,
}

#[derive(Debug, Default)]
pub struct FanReport {
    pub attempts: Vec<Attempt>,
    pub tallies: Vec<SourceTally>,
    /// Attempts planned but not in the runs file (a stopped fan).
    pub missing: usize,
}

impl FanReport {
    /// As `test`'s and `attack`'s: 1 when an attempt leaked (an attack judge's `fail`), else 2 when
    /// one was not decided (not run, cut short, its agent never reached its tools, or an attack
    /// judge gave no answer on it), 0 only when every attempt was decided and none leaked.
    pub fn exit_code(&self) -> u8 {
        let attack = || self.tallies.iter().filter(|t| t.judge.is_attack());
        if attack().any(|t| t.leaked > 0) {
            LEAK_FOUND
        } else if self.missing > 0
            || self.attempts.iter().any(Attempt::undecided)
            || attack().any(|t| t.undecided > 0)
        {
            UNDECIDED
        } else {
            NOTHING_FOUND
        }
    }
}

pub async fn fan(
    args: &FanArgs,
    paths: &Paths,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<FanReport> {
    let episode = one_episode(&args.episode)?;
    let start = fan_start(&episode.events, episode.id(), args.turn)?;
    let header = episode.header();
    let Some(task) = header.task.id.clone() else {
        bail!(
            "{}: the episode names no task: a fan needs it (its file does not say)",
            args.episode.display()
        );
    };
    let n = args.batch.repeat.max(1);
    let key = crate::core::fan::plan::fan_case(args.turn);
    let plan: Vec<Planned> = (1..=n)
        .map(|k| Planned {
            task: task.clone(),
            repeat: k,
            journal: crate::core::fan::plan::attempt_journal(episode.id(), args.turn, k),
            case: Some(key.clone()),
        })
        .collect();
    if args.batch.dry_run {
        for p in &plan {
            writeln!(out, "{}  {}", p.journal, p.task)?;
        }
        return Ok(FanReport::default());
    }
    // Kept beside the attempts, so that the screen's `f` can finish a stopped fan as asked.
    std::fs::create_dir_all(&args.batch.out)
        .with_context(|| format!("{}: cannot create the fan's folder", args.batch.out.display()))?;
    FanPlan { episode: episode.id().to_string(), turn: args.turn, mode: args.mode, attempts: n }
        .write(&args.batch.out)?;
    // An agent named on the command line; else the one the episode's header names, if any.
    let flags = &args.batch.run.settings;
    let mut run = fork_args(header, &args.models, args.data_dir.clone())?
        .with_agent(args.batch.run.assistant.as_deref(), &flags.agent);
    // A limit given on the command line wins over the episode's own; without one, played on, an
    // attempt has the room its parent had (a published run goes past the limit it records).
    run.settings.max_turns = flags.max_turns.or(run.settings.max_turns);
    run.settings.max_tool_calls = flags.max_tool_calls.or(run.settings.max_tool_calls);
    run.out = Some(args.batch.out.clone());
    let mut launch = Launch::new(&run, paths)?;
    let max_turns_at_least = (args.mode == FanMode::Rest && flags.max_turns.is_none())
        .then(|| start.max_turns_to_continue(episode.turns()));
    let max_turns = launch.settings_for(max_turns_at_least).max_turns;
    if args.mode == FanMode::Rest && assistant_turns(max_turns) <= args.turn {
        writeln!(
            err,
            "note: --max-turns {} ends each attempt after its reply at turn {}: nothing is played on (--max-turns {} plays one more turn)",
            max_turns,
            args.turn,
            args.turn + 2
        )?;
    }
    let b = &args.batch;
    launch.set_rate_limits(b.rpm.limits());
    let recorded = crate::core::fan::start::fan_attacker(args.mode, episode.id(), args.turn);
    let start_of = |_: &Planned| Start {
        resume: Some(start.clone()),
        recorded: recorded.clone(),
        max_turns_at_least,
        ..Start::default()
    };
    let mut closing = Vec::new();
    let batch = execute(&args.batch, &launch, &plan, &start_of, &mut closing, err).await?;
    err.write_all(&closing)?;

    let mut attempts = Vec::new();
    for r in crate::core::fan::stopped::recorded(&args.batch.out, args.turn, n)? {
        let journal = args.batch.out.join(&r.journal);
        let events = crate::core::import::load_path(&journal)?
            .into_iter()
            .next()
            .map(|e| e.events)
            .unwrap_or_default();
        // The attempt's own events follow its header and the events copied from the episode.
        attempts.push(Attempt::of(r.repeat, journal, r.status.clone(), &events, start.prefix.len()));
    }
    attempts.sort_by_key(|a| a.index);
    let report =
        FanReport { tallies: tally(&attempts, args.turn), missing: n as usize - attempts.len(), attempts };
    if batch.stopped || report.missing > 0 {
        writeln!(err, "{} of {n} attempts done; `--resume` runs the rest", report.attempts.len())?;
    }
    if let Some(leaked_before) = leak_before(&episode, args.turn) {
        writeln!(
            err,
            "note: the episode already leaked before turn {} ({leaked_before}): a judge that reports that leak says nothing of the attempt's own replies, so those attempts are counted apart (\"leaked before turn {}\")",
            args.turn, args.turn
        )?;
    }
    if args.json {
        for t in &report.tallies {
            writeln!(out, "{}", crate::core::safe_json::to_string(t)?)?;
        }
        for a in &report.attempts {
            writeln!(out, "{}", crate::core::safe_json::to_string(&attempt_json(a))?)?;
        }
    } else {
        write_tables(args, &report, out)?;
    }
    Ok(report)
}

fn one_episode(path: &Path) -> anyhow::Result<Episode> {
    let mut episodes = crate::core::import::load_path(path)?;
    if episodes.len() != 1 {
        bail!(
            "{}: holds {} episodes; a fan starts from a file of one episode",
            path.display(),
            episodes.len()
        );
    }
    Ok(episodes.remove(0))
}

/// A source's `fail` verdict in the episode pointing before `turn`, named.
fn leak_before(episode: &Episode, turn: u32) -> Option<String> {
    episode.events.iter().find_map(|e| match &e.body {
        EventBody::Verdict(v)
            if v.outcome == Outcome::Fail
                && v.judge.is_attack()
                && crate::core::episode::standing::verdict_turn(v, &episode.events)
                    .is_some_and(|t| t < turn) =>
        {
            Some(format!("{} by {}", v.judge, v.source()))
        }
        _ => None,
    })
}

fn attempt_json(a: &Attempt) -> serde_json::Value {
    let verdicts: Vec<serde_json::Value> = a
        .verdicts
        .iter()
        .map(|((judge, source), (outcome, turn))| {
            serde_json::json!({"judge": judge, "source": source, "outcome": outcome, "turn": turn})
        })
        .collect();
    serde_json::json!({"attempt": a.index, "journal": a.journal, "end": a.end, "verdicts": verdicts})
}

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn write_tables(args: &FanArgs, report: &FanReport, out: &mut dyn Write) -> anyhow::Result<()> {
    let what = match args.mode {
        FanMode::Reply => "the assistant's reply drawn again",
        FanMode::Rest => "the reply and the rest played on",
    };
    writeln!(
        out,
        "fan of {} attempt(s) from turn {} of {} ({what})",
        report.attempts.len(),
        args.turn,
        single_line(&args.episode.display().to_string())
    )?;
    let before = format!("leaked before turn {}", args.turn);
    let header = [
        "judge",
        "source",
        "leaked",
        "rate",
        "95% CI",
        "first leak at turn",
        "partial",
        "undecided",
        &before,
    ]
    .map(String::from)
    .to_vec();
    let cells = report
        .tallies
        .iter()
        .map(|t| {
            let (rate, ci) = match (t.decided, t.interval) {
                (0, _) | (_, None) => ("-".to_string(), "-".to_string()),
                (n, Some((lo, hi))) => {
                    (percent(t.leaked as f64 / n as f64), format!("[{}, {}]", percent(lo), percent(hi)))
                }
            };
            vec![
                t.judge.to_string(),
                t.source.to_string(),
                format!("{}/{}", t.leaked, t.decided),
                rate,
                ci,
                crate::core::fan::tally::first_leak_counts(&t.first_leak_turns),
                t.partial.to_string(),
                t.undecided.to_string(),
                t.leaked_before.to_string(),
            ]
        })
        .collect();
    Table::new(header, cells).write(out)?;
    if report.tallies.is_empty() {
        writeln!(out, "no privacy or security verdict in the attempts")?;
    }
    Ok(())
}
