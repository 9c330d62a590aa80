//! Inspect `.eval` logs of any size (issue 29): a log of 500 small samples and one sample with a
//! ~50 MB tool result, written by our own `.eval` writer into `target/inspect-bench/`. Rows from the
//! summaries (no sample read), open to first frame (the browser as `replay` opens a log), and the
//! large sample read alone and drawn. `benches/measure_inspect.sh` measures peak RSS and Inspect's
//! own reader on a log Inspect wrote.

use converse_tui::core::export::Exported;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use converse_tui::app::{Action, AppState, update};
use converse_tui::config::{Keymap, Theme};
use converse_tui::core::dataset::TaskLookup;
use converse_tui::core::episode::*;

const BIG: usize = 50 << 20;
const WORDS: &str = "the assistant checks the user's calendar before it answers the provider's \
    question about travel insurance, hotel prices, the dentist and the bank transfer; ";

fn episode(i: usize, result_bytes: usize) -> Episode {
    let task = TaskInfo {
        id: Some(format!("trip{i}")),
        user_task: Some(format!("Plan trip {i}")),
        ..TaskInfo::default()
    };
    let mut config = EpisodeConfig::default();
    config.models.insert("assistant".into(), "mockllm/model".into());
    let result: String =
        (0..result_bytes / (WORDS.len() + 8) + 1).map(|n| format!("{n}: {WORDS}\n")).collect();
    let bodies = vec![
        EventBody::Episode(Box::new(EpisodeHeader::new(format!("ep-{i}"), task, config))),
        EventBody::Message(Message::new(1, Party::User, Party::Assistant, format!("Plan trip {i}"))),
        EventBody::from(ToolCall {
            turn: 1,
            call_id: format!("c{i}"),
            tool: "search_emails".into(),
            args: serde_json::json!({"query": "trip"}),
            raw_args: None,
            raw: None,
            late: false,
        }),
        EventBody::ToolResult(ToolResult {
            turn: 1,
            call_id: format!("c{i}"),
            tool: "search_emails".into(),
            output: result,
            ok: true,
            raw: None,
        }),
        EventBody::Message(Message::new(1, Party::Assistant, Party::User, "Planned.")),
    ];
    Episode::new(stamp_events(bodies, "2026-11-25T00:00:00Z"), format!("ep-{i}"))
}

fn log() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/inspect-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("criterion.eval");
    if !path.exists() {
        let episodes: Vec<Episode> =
            std::iter::once(episode(0, BIG)).chain((1..=500).map(|i| episode(i, 20 << 10))).collect();
        let with_notes: Vec<Exported> =
            episodes.iter().map(|episode| Exported { episode, notes: Vec::new(), written: None }).collect();
        let file = std::fs::File::create(&path).unwrap();
        converse_tui::core::export::to_eval(&with_notes, "2026-11-25T00:00:00Z", file).unwrap();
    }
    path
}

fn first_frame(state: &mut AppState, terminal: &mut Terminal<TestBackend>, theme: &Theme) {
    update(state, Action::Resize(160, 48));
    terminal.draw(|frame| converse_tui::ui::draw(frame, state, theme)).unwrap();
}

fn inspect(c: &mut Criterion) {
    let path = log();
    let theme = Theme::builtin("default");
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let mut group = c.benchmark_group("inspect");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.bench_function("rows_from_summaries/501_samples", |b| {
        b.iter(|| converse_tui::core::import::inspect::summary_episodes(&path).unwrap());
    });
    group.bench_function("open_to_first_frame/browser_501_samples", |b| {
        b.iter(|| {
            let inputs = [path.clone()];
            let (mut state, _) = converse_tui::tui::setup::open_inputs(
                &inputs,
                TaskLookup::default(),
                Keymap::default(),
                None,
            )
            .unwrap();
            first_frame(&mut state, &mut terminal, &theme);
        });
    });
    group.bench_function("open_to_first_frame/50MB_sample", |b| {
        b.iter(|| {
            let episode = converse_tui::core::import::load_episode(&path, "trip0_epoch_1").unwrap();
            let mut state = AppState::with_episode(episode, Keymap::default());
            first_frame(&mut state, &mut terminal, &theme);
        });
    });
    group.finish();
}

criterion_group!(benches, inspect);
criterion_main!(benches);
