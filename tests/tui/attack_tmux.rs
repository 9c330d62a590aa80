//! The attack search on screen (issue 40), as a user runs it: `replay` against the defended world
//! of `support::defended` on the scripted server, `t` to the task picker, the task, `X`, the
//! strategy and budget; the tree fills. Space pauses it (the server hears nothing more), `x`
//! prunes a branch (its node's journal says a person pruned it, nothing grows under it), `e`
//! edits a node's message and the search continues from the edited one (it leaks: the person
//! wrote the cues).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use converse_tui::core::attack::plan::{AttackPlan, HandOp};
use converse_tui::core::episode::{ControlAction, EventBody, Party, read_journal};

use crate::support::defended::{self, ASSISTANT, ATTACKER, CUES, JUDGE, TASK};
use crate::support::openai_server::OpenAiServer;
use crate::support::tmux::{Session, tmux_available};

/// A published run to open first (any episode: the search starts from the picker's task).
const EPISODE: &str = "tests/fixtures/compare-pair/logs/insurance/claude_sonnet_4_0/baseline/persona2/privacy/unrelated_to_insurance_religious_and_cultural_practice_details/output_20250927_120944_rep1.json";

/// How long a request that must not come is waited for (under load this can only miss one).
const NONE_COMES: Duration = Duration::from_millis(1500);

/// `replay`, the picker, the task, `X`, `request` typed over the offered `tap 60`.
fn start_search(server: &OpenAiServer, home: &Path, request: &str) -> Session {
    let s = Session::start(
        &format!(
            "replay '{EPISODE}' --base-url {} --assistant-model {ASSISTANT} --attacker-model {ATTACKER} --judge-model {JUDGE}",
            server.base_url()
        ),
        home,
    );
    s.wait_for("REPLAY");
    s.keys(&["t"]);
    s.keys(&["/", TASK, "Enter"]);
    s.wait_for("Tasks 1/");
    s.keys(&["X"]);
    s.wait_for("attack search: tap|crescendo|goat");
    s.keys(&["BSpace"; 6]);
    s.keys(&[request, "Enter"]);
    s.wait_for("Attack · ");
    s
}

/// A published run copied under `home` in the benchmark's layout (the task is in its path; a
/// search goes beside it), and the dataset its task is looked up in.
fn published_run(home: &Path) -> (PathBuf, PathBuf) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let published = "logs/travel_planning/gpt_5_chat/baseline/persona2/privacy/unrelated_to_travel_bank_ifsc_code/output_20250915_003845_rep1.json";
    let run = home.join(published);
    std::fs::create_dir_all(run.parent().unwrap()).unwrap();
    std::fs::copy(fixtures.join("converse-benchmark-logs").join(published), &run).unwrap();
    (run, fixtures.join("converse-dataset/resources"))
}

/// Waits until `want` holds of the screen (no sleep stands for a state).
fn wait_until(s: &Session, what: &str, want: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let screen = s.screen();
        if want(&screen) {
            return screen;
        }
        assert!(Instant::now() < deadline, "never {what}:\n{screen}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The tree's row of node `id`.
fn row<'a>(screen: &'a str, id: &str) -> Option<&'a str> {
    screen.lines().find(|l| l.contains(&format!("└ {id} ")))
}

/// The status line says the search is over.
fn ended(screen: &str) -> bool {
    ["leak", "nothing found", "budget spent", "all pruned"]
        .iter()
        .any(|status| screen.contains(&format!("attack search {status}:")))
}

/// The search's folder (under the episodes directory of the private home).
fn search_dir(home: &Path) -> PathBuf {
    let found = walk(home).into_iter().find(|p| p.ends_with("attack.json")).expect("a search folder");
    found.parent().unwrap().to_path_buf()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}

