#!/usr/bin/env bash
# `ls` and `summary` on the generated 10,000-episode corpus against Python's json.load and cat of
# the same episode files (files in the page cache), with the index cache warm (the default: a second
# run) and without it (`--no-cache`: every file read), the peak RSS of `ls`, and the peak RSS of the
# browser after opening, sorting, filtering and opening an episode (in a private tmux server).
# Needs: `cargo bench --bench corpus` run once (it writes target/corpus-10k/), a release build
# (`cargo build --release`), hyperfine, GNU time and tmux.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=target/corpus-10k/logs
bin=target/release/converse-tui
[ -d "$corpus" ] || { echo "no $corpus: run cargo bench --bench corpus first" >&2; exit 1; }
list=$(mktemp)
cache=$(mktemp -d)
export CONVERSE_TUI_CACHE="$cache"
trap 'rm -rf "$list" "$cache"; tmux -L measure-corpus kill-server 2>/dev/null || true' EXIT
find "$corpus" -name 'output_*.json' | sort > "$list"
echo "episodes: $(wc -l < "$list"), episode bytes: $(xargs cat < "$list" | wc -c), all bytes: $(du -sb "$corpus" | cut -f1)"
"$bin" ls "$corpus" > /dev/null # fills the index cache
hyperfine --warmup 1 --runs 5 \
    "$bin ls $corpus > /dev/null" \
    "$bin summary $corpus --by model,defence,domain > /dev/null" \
    "$bin ls $corpus --no-cache > /dev/null" \
    "$bin summary $corpus --by model,defence,domain --no-cache > /dev/null" \
    "python3 -c \"import json; [json.load(open(p)) for p in open('$list').read().split()]\"" \
    "xargs cat < $list > /dev/null"
/usr/bin/time -f 'ls peak RSS (warm index cache): %M KiB' "$bin" ls "$corpus" > /dev/null
/usr/bin/time -f 'ls peak RSS (--no-cache): %M KiB' "$bin" ls "$corpus" --no-cache > /dev/null
# The browser: open, sort by privacy (s ×9, S reverses), filter, open a run, return; then its peak RSS.
tmux -L measure-corpus new-session -d -x 160 -y 48 -s browse "exec $bin replay $corpus"
sleep 3
for _ in 1 2 3 4 5 6 7 8 9; do tmux -L measure-corpus send-keys -t browse s; done
tmux -L measure-corpus send-keys -t browse S /
tmux -L measure-corpus send-keys -t browse -l 'model=gpt_5_chat defence=baseline'
tmux -L measure-corpus send-keys -t browse Enter Enter
sleep 2
tmux -L measure-corpus send-keys -t browse b
sleep 1
pid=$(tmux -L measure-corpus list-panes -t browse -F '#{pane_pid}')
grep -E 'VmHWM|VmRSS' "/proc/$pid/status" | sed 's/^/browser /'
