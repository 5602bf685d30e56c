#!/usr/bin/env bash
# The regression gauntlet of the bots: each level against the one below, the top level against
# a one-ply greedy bot, the top level against itself for variety, and, given nokamute, the top
# level against it at equal time. Slow (about 2.5 hours on two cores without an SPRT): run it
# by hand or with `make arenas`; results go to $OUT (default arenas/).
#
#   bench/arenas.sh [GAMES] [PARALLEL]
#
# NOKAMUTE=DIR/nokamute (built by ../shared/tools/nokamute) adds expert against nokamute, both
# at SECONDS_A_MOVE seconds a move (default 2). SPRT="ELO0 ELO1" stops each step once a sequential test
# decides between those two Elo differences (hive-ai arena --sprt), rather than after GAMES.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-100}
parallel=${2:-2}
out=${OUT:-arenas}
seconds=${SECONDS_A_MOVE:-2}
sprt=()
if [ -n "${SPRT:-}" ]; then
    read -r -a bounds <<< "$SPRT"
    sprt=(--sprt "${bounds[@]}")
fi
mkdir -p "$out"
arena() {  # name, then hive-ai arena arguments
    local name=$1
    shift
    echo "== $name: hive-ai arena $* --games $games --parallel $parallel ${sprt[*]}"
    .venv/bin/hive-ai arena "$@" --games "$games" --parallel "$parallel" "${sprt[@]}" \
        --save "$out/$name.games" | tee "$out/$name.txt"
}
arena easy-beginner easy beginner
arena medium-easy medium easy
arena expert-greedy expert greedy
# Variety: the first VARIETY_PLY (12) plies of self-play are all the figure needs.
arena expert-expert expert expert --max-plies 12
arena hard-medium hard medium
arena expert-hard expert hard
if [ -n "${NOKAMUTE:-}" ]; then
    arena "expert-nokamute-${seconds}s" expert --seconds "$seconds" \
        --uhp "$NOKAMUTE uhp --num-threads=1 --table-mb=32"
fi
