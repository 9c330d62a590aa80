//! Attempt fans from the TUI (issue 28), as a user runs them: `replay` an episode against the
//! scripted server, `:` to turn 2, `f`, how many, Enter; the fan fills on screen and the counts
//! it shows are those the attempts' journals hold (and the Wilson interval a hand computation
//! gives); Space holds new requests until `c`, `.` lets one through; `B` shows the attempts in
//! the fork tree.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use converse_tui::core::episode::{EventBody, Outcome, read_journal};

use crate::support::batch_cli::{converse_tui, records, strings};
use crate::support::fan_source::{LEAK, REFUSAL, leaked_at_turn_2};
use crate::support::openai_server::{OpenAiServer, Reply};
use crate::support::tmux::{Session, tmux_available};

/// The 95% Wilson interval, from its formula.
fn wilson(k: f64, n: f64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre - half, centre + half)
}

/// The attempts' journals in the fan's folder, and how many of them the privacy rule judge
/// found leaking in their own part (after the copied events).
fn journal_leaks(fan_dir: &Path, parent: &str) -> (usize, usize) {
    let mut journals = 0;
    let mut leaks = 0;
    for entry in std::fs::read_dir(fan_dir).unwrap().flatten() {
        if entry.path().extension().is_none_or(|e| e != "jsonl") || entry.file_name() == "runs.jsonl" {
            continue;
        }
        let (events, _) = read_journal(entry.path()).unwrap();
        let EventBody::Episode(header) = &events[0].body else { panic!("no header") };
        let branch = header.parent.as_ref().expect("a fork journal");
        assert_eq!(branch.episode, parent);
        journals += 1;
        let own = events.iter().position(|e| e.seq == branch.seq).unwrap() + 1;
        let leaked = events[own..].iter().any(|e| {
            matches!(&e.body, EventBody::Verdict(v) if v.judge == "privacy" && v.model.is_none() && v.outcome == Outcome::Fail)
        });
        leaks += usize::from(leaked);
    }
    (journals, leaks)
}

fn start_replay(episode: &Path, server: &OpenAiServer, home: &Path, extra: &str) -> Session {
    let s = Session::start(
        &format!(
            "replay '{}' --base-url {} --assistant-model m {extra}",
            episode.display(),
            server.base_url()
        ),
        home,
    );
    s.wait_for("REPLAY");
    s.keys(&[":", "2", "Enter"]);
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fan_from_the_inspector_shows_the_leaks_its_journals_hold() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let episode = leaked_at_turn_2(home.path()).await;
    // 3 of the 10 replies leak.
    let replies = (0..10).map(|i| Reply::text(if i % 10 < 3 { LEAK } else { REFUSAL })).collect();
    let server = OpenAiServer::start(replies).await;
    let s = start_replay(&episode, &server, home.path(), "--fan-concurrency 3");
    s.keys(&["f"]);
    s.wait_for("re-run from here how many times?");
    s.keys(&["1", "0", "Enter"]);
    let screen = s.wait_for("10/10 ended");
    let screen = if screen.contains("done") { screen } else { s.wait_for("done") };
    assert_eq!(server.request_count(), 10, "one assistant reply per attempt");

    let parent = episode.file_stem().unwrap().to_string_lossy().into_owned();
    let fan_dir = episode.parent().unwrap().join("fans").join(format!("{parent}__t2"));
    let (journals, leaks) = journal_leaks(&fan_dir, &parent);
    assert_eq!((journals, leaks), (10, 3));
    assert!(screen.contains(&format!("leaked    {leaks}/{journals}")), "{screen}");
    let (lo, hi) = wilson(leaks as f64, journals as f64);
    let interval = format!("30.0%  [{:.1}%, {:.1}%]", lo * 100.0, hi * 100.0);
    assert!(screen.contains(&interval), "{interval} not on\n{screen}");
    assert_eq!(screen.matches("LEAK@2").count(), 3, "{screen}");
    assert!(screen.contains("first leak at turn 2: 3 · partial 0 · undecided 0"), "{screen}");
    // Each attempt is in the folder's runs file, as `fan` records it.
    let mut repeats: Vec<u64> =
        records(&fan_dir.join("runs.jsonl")).iter().map(|r| r["repeat"].as_u64().unwrap()).collect();
    repeats.sort();
    assert_eq!(repeats, (1..=10).collect::<Vec<u64>>());

    // The fork tree has the fan under turn 2, with the same count.
    s.keys(&["B"]);
    let tree = s.wait_for("Fork tree of");
    let tree = if tree.contains("10 attempt(s)") { tree } else { s.wait_for("10 attempt(s)") };
    assert!(tree.contains("◆ turn 2: 10 fork(s) branched here"), "{tree}");
    assert!(tree.contains("privacy rule 3/10"), "{tree}");
    // Esc back to the fan, Enter opens the first attempt; `B` on it shows its family, rooted at
    // the episode, the attempt selected; Esc, Esc come back to the fan.
    s.keys(&["Escape"]);
    s.wait_for("Attempts from turn 2");
    s.keys(&["Enter"]);
    s.wait_for("REPLAY");
    s.keys(&["B"]);
    let family = s.wait_for(&format!("Fork tree of {parent} 10 fork(s)"));
    let selected = family.lines().find(|l| l.starts_with("│▶")).unwrap_or_default();
    assert!(selected.contains("○ #1 "), "{family}");
    s.keys(&["Escape"]);
    s.wait_for("REPLAY");
    s.keys(&["Escape"]);
    s.wait_for("Attempts from turn 2");
    // `=`: the attempt beside the original, from turn 2 on; Esc back to the fan.
    s.keys(&["="]);
    // Which attempt got a leaking reply is the scheduler's: the pair may or may not diverge.
    let compared = s.wait_for("B ep-");
    assert!(compared.contains(&format!("fork of {parent}")), "{compared}");
    s.keys(&["Escape"]);
    s.wait_for("Attempts from turn 2");
    s.keys(&["q"]);
    s.wait_for("EXIT=0");
}

