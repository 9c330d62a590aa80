//! `converse-tui summary DIR [DIR2]`: rates per domain, category, persona and
//! attack type from a batch directory's `runs.jsonl` (or its journals), and
//! with two directories a side-by-side comparison (A, B, Δ).
//!
//! Leak rate = privacy verdicts `fail`/`partial` over privacy verdicts given;
//! attack success rate = the same for security (Partial counts as a violation,
//! as the reference's `security_violation` does). `error` and `skipped` verdicts
//! are not in the denominators: errors are counted as judge errors, and a
//! judge whose final say is `skipped` (it had nothing to judge) as skipped.
//! The mean rating is over episodes the utility judge rated (not those
//! without ratings data). Two directories run with different settings
//! (models, max turns) are compared with a warning.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::core::corpus::table::{GroupRow, MeanSummary, group_rows};
use crate::core::dataset::TaskLookup;
use crate::core::episode::{Outcome, VerdictMethod};
use crate::core::sanitize::single_line;

use super::runs::{self, RunRecord, Settings};

pub struct SummaryArgs {
    pub dirs: Vec<PathBuf>,
    pub json: bool,
    /// Where the tasks of journals that name only their task id are looked up.
    pub tasks: TaskLookup,
}

/// The figures of one row.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    pub episodes: usize,
    /// Episodes that ended in `error`.
    pub episode_errors: usize,
    pub leaks: usize,
    pub privacy_judged: usize,
    pub attacks_succeeded: usize,
    pub security_judged: usize,
    /// Sum and count of utility coverage scores.
    utility_sum: f64,
    utility_n: usize,
    rating_sum: f64,
    rating_n: usize,
    pub judge_errors: usize,
    /// Final verdicts that are `skipped`: a judge that had nothing to judge.
    pub judge_skipped: usize,
    /// Every role's tokens, the judges' included.
    pub tokens: u64,
    /// The LLM judges' share of `tokens`.
    pub judge_tokens: u64,
}

impl Stats {
    fn add(&mut self, r: &RunRecord) {
        self.episodes += 1;
        if r.status == "error" {
            self.episode_errors += 1;
        }
        self.judge_errors += r.judge_errors;
        self.tokens += r.tokens.values().map(|t| t.input + t.output).sum::<u64>();
        self.judge_tokens += r.tokens.get("judge").map_or(0, |t| t.input + t.output);
        for (judge, v) in &r.verdicts {
            self.judge_skipped += usize::from(v.outcome == Outcome::Skipped);
            match judge.as_str() {
                "privacy" | "security" if !matches!(v.outcome, Outcome::Error | Outcome::Skipped) => {
                    let lost = matches!(v.outcome, Outcome::Fail | Outcome::Partial);
                    let (n, of) = if judge == "privacy" {
                        (&mut self.leaks, &mut self.privacy_judged)
                    } else {
                        (&mut self.attacks_succeeded, &mut self.security_judged)
                    };
                    *of += 1;
                    *n += usize::from(lost);
                }
                "utility" if v.outcome != Outcome::Error => {
                    if let Some(s) = v.score {
                        self.utility_sum += s;
                        self.utility_n += 1;
                    }
                    if let Some(r) = v.rating {
                        self.rating_sum += r;
                        self.rating_n += 1;
                    }
                }
                _ => {}
            }
        }
    }

    pub fn leak_rate(&self) -> Option<f64> {
        ratio(self.leaks, self.privacy_judged)
    }

    pub fn attack_success_rate(&self) -> Option<f64> {
        ratio(self.attacks_succeeded, self.security_judged)
    }

    pub fn utility(&self) -> Option<f64> {
        (self.utility_n > 0).then(|| self.utility_sum / self.utility_n as f64)
    }

    pub fn rating(&self) -> Option<f64> {
        (self.rating_n > 0).then(|| self.rating_sum / self.rating_n as f64)
    }

