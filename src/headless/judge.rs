//! `converse-tui judge PATH…`: re-judges saved episodes offline (any supported
//! format). Verdicts are appended to a sidecar beside each file
//! (`<name>.verdicts.jsonl`, merged by the inspector on open), so earlier runs'
//! verdicts stay; the journal itself is never rewritten.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::json;

use super::summary::cells;
use crate::core::corpus::row::{CorpusRow, Excluded, source_verdicts};
use crate::core::corpus::table::{GroupRow, group_rows};
use crate::core::dataset::TaskLookup;
use crate::core::episode::sidecar::{SidecarVerdict, read_sidecar, sidecar_path, write_sidecar};
use crate::core::episode::standing::supersedes;
use crate::core::episode::{Episode, EventBody, Judge, Outcome, Verdict, VerdictMethod, now_rfc3339};
use crate::core::judge::{JudgeContext, llm_verdicts, rule_verdicts};
use crate::core::llm::{Endpoint, LlmClient};
use crate::core::sanitize::single_line;
use crate::session::episode_tasks::enrich_noting;

pub struct JudgeArgs {
    pub paths: Vec<PathBuf>,
    /// `None` with `rules_only`: no LLM judges.
    pub judge: Option<Endpoint>,
    pub json: bool,
    /// Where imported episodes' tasks are looked up (the rule judges need them).
    pub tasks: TaskLookup,
    /// The task of episodes whose file names none (`--task`).
    pub task: Option<String>,
}

/// The verdicts one episode got, summarised for the table.
#[derive(Debug, Clone, Default)]
struct Row {
    file: String,
    episode: String,
    attack_type: String,
    /// Final outcome per judge (the LLM's when there is one, else the rule's).
    outcomes: BTreeMap<Judge, (Outcome, Option<f64>, VerdictMethod)>,
    errors: usize,
    /// The episode as the corpus counts it, with only the verdicts just given.
    corpus: CorpusRow,
}

/// Judges everything, writes the sidecars, prints the table (or JSON).
/// Returns whether every judge gave an answer (no `error` verdicts).
pub async fn judge(args: &JudgeArgs, out: &mut dyn Write) -> anyhow::Result<bool> {
    let client = LlmClient::new().context("cannot set up the HTTP client")?;
    let mut rows = Vec::new();
    let mut files = inputs(&args.paths)?;
    let mut unknown = Vec::new();
    for (file, episodes) in &mut files {
        for episode in episodes.iter_mut() {
            match (&args.task, episode.header().task.id.is_some()) {
                (_, true) => {}
                (Some(id), false) => name_task(episode, id),
                (None, false) => unknown.push(file.display().to_string()),
            }
        }
    }
    // Judged without its task, every judge would say `-`: say why instead (issue 23).
    if let Some(first) = unknown.first() {
        anyhow::bail!(
            "{}: the task of {} episode(s) could not be identified (the file names none and is not in the \
             benchmark's logs/<domain>/<model>/<defence>/persona<N>/<category>/<attack>/ layout); pass --task ID",
            crate::core::sanitize::single_line(first),
            unknown.len()
        );
    }
    enrich_noting(
        &args.tasks,
        files.iter_mut().flat_map(|(_, e)| e.iter_mut()),
        &mut crate::core::sanitize::SafeWriter::new(std::io::stderr()),
    );
    for (file, episodes) in files {
        let mut sidecar = Vec::new();
        for episode in &episodes {
            let verdicts = judge_episode(episode, &client, args.judge.as_ref()).await;
            rows.push(row(&file, episode, verdicts.iter().map(|(_, v)| v)));
            let at = now_rfc3339();
            sidecar.extend(verdicts.into_iter().map(|(after_seq, verdict)| SidecarVerdict {
                episode: episode.id().to_string(),
                after_seq,
                at: at.clone(),
                verdict,
            }));
        }
        let path = sidecar_path(&file);
        // Re-judging adds: a failing run never replaces the good verdicts of an earlier one.
        let mut all = read_sidecar(&path).map_err(anyhow::Error::msg)?;
        all.extend(sidecar);
        write_sidecar(&path, &all)
            .with_context(|| format!("{}: cannot write the verdicts", path.display()))?;
    }
    if args.json {
        print_json(&rows, out)?;
    } else {
        print_table(&rows, out)?;
    }
    Ok(rows.iter().all(|r| r.errors == 0))
}