/// What the fan screen's title says of the attempts: ended, running, and whether it is paused.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Progress {
    ended: usize,
    running: usize,
    paused: bool,
}

fn progress(screen: &str) -> Option<Progress> {
    let line = screen.lines().find(|l| l.contains(" Fan · "))?;
    let title = line.split(" Fan · ").nth(1)?;
    let ended = title.split('/').next()?.trim().parse().ok()?;
    let running = title
        .split(" · ")
        .find_map(|part| part.strip_suffix(" running"))
        .map_or(Some(0), |n| n.trim().parse().ok())?;
    Some(Progress { ended, running, paused: title.contains("PAUSED") })
}

/// Waits until the fan screen's progress is `want`, and returns it (the screen is read, no sleep
/// stands for a state).
fn wait_for_progress(s: &Session, want: impl Fn(Progress) -> bool) -> Progress {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let screen = s.screen();
        match progress(&screen) {
            Some(p) if want(p) => return p,
            _ => assert!(Instant::now() < deadline, "the fan never got there:\n{screen}"),
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// How long a request that must not come is waited for. Under load this can only miss a request
/// (a false pass), never fail a fan that holds: every count compared is read once the screen says
/// nothing runs.
const NONE_COMES: Duration = Duration::from_millis(1500);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pausing_a_fan_holds_new_requests_until_it_continues() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let episode = leaked_at_turn_2(home.path()).await;
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::text(REFUSAL).delay(Duration::from_millis(400)));
    let s = start_replay(&episode, &server, home.path(), "--fan-concurrency 1");
    s.keys(&["f"]);
    s.wait_for("re-run from here how many times?");
    s.keys(&["6", "Enter", "Space"]);
    // What was in flight when the pause came ends; then nothing runs, and each ended attempt made
    // its one request (a reply-only fan asks the assistant once per attempt).
    let held = wait_for_progress(&s, |p| p.paused && p.running == 0);
    assert!(held.ended < 6, "paused before the end ({held:?})");
    assert_eq!(server.request_count(), held.ended, "one request per ended attempt, none in flight");
    assert!(!server.wait_for_requests(held.ended + 1, NONE_COMES).await, "a paused fan sends no request");
    // A step lets one call through (the next attempt's, none running), then holds again.
    s.keys(&["."]);
    s.wait_for("step:");
    let stepped = wait_for_progress(&s, |p| p.ended == held.ended + 1 && p.running == 0);
    assert!(stepped.paused);
    assert_eq!(server.request_count(), held.ended + 1, "one step, one request");
    assert!(!server.wait_for_requests(held.ended + 2, NONE_COMES).await, "held again after the step");
    s.keys(&["c"]);
    wait_for_progress(&s, |p| p.ended == 6);
    assert_eq!(server.request_count(), 6);
    s.keys(&["q"]);
    s.wait_for("EXIT=0");
}

/// A fan quit on screen: its episode, the server, the episode's id, its folder and how many of
/// its attempts ended before the quit.
struct QuitFan {
    episode: PathBuf,
    server: OpenAiServer,
    parent: String,
    fan_dir: PathBuf,
    before: usize,
}

