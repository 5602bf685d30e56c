"""How soon the engine lines reach each depth on typical mid-game positions.

    python -m bench.lines [--positions N] [--depth D] [--count N]

Each position (``bench.ai.positions``: mid-game Base+MLP positions of real games, both
Queens down) is analysed by ``ai.analysis.generate_lines`` (the best ``--count`` moves, K =
``LINES_BRANCHING``, a fresh table) up to ``--depth``; the wall-clock seconds from the start
until each depth completes are printed per position, then their medians and largest.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ai.analysis import LINES_BRANCHING, generate_lines
from bench.ai import positions
from bench.review import build


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=10, help="how many positions")
    parser.add_argument("--depth", type=int, default=4, help="the deepest search")
    parser.add_argument("--count", type=int, default=3, help="lines shown")
    args = parser.parse_args()
    games = positions(args.positions)
    print(
        f"{len(games)} mid-game Base+MLP positions, {args.count} lines, K={LINES_BRANCHING}, "
        f"{build()} build; seconds until each depth completes"
    )
    print("position " + " ".join(f"{d:>7}" for d in range(1, args.depth + 1)))
    reached: dict[int, list[float]] = {d: [] for d in range(1, args.depth + 1)}
    for number, game in enumerate(games):
        start = time.perf_counter()
        row = []
        for found in generate_lines(game, count=args.count, max_depth=args.depth):
            seconds = time.perf_counter() - start
            reached[found.depth].append(seconds)
            row.append(f"{seconds:7.3f}")
        print(f"{number:8} " + " ".join(row))
    for depth, values in reached.items():
        if values:
            print(
                f"depth {depth}: median {statistics.median(values):.3f} s, "
                f"largest {max(values):.3f} s ({len(values)} positions)"
            )


if __name__ == "__main__":
    main()
