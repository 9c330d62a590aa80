//! Episodes of any size (issue 14): a generated 50 MB journal of ~120k events and a
//! 50 MB single message. Open to first frame (the whole file, and in steps as `replay` opens a
//! journal: the first batch only), resize, a key (scroll) to frame.
//!
//! The generated files stay in `target/huge/` for measuring peak RSS and `dump`
//! memory on the release binary (`benches/measure_huge.sh`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use converse_tui::app::drive::handle;
use converse_tui::app::{Action, AppState, update};
use converse_tui::config::{Keymap, Theme};
use ratatui::crossterm::event::Event;

const SIZE: usize = 50 << 20;
const WORDS: &str = "the assistant checks the user's calendar before it answers the provider's \
    question about travel insurance, hotel prices, the dentist and the bank transfer; ";

fn header(out: &mut impl Write) {
    writeln!(
        out,
        r#"{{"seq":0,"at":"2026-11-20T10:00:00Z","kind":"episode","format":"converse-tui/1","id":"huge","task":{{"id":"huge"}},"config":{{}}}}"#
    )
    .unwrap();
}

fn message(out: &mut impl Write, seq: usize, turn: usize, from: &str, to: &str, text: &str) {
    let event = serde_json::json!({"seq": seq, "at": "2026-11-20T10:00:01Z", "kind": "message",
        "turn": turn, "from": from, "to": to, "text": text});
    serde_json::to_writer(&mut *out, &event).unwrap();
    out.write_all(b"\n").unwrap();
}

/// ~50 MB of ordinary messages (~400 bytes each), two per turn.
pub fn many_events(dir: &Path) -> PathBuf {
    let path = dir.join("many-events.jsonl");
    if path.exists() {
        return path;
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    header(&mut out);
    let text = WORDS.repeat(2);
    let (mut seq, mut written) = (1, 0);
    while written < SIZE {
        let (from, to) = if seq % 2 == 1 { ("attacker", "assistant") } else { ("assistant", "attacker") };
        message(&mut out, seq, seq.div_ceil(2), from, to, &format!("{seq}: {text}"));
        written += text.len() + 110;
        seq += 1;
    }
    path
}

/// One message of ~50 MB (a huge tool output does this), in paragraphs, between two short ones.
pub fn one_message(dir: &Path) -> PathBuf {
    let path = dir.join("one-message.jsonl");
    if path.exists() {
        return path;
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    header(&mut out);
    message(&mut out, 1, 1, "user", "assistant", "Plan a trip");
    let paragraph = WORDS.repeat(8) + "\n\n";
    message(&mut out, 2, 1, "assistant", "attacker", &paragraph.repeat(SIZE / paragraph.len()));
    message(&mut out, 3, 2, "attacker", "assistant", "Thanks");
    path
}

pub fn huge_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/huge");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn open(path: &Path, terminal: &mut Terminal<TestBackend>, theme: &Theme) -> AppState {
    let episode = converse_tui::core::import::load_path(path).unwrap().remove(0);
    let mut state = AppState::with_episode(episode, Keymap::default());
    update(&mut state, Action::Resize(160, 48));
    terminal.draw(|frame| converse_tui::ui::draw(frame, &state, theme)).unwrap();
    state
}

/// As `replay` opens a journal: its first batch only, the rest left to the loader.
fn open_in_steps(path: &Path, terminal: &mut Terminal<TestBackend>, theme: &Theme) -> AppState {
    use converse_tui::session::journal_load::{BATCH_BYTES, JournalLoad};
    let (episode, rest) = JournalLoad::open(path, BATCH_BYTES).unwrap();
    let mut state = AppState::with_episode(episode, Keymap::default());
    if let Some(rest) = &rest {
        let (read, total) = rest.progress();
        state.loading_rest(rest.id(), read, total);
    }
    update(&mut state, Action::Resize(160, 48));
    terminal.draw(|frame| converse_tui::ui::draw(frame, &state, theme)).unwrap();
    state
}

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn huge(c: &mut Criterion) {
    let dir = huge_dir();
    let theme = Theme::builtin("default");
    let mut group = c.benchmark_group("huge");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    for (name, path) in [("50MB_journal", many_events(&dir)), ("50MB_message", one_message(&dir))] {
        let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
        group.bench_function(format!("read_journal/{name}"), |b| {
            b.iter(|| converse_tui::core::episode::read_journal(&path).unwrap());
        });
        group.bench_function(format!("open_to_first_frame/{name}"), |b| {
            b.iter(|| open(&path, &mut terminal, &theme));
        });
        group.bench_function(format!("open_in_steps_to_first_frame/{name}"), |b| {
            b.iter(|| open_in_steps(&path, &mut terminal, &theme));
        });
        let mut state = open(&path, &mut terminal, &theme);
        // At the end of the episode, the huge message in view.
        handle(&mut state, key(KeyCode::Char('G')));
        // Focus the Assistant pane, where the huge message is.
        handle(&mut state, key(KeyCode::Tab));
        terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
        group.bench_function(format!("resize_200_150_200/{name}"), |b| {
            b.iter(|| {
                for width in [200, 150, 200] {
                    update(&mut state, Action::Resize(width, 48));
                    terminal.resize(ratatui::layout::Rect::new(0, 0, width, 48)).unwrap();
                    terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
                }
            });
        });
        group.bench_function(format!("detail_open_close/{name}"), |b| {
            b.iter(|| {
                // Enter opens the newest item of the Assistant pane (the huge message), Esc closes.
                handle(&mut state, key(KeyCode::Enter));
                terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
                handle(&mut state, key(KeyCode::Esc));
            });
        });
        group.bench_function(format!("key_to_frame/{name}"), |b| {
            let mut up = true;
            b.iter(|| {
                up = !up;
                handle(&mut state, key(if up { KeyCode::PageUp } else { KeyCode::PageDown }));
                terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).unwrap();
            });
        });
    }
    group.finish();
}

criterion_group!(benches, huge);
criterion_main!(benches);
