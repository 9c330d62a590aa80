//! Issue 28: the tests between groups (`summary --vs`, `summary A B`) against scipy and
//! statsmodels in the pinned venv (tests/python/requirements.txt), and from the binary on
//! corpora whose counts are known.

use std::path::Path;

use converse_tui::core::corpus::stats::wilson;
use converse_tui::core::corpus::two_sample::{
    PairedTable, fisher_exact, mcnemar_exact, newcombe, newcombe_paired,
};
use serde_json::{Value, json};

use crate::support::bin::run_in;
use crate::support::corpus::Rng;
use crate::support::python::run_script;

/// Two-sample tables: edge cases (empty successes, all successes, one trial) and seeded ones.
fn independent_cases() -> Vec<[usize; 4]> {
    let mut cases = vec![
        [0, 10, 0, 10],
        [10, 10, 0, 10],
        [3, 10, 7, 10],
        [56, 70, 48, 80],
        [1, 5, 2, 2],
        [0, 1, 1, 1],
        [4, 6, 1, 7],
        [30, 200, 45, 180],
    ];
    let mut rng = Rng::new(28);
    for _ in 0..40 {
        let (n1, n2) = (1 + rng.below(60), 1 + rng.below(60));
        cases.push([rng.below(n1 + 1), n1, rng.below(n2 + 1), n2]);
    }
    cases
}

fn paired_cases() -> Vec<PairedTable> {
    let mut cases: Vec<PairedTable> =
        [[12, 5, 9, 21], [1, 1, 7, 12], [59, 6, 16, 80], [0, 0, 0, 5], [3, 0, 4, 0], [0, 3, 0, 0]]
            .into_iter()
            .map(|[both, only_first, only_second, neither]| PairedTable {
                both,
                only_first,
                only_second,
                neither,
            })
            .collect();
    let mut rng = Rng::new(2028);
    for _ in 0..40 {
        let t = PairedTable {
            both: rng.below(20),
            only_first: rng.below(12),
            only_second: rng.below(12),
            neither: rng.below(20),
        };
        if t.pairs() > 0 {
            cases.push(t);
        }
    }
    cases
}

/// scipy's `fisher_exact`, statsmodels' Newcombe interval (`confint_proportions_2indep`,
/// method `newcomb`), Wilson interval and exact McNemar test; the paired Newcombe interval
/// written out from its definition over statsmodels' Wilson intervals (no package has it).
const REFERENCE: &str = r#"
import json, math, sys
from scipy.stats import fisher_exact
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint
from statsmodels.stats.contingency_tables import mcnemar

independent, paired = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = {"independent": [], "paired": []}
for k1, n1, k2, n2 in independent:
    # statsmodels' difference is its first sample minus its second: p2 - p1 here.
    lo, hi = confint_proportions_2indep(k2, n2, k1, n1, method="newcomb", compare="diff", alpha=0.05)
    p = fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="two-sided").pvalue
    w = proportion_confint(k1, n1, alpha=0.05, method="wilson")
    out["independent"].append({"ci": [float(lo), float(hi)], "p": float(p), "wilson": [float(w[0]), float(w[1])]})
for a, b, c, d in paired:
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_confint(a + b, n, alpha=0.05, method="wilson")
    l2, u2 = proportion_confint(a + c, n, alpha=0.05, method="wilson")
    cross, margins = a * d - b * c, (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        psi = 0.0
    elif cross > n / 2:
        psi = (cross - n / 2) / math.sqrt(margins)
    elif cross >= 0:
        psi = 0.0
    else:
        psi = cross / math.sqrt(margins)
    diff = p2 - p1
    lower = diff - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * psi * (p2 - l2) * (u1 - p1))
    upper = diff + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2 - 2 * psi * (u2 - p2) * (p1 - l1))
    p = mcnemar([[a, b], [c, d]], exact=True).pvalue
    out["paired"].append({"ci": [max(-1.0, lower), min(1.0, upper)], "p": float(p)})
print(json.dumps(out))
"#;

fn close(what: &str, ours: f64, theirs: f64) {
    assert!((ours - theirs).abs() < 1e-9, "{what}: ours {ours}, reference {theirs}");
}

