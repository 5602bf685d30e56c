"""What each depth of the expert's search costs: time of 1..N plies on mid-game positions.

    python -m bench.depths [--positions N] [--depth N] [--branching K] [--[no-]threats]
        [--[no-]null-move]

Each position is searched at 1, 2, ... ``--depth`` plies in turn with one table, as the
iterative search of ``expert`` does (K=20, its weights, leaves' threats and null moves, only
the best move scored exactly), and the CPU time of each depth is printed, then the median and the
largest ratio of each depth's time to the one before (what ``ai.search.GROWTH`` guesses when it
decides whether a depth will fit), and each depth's total over the positions.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ai.bots import LEVELS
from ai.search import TranspositionTable, search
from bench.ai import positions


def main() -> None:
    expert = LEVELS["expert"]
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=20, help="how many positions")
    parser.add_argument("--depth", type=int, default=5, help="the deepest search")
    parser.add_argument("--branching", type=int, default=expert.branching, help="K")
    parser.add_argument(
        "--threats",
        action=argparse.BooleanOptionalAction,
        default=expert.threats,
        help="score a leaf's win at once (ai.search.search's threats; expert's default)",
    )
    parser.add_argument(
        "--null-move",
        action=argparse.BooleanOptionalAction,
        default=expert.null_move,
        help="cut where a pass still holds beta (ai.search.search's null_move; expert's default)",
    )
    args = parser.parse_args()
    totals = [0.0] * args.depth
    ratios: dict[int, list[float]] = {d: [] for d in range(2, args.depth + 1)}
    print(" ".join(f"{d} plies" for d in range(1, args.depth + 1)), "(CPU seconds)")
    for game in positions(args.positions):
        table = TranspositionTable()
        times = []
        for depth in range(1, args.depth + 1):
            start = time.process_time()
            search(
                game,
                depth=depth,
                branching=args.branching,
                table=table,
                exact_top=1,
                weights=expert.weights,
                threats=args.threats,
                null_move=args.null_move,
            )
            times.append(time.process_time() - start)
            totals[depth - 1] += times[-1]
        print(" ".join(f"{t:7.3f}" for t in times))
        for depth in ratios:
            ratios[depth].append(times[depth - 1] / max(times[depth - 2], 1e-6))
    for depth, values in ratios.items():
        print(
            f"{depth} plies over {depth - 1}: median {statistics.median(values):.1f}x, "
            f"largest {max(values):.1f}x"
        )
    print("total:", " ".join(f"{t:7.3f}" for t in totals))


if __name__ == "__main__":
    main()
