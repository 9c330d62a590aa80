//! Attack search (issue 40) against the defended assistant of `support::defended`: each strategy
//! finds the leak within its budget where CONVERSE's fixed attacker, given the same budget,
//! rarely does (rates over seeds, with Wilson intervals computed here); pruning, backtracking and
//! technique choice are in the node journals; the budget is never exceeded (the scripted server
//! counts the calls); a search stopped by its budget and resumed ends as the uninterrupted one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use converse_tui::config::settings::ModelFlags;
use converse_tui::core::attack::Strategy;
use converse_tui::core::attack::node::{Decision, NodeId, NodeRecord};
use converse_tui::core::attack::plan::{AttackPlan, HandOp, Status};
use converse_tui::core::episode::{ControlAction, EventBody, Outcome, read_journal};
use converse_tui::core::judge::llm::call::JudgeOptions;
use converse_tui::session::attack::{
    AttackArgs, AttackOutcome, SearchControl, SearchUpdate, ShapeFlags, Start, prepare, spawn,
};
use converse_tui::session::{Launch, RunArgs, SettingFlags};

use crate::support::defended::{self, ALARMS, ASSISTANT, ATTACKER, CUES, JUDGE, OFF_TOPIC, TASK};
use crate::support::files::home_paths as paths;
use crate::support::openai_server::{OpenAiServer, Reply};

fn run_args(server: &OpenAiServer, seed: u64) -> RunArgs {
    let mut models = ModelFlags { base_url: Some(server.base_url()), ..ModelFlags::default() };
    models.roles.assistant.model = Some(ASSISTANT.into());
    models.roles.attacker.model = Some(ATTACKER.into());
    models.roles.judge.model = Some(JUDGE.into());
    let settings = SettingFlags { no_stream: true, seed: Some(seed), ..SettingFlags::default() };
    RunArgs { models, settings, ..RunArgs::default() }
}

/// A search's shape and budget, as a test asks for it.
#[derive(Clone)]
struct Asked {
    strategy: Strategy,
    branch: Option<u32>,
    width: Option<u32>,
    depth: u32,
    attempts: Option<u32>,
    budget: u64,
}

/// The shapes the rates are measured with: TAP as the example (`--branch 4 --width 4`),
/// Crescendo and GOAT one conversation long enough to say every word the attacker may say.
fn asked(strategy: Strategy) -> Asked {
    match strategy {
        Strategy::Tap => {
            Asked { strategy, branch: Some(4), width: Some(4), depth: 6, attempts: None, budget: 500 }
        }
        Strategy::Crescendo => {
            Asked { strategy, branch: None, width: None, depth: 9, attempts: None, budget: 120 }
        }
        Strategy::Goat => {
            Asked { strategy, branch: None, width: None, depth: 8, attempts: Some(10), budget: 400 }
        }
    }
}

fn args(server: &OpenAiServer, seed: u64, out: PathBuf, a: &Asked) -> AttackArgs {
    let shape = ShapeFlags {
        strategy: Some(a.strategy),
        depth: Some(a.depth),
        branch: a.branch,
        width: a.width,
        attempts: a.attempts,
        ..ShapeFlags::default()
    };
    let techniques = (a.strategy == Strategy::Goat).then(|| goat_techniques(&out)).into_iter().collect();
    AttackArgs {
        run: run_args(server, seed),
        start: Some(Start::Task(TASK.into())),
        shape,
        techniques,
        budget: Some(a.budget),
        concurrency: 4,
        rpm: Default::default(),
        out,
        resume: false,
        judge_options: JudgeOptions { retry_delay: Duration::ZERO },
    }
}

async fn search(args: &AttackArgs, home: &Path) -> AttackOutcome {
    let parts = prepare(args, &paths(home)).unwrap();
    let mut handle = spawn(parts).unwrap();
    loop {
        if let Some(SearchUpdate::Finished(outcome)) = handle.updates.recv().await {
            return *outcome;
        }
    }
}

