#!/usr/bin/env bash
# `converse-tui search` against ripgrep (`rg -i -F`) for the same literal over the same episode files
# of the generated 10,000-episode corpus (warm cache, release build): a literal no file holds (every
# file read, the byte prefilter skips all), a rare one (one fixture body in ten: ~1,000 files decoded)
# and a common one (half of the bodies: ~5,000 files decoded).
# Needs: `cargo bench --bench search` (or `--bench corpus`) run once (it writes target/corpus-10k/),
# a release build (`cargo build --release`), hyperfine and ripgrep.
# Both tools' output goes through `wc -l` (ripgrep stops at a file's first match when it writes to
# /dev/null itself).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=target/corpus-10k/logs
bin=target/release/converse-tui
[ -d "$corpus" ] || { echo "no $corpus: run cargo bench --bench search first" >&2; exit 1; }
list=$(mktemp)
trap 'rm -f "$list"' EXIT
find "$corpus" -name 'output_*.json' | sort > "$list"
echo "episodes: $(wc -l < "$list"), episode bytes: $(xargs cat < "$list" | wc -c), all bytes: $(du -sb "$corpus" | cut -f1)"
patterns=("zebra crossing" "SBIN0101643" "insurance")
[ $# -gt 0 ] && patterns=("$@")
for pattern in "${patterns[@]}"; do
    echo "== '$pattern': hits $("$bin" search "$pattern" "$corpus" | wc -l) (search lines), rg lines $(rg -i -F -g 'output_*.json' "$pattern" "$corpus" | wc -l)"
    hyperfine --warmup 1 --runs 5 \
        "$bin search '$pattern' $corpus | wc -l" \
        "rg -i -F -g 'output_*.json' '$pattern' $corpus | wc -l"
done
