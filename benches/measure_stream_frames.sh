#!/usr/bin/env bash
# Frames drawn per second while a reply streams (issue 12): a live run against a local server
# that streams 2,000 deltas over ~4 s; the terminal writes of the binary are counted under strace
# (one frame = one burst of writes to the terminal, writes < 5 ms apart).
# Usage: benches/measure_stream_frames.sh [binary]
set -euo pipefail
bin=${1:-target/release/converse-tui}
port=$((20000 + RANDOM % 10000))
python3 "$(dirname "$0")/stream_server.py" "$port" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null' EXIT
sleep 0.5
home=$(mktemp -d)
trace=$home/trace
session=frames-$$
tmux -L measure new-session -d -s "$session" -x 160 -y 48 \
  "HOME=$home XDG_CONFIG_HOME=$home/config XDG_CACHE_HOME=$home/cache strace -f -ttt -e trace=write -o $trace $bin run --task travel_planning_p1_privacy_unrelated_to_travel_salary --base-url http://127.0.0.1:$port/v1 --assistant-model a --attacker-model b --max-turns 2 --out $home/runs"
sleep 4
tmux -L measure send-keys -t "$session" q
sleep 0.5
tmux -L measure send-keys -t "$session" y
sleep 1
tmux -L measure kill-session -t "$session" 2>/dev/null || true
python3 - "$trace" <<'PY'
import re, sys
times = [float(l.split()[1]) for l in open(sys.argv[1]) if re.search(r"write\(1,", l)]
frames, last = [], None
for t in times:
    if last is None or t - last > 0.005:
        frames.append(t)
    last = t
# The streaming window: from 1 s after start to 3.5 s (the first reply streams for ~4 s).
t0 = times[0]
window = [t for t in frames if t0 + 1 <= t < t0 + 3.5]
print(f"{len(window) / 2.5:.1f} frames/s while a reply streams ({len(window)} frames in 2.5 s)")
PY
rm -rf "$home"