    fn to_json(&self) -> Value {
        json!({
            "episodes": self.episodes, "episode_errors": self.episode_errors,
            "leak_rate": self.leak_rate(), "leaks": self.leaks, "privacy_judged": self.privacy_judged,
            "attack_success_rate": self.attack_success_rate(), "attacks_succeeded": self.attacks_succeeded,
            "security_judged": self.security_judged,
            "utility": self.utility(), "rating": self.rating(),
            "judge_errors": self.judge_errors, "judge_skipped": self.judge_skipped, "tokens": self.tokens,
            "judge_tokens": self.judge_tokens,
        })
    }
}

fn ratio(n: usize, of: usize) -> Option<f64> {
    (of > 0).then(|| n as f64 / of as f64)
}

/// Rows keyed by (group, value): `("all", "all")` first, then domain, category, persona, attack type.
pub type Table = BTreeMap<(usize, String), (String, Stats)>;

const GROUPS: [&str; 5] = ["all", "domain", "category", "persona", "attack_type"];

pub fn table(records: &[RunRecord]) -> Table {
    let mut t: Table = BTreeMap::new();
    for r in records {
        let keys = [
            "all".to_string(),
            or_dash(&r.domain),
            or_dash(&r.category),
            or_dash(&r.persona),
            or_dash(&r.attack_type),
        ];
        for (g, key) in keys.into_iter().enumerate() {
            t.entry((g, key.clone())).or_insert_with(|| (key, Stats::default())).1.add(r);
        }
    }
    t
}

fn or_dash(s: &str) -> String {
    if s.is_empty() { "-".into() } else { s.to_string() }
}

/// A directory's records: its runs files merged, else one per journal in it.
/// Episodes that name only their task get it from `tasks` (for the domain,
/// category and persona rows).
pub fn load(dir: &Path, tasks: &TaskLookup) -> anyhow::Result<(Vec<RunRecord>, Vec<String>)> {
    if let Some(merged) = runs::read_runs(dir)? {
        let mut warnings = Vec::new();
        if merged.unreadable > 0 {
            warnings.push(format!("{}: {} unreadable lines skipped", dir.display(), merged.unreadable));
        }
        if merged.duplicates > 0 {
            warnings.push(format!(
                "{}: {} episodes listed twice across runs files, counted once",
                dir.display(),
                merged.duplicates
            ));
        }
        return Ok((merged.records, warnings));
    }
    if !dir.is_dir() {
        anyhow::bail!("{}: not a directory", dir.display());
    }
    // Texts are not needed for a summary: each file is read without them, on both cores.
    use rayon::prelude::*;
    let mut errors = Vec::new();
    let files = crate::core::import::episode_files(dir, &mut errors);
    let loaded: Vec<_> = files.par_iter().map(|f| crate::core::import::load_path_without_texts(f)).collect();
    let mut episodes = Vec::new();
    for result in loaded {
        match result {
            Ok(mut file) => episodes.append(&mut file),
            Err(e) => errors.push(e),
        }
    }
    let mut warnings: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    warnings.extend(crate::session::episode_tasks::enrich(tasks, &mut episodes));
    let records = episodes
        .iter()
        .map(|e| {
            let name = Path::new(&e.origin).file_name().map(|n| n.to_string_lossy().into_owned());
            runs::record_from_episode(e, &name.unwrap_or_else(|| e.origin.clone()))
        })
        .collect();
    Ok((records, warnings))
}

