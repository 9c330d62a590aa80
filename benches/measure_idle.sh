#!/usr/bin/env bash
# Syscalls per second of the TUI sitting idle on a replay (issue 12's "idle syscalls" figure).
# Runs the binary under strace in a detached tmux session, counts the syscalls of a 3-second idle
# window (after 2 s of start-up), then quits. Usage: benches/measure_idle.sh [binary] [episode]
set -euo pipefail
bin=${1:-target/release/converse-tui}
episode=${2:-tests/fixtures/converse-benchmark-logs/logs/travel_planning/gemini_2.5_flash/baseline/persona3/security/email_manipulation_attack_8/output_20250925_235122_rep1.json}
trace=$(mktemp)
session=idle-$$
tmux -L measure new-session -d -s "$session" -x 160 -y 48 "strace -f -ttt -o $trace $bin replay $episode"
sleep 7
tmux -L measure send-keys -t "$session" q
sleep 1
python3 - "$trace" <<'PY'
import sys
stamps = []
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) > 2 and not parts[2].startswith("<...") and not parts[2].startswith("---") and not parts[2].startswith("+++"):
        stamps.append(float(parts[1]))
t0 = stamps[0]
window = [t for t in stamps if t0 + 2 <= t < t0 + 5]
print(f"{len(window) / 3:.1f} syscalls/s idle ({len(window)} in a 3 s window)")
PY
rm -f "$trace"