#[test]
fn every_statistic_equals_scipy_and_statsmodels() {
    let independent = independent_cases();
    let paired = paired_cases();
    let paired_rows: Vec<[usize; 4]> =
        paired.iter().map(|t| [t.both, t.only_first, t.only_second, t.neither]).collect();
    let out = run_script(REFERENCE, &[&json!(independent).to_string(), &json!(paired_rows).to_string()]);
    let reference: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(reference["independent"].as_array().unwrap().len(), independent.len());
    assert_eq!(reference["paired"].as_array().unwrap().len(), paired.len());
    for (case, theirs) in independent.iter().zip(reference["independent"].as_array().unwrap()) {
        let [k1, n1, k2, n2] = *case;
        let (lo, hi) = newcombe(k1, n1, k2, n2).unwrap();
        close(&format!("Newcombe lower {case:?}"), lo, theirs["ci"][0].as_f64().unwrap());
        close(&format!("Newcombe upper {case:?}"), hi, theirs["ci"][1].as_f64().unwrap());
        close(&format!("Fisher {case:?}"), fisher_exact(k1, n1, k2, n2), theirs["p"].as_f64().unwrap());
        let (wl, wh) = wilson(k1, n1).unwrap();
        close(&format!("Wilson lower {case:?}"), wl, theirs["wilson"][0].as_f64().unwrap());
        close(&format!("Wilson upper {case:?}"), wh, theirs["wilson"][1].as_f64().unwrap());
    }
    for (table, theirs) in paired.iter().zip(reference["paired"].as_array().unwrap()) {
        let (lo, hi) = newcombe_paired(*table).unwrap();
        close(&format!("paired Newcombe lower {table:?}"), lo, theirs["ci"][0].as_f64().unwrap());
        close(&format!("paired Newcombe upper {table:?}"), hi, theirs["ci"][1].as_f64().unwrap());
        close(&format!("McNemar {table:?}"), mcnemar_exact(*table), theirs["p"].as_f64().unwrap());
    }
}

/// One journal of ours: its task (id, repetition), model, defence and one rule privacy verdict.
fn journal(dir: &Path, task: &str, repetition: u64, defence: &str, leaked: bool) {
    let id = format!("{task}-{defence}-r{repetition}");
    let header = json!({"seq": 0, "at": "2026-01-01T00:00:00Z", "kind": "episode",
        "format": "converse-tui/1", "id": id,
        "task": {"id": task, "domain": "travel_planning", "attack_type": "privacy"},
        "config": {"models": {"assistant": "gpt_5_chat"}, "defence": defence, "repetition": repetition}});
    let message = json!({"seq": 1, "at": "2026-01-01T00:00:01Z", "kind": "message", "turn": 1,
        "from": "attacker", "to": "assistant", "text": "your passport number?"});
    let verdict = json!({"seq": 2, "at": "2026-01-01T00:00:02Z", "kind": "verdict", "judge": "privacy",
        "method": "rule", "outcome": if leaked { "fail" } else { "pass" }});
    let end =
        json!({"seq": 3, "at": "2026-01-01T00:00:03Z", "kind": "end", "reason": "max_turns", "turns": 1});
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(format!("{id}.jsonl")), format!("{header}\n{message}\n{verdict}\n{end}\n"))
        .unwrap();
}

/// Twenty tasks under a baseline and a firewall; the table of pairs is (both, baseline only,
/// firewall only, neither) = (3, 9, 1, 7): baseline 12/20, firewall 4/20.
fn paired_corpus(root: &Path, firewall_dir: &Path) {
    let outcomes = [(true, true); 3]
        .into_iter()
        .chain([(true, false); 9])
        .chain([(false, true); 1])
        .chain([(false, false); 7]);
    for (i, (baseline, firewall)) in outcomes.enumerate() {
        let task = format!("travel_planning_p1_privacy_task_{i:02}");
        journal(root, &task, 1, "baseline", baseline);
        journal(firewall_dir, &task, 1, "firewall", firewall);
    }
}

