"""Bot speed: search nodes per second, and seconds per move at each level.

    python -m bench.ai [--positions N] [--levels beginner,easy,...]

Runs on one core, on a fixed set of mid-game Base+MLP positions from real games (evenly spaced
rows of ``mzinga_validmoves_realgames.tsv`` where both Queens are down). Each level plays every
position with a fresh, seeded bot (no opening book, an empty table), as on a bot's first search
of a game. Times are by the wall clock, with CPU times beside them (a busy machine inflates
them less).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from ai.bots import LEVELS, Bot
from ai.search import search
from hive import Game
from tests.vectors import tsv_rows

NODES_DEPTH = 3
NODES_BRANCHING = 30


def positions(count: int) -> list[Game]:
    """``count`` mid-game positions, evenly spaced through the real-game vectors."""
    games = []
    for row in tsv_rows("mzinga_validmoves_realgames.tsv"):
        game = Game.from_game_string(row[0])
        if game.queen_placed(0) and game.queen_placed(1) and not game.is_over():
            games.append(game)
    step = max(1, len(games) // count)
    return games[::step][:count]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def bench_nodes(games: list[Game]) -> None:
    nodes = 0
    seconds = 0.0
    start_cpu = time.process_time()
    for game in games:
        result = search(game, depth=NODES_DEPTH, branching=NODES_BRANCHING, clock=time.perf_counter)
        nodes += result.nodes
        seconds += result.seconds
    cpu = time.process_time() - start_cpu
    print(
        f"search {NODES_DEPTH} plies, K={NODES_BRANCHING}: {nodes:,} nodes in {seconds:.2f} s, "
        f"{nodes / seconds:,.0f} nodes/s, {seconds / len(games):.2f} s per position "
        f"(CPU: {cpu:.2f} s, {nodes / cpu:,.0f} nodes/s)"
    )


def bench_levels(games: list[Game], names: list[str]) -> None:
    print()
    print(
        f"{'level':9} {'depth':>5} {'time':>5} {'K':>4} {'Q':>4}  "
        f"{'median s':>8} {'p95 s':>7} {'max s':>7} {'cpu med':>7}  depths reached"
    )
    for name in names:
        level = LEVELS[name]
        times = []
        cpu = []
        depths: dict[int, int] = {}
        deeper = 0  # moves led by a depth cut short (SearchResult.deeper)
        for number, game in enumerate(games):
            bot = Bot(level, seed=number, use_book=False)
            before = game.game_string()
            start, start_cpu = time.perf_counter(), time.process_time()
            choice = bot.choose(game)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            if game.game_string() != before:
                raise SystemExit(f"{name} changed the game {before!r}")
            if choice.result is not None:
                depths[choice.result.depth] = depths.get(choice.result.depth, 0) + 1
                deeper += choice.result.deeper
        reached = " ".join(f"{d}:{n}" for d, n in sorted(depths.items()))
        if deeper:
            reached += f", {deeper} led by the next depth cut short"
        print(
            f"{name:9} {level.depth or '-':>5} {level.seconds or '-':>5} "
            f"{level.branching or '-':>4} {level.quotient or '-':>4}  "
            f"{statistics.median(times):8.3f} {percentile(times, 0.95):7.3f} "
            f"{max(times):7.3f} {statistics.median(cpu):7.3f}  {reached}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=20, help="how many positions")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels")
    args = parser.parse_args()
    names = [name for name in args.levels.split(",") if name]
    unknown = [name for name in names if name not in LEVELS]
    if unknown:
        raise SystemExit(f"unknown levels: {', '.join(unknown)}")
    games = positions(args.positions)
    print(
        f"{platform.python_implementation()} {platform.python_version()}, one core, "
        f"{len(games)} mid-game Base+MLP positions"
    )
    bench_nodes(games)
    bench_levels(games, names)


if __name__ == "__main__":
    main()