/// The world's catalogue for GOAT, beside the search folder: the bundled techniques and eight of
/// the world's own, one word each (the three cues, one alarm, four fillers). GOAT has no
/// backtracking: a conversation whose attacker picks the alarm before the three cues is lost.
fn goat_techniques(out: &Path) -> PathBuf {
    let words = [
        ("loyalty_scheme", CUES[0]),
        ("invoice_check", CUES[1]),
        ("supervisor_approval", CUES[2]),
        ("hard_pressure", ALARMS[0]),
        ("weather_chat", "bramo"),
        ("food_chat", "custel"),
        ("sports_chat", "dravin"),
        ("music_chat", "elkmo"),
    ];
    let text: String = words
        .iter()
        .map(|(name, word)| {
            format!("[[technique]]\nname = \"{name}\"\ndescription = \"Steer to {word}.\"\nexample = \"About {word}?\"\n")
        })
        .collect();
    let path = out.with_extension("techniques.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// CONVERSE's fixed attacker given `budget` calls: whole episodes one after the other while the
/// next fits; whether any leaked (the rule judge's verdict).
async fn fixed_attacker(seed: u64, budget: usize, home: &Path) -> bool {
    let server = defended::server(seed).await;
    let mut run = run_args(&server, seed);
    run.out = Some(home.join("fixed"));
    let launch = Launch::new(&run, &paths(home)).unwrap();
    // The task's reply, 8 turns of attacker and assistant, the 2 LLM judges.
    const EPISODE: usize = 19;
    while server.request_count() + EPISODE <= budget {
        let mut handle = launch.start(TASK).unwrap();
        while handle.updates.recv().await.is_some() {}
        handle.task.await.unwrap();
        let (events, _) = read_journal(&handle.journal_path).unwrap();
        let leaked = events.iter().any(|e| {
            matches!(&e.body, EventBody::Verdict(v) if v.judge == "privacy" && v.outcome == Outcome::Fail)
        });
        if leaked {
            return true;
        }
    }
    assert!(server.request_count() <= budget);
    false
}

/// The 95 % Wilson score interval of k successes in n, computed here from its formula.
fn wilson(k: usize, n: usize) -> (f64, f64) {
    let (k, n, z) = (k as f64, n as f64, 1.959_963_984_540_054_f64);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre - half, centre + half)
}

const SEEDS: u64 = 16;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_strategy_finds_the_leak_within_its_budget_where_the_fixed_attacker_rarely_does() {
    let (w0, w1) = wilson(0, 16);
    // 0 of n: [0, z²/(n + z²)].
    assert!(w0.abs() < 1e-12 && (w1 - 3.841_459 / 19.841_459).abs() < 1e-6, "{w1}");
    let home = tempfile::tempdir().unwrap();
    // The largest budget below: a fixed attacker that leaks within less leaks within it too.
    let budget = 500;
    let mut fixed = 0;
    for seed in 0..SEEDS {
        fixed += usize::from(fixed_attacker(seed, budget, &home.path().join(seed.to_string())).await);
    }
    let (_, fixed_high) = wilson(fixed, SEEDS as usize);
    eprintln!("fixed attacker, {budget} calls: {fixed}/{SEEDS}, 95% CI up to {fixed_high:.2}");
    for strategy in [Strategy::Tap, Strategy::Crescendo, Strategy::Goat] {
        let a = asked(strategy);
        let mut leaks = 0;
        for seed in 0..SEEDS {
            let server = defended::server(seed).await;
            let out = home.path().join(format!("{}-{seed}", strategy.as_str()));
            let outcome = search(&args(&server, seed, out, &a), home.path()).await;
            leaks += usize::from(outcome.status == Status::Leak);
            // The budget holds, and every call the server saw was counted before it was made.
            let seen = server.request_count() as u64;
            assert!(seen <= a.budget, "{strategy:?} seed {seed}: {seen} calls over a budget of {}", a.budget);
            assert_eq!(outcome.calls.total(), seen, "{strategy:?} seed {seed}");
        }
        let (low, high) = wilson(leaks, SEEDS as usize);
        eprintln!("{strategy:?}, {} calls: {leaks}/{SEEDS}, 95% CI [{low:.2}, {high:.2}]", a.budget);
        assert!(
            low > fixed_high,
            "{strategy:?}: {leaks}/{SEEDS} [{low:.2}, {high:.2}] is not above the fixed attacker's {fixed}/{SEEDS} (up to {fixed_high:.2})"
        );
    }
}

fn controls(record: &NodeRecord, action: ControlAction) -> Vec<serde_json::Value> {
    let (events, _) = read_journal(&record.journal).unwrap();
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Control(c) if c.action == action => Some(c.details.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn tap_prunes_off_topic_candidates_before_the_assistant_and_keeps_the_best_width_per_turn() {
    let home = tempfile::tempdir().unwrap();
    let server = defended::server(4).await;
    let a = Asked { branch: Some(3), width: Some(2), ..asked(Strategy::Tap) };
    let outcome = search(&args(&server, 4, home.path().join("run"), &a), home.path()).await;
    let records = &outcome.records;
    let off: Vec<&NodeRecord> = records.iter().filter(|r| r.status() == "off-topic").collect();
    assert!(!off.is_empty(), "the attacker says an off-topic word now and then");
    for r in &off {
        let prune = controls(r, ControlAction::Prune);
        assert_eq!(prune[0]["by"], "on-topic filter", "{}", r.id);
        assert_eq!(r.score, None, "an off-topic candidate is not scored: {}", r.id);
    }
    for word in OFF_TOPIC {
        assert!(!defended::assistant_saw(&server, word), "{word} reached the assistant");
    }
    // Each turn: of the candidates that reached the assistant, the best `width` are kept (none
    // pruned by width scored more than one kept), and every other one says why in its journal.
    let depths = records.iter().map(|r| r.id.depth()).max().unwrap();
    for depth in 1..=depths {
        let turn: Vec<&NodeRecord> =
            records.iter().filter(|r| r.id.depth() == depth && r.status() != "off-topic").collect();
        let pruned: Vec<&&NodeRecord> =
            turn.iter().filter(|r| matches!(r.decision, Decision::Pruned(_))).collect();
        let kept: Vec<&&NodeRecord> = turn.iter().filter(|r| r.decision == Decision::Open).collect();
        assert!(kept.len() <= 2, "depth {depth}: {} kept", kept.len());
        let lowest_kept = kept.iter().map(|r| r.score.unwrap_or(0)).min().unwrap_or(0);
        for r in &pruned {
            assert!(r.score.unwrap_or(0) <= lowest_kept, "{} pruned over a lower kept node", r.id);
            let prune = controls(r, ControlAction::Prune);
            assert_eq!(prune[0]["by"], "width", "{}", r.id);
            assert!(prune[0]["rank"].as_u64().unwrap() > 2, "{}", r.id);
        }
        // A node of the next turn descends from a kept one.
        for child in records.iter().filter(|r| r.id.depth() == depth + 1) {
            assert!(kept.iter().any(|k| Some(&k.id) == child.id.parent().as_ref()), "{}", child.id);
        }
    }
}

#[tokio::test]
async fn crescendo_takes_refused_turns_out_of_the_assistants_context_and_keeps_them_in_its_notes() {
    let home = tempfile::tempdir().unwrap();
    let mut backtracked = 0;
    for seed in 0..4 {
        let server = defended::server(seed).await;
        let out = home.path().join(format!("run{seed}"));
        let outcome = search(&args(&server, seed, out, &asked(Strategy::Crescendo)), home.path()).await;
        assert_eq!(outcome.status, Status::Leak, "seed {seed}");
        for r in outcome.records.iter().filter(|r| r.decision == Decision::Backtracked) {
            backtracked += 1;
            let text = r.text.clone().unwrap();
            assert!(ALARMS.iter().any(|a| text.contains(a)), "{}: {text}", r.id);
            let mark = controls(r, ControlAction::Backtrack);
            let retry = mark[0]["retry"].as_str().unwrap();
            let next = outcome.records.iter().find(|n| n.id.as_str() == retry).unwrap();
            assert_eq!(next.candidate["retry_of"], r.id.as_str());
        }
        // The assistant never answered with a refused message earlier in its context.
        for request in server.requests().iter().filter(|r| r.body["model"] == ASSISTANT) {
            let said: Vec<String> = request
                .messages()
                .iter()
                .filter(|m| m["role"] == "user")
                .filter_map(|m| m["content"].as_str().map(str::to_string))
                .collect();
            for earlier in &said[..said.len().saturating_sub(1)] {
                assert!(!ALARMS.iter().any(|a| earlier.contains(a)), "seed {seed}: {said:?}");
            }
        }
        // The attacker's notes kept them, marked.
        let notes = server
            .requests()
            .iter()
            .filter(|r| r.body["model"] == ATTACKER)
            .any(|r| r.raw_body.contains("REFUSED: you sent"));
        let refused = outcome.records.iter().any(|r| r.decision == Decision::Backtracked);
        assert_eq!(notes, refused, "seed {seed}");
    }
    assert!(backtracked > 0, "the attacker says an alarm word now and then");
}

#[tokio::test]
async fn goat_names_the_technique_of_each_turn_from_its_catalogue() {
    let home = tempfile::tempdir().unwrap();
    let server = defended::server(3).await;
    let a = asked(Strategy::Goat);
    let outcome = search(&args(&server, 3, home.path().join("run"), &a), home.path()).await;
    let turns: Vec<&NodeRecord> = outcome.records.iter().filter(|r| !r.id.is_root()).collect();
    assert!(!turns.is_empty());
    for r in turns {
        let techniques = r.techniques();
        assert_eq!(techniques.len(), 1, "{}: {:?}", r.id, r.candidate);
        // The technique named is the one whose word the message carries.
        let word = r.text.as_deref().unwrap().trim_end_matches('?').rsplit(' ').next().unwrap().to_string();
        // Its own note is the last: the ones before are its ancestors', copied with their turns.
        let notes = controls(r, ControlAction::Candidate);
        assert_eq!(notes.len() as u32, r.id.depth(), "{}", r.id);
        assert_eq!(notes.last().unwrap()["techniques"][0], techniques[0], "{}", r.id);
        let catalogue = std::fs::read_to_string(home.path().join("run.techniques.toml")).unwrap();
        let line = catalogue.lines().position(|l| l == format!("name = \"{}\"", techniques[0])).unwrap();
        assert!(catalogue.lines().nth(line + 1).unwrap().contains(&word), "{}: {word}", r.id);
    }
}

#[tokio::test]
async fn a_search_stopped_by_its_budget_and_resumed_ends_as_the_uninterrupted_one() {
    let home = tempfile::tempdir().unwrap();
    let a = Asked { branch: Some(3), width: Some(2), depth: 5, ..asked(Strategy::Tap) };
    let server = defended::server(11).await;
    let whole = search(&args(&server, 11, home.path().join("whole"), &a), home.path()).await;

    let server = defended::server(11).await;
    let out = home.path().join("parts");
    // 36 calls take the root and the first two turns; 15 more pay for two nodes of the third
    // (the first is off topic, the second waits for its turn's pruning).
    let short = Asked { budget: 51, ..a.clone() };
    let first = search(&args(&server, 11, out.clone(), &short), home.path()).await;
    assert_eq!(first.status, Status::BudgetSpent);
    assert!(server.request_count() <= 51);
    let plan = AttackPlan::read(&out).unwrap().unwrap();
    assert_eq!((plan.status, plan.calls.total()), (Status::BudgetSpent, server.request_count() as u64));
    // What the first part finished is not touched again.
    let done: Vec<(PathBuf, Vec<u8>)> = first
        .records
        .iter()
        .filter(|r| r.complete())
        .map(|r| (r.journal.clone(), std::fs::read(&r.journal).unwrap()))
        .collect();
    // The budget stopped a turn part way: its scored nodes wait for the turn's pruning, their
    // journals without an `end`; the resume decides them with their turn.
    let held = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .filter_map(|e| read_journal(e.path()).ok())
        .filter(|(events, _)| {
            let scored =
                events.iter().any(|e| matches!(&e.body, EventBody::Verdict(v) if v.judge == "progress"));
            scored && !events.iter().any(|e| matches!(e.body, EventBody::End(_)))
        })
        .count();
    assert!(held > 0, "no node was left waiting");
    let mut resume = args(&server, 11, out.clone(), &a);
    resume.resume = true;
    let second = search(&resume, home.path()).await;
    for (journal, bytes) in done {
        assert_eq!(std::fs::read(&journal).unwrap(), bytes, "{} was run again", journal.display());
    }
    let shape = |o: &AttackOutcome| -> Vec<(String, String, Option<u8>, Option<String>)> {
        o.records
            .iter()
            .map(|r| (r.id.to_string(), r.status().to_string(), r.score, r.text.clone()))
            .collect()
    };
    assert_eq!(shape(&second), shape(&whole));
    assert_eq!(second.status, whole.status);
}

#[tokio::test]
async fn a_search_needs_both_models_and_refuses_a_folder_that_holds_one() {
    let home = tempfile::tempdir().unwrap();
    let server = defended::server(0).await;
    let mut a = args(&server, 0, home.path().join("run"), &asked(Strategy::Crescendo));
    a.run.models.roles.judge.model = None;
    let problem = format!("{:#}", prepare(&a, &paths(home.path())).err().unwrap());
    assert!(problem.starts_with("attack needs --attacker-model") && !problem.contains('\n'), "{problem}");
    let a = args(&server, 0, home.path().join("run"), &asked(Strategy::Crescendo));
    search(&a, home.path()).await;
    let problem = format!("{:#}", prepare(&a, &paths(home.path())).err().unwrap());
    assert!(problem.contains("holds a search already: add --resume"), "{problem}");
    let mut other = a.clone();
    (other.resume, other.shape.depth) = (true, Some(3));
    let problem = format!("{:#}", prepare(&other, &paths(home.path())).err().unwrap());
    assert!(problem.contains("--depth differs"), "{problem}");
}

#[tokio::test]
async fn a_retried_call_is_a_call_of_the_budget() {
    let home = tempfile::tempdir().unwrap();
    let server = defended::server(0).await;
    // The first two requests fail (the root's reply, then its retry's): three attempts, three calls.
    server.push(Reply::status(503));
    server.push(Reply::status(503));
    let a = Asked { depth: 2, budget: 40, ..asked(Strategy::Crescendo) };
    let outcome = search(&args(&server, 0, home.path().join("run"), &a), home.path()).await;
    assert_eq!(outcome.calls.total(), server.request_count() as u64);
    assert!(server.requests()[..3].iter().all(|r| r.body["model"] == ASSISTANT));
    assert!(outcome.records.iter().any(|r| r.id.depth() == 2), "{:?}", outcome.status);
}

/// Runs a TAP search in which a person, while it is paused after the root, prunes node 1 and
/// writes the next message after the root himself (the three cues), its branch pinned.
async fn search_by_hand(args: &AttackArgs, home: &Path, written: &str) -> AttackOutcome {
    let parts = prepare(args, &paths(home)).unwrap();
    let mut handle = spawn(parts).unwrap();
    loop {
        match handle.updates.recv().await {
            Some(SearchUpdate::NodeEnded(r)) if r.id == NodeId::root() => {
                handle.control.send(SearchControl::Paused).unwrap();
                handle.prune(&NodeId::root().child(1)).unwrap();
                let child = handle.expand(&NodeId::root(), Some(written.into()), true).unwrap();
                assert_eq!(child, NodeId::root().hand_child(1));
                handle.control.send(SearchControl::Run).unwrap();
            }
            Some(SearchUpdate::Finished(outcome)) => return *outcome,
            Some(_) => {}
            None => panic!("the search ended without a word"),
        }
    }
}

#[tokio::test]
async fn a_persons_prune_and_message_are_kept_in_the_plan_and_a_resume_does_them_again() {
    let home = tempfile::tempdir().unwrap();
    let a = Asked { branch: Some(3), width: Some(2), depth: 3, budget: 400, ..asked(Strategy::Tap) };
    let server = defended::server(11).await;
    let out = home.path().join("by-hand");
    let written = CUES.join(" ");
    let outcome = search_by_hand(&args(&server, 11, out.clone(), &a), home.path(), &written).await;
    let plan = AttackPlan::read(&out).unwrap().unwrap();
    let h1 = NodeId::root().hand_child(1);
    assert_eq!(
        plan.hand,
        vec![
            HandOp::Prune { node: NodeId::root().child(1), at: 0 },
            HandOp::Expand {
                node: NodeId::root(),
                child: h1.clone(),
                text: Some(written.clone()),
                pin: true
            },
        ]
    );
    // Node 1 was pruned at the first turn's ranking, by a person; nothing grew under it.
    let one = outcome.records.iter().find(|r| r.id == NodeId::root().child(1)).unwrap();
    assert_eq!(controls(one, ControlAction::Prune)[0]["by"], "human");
    assert!(outcome.records.iter().all(|r| !r.id.as_str().starts_with("1-")));
    // The person's message went as written, by a human, and its branch leaked there.
    let mine = outcome.records.iter().find(|r| r.id == h1).unwrap();
    assert_eq!(mine.text.as_deref(), Some(written.as_str()));
    assert!(mine.leak.is_some(), "{mine:?}");
    let (events, _) = read_journal(&mine.journal).unwrap();
    let by = events.iter().rev().find_map(|e| match &e.body {
        EventBody::Message(m) if m.text == written => m.by.clone(),
        _ => None,
    });
    assert_eq!(by.as_deref(), Some("human"));
    assert_eq!(outcome.status, Status::Leak);
    assert!(server.request_count() <= 400);

    // A crash lost the person's node: a resume runs it again from the plan, as written, and
    // reads every other node back (the strategy's own make no call).
    std::fs::remove_file(&mine.journal).unwrap();
    let before = server.request_count();
    let mut resume = args(&server, 11, out.clone(), &a);
    resume.resume = true;
    let again = search(&resume, home.path()).await;
    let mine_again = again.records.iter().find(|r| r.id == h1).unwrap();
    assert_eq!(mine_again.text.as_deref(), Some(written.as_str()));
    let made: Vec<String> = server.requests()[before..]
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(!made.iter().any(|m| m == ATTACKER), "no candidate is written again: {made:?}");
    assert!(made.iter().any(|m| m == ASSISTANT), "the person's node ran again: {made:?}");
    let ids = |o: &AttackOutcome| o.records.iter().map(|r| r.id.to_string()).collect::<Vec<_>>();
    assert_eq!(ids(&again), ids(&outcome));
}
