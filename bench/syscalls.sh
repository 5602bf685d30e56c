#!/bin/bash
# Count the system calls of the server processes under bench.load (docs/load.md, "Issue 19,
# what a move costs in system calls"): bench/syscalls.sh N (server processes, default 1).
# Runs bench.load at 300 moves/s over 300 games and, in the middle of its window, strace -c
# on every server process for 10 s; prints the bench's figures and each process's counts.
set -eu
servers=${1:-1}
out=$(mktemp -d)
cd "$(dirname "$0")/.."
command -v strace >/dev/null || { echo "needs strace (Debian: apt-get install strace)" >&2; exit 1; }
.venv/bin/python -m bench.load --runs 1 --quiet --no-relay --servers "$servers" --games 300 \
    --spectators 300 --rate 300 --seconds 40 > "$out/bench.log" 2>&1 &
bench=$!
until grep -q "run 1" "$out/bench.log"; do sleep 1; done  # the window starts
sleep 25
for pid in $(pgrep -f "python -m server"); do
    timeout -s INT 10 strace -c -f -p "$pid" -o "$out/strace-$pid.txt" 2>/dev/null &
done
wait "$bench"
tail -8 "$out/bench.log"
for file in "$out"/strace-*.txt; do echo "== $file"; head -14 "$file"; done
