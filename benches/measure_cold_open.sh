#!/usr/bin/env bash
# The browser on a corpus with a cold index cache (files in the page cache): seconds from launch to
# the first row on screen and to the last row indexed, in a private tmux server at 160x48.
# Usage: benches/measure_cold_open.sh BINARY [CORPUS] (default: target/corpus-10k/logs, written by
# `cargo run --example generate_corpus`).
set -euo pipefail
bin=$1
corpus=${2:-target/corpus-10k/logs}
cache=$(mktemp -d)
trap 'tmux -L measure-cold kill-server 2>/dev/null || true; rm -rf "$cache"' EXIT
start=$(date +%s.%N)
tmux -L measure-cold new-session -d -x 160 -y 48 -s c "CONVERSE_TUI_CACHE=$cache $bin replay $corpus"
until tmux -L measure-cold capture-pane -p -t c 2>/dev/null | grep -q '▶'; do sleep 0.01; done
echo "first row: $(echo "$(date +%s.%N) - $start" | bc) s"
while tmux -L measure-cold capture-pane -p -t c | head -1 | grep -q indexing; do sleep 0.05; done
echo "all rows: $(echo "$(date +%s.%N) - $start" | bc) s"