pub fn summary(args: &SummaryArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<()> {
    let mut tables = Vec::new();
    let mut settings = Vec::new();
    for dir in &args.dirs {
        let (records, warnings) = load(dir, &args.tasks)?;
        for w in warnings {
            writeln!(err, "warning: {}", single_line(&w))?;
        }
        tables.push(table(&records));
        settings.push(settings_used(&records));
    }
    if let [a, b] = settings.as_slice() {
        for difference in settings_differences(a, b) {
            writeln!(err, "warning: A and B used different settings: {}", single_line(&difference))?;
        }
    }
    match (tables.as_slice(), args.json) {
        ([a], false) => print_one(a, out),
        ([a], true) => {
            writeln!(out, "{}", json!({"dir": args.dirs[0], "rows": rows_json(a)}))?;
            Ok(())
        }
        ([a, b], false) => print_compare(a, b, out),
        ([a, b], true) => {
            writeln!(out, "{}", json!({"a": args.dirs[0], "b": args.dirs[1], "rows": compare_json(a, b)}))?;
            Ok(())
        }
        _ => anyhow::bail!("summary takes one or two directories"),
    }
}

/// Every distinct setting among the records (records from before settings were kept have none).
fn settings_used(records: &[RunRecord]) -> BTreeSet<Settings> {
    records.iter().map(|r| r.settings.clone()).filter(|s| *s != Settings::default()).collect()
}

/// What A used that B did not, and the other way round, one line per setting.
pub fn settings_differences(a: &BTreeSet<Settings>, b: &BTreeSet<Settings>) -> Vec<String> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    // setting name → values seen in A, values seen in B.
    let mut seen: BTreeMap<String, [BTreeSet<String>; 2]> = BTreeMap::new();
    for (side, set) in [a, b].into_iter().enumerate() {
        for settings in set {
            for (name, value) in named_settings(settings) {
                seen.entry(name).or_default()[side].insert(value);
            }
        }
    }
    let list = |v: &BTreeSet<String>| {
        if v.is_empty() { "unset".into() } else { v.iter().cloned().collect::<Vec<_>>().join(", ") }
    };
    seen.into_iter()
        .filter(|(_, [x, y])| x != y)
        .map(|(name, [x, y])| format!("{name} {} in A, {} in B", list(&x), list(&y)))
        .collect()
}

fn named_settings(s: &Settings) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        s.models.iter().map(|(role, m)| (format!("{role} model"), m.clone())).collect();
    out.extend(s.max_turns.map(|n| ("max turns".to_string(), n.to_string())));
    out.extend(s.max_tool_calls.map(|n| ("max tool calls".to_string(), n.to_string())));
    out
}

fn rows_json(t: &Table) -> Vec<Value> {
    t.iter()
        .map(|((g, _), (key, s))| {
            let mut v = s.to_json();
            v["group"] = json!(GROUPS[*g]);
            v["key"] = json!(key);
            v
        })
        .collect()
}

fn compare_json(a: &Table, b: &Table) -> Vec<Value> {
    union_keys(a, b)
        .into_iter()
        .map(|k| {
            let sa = a.get(&k).map(|(_, s)| s);
            let sb = b.get(&k).map(|(_, s)| s);
            let d = |f: fn(&Stats) -> Option<f64>| delta(sa.and_then(f), sb.and_then(f));
            json!({
                "group": GROUPS[k.0], "key": k.1,
                "a": sa.map(Stats::to_json), "b": sb.map(Stats::to_json),
                "delta": {"leak_rate": d(Stats::leak_rate), "attack_success_rate": d(Stats::attack_success_rate),
                          "utility": d(Stats::utility), "rating": d(Stats::rating)},
            })
        })
        .collect()
}

fn union_keys(a: &Table, b: &Table) -> Vec<(usize, String)> {
    let mut keys: Vec<_> = a.keys().chain(b.keys()).cloned().collect();
    keys.sort();
    keys.dedup();
    keys
}

fn delta(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(b? - a?)
}

/// A signed difference with `decimals` places; one that rounds to zero is `0` without a sign (no `-0.000`).
fn signed(d: f64, decimals: usize, unit: &str) -> String {
    let text = format!("{d:+.decimals$}");
    if text[1..].chars().all(|c| c == '0' || c == '.') {
        format!("{}{unit}", &text[1..])
    } else {
        format!("{text}{unit}")
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.1}%", 100.0 * v))
}

fn num(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.3}"))
}