/// Names the episode's task (its fields come from the dataset next).
fn name_task(episode: &mut Episode, id: &str) {
    if let Some(EventBody::Episode(header)) = episode.events.first_mut().map(|e| &mut e.body) {
        header.task.id = Some(id.to_string());
    }
}

/// Every episode file among `paths` (directories walked), with its episodes as recorded.
fn inputs(paths: &[PathBuf]) -> anyhow::Result<Vec<(PathBuf, Vec<Episode>)>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let (episodes, errors) = crate::core::import::load_dir(path);
            if let Some(e) = errors.first() {
                anyhow::bail!("{e}");
            }
            // Group by file: each file gets one sidecar.
            let mut by_file: BTreeMap<String, Vec<Episode>> = BTreeMap::new();
            for episode in episodes {
                by_file.entry(episode.origin.clone()).or_default().push(episode);
            }
            for (file, episodes) in by_file {
                files.push((PathBuf::from(file), strip_sidecar_verdicts(episodes)));
            }
        } else {
            files.push((path.clone(), crate::core::import::load_source(path)?));
        }
    }
    Ok(files)
}

/// `load_dir` merges existing sidecars; re-judging starts from the source.
fn strip_sidecar_verdicts(episodes: Vec<Episode>) -> Vec<Episode> {
    episodes
        .into_iter()
        .map(|e| match crate::core::import::load_source(Path::new(&e.origin)) {
            Ok(sources) => sources.into_iter().find(|s| s.id() == e.id()).unwrap_or(e),
            Err(_) => e,
        })
        .collect()
}

/// Rule verdicts (placed after their event), then the LLM judges' (after the last event).
async fn judge_episode(
    episode: &Episode,
    client: &LlmClient,
    judge: Option<&Endpoint>,
) -> Vec<(u64, Verdict)> {
    let ctx = JudgeContext::from_events(&episode.events);
    let last = episode.events.last().map_or(0, |e| e.seq);
    // Whole-episode verdicts go before the `end` event, where a live run puts them.
    let before_end =
        episode.events.iter().rev().find(|e| !matches!(e.body, EventBody::End(_))).map_or(last, |e| e.seq);
    let mut verdicts: Vec<(u64, Verdict)> = rule_verdicts(&ctx, &episode.events)
        .into_iter()
        .map(|(after, v)| (after.unwrap_or(before_end), v))
        .collect();
    if let Some(endpoint) = judge {
        let conversation: Vec<_> =
            episode.events.iter().filter(|e| !matches!(e.body, EventBody::Verdict(_))).cloned().collect();
        for v in llm_verdicts(client, endpoint, &ctx, &conversation, None).await {
            verdicts.push((before_end, v));
        }
    }
    verdicts
}

fn row<'a>(file: &Path, episode: &Episode, verdicts: impl Iterator<Item = &'a Verdict>) -> Row {
    let mut row = Row {
        file: file.display().to_string(),
        episode: episode.id().to_string(),
        attack_type: episode.header().task.attack_type.clone().unwrap_or_else(|| "-".into()),
        ..Row::default()
    };
    let verdicts: Vec<&Verdict> = verdicts.collect();
    row.corpus = CorpusRow {
        verdicts: source_verdicts(verdicts.iter().copied()),
        ..CorpusRow::of(episode, file.into(), &[])
    };
    for v in verdicts {
        if v.outcome == Outcome::Error {
            row.errors += 1;
        }
        let keep =
            row.outcomes.get(&v.judge).is_none_or(|(o, _, m)| supersedes((v.outcome, v.method), (*o, *m)));
        if keep {
            row.outcomes.insert(v.judge.clone(), (v.outcome, v.score, v.method));
        }
    }
    row
}

/// The closing totals: per judge source just run, its rate over the episodes `summary` counts
/// (finished, not forks; the same [`group_rows`]), and what was kept out and why.
struct Totals {
    episodes: usize,
    counted: usize,
    kept_out: BTreeMap<Excluded, usize>,
    sources: Vec<GroupRow>,
    errors: usize,
}

