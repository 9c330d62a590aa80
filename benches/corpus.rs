//! The corpus commands over a generated 10,000-episode corpus in the benchmark
//! layout (`tests/support/corpus.rs`): index, `ls`, `summary --by`.
//!
//! The corpus is written once to `target/corpus-10k/` and reused (delete it to
//! regenerate); its files stay in the page cache between runs, so these are
//! warm-cache figures.

#[path = "../tests/support/corpus.rs"]
mod generated;

use criterion::{Criterion, criterion_group, criterion_main};

use converse_tui::app::browser::Browser;
use converse_tui::app::{Action, AppState, update};
use converse_tui::config::{Keymap, Theme};
use converse_tui::core::corpus::series::{chart_series, groups_by};
use converse_tui::core::corpus::{index, index_cached};
use converse_tui::headless::ls::{LsArgs, ls};
use converse_tui::headless::summary::{Format, SummaryArgs, summary};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const EPISODES: usize = 10_000;

fn corpus(c: &mut Criterion) {
    let dir = generated::bench_corpus_dir(EPISODES);
    let paths = vec![dir.join("logs")];
    let mut group = c.benchmark_group("corpus");
    group.sample_size(10);
    group.bench_function("index 10k episodes", |b| {
        b.iter(|| {
            let corpus = index(&paths);
            assert_eq!((corpus.rows.len(), corpus.errors.len()), (EPISODES, 0));
            corpus
        })
    });
    // The index cache as a second run finds it: every folder stamped, no episode read.
    let cache = tempfile::tempdir().expect("cache dir");
    let warm = index_cached(&paths, Some(cache.path()));
    assert_eq!((warm.rows.len(), warm.errors.len()), (EPISODES, 0));
    group.bench_function("index 10k episodes, warm index cache", |b| {
        b.iter(|| {
            let corpus = index_cached(&paths, Some(cache.path()));
            assert_eq!(corpus.rows.len(), EPISODES);
            corpus
        })
    });
    // What `replay …/logs` does before its first frame (the terminal set-up aside).
    group.bench_function("browser first frame 10k episodes, warm index cache", |b| {
        let theme = Theme::builtin("default");
        b.iter(|| {
            let corpus = index_cached(&paths, Some(cache.path()));
            let errors = corpus.errors.iter().map(ToString::to_string).collect();
            let browser = Browser::from_rows("logs", corpus.rows, errors);
            let mut state = AppState::with_browser(browser, Keymap::default(), false);
            update(&mut state, Action::Resize(160, 48));
            let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
            terminal.draw(|frame| converse_tui::ui::draw(frame, &state, &theme)).expect("draw");
            state
        })
    });
    group.bench_function("ls 10k episodes (table)", |b| {
        let args = LsArgs { paths: paths.clone(), json: false, filter: None, width: Some(160), cache: None };
        b.iter(|| ls(&args, &mut std::io::sink(), &mut std::io::sink()).expect("ls"))
    });
    // Issue 28: the series behind the charts, computed when the groups change (never per frame).
    let rows = index_cached(&paths, Some(cache.path())).rows;
    group.bench_function("chart series 10k episodes by model,defence", |b| {
        let by = ["model", "defence"].map(String::from).to_vec();
        b.iter(|| chart_series(&groups_by(&rows, &by), &by, "imported:gpt-5", false))
    });
    // `c` in the browser's grouped view: the groups rebuilt with their series, then one frame.
    let browser = Browser::from_rows("logs", rows.clone(), Vec::new());
    let mut charted = AppState::with_browser(browser, Keymap::default(), false);
    update(&mut charted, Action::Resize(160, 48));
    group.bench_function("browser c (chart view) 10k episodes: rebuild and one frame", |b| {
        let theme = Theme::builtin("default");
        b.iter(|| {
            let browser = charted.browser_mut().expect("browser");
            browser.cycle_chart();
            let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
            terminal.draw(|frame| converse_tui::ui::draw(frame, &charted, &theme)).expect("draw");
        })
    });
    group.bench_function("chart view: one frame 10k episodes (series already computed)", |b| {
        let theme = Theme::builtin("default");
        let browser = charted.browser_mut().expect("browser");
        browser.chart = None;
        browser.cycle_chart();
        let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
        b.iter(|| terminal.draw(|frame| converse_tui::ui::draw(frame, &charted, &theme)).expect("draw").area)
    });
    group.bench_function("summary --by model,defence,domain 10k episodes", |b| {
        let by = ["model", "defence", "domain"].map(String::from).to_vec();
        let args = SummaryArgs {
            paths: paths.clone(),
            by: Some(by),
            pool: false,
            count_all: false,
            judge_model: None,
            format: Format::Table,
            compare: false,
            cache: None,
            vs: None,
            all_tasks: false,
        };
        b.iter(|| summary(&args, &mut std::io::sink(), &mut std::io::sink()).expect("summary"))
    });
    group.finish();
}

criterion_group!(benches, corpus);
criterion_main!(benches);