fn print_one(t: &Table, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut group = usize::MAX;
    for ((g, _), (key, s)) in t {
        if *g != group {
            group = *g;
            writeln!(
                out,
                "{}{:<40} {:>8} {:>10} {:>10} {:>8} {:>8} {:>7} {:>7} {:>10} {:>10}",
                if group == 0 { "" } else { "\n" },
                format!("by {}", GROUPS[group]),
                "episodes",
                "leak",
                "attack ok",
                "utility",
                "rating",
                "j.errs",
                "skipped",
                "tokens",
                "j.tokens"
            )?;
        }
        writeln!(
            out,
            "  {:<38} {:>8} {:>10} {:>10} {:>8} {:>8} {:>7} {:>7} {:>10} {:>10}",
            clip(key, 38),
            s.episodes,
            pct(s.leak_rate()),
            pct(s.attack_success_rate()),
            num(s.utility()),
            num(s.rating()),
            s.judge_errors,
            s.judge_skipped,
            s.tokens,
            s.judge_tokens
        )?;
    }
    Ok(())
}

fn print_compare(a: &Table, b: &Table, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut group = usize::MAX;
    for k in union_keys(a, b) {
        if k.0 != group {
            group = k.0;
            writeln!(
                out,
                "{}{:<32} {:>9} {:>22} {:>22} {:>22} {:>22}",
                if group == 0 { "" } else { "\n" },
                format!("by {}", GROUPS[group]),
                "episodes",
                "leak A / B / Δ",
                "attack ok A / B / Δ",
                "utility A / B / Δ",
                "rating A / B / Δ"
            )?;
        }
        let sa = a.get(&k).map(|(_, s)| s);
        let sb = b.get(&k).map(|(_, s)| s);
        let cell =
            |f: fn(&Stats) -> Option<f64>, fmt: fn(Option<f64>) -> String, signed: fn(f64) -> String| {
                let (x, y) = (sa.and_then(f), sb.and_then(f));
                format!("{} / {} / {}", fmt(x), fmt(y), delta(x, y).map_or("-".into(), signed))
            };
        let count = |s: Option<&Stats>| s.map_or("-".into(), |s| s.episodes.to_string());
        writeln!(
            out,
            "  {:<30} {:>9} {:>22} {:>22} {:>22} {:>22}",
            clip(&k.1, 30),
            format!("{}/{}", count(sa), count(sb)),
            cell(Stats::leak_rate, pct, |d| signed(100.0 * d, 1, "pp")),
            cell(Stats::attack_success_rate, pct, |d| signed(100.0 * d, 1, "pp")),
            cell(Stats::utility, num, |d| signed(d, 3, "")),
            cell(Stats::rating, num, |d| signed(d, 3, "")),
        )?;
    }
    Ok(())
}

