"""Rules-engine speed: perft from the start, and legal-move generation on real positions.

    python -m bench.perft [--runs N] [--quick]

Prints the median of N runs (one process, one core) for each figure.
"""

from __future__ import annotations

import argparse
import functools
import platform
import statistics
import time
from collections.abc import Callable

from hive import Game, GameType
from tests.vectors import tsv_rows

PERFT_CASES = (("Base", 5, 516_240), ("Base+MLP", 5, 5_427_108))
TARGETS = {"Base": 2.0, "Base+MLP": 8.0}
MOVEGEN_TARGET_MS = 0.5


def median_seconds(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_perft(runs: int, depth_cut: int) -> None:
    for game_type, depth, expected in PERFT_CASES:
        depth -= depth_cut
        game = Game(GameType.parse(game_type))
        leaves = game.perft(depth)
        if depth_cut == 0 and leaves != expected:
            raise SystemExit(f"perft({depth}) {game_type} = {leaves}, expected {expected}")
        seconds = median_seconds(functools.partial(game.perft, depth), runs)
        target = f"target < {TARGETS[game_type]:.0f} s" if depth_cut == 0 else "quick run"
        print(
            f"perft({depth}) {game_type:9} {leaves:>10,} leaves  {seconds:7.3f} s  "
            f"{leaves / seconds:>12,.0f} leaves/s   ({target})"
        )


def perft_pushed(game: Game, depth: int) -> int:
    """Perft that pushes and pops every leaf (no bulk counting of the last ply)."""
    if depth == 0:
        return 1
    total = 0
    for move in game.legal_moves():
        game.push(move)
        total += perft_pushed(game, depth - 1)
        game.pop()
    return total


def bench_perft_pushed(runs: int, depth_cut: int) -> None:
    game, depth = Game(), 5 - depth_cut
    leaves = perft_pushed(game, depth)
    seconds = median_seconds(lambda: perft_pushed(game, depth), runs)
    print(
        f"perft({depth}) Base      {leaves:>10,} leaves  {seconds:7.3f} s  "
        f"{leaves / seconds:>12,.0f} leaves/s   (every leaf pushed and popped)"
    )


def bench_movegen(runs: int) -> None:
    games = [Game.from_game_string(row[0]) for row in tsv_rows("mzinga_validmoves_realgames.tsv")]

    def generate_all() -> None:
        for game in games:
            game.legal_moves()

    seconds = median_seconds(generate_all, runs)
    per_position = seconds / len(games) * 1000
    print(
        f"legal moves, {len(games)} real-game positions: {per_position:.3f} ms per position "
        f"(target < {MOVEGEN_TARGET_MS} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median is printed)")
    parser.add_argument("--quick", action="store_true", help="one ply shallower perft")
    args = parser.parse_args()
    print(f"{platform.python_implementation()} {platform.python_version()}, median of {args.runs}")
    bench_perft(args.runs, 1 if args.quick else 0)
    bench_perft_pushed(args.runs, 1 if args.quick else 0)
    bench_movegen(args.runs)


if __name__ == "__main__":
    main()