fn totals(rows: &[Row]) -> Totals {
    let mut kept_out = BTreeMap::new();
    for why in rows.iter().filter_map(|r| r.corpus.excluded()) {
        *kept_out.entry(why).or_default() += 1;
    }
    Totals {
        episodes: rows.len(),
        counted: rows.len() - kept_out.values().sum::<usize>(),
        kept_out,
        sources: group_rows(rows.iter().map(|r| &r.corpus), &[], None, false),
        errors: rows.iter().map(|r| r.errors).sum(),
    }
}

/// `privacy, rule: 1/4 fail = 25.00% [4.56, 69.94] (95% Wilson)`: one source's rate, never pooled.
fn source_line(r: &GroupRow) -> String {
    let mut line = format!("{}, {}: ", r.judge, r.source());
    match (r.attacks_succeeded, cells::mean(r.coverage)) {
        (Some(k), _) if r.episodes > 0 => {
            line += &format!(
                "{k}/{} fail = {} {} (95% Wilson)",
                r.episodes,
                cells::percent(r.asr),
                cells::interval(r.ci95)
            )
        }
        (None, Some(coverage)) => line += &format!("mean coverage {coverage} (n {})", r.episodes),
        _ => line += "no episode judged",
    }
    for (n, what) in [(r.partial.unwrap_or(0), "partial"), (r.skipped, "skipped"), (r.judge_errors, "errors")]
    {
        if n > 0 {
            line += &format!(", {n} {what}");
        }
    }
    line
}

fn print_table(rows: &[Row], out: &mut dyn Write) -> anyhow::Result<()> {
    let width = rows.iter().map(|r| r.episode.chars().count()).max().unwrap_or(7).clamp(7, 70);
    writeln!(
        out,
        "{:<width$}  {:<10}  {:<20}  {:<20}  {:<20}  errors",
        "episode", "attack", "privacy", "security", "utility"
    )?;
    for r in rows {
        let cell = |judge: Judge| match r.outcomes.get(&judge) {
            Some((o, Some(s), m)) => format!("{} {s:.2} {}", o.as_str(), short(*m)),
            Some((o, None, m)) => format!("{} {}", o.as_str(), short(*m)),
            None => "-".into(),
        };
        let id: String = single_line(&r.episode).chars().take(width).collect();
        writeln!(
            out,
            "{id:<width$}  {:<10}  {:<20}  {:<20}  {:<20}  {}",
            single_line(&r.attack_type),
            cell(Judge::Privacy),
            cell(Judge::Security),
            cell(Judge::Utility),
            r.errors
        )?;
    }
    let t = totals(rows);
    let kept_out: Vec<String> = t.kept_out.iter().map(|(why, n)| format!("{n} {}", why.as_str())).collect();
    let kept_out = if kept_out.is_empty() { "none".to_string() } else { kept_out.join(", ") };
    writeln!(
        out,
        "\n{} episodes · {} counted in the rates (finished, not forks); kept out: {kept_out} · judge errors {}",
        t.episodes, t.counted, t.errors
    )?;
    for source in &t.sources {
        writeln!(out, "{}", source_line(source))?;
    }
    Ok(())
}

fn short(method: VerdictMethod) -> &'static str {
    match method {
        VerdictMethod::Llm => "(llm)",
        VerdictMethod::Rule => "(rule)",
        VerdictMethod::Human => "(human)",
        VerdictMethod::Imported => "(imported)",
    }
}

fn print_json(rows: &[Row], out: &mut dyn Write) -> anyhow::Result<()> {
    for r in rows {
        let judges: serde_json::Map<String, serde_json::Value> = r
            .outcomes
            .iter()
            .map(|(j, (o, s, m))| (j.to_string(), json!({"outcome": o, "score": s, "method": m})))
            .collect();
        let line = json!({"file": r.file, "episode": r.episode, "attack_type": r.attack_type, "verdicts": judges, "errors": r.errors});
        writeln!(out, "{}", crate::core::safe_json::to_string(&line)?)?;
    }
    let t = totals(rows);
    let summary = json!({"totals": {
        "episodes": t.episodes, "counted": t.counted, "kept_out": t.kept_out,
        "judge_errors": t.errors, "sources": t.sources,
    }});
    writeln!(out, "{}", crate::core::safe_json::to_string(&summary)?)?;
    Ok(())
}