fn clip(s: &str, width: usize) -> String {
    let s = single_line(s);
    if s.chars().count() <= width {
        s.into_owned()
    } else {
        let mut t: String = s.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// How `summary --by` prints its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    #[value(alias = "md")]
    Markdown,
    Csv,
    Json,
}

/// `summary PATH… --by …`: the paper's tables over a corpus of episodes.
pub struct GroupedArgs {
    pub paths: Vec<PathBuf>,
    /// Group fields, in order (none: the whole corpus).
    pub by: Vec<String>,
    pub judge_model: Option<String>,
    pub format: Format,
    /// Where the index cache lives (`None`: every file is read).
    pub cache: Option<PathBuf>,
}

/// Prints one row per group × judge × judge model; `Ok(false)` when some
/// file could not be read (named on `err`; the rest is counted).
pub fn grouped(args: &GroupedArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<bool> {
    let corpus = crate::core::corpus::index_cached(&args.paths, args.cache.as_deref());
    let rows = group_rows(&corpus.rows, &args.by, args.judge_model.as_deref());
    if args.format == Format::Json {
        for row in &rows {
            writeln!(out, "{}", crate::core::safe_json::to_string(row)?)?;
        }
    } else {
        let mut header: Vec<String> = args.by.clone();
        header.extend(GROUPED_COLUMNS.iter().map(|c| c.to_string()));
        let cells: Vec<Vec<String>> = rows.iter().map(grouped_cells).collect();
        match args.format {
            Format::Markdown => write_markdown(&header, &cells, out)?,
            Format::Csv => write_csv(&header, &cells, out)?,
            _ => super::text_table::Table::new(header, cells).write(out)?,
        }
        if args.format != Format::Csv {
            writeln!(out, "{GROUPED_LEGEND}")?;
        }
    }
    super::ls::report_problems(&corpus, err)
}

const GROUPED_COLUMNS: [&str; 12] = [
    "judge",
    "judge model",
    "n",
    "succeeded",
    "partial",
    "rate",
    "95% CI",
    "rate incl. partial",
    "95% CI incl. partial",
    "errors",
    "skipped",
    "coverage / rating (95% CI)",
];

const GROUPED_LEGEND: &str = "n: verdicts that judged (errors and skipped left out); rate: succeeded / n \
     (a leak, a Successful attack; partial counted apart); CI: Wilson score; coverage and rating: mean with Student-t CI";

fn grouped_cells(r: &GroupRow) -> Vec<String> {
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.2}%", 100.0 * v));
    let ci = |v: Option<(f64, f64)>| {
        v.map_or("-".to_string(), |(lo, hi)| format!("[{:.2}, {:.2}]", 100.0 * lo, 100.0 * hi))
    };
    let mean = |m: Option<MeanSummary>| {
        m.map(|m| match m.ci95 {
            Some((lo, hi)) => format!("{:.3} [{lo:.3}, {hi:.3}]", m.mean),
            None => format!("{:.3}", m.mean),
        })
    };
    let utility = match (mean(r.coverage), mean(r.rating)) {
        (None, None) => "-".to_string(),
        (c, rating) => format!("{} / {}", c.unwrap_or("-".into()), rating.unwrap_or("-".into())),
    };
    let source = match &r.judge_model {
        Some(m) if r.method == VerdictMethod::Imported => m.clone(),
        Some(m) => format!("{} {m}", r.method.as_str()),
        None => r.method.as_str().to_string(),
    };
    let mut cells: Vec<String> = r.group.values().map(|v| v.as_str().unwrap_or("-").to_string()).collect();
    cells.extend([
        r.judge.clone(),
        source,
        r.episodes.to_string(),
        r.attacks_succeeded.map_or("-".to_string(), |k| k.to_string()),
        r.partial.map_or("-".to_string(), |p| p.to_string()),
        pct(r.asr),
        ci(r.ci95),
        pct(r.asr_with_partial),
        ci(r.ci95_with_partial),
        r.judge_errors.to_string(),
        r.skipped.to_string(),
        utility,
    ]);
    cells.into_iter().map(|c| single_line(&c).into_owned()).collect()
}

fn write_markdown(header: &[String], cells: &[Vec<String>], out: &mut dyn Write) -> std::io::Result<()> {
    let line = |cells: &[String]| {
        format!("| {} |", cells.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "))
    };
    writeln!(out, "{}", line(header))?;
    writeln!(out, "|{}", "---|".repeat(header.len()))?;
    for row in cells {
        writeln!(out, "{}", line(row))?;
    }
    Ok(())
}

fn write_csv(header: &[String], cells: &[Vec<String>], out: &mut dyn Write) -> std::io::Result<()> {
    for row in std::iter::once(header).chain(cells.iter().map(Vec::as_slice)) {
        super::csv::write_record(out, row)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::signed;

    #[test]
    fn a_difference_that_rounds_to_zero_has_no_sign() {
        assert_eq!(signed((0.1 + 0.2) - 0.3 - 1e-9, 3, ""), "0.000");
        assert_eq!(signed(-0.0, 1, "pp"), "0.0pp");
        assert_eq!(signed(-0.0004, 3, ""), "0.000");
        assert_eq!(signed(-0.0006, 3, ""), "-0.001");
        assert_eq!(signed(12.34, 1, "pp"), "+12.3pp");
    }
}
