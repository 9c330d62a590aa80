#!/bin/sh
# Peak RSS, first frame and `dump` memory of the release binary on the two huge
# episodes `cargo bench --bench huge` generates in target/huge/ (issue 14).
# Needs tmux and GNU time (/usr/bin/time). Usage: benches/measure_huge.sh
set -eu
bin=${BIN:-target/release/converse-tui}
dir=target/huge
sock=${TMUX_SOCKET:-measure}
for f in many-events one-message; do
    file=$dir/$f.jsonl
    echo "$f.jsonl: $(($(stat -c %s "$file") / 1048576)) MiB"
    /usr/bin/time -f "  dump --json  %e s  peak RSS %M KiB" "$bin" dump --json "$file" >/dev/null
    /usr/bin/time -f "  dump (table) %e s  peak RSS %M KiB" "$bin" dump "$file" >/dev/null
    # The inspector: time until its status line is on screen; then quit at once (`first`: the
    # CPU time to the first screen), or once the journal is all read (issue 14: a journal is read
    # on after its first screen; the peak RSS is then that of the whole episode). time(1) gives
    # the peak RSS and the CPU time of the whole run.
    for viewer in "$bin replay:first" "$bin replay:all" "less:first"; do
        quit=${viewer#*:}
        viewer=${viewer%:*}
        rm -f "$dir/time.out"
        start=$(date +%s.%N)
        tmux -L "$sock" new-session -d -x 160 -y 48 -s huge14 "/usr/bin/time -f 'peak RSS %M KiB, CPU %U s user + %S s sys' -o $dir/time.out $viewer $file"
        case $viewer in less) ready='episode|seq' ;; *) ready='REPLAY' ;; esac
        until tmux -L "$sock" capture-pane -p -t huge14 2>/dev/null | grep -Eq "$ready"; do sleep 0.01; done
        shown=$(date +%s.%N)
        if [ "$quit" = all ]; then
            while tmux -L "$sock" capture-pane -p -t huge14 2>/dev/null | grep -Eq 'loading .* [KM]iB'; do sleep 0.01; done
        fi
        loaded=$(date +%s.%N)
        tmux -L "$sock" send-keys -t huge14 q
        while tmux -L "$sock" has-session -t huge14 2>/dev/null; do sleep 0.05; done
        echo "  $viewer (quit at $quit): first screen $(echo "$shown - $start" | bc) s, quit at $(echo "$loaded - $start" | bc) s, $(tail -1 "$dir/time.out")"
    done
done