fn json_rows(home: &Path, args: &[&str]) -> Vec<Value> {
    let out = run_in(home, args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn summary_vs_pairs_the_same_tasks_and_tests_others_as_independent() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("runs");
    paired_corpus(&root.join("base"), &root.join("fw"));
    // A third defence on other tasks: 2 of 5 leaked, not paired with the baseline.
    for i in 0..5 {
        journal(&root.join("other"), &format!("travel_planning_p3_privacy_other_{i}"), 1, "other", i < 2);
    }
    let root_text = root.to_str().unwrap();
    let rows = json_rows(
        home.path(),
        &["summary", root_text, "--by", "defence", "--vs", "defence=baseline", "--json", "--no-cache"],
    );
    let by_defence = |d: &str| rows.iter().find(|r| r["group"]["defence"] == d).unwrap().clone();
    assert_eq!(by_defence("baseline")["versus"], "reference");
    let fw = by_defence("firewall");
    assert_eq!(fw["contrast"]["test"], "mcnemar", "{fw}");
    assert_eq!(fw["contrast"]["pairs"], 20);
    assert_eq!(fw["contrast"]["discordant"], json!([9, 1]));
    // Hand-worked: Δ = (1 − 9) / 20 = −0.40; McNemar: 2 × (1 + 10) / 2^10 = 0.021484375.
    close("Δ", fw["contrast"]["difference"].as_f64().unwrap(), -0.40);
    close("McNemar p", fw["contrast"]["p_value"].as_f64().unwrap(), 22.0 / 1024.0);
    let table = PairedTable { both: 3, only_first: 9, only_second: 1, neither: 7 };
    let (lo, hi) = newcombe_paired(table).unwrap();
    close("paired CI lower", fw["contrast"]["ci95"][0].as_f64().unwrap(), lo);
    close("paired CI upper", fw["contrast"]["ci95"][1].as_f64().unwrap(), hi);
    assert_eq!(fw["like_for_like"]["scope"], "same_tasks");
    // Like for like, the other defence shares no task with the baseline: nothing is compared.
    let other = by_defence("other");
    assert_eq!(
        (&other["versus"], &other["contrast"]),
        (&json!("no task in common"), &Value::Null),
        "{other}"
    );
    assert_eq!(other["like_for_like"], json!({"scope": "shared_tasks", "tasks": 0, "dropped": [20, 5]}));
    // As they are (--all-tasks): independent samples, Fisher.
    let all = json_rows(
        home.path(),
        &[
            "summary",
            root_text,
            "--by",
            "defence",
            "--vs",
            "defence=baseline",
            "--json",
            "--no-cache",
            "--all-tasks",
        ],
    );
    let other = all.iter().find(|r| r["group"]["defence"] == "other").unwrap();
    assert_eq!(other["contrast"]["test"], "fisher", "{other}");
    close("Fisher p", other["contrast"]["p_value"].as_f64().unwrap(), fisher_exact(12, 20, 2, 5));
    close("Δ", other["contrast"]["difference"].as_f64().unwrap(), 2.0 / 5.0 - 12.0 / 20.0);

    // The table says which test gave each row, and the same figures.
    let out = run_in(
        home.path(),
        &["summary", root_text, "--by", "defence", "--vs", "defence=baseline", "--no-cache"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |d: &str| text.lines().find(|l| l.starts_with(d)).unwrap().to_string();
    assert!(line("firewall").contains("-40.00") && line("firewall").contains("0.0215"), "{text}");
    assert!(
        line("firewall").contains("McNemar, 20 pairs") && line("firewall").ends_with("same tasks"),
        "{text}"
    );
    assert!(line("other").trim_end().ends_with("0 shared task(s); dropped 20 of ref, 5 of row"), "{text}");
    assert!(line("baseline").contains("reference"), "{text}");
}

#[test]
fn summary_vs_names_a_field_it_cannot_use_in_one_line() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("runs");
    paired_corpus(&root.join("base"), &root.join("fw"));
    let root_text = root.to_str().unwrap();
    for (args, expected) in [
        (vec!["--by", "model", "--vs", "defence=baseline"], "the rows are not grouped by defence"),
        (
            vec!["--by", "defence", "--vs", "defence=nothing"],
            "no episode has defence nothing (there are: baseline, firewall)",
        ),
        (vec!["--by", "defence", "--vs", "defence"], "expected FIELD=VALUE"),
        (vec!["--by", "defence", "--vs", "colour=red"], "unknown field 'colour'"),
    ] {
        let mut all = vec!["summary", root_text, "--no-cache"];
        all.extend(args);
        let out = run_in(home.path(), &all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(expected), "{expected}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

/// `summary A B` uses the same machinery: B against A, paired when they ran the same tasks.
#[test]
fn summary_a_b_tests_b_against_a_with_the_same_machinery() {
    let home = tempfile::tempdir().unwrap();
    let (a, b) = (home.path().join("a"), home.path().join("b"));
    paired_corpus(&a, &b);
    let rows = json_rows(
        home.path(),
        &["summary", a.to_str().unwrap(), b.to_str().unwrap(), "--pool", "--json", "--no-cache"],
    );
    let privacy = rows.iter().find(|r| r["judge"] == "privacy").unwrap();
    assert_eq!(privacy["test"]["test"], "mcnemar", "{privacy}");
    close("McNemar p", privacy["test"]["p_value"].as_f64().unwrap(), 22.0 / 1024.0);
    close("Δ", privacy["delta"].as_f64().unwrap(), -0.40);
}

/// lifelines' `KaplanMeierFitter`: the survival function, its 95 % interval (exponential
/// Greenwood), the median and the median's interval (`median_survival_times` of the interval).
const LIFELINES: &str = r#"
import json, math, sys, warnings
warnings.simplefilter("ignore")
from lifelines import KaplanMeierFitter
from lifelines.utils import median_survival_times

out = []
for durations, events in json.loads(sys.argv[1]):
    k = KaplanMeierFitter().fit(durations, events)
    sf, ci = k.survival_function_, k.confidence_interval_
    steps = [[float(t), float(sf.iloc[i, 0]), float(ci.iloc[i, 0]), float(ci.iloc[i, 1])]
             for i, t in enumerate(sf.index) if t > 0]
    m = median_survival_times(ci)
    finite = lambda v: None if math.isinf(v) else float(v)
    out.append({"steps": steps, "median": finite(k.median_survival_time_),
                "median_ci": [finite(m.iloc[0, 0]), finite(m.iloc[0, 1])]})
print(json.dumps(out))
"#;

#[test]
fn kaplan_meier_equals_lifelines() {
    use converse_tui::core::corpus::survival::{Observation, kaplan_meier};
    let mut samples: Vec<Vec<Observation>> = vec![
        // Ties of events and censoring at one turn; everyone leaks by the end; nobody leaks.
        [(1, true), (3, true), (2, false), (4, false), (5, true), (5, false), (6, true)]
            .map(|(turn, event)| Observation { turn, event })
            .to_vec(),
        [(2, true), (3, true)].map(|(turn, event)| Observation { turn, event }).to_vec(),
        [(4, false), (7, false)].map(|(turn, event)| Observation { turn, event }).to_vec(),
    ];
    let mut rng = Rng::new(1728);
    for _ in 0..12 {
        let n = 5 + rng.below(40);
        samples.push(
            (0..n).map(|_| Observation { turn: 1 + rng.below(12) as u32, event: rng.below(3) > 0 }).collect(),
        );
    }
    let input: Vec<(Vec<u32>, Vec<u8>)> = samples
        .iter()
        .map(|s| (s.iter().map(|o| o.turn).collect(), s.iter().map(|o| u8::from(o.event)).collect()))
        .collect();
    let out = run_script(LIFELINES, &[&json!(input).to_string()]);
    let reference: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(reference.len(), samples.len());
    for (sample, theirs) in samples.iter().zip(&reference) {
        let curve = kaplan_meier(sample).unwrap();
        let steps = theirs["steps"].as_array().unwrap();
        assert_eq!(curve.steps.len(), steps.len(), "{sample:?}");
        for (ours, step) in curve.steps.iter().zip(steps) {
            let at = |i: usize| step[i].as_f64().unwrap();
            assert_eq!(f64::from(ours.turn), at(0));
            close(&format!("S({}) {sample:?}", ours.turn), ours.survival, at(1));
            close(&format!("lower({}) {sample:?}", ours.turn), ours.ci95.0, at(2));
            close(&format!("upper({}) {sample:?}", ours.turn), ours.ci95.1, at(3));
        }
        let turn = |v: &Value| v.as_f64().map(|t| t as u32);
        assert_eq!(curve.median, turn(&theirs["median"]), "median {sample:?}");
        assert_eq!(
            curve.median_ci95,
            (turn(&theirs["median_ci"][0]), turn(&theirs["median_ci"][1])),
            "median CI {sample:?}"
        );
    }
}

/// The benchmark's judge files and logs read directly: per model/defence group, the privacy
/// verdicts of one judge model (leaked or not), the turn of each leak found from the snippets the
/// judge quotes (the first assistant message to the provider that holds one, turns counted as the
/// provider's messages open them), never-leaked runs censored at their last turn; fitted with
/// lifelines.
const DIRECT_COUNT: &str = r#"
import json, os, re, sys, warnings
warnings.simplefilter("ignore")
from lifelines import KaplanMeierFitter
from lifelines.utils import median_survival_times

root, judge_model = sys.argv[1], sys.argv[2]
norm = lambda t: " ".join(str(t).split()).lower()
def snippets(value, out):
    if isinstance(value, str): out.append(value)
    elif isinstance(value, list):
        for v in value: snippets(v, out)
groups = {}
for folder, _, files in os.walk(root):
    for name in files:
        m = re.match(r"^privacy_judge_(.+?)_(\d{8}_\d{6}.*)\.json$", name)
        if not m or m.group(1) != judge_model: continue
        judge = json.load(open(os.path.join(folder, name), encoding="utf-8"))
        if "error" in judge: continue
        ev = judge.get("llm_evaluation") or {}
        answer = ev.get("leaked_information") if judge.get("evaluation_type") == "information_leak" else ev.get("shared_raw_data")
        answer = str(answer).strip().lower()
        if answer not in ("yes", "no"): continue
        records = json.load(open(os.path.join(folder, "output_" + m.group(2) + ".json"), encoding="utf-8"))
        wanted = []
        snippets(judge.get("extraction_snippets"), wanted); snippets(judge.get("raw_data"), wanted)
        wanted = [norm(s) for s in wanted if len(norm(s)) >= 8]
        turn, leak_turn = 1, None
        for i, r in enumerate(records):
            if r.get("from") == "external_agent" and r.get("to") == "assistant" and i > 0: turn += 1
            if r.get("from") == "assistant" and r.get("to") == "external_agent" and leak_turn is None:
                text = norm(r.get("short_answer") or "")
                if any(s in text for s in wanted): leak_turn = turn
        parts = os.path.relpath(folder, root).split(os.sep)
        g = groups.setdefault(parts[1] + " / " + parts[2], {"n": 0, "k": 0, "d": [], "e": [], "unknown": 0})
        g["n"] += 1
        if answer == "yes":
            g["k"] += 1
            if leak_turn is None: g["unknown"] += 1
            else: g["d"].append(leak_turn); g["e"].append(1)
        else:
            g["d"].append(turn); g["e"].append(0)
out = {}
for label, g in groups.items():
    entry = {"n": g["n"], "k": g["k"], "unknown": g["unknown"], "steps": [], "median": None, "median_ci": [None, None]}
    if g["d"]:
        k = KaplanMeierFitter().fit(g["d"], g["e"])
        sf, ci = k.survival_function_, k.confidence_interval_
        entry["steps"] = [[float(t), float(sf.iloc[i, 0]), float(ci.iloc[i, 0]), float(ci.iloc[i, 1])] for i, t in enumerate(sf.index) if t > 0]
        fin = lambda v: None if v == float("inf") else float(v)
        entry["median"] = fin(k.median_survival_time_)
        mci = median_survival_times(ci)
        entry["median_ci"] = [fin(mci.iloc[0, 0]), fin(mci.iloc[0, 1])]
    out[label] = entry
print(json.dumps(out))
"#;

/// The repository's copy of ten of the benchmark's runs, and the larger sample `CONVERSE_BENCHMARK_LOGS`
/// names (its `logs/` folder) when it is set: nothing outside the repository is read otherwise.
fn benchmark_logs() -> Vec<std::path::PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![manifest.join("tests/fixtures/converse-benchmark-logs/logs")];
    if let Some(more) = std::env::var_os("CONVERSE_BENCHMARK_LOGS") {
        roots.push(std::path::PathBuf::from(more).join("logs"));
    }
    roots
}

/// Issue 28: the rates and the survival curves `export --format json --by model,defence` gives
/// over the benchmark's runs equal a direct count of the judge files and logs in Python, fitted
/// with lifelines.
#[test]
fn chart_series_of_the_benchmark_runs_equal_a_direct_count() {
    for root in benchmark_logs() {
        let home = tempfile::tempdir().unwrap();
        let root_text = root.to_str().unwrap();
        let ours = json_rows(
            home.path(),
            &[
                "export",
                root_text,
                "--format",
                "json",
                "--by",
                "model,defence",
                "--judge",
                "imported:gpt-5",
                "--no-cache",
            ],
        );
        let series = &ours[0];
        let direct: Value = serde_json::from_str(&run_script(DIRECT_COUNT, &[root_text, "gpt-5"])).unwrap();
        let direct = direct.as_object().unwrap();
        let bars =
            series["rates"].as_array().unwrap().iter().find(|r| r["judge"] == "privacy").unwrap()["bars"]
                .as_array()
                .unwrap()
                .clone();
        assert_eq!(bars.len(), direct.len(), "{root_text}: groups");
        let lines = series["survival"].as_array().unwrap().iter().find(|r| r["judge"] == "privacy").unwrap()
            ["lines"]
            .as_array()
            .unwrap()
            .clone();
        let mut events = 0;
        for (label, count) in direct {
            let bar = bars.iter().find(|b| b["label"] == label.as_str()).unwrap_or_else(|| panic!("{label}"));
            assert_eq!((&bar["n"], &bar["succeeded"]), (&count["n"], &count["k"]), "{label}");
            let line = lines.iter().find(|l| l["label"] == label.as_str()).unwrap();
            assert_eq!(line["unknown_turn"], count["unknown"], "{label}");
            let steps = line["curve"]["steps"].as_array().unwrap();
            let theirs = count["steps"].as_array().unwrap();
            assert_eq!(steps.len(), theirs.len(), "{label}: {steps:?} {theirs:?}");
            for (ours, theirs) in steps.iter().zip(theirs) {
                assert_eq!(ours["turn"].as_f64(), theirs[0].as_f64(), "{label}");
                close(&format!("{label} S"), ours["survival"].as_f64().unwrap(), theirs[1].as_f64().unwrap());
                close(
                    &format!("{label} lower"),
                    ours["ci95"][0].as_f64().unwrap(),
                    theirs[2].as_f64().unwrap(),
                );
                close(
                    &format!("{label} upper"),
                    ours["ci95"][1].as_f64().unwrap(),
                    theirs[3].as_f64().unwrap(),
                );
                events += ours["events"].as_u64().unwrap();
            }
            assert_eq!(line["curve"]["median"].as_f64(), count["median"].as_f64(), "{label} median");
            let ci = |v: &Value, i: usize| v[i].as_f64();
            let (ours, theirs) = (&line["curve"]["median_ci95"], &count["median_ci"]);
            assert_eq!((ci(ours, 0), ci(ours, 1)), (ci(theirs, 0), ci(theirs, 1)), "{label} median CI");
        }
        assert!(events > 0, "{root_text}: some leak with a known turn");
    }
}

/// Issue 28: `export --format html --by …` writes one self-contained page (no script, nothing
/// fetched) with a rate chart and a survival chart per judge as SVG; headless Chromium (Debian's
/// package) renders it, and its DOM holds one bar per group. Under CI=true a missing Chromium
/// fails the test.
#[test]
fn the_html_report_is_self_contained_and_chromium_renders_its_charts() {
    let home = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/converse-benchmark-logs/logs");
    let page = home.path().join("report.html");
    let out = run_in(
        home.path(),
        &[
            "export",
            root.to_str().unwrap(),
            "--format",
            "html",
            "--by",
            "model,defence",
            "-o",
            page.to_str().unwrap(),
            "--no-cache",
        ],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("<script") && !html.contains(" src=") && !html.contains(" href="),
        "self-contained"
    );
    // The only URL is the SVG namespace, which is a name, not a fetch.
    assert_eq!(html.matches("http").count(), html.matches("http://www.w3.org/2000/svg").count());
    let series = json_rows(
        home.path(),
        &["export", root.to_str().unwrap(), "--format", "json", "--by", "model,defence", "--no-cache"],
    );
    let bars: usize =
        series[0]["rates"].as_array().unwrap().iter().map(|r| r["bars"].as_array().unwrap().len()).sum();
    let charts =
        series[0]["rates"].as_array().unwrap().len() + series[0]["survival"].as_array().unwrap().len();
    assert!(bars > 0 && charts >= 2, "{series:?}");
    assert_eq!(html.matches("<svg").count(), charts);

    let Some(chromium) = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| std::process::Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
    else {
        assert!(std::env::var("CI").is_err(), "CI installs chromium (.ci/run)");
        eprintln!("skipped: no chromium on this machine");
        return;
    };
    let dom = std::process::Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(dom.status.success(), "{}", String::from_utf8_lossy(&dom.stderr));
    let dom = String::from_utf8_lossy(&dom.stdout);
    // Chromium parsed the SVG: every chart and every bar (a rect each) is in its DOM.
    assert_eq!(dom.matches("<svg").count(), charts, "{dom}");
    assert_eq!(dom.matches("<rect").count(), bars, "{dom}");
    assert!(dom.contains("Turns to the first leak"), "{dom}");
}

/// Issue 28: `chart` prints the charts as text a NO_COLOR terminal reads (piped: no escape, 100
/// columns unless --width), the source in every title; a source the corpus lacks is one line.
#[test]
fn chart_prints_the_charts_of_one_source_without_colour_when_piped() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("runs");
    paired_corpus(&root.join("base"), &root.join("fw"));
    let root_text = root.to_str().unwrap();
    let out = run_in(home.path(), &["chart", root_text, "--by", "defence", "--width", "80", "--no-cache"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\x1b'), "no escapes when piped");
    assert!(text.lines().all(|l| unicode_width::UnicodeWidthStr::width(l) <= 80), "{text}");
    assert!(text.contains("┌ privacy · rule · rate, 95% Wilson CI; █ rate ├─┤ CI"), "{text}");
    // Highest rate first: the baseline (12/20) above the firewall (4/20), with their figures.
    let baseline = text.find("baseline 12/20   60.0%").unwrap_or_else(|| panic!("{text}"));
    let firewall = text.find("firewall  4/20   20.0%").unwrap_or_else(|| panic!("{text}"));
    assert!(baseline < firewall, "{text}");
    // The journals' verdicts name no turn: the curves say so rather than draw a guess.
    assert!(text.contains("no curve: the turn of none of this source's 16 successes is known"), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("40 episodes, grouped by defence; verdicts of rule"), "{stderr}");

    // Issue 35 item 8: piped, a survival legend was cut mid-word at the chart's width. Narrow
    // charts of the benchmark runs wrap each legend between words: every entry reads whole.
    let logs: Vec<String> = benchmark_logs().iter().map(|p| p.display().to_string()).collect();
    let mut args = vec!["chart", "--by", "model,defence", "--width", "50", "--no-cache"];
    args.extend(logs.iter().map(String::as_str));
    let out = run_in(home.path(), &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut series_args = vec!["export", "--by", "model,defence", "--format", "json", "--no-cache"];
    series_args.extend(logs.iter().map(String::as_str));
    let series: Value = serde_json::from_slice(&run_in(home.path(), &series_args).stdout).unwrap();
    let inside: Vec<String> = text
        .lines()
        .map(|l| {
            l.trim_matches('│')
                .trim()
                .trim_start_matches(['●', '■', '▲', '◆', '✚', '✖', '○', '□', '△', '◇'])
                .trim()
                .to_string()
        })
        .collect();
    let flowing = inside.join(" ");
    let flowing: String = flowing.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut legends = 0;
    // The charts drawn as curves (a chart whose leaks all have an unknown turn says so instead).
    let drawn = series["survival"].as_array().unwrap().iter().filter(|c| {
        c["lines"].as_array().unwrap().iter().any(|l| l["curve"]["events"].as_u64().unwrap() > 0)
    });
    for chart in drawn {
        for line in chart["lines"].as_array().unwrap() {
            let (curve, label) = (&line["curve"], line["label"].as_str().unwrap());
            let turn = |t: &Value| t.as_u64().map_or("–".to_string(), |t| t.to_string());
            let median = match curve["median"].as_u64() {
                Some(m) => format!(
                    "median turn {m} [{}, {}]",
                    turn(&curve["median_ci95"][0]),
                    turn(&curve["median_ci95"][1])
                ),
                None => "median not reached".to_string(),
            };
            let unknown = match line["unknown_turn"].as_u64().unwrap() {
                0 => String::new(),
                n => format!(" (+{n} at an unknown turn, left out)"),
            };
            let legend =
                format!("{label} {}/{} events{unknown} · {median}", curve["events"], curve["observations"]);
            assert!(flowing.contains(&legend), "{legend} not whole in\n{text}");
            legends += 1;
        }
    }
    assert!(legends > 0);
    assert!(!flowing.contains("… more"), "every group fits: {text}");

    let out = run_in(home.path(), &["chart", root_text, "--judge", "imported:gpt-5", "--no-cache"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.trim(),
        "converse-tui: --judge imported:gpt-5: no verdict of that source here; sources: rule"
    );
}
