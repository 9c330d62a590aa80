#!/usr/bin/env bash
# `ls` and `summary` on the generated 10,000-episode corpus against Python's json.load and cat of
# the same episode files (warm cache), and the peak RSS of `ls`.
# Needs: `cargo bench --bench corpus` run once (it writes target/corpus-10k/), a release build
# (`cargo build --release`), hyperfine and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=target/corpus-10k/logs
bin=target/release/converse-tui
[ -d "$corpus" ] || { echo "no $corpus: run cargo bench --bench corpus first" >&2; exit 1; }
list=$(mktemp)
trap 'rm -f "$list"' EXIT
find "$corpus" -name 'output_*.json' | sort > "$list"
echo "episodes: $(wc -l < "$list"), episode bytes: $(xargs cat < "$list" | wc -c), all bytes: $(du -sb "$corpus" | cut -f1)"
hyperfine --warmup 1 --runs 5 \
    "$bin ls $corpus > /dev/null" \
    "$bin summary $corpus --by model,defence,domain > /dev/null" \
    "python3 -c \"import json; [json.load(open(p)) for p in open('$list').read().split()]\"" \
    "xargs cat < $list > /dev/null"
/usr/bin/time -f 'ls peak RSS: %M KiB' "$bin" ls "$corpus" > /dev/null