/// A fan of 6 from turn 2 (slow refusals, 2 at a time) quit once 2 attempts ended: the running
/// ones are aborted, not recorded.
async fn quit_a_fan_of_6(home: &Path) -> QuitFan {
    let episode = leaked_at_turn_2(home).await;
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::text(REFUSAL).delay(Duration::from_millis(1200)));
    let s = start_replay(&episode, &server, home, "--fan-concurrency 2");
    s.keys(&["f"]);
    s.wait_for("re-run from here how many times?");
    s.keys(&["6", "Enter"]);
    s.wait_for("2/6 ended");
    s.keys(&["q"]);
    s.wait_for("Abort them and quit?");
    s.keys(&["y"]);
    s.wait_for("EXIT=0");
    let parent = episode.file_stem().unwrap().to_string_lossy().into_owned();
    let fan_dir = episode.parent().unwrap().join("fans").join(format!("{parent}__t2"));
    let before = records(&fan_dir.join("runs.jsonl")).len();
    assert!((2..6).contains(&before), "{before} attempts recorded before the quit");
    QuitFan { episode, server, parent, fan_dir, before }
}

/// Quitting while the fan runs aborts its attempts; `fan --resume` on its folder then runs exactly
/// the attempts that did not end, and no more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fan_quit_on_screen_is_finished_by_fan_resume() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let QuitFan { episode, server, fan_dir, before, .. } = quit_a_fan_of_6(home.path()).await;

    let args = strings(&[
        "fan",
        &episode.display().to_string(),
        "--turn",
        "2",
        "-n",
        "6",
        "--base-url",
        &server.base_url(),
        "--assistant-model",
        "m",
        "--out",
        &fan_dir.display().to_string(),
        "--resume",
    ]);
    let asked = server.request_count();
    let output = converse_tui(home.path(), args).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(server.request_count() - asked, 6 - before, "only the attempts not recorded run");
    let mut repeats: Vec<u64> =
        records(&fan_dir.join("runs.jsonl")).iter().map(|r| r["repeat"].as_u64().unwrap()).collect();
    repeats.sort();
    assert_eq!(repeats, (1..=6).collect::<Vec<u64>>(), "every attempt exactly once");
    assert!(String::from_utf8_lossy(&output.stdout).contains("fan of 6 attempt(s) from turn 2"));
}

/// Quitting while the fan runs, then `f` on the same turn of the same episode: the question says a
/// fan stopped there, and Enter alone runs exactly the attempts that did not end, in the same
/// folder; the screen counts every attempt, the earlier ones read back from their journals.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fan_quit_on_screen_is_finished_from_the_screen() {
    if !tmux_available() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let QuitFan { episode, server, parent, fan_dir, before } = quit_a_fan_of_6(home.path()).await;
    let fans = fan_dir.parent().unwrap().to_path_buf();

    // Every attempt but the last leaks now: the tally must hold the earlier refusals too.
    server.set_default(Reply::text(LEAK));
    let s = start_replay(&episode, &server, home.path(), "--fan-concurrency 2");
    // The fork tree says the fan stopped short of its plan.
    s.keys(&["B"]);
    let tree = s.wait_for("of 6 attempt(s), stopped");
    assert!(tree.contains(&format!("Fork tree of {parent}")), "{tree}");
    s.keys(&["Escape"]);
    s.wait_for("REPLAY");
    s.keys(&["f"]);
    s.wait_for(&format!("a fan stopped here at {before}/6: Enter runs the rest"));
    let asked = server.request_count();
    s.keys(&["Enter"]);
    let screen = s.wait_for("6/6 ended");
    let screen = if screen.contains("fan done") { screen } else { s.wait_for("fan done") };
    assert_eq!(server.request_count() - asked, 6 - before, "only the attempts not recorded run");
    let mut repeats: Vec<u64> =
        records(&fan_dir.join("runs.jsonl")).iter().map(|r| r["repeat"].as_u64().unwrap()).collect();
    repeats.sort();
    assert_eq!(repeats, (1..=6).collect::<Vec<u64>>(), "every attempt exactly once");
    let leaks = 6 - before;
    let (lo, hi) = wilson(leaks as f64, 6.0);
    let tally = format!("{leaks}/6   {:.1}%  [{:.1}%, {:.1}%]", leaks as f64 / 0.06, lo * 100.0, hi * 100.0);
    assert!(screen.contains(&tally), "{tally} not on\n{screen}");
    assert_eq!(screen.matches("privacy rule pass  no leak").count(), before, "{screen}");
    let (journals, journal_leaks) = journal_leaks(&fan_dir, &parent);
    assert_eq!((journals, journal_leaks), (6, leaks), "the screen's count is the journals'");
    assert_eq!(std::fs::read_dir(&fans).unwrap().count(), 1, "no second fan folder");
    s.keys(&["q"]);
    s.wait_for("EXIT=0");
}
