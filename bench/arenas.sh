#!/usr/bin/env bash
# The arena figures of the bots issue: each level against the one below, the top level against a
# one-ply greedy bot, and the top level against itself for variety. Slow (about 2.5 hours on
# two cores): run it by hand or with `make arenas`; results go to $OUT (default arenas/).
#
#   bench/arenas.sh [GAMES] [PARALLEL]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-100}
parallel=${2:-2}
out=${OUT:-arenas}
mkdir -p "$out"
arena() {  # name, then hive-ai arena arguments
    local name=$1
    shift
    echo "== $name: hive-ai arena $* --games $games --parallel $parallel"
    .venv/bin/hive-ai arena "$@" --games "$games" --parallel "$parallel" \
        --save "$out/$name.games" | tee "$out/$name.txt"
}
arena easy-beginner easy beginner
arena medium-easy medium easy
arena expert-greedy expert greedy
# Variety: the first VARIETY_PLY (12) plies of self-play are all the figure needs.
arena expert-expert expert expert --max-plies 12
arena hard-medium hard medium
arena expert-hard expert hard
