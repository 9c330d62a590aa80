//! Indexing a directory of 2,000 realistic journals: the summaries (header and tail) and the
//! corpus index the browser and `ls` use.

#[path = "../tests/support/journals.rs"]
mod journals;

use criterion::{Criterion, criterion_group, criterion_main};

use converse_tui::core::import::index_dir;

fn index(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    journals::write_journals(dir.path(), 2_000);
    let mut group = c.benchmark_group("index");
    group.sample_size(20);
    group.bench_function("index_dir 2000 journals", |b| {
        b.iter(|| {
            let (summaries, errors) = index_dir(dir.path());
            assert_eq!((summaries.len(), errors.len()), (2_000, 0));
            summaries
        })
    });
    // What the browser and `ls` read now: the corpus index (every event, texts skipped), uncached.
    group.bench_function("corpus::index 2000 journals (no cache)", |b| {
        b.iter(|| {
            let corpus = converse_tui::core::corpus::index(&[dir.path().to_path_buf()]);
            assert_eq!((corpus.rows.len(), corpus.errors.len()), (2_000, 0));
            corpus
        })
    });
    group.finish();
}

criterion_group!(benches, index);
criterion_main!(benches);
