#!/bin/sh
# An Inspect `.eval` of any size (issue 29): converse-tui against Inspect's own reader on the same
# file. Generate it first with Inspect's writer (the test venv):
#   target/tmp/py-venv-*/bin/python benches/inspect_large.py target/inspect-bench/big.eval 100 1000 100
# Needs tmux and GNU time. Usage: benches/measure_inspect.sh [FILE]
set -eu
bin=${BIN:-target/release/converse-tui}
file=${1:-target/inspect-bench/big.eval}
python=$(ls -d target/tmp/py-venv-*/bin/python | head -1)
sock=${TMUX_SOCKET:-measure}
out=$(dirname "$file")/time.out
echo "$file: $(($(stat -c %s "$file") / 1048576)) MiB on disk, $(unzip -l "$file" | tail -1 | awk '{print int($1 / 1048576)}') MiB inflated"
/usr/bin/time -f "  converse-tui ls --no-cache: %e s, peak RSS %M KiB" "$bin" ls --no-cache "$file" >/dev/null
# replay: time until the browser lists the samples (quit at once), then until the first (largest)
# sample is open on the inspector.
for what in browser sample; do
    rm -f "$out"
    start=$(date +%s.%N)
    tmux -L "$sock" new-session -d -x 160 -y 48 -s inspect29 "/usr/bin/time -f 'peak RSS %M KiB, CPU %U s user + %S s sys' -o $out $bin replay $file"
    until tmux -L "$sock" capture-pane -p -t inspect29 2>/dev/null | grep -q 'Episodes'; do sleep 0.01; done
    shown=$(date +%s.%N)
    if [ "$what" = sample ]; then
        tmux -L "$sock" send-keys -t inspect29 Enter
        until tmux -L "$sock" capture-pane -p -t inspect29 2>/dev/null | grep -q 'REPLAY'; do sleep 0.01; done
        shown=$(date +%s.%N)
    fi
    tmux -L "$sock" send-keys -t inspect29 q
    while tmux -L "$sock" has-session -t inspect29 2>/dev/null; do sleep 0.05; done
    echo "  converse-tui replay, $what on screen: $(echo "$shown - $start" | bc) s, $(tail -1 "$out")"
done
/usr/bin/time -f "  inspect_ai read_eval_log(header_only=True): %e s, peak RSS %M KiB" "$python" -c \
    "import sys; from inspect_ai.log import read_eval_log; read_eval_log(sys.argv[1], header_only=True)" "$file"
/usr/bin/time -f "  inspect_ai read_eval_log_sample(trip0): %e s, peak RSS %M KiB" "$python" -c \
    "import sys; from inspect_ai.log import read_eval_log_sample; read_eval_log_sample(sys.argv[1], 'trip0', 1)" "$file"
/usr/bin/time -f "  inspect_ai read_eval_log (whole log): %e s, peak RSS %M KiB" "$python" -c \
    "import sys; from inspect_ai.log import read_eval_log; read_eval_log(sys.argv[1])" "$file"
