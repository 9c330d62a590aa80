//! `search` over the generated 10,000-episode corpus (`tests/support/corpus.rs`, the same
//! `target/corpus-10k/` as `benches/corpus.rs`): a literal no file holds (the prefilter skips every
//! file) and one a tenth of the files hold (those decoded). Warm cache. `benches/measure_search.sh`
//! compares the binary with ripgrep.

#[path = "../tests/support/corpus.rs"]
mod generated;

use criterion::{Criterion, criterion_group, criterion_main};

use converse_tui::core::search::{Matcher, Query, files_under, search_files};

const EPISODES: usize = 10_000;

fn search(c: &mut Criterion) {
    let dir = generated::bench_corpus_dir(EPISODES);
    let mut errors = Vec::new();
    let files = files_under(&[dir.join("logs")], &mut errors);
    assert_eq!((files.len(), errors.len()), (EPISODES, 0));
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for pattern in ["zebra crossing", "SBIN0101643"] {
        let matcher = Matcher::new(&Query { pattern: pattern.into(), ..Query::default() }).expect("query");
        group.bench_function(format!("search '{pattern}' 10k episodes"), |b| {
            b.iter(|| search_files(&files, &matcher, None))
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