/// Waits until the server has heard nothing new for [`NONE_COMES`]; the count then.
async fn quiet(server: &OpenAiServer) -> usize {
    loop {
        let count = server.request_count();
        if !server.wait_for_requests(count + 1, NONE_COMES).await {
            return count;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_search_sends_nothing_and_a_branch_pruned_by_hand_grows_no_further() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let server = defended::slow_server(3, Duration::from_millis(100)).await;
    let s = start_search(&server, home.path(), "tap 60");
    wait_until(&s, "a first-turn node started", |screen| row(screen, "1").is_some());
    s.keys(&["Space"]);
    s.wait_for("PAUSED");
    let held = quiet(&server).await;
    assert!(!server.wait_for_requests(held + 1, NONE_COMES).await, "a paused search sends nothing");
    // The root, then 1: prune it (its candidate may still wait for the turn's ranking).
    s.keys(&["g", "Down", "x"]);
    s.wait_for("node 1 pruned");
    let screen = s.screen();
    assert!(row(&screen, "1").is_some_and(|r| r.contains("pruned by hand")), "{screen}");
    s.keys(&["c"]);
    let screen = wait_until(&s, "the search ended", ended);
    let dir = search_dir(home.path());
    let plan = AttackPlan::read(&dir).unwrap().unwrap();
    assert!(
        matches!(&plan.hand[..], [HandOp::Prune { node, .. }] if node.as_str() == "1"),
        "{:?}",
        plan.hand
    );
    let (events, _) = read_journal(dir.join("node-1.jsonl")).unwrap();
    let by_hand = events.iter().any(|e| {
        matches!(&e.body, EventBody::Control(c) if c.action == ControlAction::Prune && c.details["by"] == "human")
    });
    assert!(by_hand, "node 1's journal says a person pruned it");
    let grown: Vec<PathBuf> =
        walk(&dir).into_iter().filter(|p| p.to_string_lossy().contains("node-1-")).collect();
    assert!(grown.is_empty(), "nothing grows under a pruned node: {grown:?}\n{screen}");
    assert!(server.request_count() <= 60, "the budget holds");
    s.keys(&["q"]);
    s.wait_for("EXIT=");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_edited_on_screen_is_sent_as_written_and_the_search_continues_from_it() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let server = defended::slow_server(5, Duration::from_millis(100)).await;
    let s = start_search(&server, home.path(), "crescendo 60");
    wait_until(&s, "node 1 scored", |screen| row(screen, "1").is_some_and(|r| r.contains("/10")));
    s.keys(&["Space"]);
    s.wait_for("PAUSED");
    // The root, then 1: its message in the prompt, replaced by the three cues.
    s.keys(&["g", "Down", "e"]);
    s.wait_for("send instead");
    s.keys(&["BSpace"; 120]);
    let written = CUES.join(" ");
    s.keys(&[&written, "Enter"]);
    s.wait_for("node h1 asked for after root, its branch runs on");
    s.keys(&["c"]);
    let screen = wait_until(&s, "h1 leaked", |screen| row(screen, "h1").is_some_and(|r| r.contains("LEAK")));
    wait_until(&s, "the search ended", ended);
    let dir = search_dir(home.path());
    let (events, _) = read_journal(dir.join("node-h1.jsonl")).unwrap();
    let said: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Message(m) if m.from == Party::Attacker && m.turn > 1 => Some(m.text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(said, vec![written.as_str()], "{screen}");
    let plan = AttackPlan::read(&dir).unwrap().unwrap();
    assert!(
        matches!(&plan.hand[..], [HandOp::Expand { node, text: Some(t), pin: true, .. }] if node.is_root() && *t == written),
        "{:?}",
        plan.hand
    );
    s.keys(&["q"]);
    s.wait_for("EXIT=");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_on_a_turn_of_a_published_run_searches_from_that_turn_beside_the_run() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let (run, data) = published_run(home.path());
    let server = defended::slow_server(1, Duration::from_millis(20)).await;
    let s = Session::start(
        &format!(
            "replay '{}' --data-dir '{}' --base-url {} --assistant-model {ASSISTANT} --attacker-model {ATTACKER} --judge-model {JUDGE}",
            run.display(),
            data.display(),
            server.base_url()
        ),
        home.path(),
    );
    s.wait_for("REPLAY");
    s.keys(&[":", "2", "Enter", "X"]);
    s.wait_for("attack search: tap|crescendo|goat");
    s.keys(&["BSpace"; 6]);
    s.keys(&["crescendo 30", "Enter"]);
    s.wait_for("from turn 2 of");
    wait_until(&s, "the search ended", ended);
    let dir = search_dir(home.path());
    assert!(dir.starts_with(run.parent().unwrap().join("attacks")), "{}", dir.display());
    let (events, _) = read_journal(dir.join("node-1.jsonl")).unwrap();
    let EventBody::Episode(header) = &events[0].body else { panic!("no header") };
    let original = converse_tui::core::import::load_path(&run).unwrap().remove(0);
    assert_eq!(header.parent.as_ref().unwrap().episode, original.id(), "node 1 forks the run");
    let first_own = events.iter().find_map(|e| match &e.body {
        EventBody::Message(m)
            if m.from == Party::Attacker && m.by.is_none() && m.model.as_deref() == Some(ATTACKER) =>
        {
            Some(m.turn)
        }
        _ => None,
    });
    assert_eq!(first_own, Some(3), "the search's first turn follows the run's turn 2");
    assert!(server.request_count() <= 30, "the budget holds");
    s.keys(&["q"]);
    s.wait_for("EXIT=");
}

/// `replay --assistant a2a:URL`: `X` searches that agent, as forks and fans reach it; it searched
/// the model the run recorded (the flag was dropped), so a person believed their agent tried.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_on_a_replay_naming_an_agent_searches_that_agent() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let (run, data) = published_run(home.path());
    let server = defended::slow_server(1, Duration::from_millis(20)).await;
    let agent = defended::a2a_agent().await;
    let s = Session::start(
        &format!(
            "replay '{}' --data-dir '{}' --base-url {} --assistant a2a:{} --attacker-model {ATTACKER} --judge-model {JUDGE}",
            run.display(),
            data.display(),
            server.base_url(),
            agent.root_url()
        ),
        home.path(),
    );
    s.wait_for("REPLAY");
    s.keys(&[":", "2", "Enter", "X"]);
    s.wait_for("attack search: tap|crescendo|goat");
    // The offered `tap 60` gives way to what is typed.
    s.keys(&["crescendo 30", "Enter"]);
    s.wait_for("from turn 2 of");
    wait_until(&s, "the search ended", ended);
    s.keys(&["q"]);
    s.wait_for("EXIT=");
    assert!(defended::agent_messages(&agent) > 0, "the agent was attacked");
    let to_a_model = server.requests().iter().filter(|r| r.body["model"] == "gpt_5_chat").count();
    assert_eq!(to_a_model, 0, "no node went to the recorded model");
    let (events, _) = read_journal(search_dir(home.path()).join("node-1.jsonl")).unwrap();
    let EventBody::Episode(header) = &events[0].body else { panic!("no header") };
    let url = &header.config.extra["assistant_agent"]["url"];
    assert!(url.as_str().is_some_and(|u| u.starts_with(&agent.root_url())), "{url}");
}

/// `.` on a paused search lets one node through, then it holds again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_on_a_paused_search_runs_one_node_and_holds_again() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let server = defended::slow_server(2, Duration::from_millis(60)).await;
    let s = start_search(&server, home.path(), "crescendo 60");
    wait_until(&s, "a first-turn node started", |screen| row(screen, "1").is_some());
    s.keys(&["Space"]);
    s.wait_for("PAUSED");
    quiet(&server).await;
    let dir = search_dir(home.path());
    let nodes = || walk(&dir).into_iter().filter(|p| p.to_string_lossy().ends_with(".jsonl")).count();
    let before = nodes();
    s.keys(&["."]);
    let held = quiet(&server).await;
    assert_eq!(nodes(), before + 1, "one node more");
    assert!(!server.wait_for_requests(held + 1, NONE_COMES).await, "then nothing: it holds again");
    assert!(s.screen().contains("PAUSED"), "{}", s.screen());
    s.keys(&["c"]);
    wait_until(&s, "the search ended", ended);
    s.keys(&["q"]);
    s.wait_for("EXIT=");
}
