"""Rules-engine speed: perft from the start, legal-move generation and plain coordinates.

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


def real_games() -> list[Game]:
    return [Game.from_game_string(row[0]) for row in tsv_rows("mzinga_validmoves_realgames.tsv")]


def bench_movegen(runs: int) -> None:
    """Legal moves generated from scratch: a game keeps its position's list once generated, so
    each run reads the positions afresh (untimed) and times one generation of each."""
    times = []
    for _ in range(max(runs, 5)):
        games = real_games()
        start = time.perf_counter()
        for game in games:
            game.legal_moves()
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    per_position = seconds / len(games) * 1000
    print(
        f"legal moves, {len(games)} real-game positions: {per_position:.3f} ms per position "
        f"(target < {MOVEGEN_TARGET_MS} ms)"
    )


def bench_state(runs: int) -> None:
    """What a server computes per position besides the legal moves: the GameString, and the
    plain coordinates of every piece and of each legal move's ends."""
    games = real_games()
    moves = [game.legal_moves() for game in games]
    plies = sum(game.ply for game in games) / len(games)

    def spell_all() -> None:
        for game in games:
            game.game_string()

    def lay_out_all() -> None:
        for game, legal in zip(games, moves, strict=True):
            layout = game.layout()
            for move in legal:
                layout.endpoints(move)

    for name, work in (("game_string()", spell_all), ("layout() + endpoints", lay_out_all)):
        per_position = median_seconds(work, runs) / len(games) * 1000
        print(
            f"{name + ',':21} {len(games)} real-game positions ({plies:.0f} plies on average): "
            f"{per_position:.3f} ms per position"
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
    bench_state(args.runs)


if __name__ == "__main__":
    main()
