//! Writes the generated 10,000-episode corpus of `benches/corpus.rs` to
//! `target/corpus-10k/` (same seed, same marker), without building the benches:
//! `cargo run --example generate_corpus`. `benches/measure_corpus.sh` measures over it.

#[path = "../tests/support/corpus.rs"]
mod generated;

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/corpus-10k");
    let done = dir.join(".complete");
    if done.exists() {
        println!("{} is there already (delete it to regenerate)", dir.display());
        return;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let judge_files = generated::generate(&dir, 10_000, 10_000);
    std::fs::write(&done, "").expect("marker");
    println!("10000 episodes and {judge_files} judge files under {}", dir.display());
}
