"""How long a game's review takes: a 60-ply Base+MLP game, every position searched.

    python -m bench.review [--workers N] [--runs N] [--depth D]

The game is the first of 60 plies among the real-game vectors
(``mzinga_validmoves_realgames.tsv``). ``ai.review.review`` searches its positions in
``--workers`` processes (the default 2: this machine's cores), as the server will on its bot
pool; each run starts a fresh pool. Prints each run's wall-clock seconds and their median,
then the review's marks and accuracies.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

import ai.search
from ai.cli import format_players
from ai.review import REVIEW_BRANCHING, REVIEW_DEPTH, review
from tests.vectors import tsv_rows

PLIES = 60


def sixty_plies() -> tuple[str, list[str]]:
    """The game type and the moves of the first 60-ply game of the real-game vectors."""
    for row in tsv_rows("mzinga_validmoves_realgames.tsv"):
        fields = row[0].split(";")
        if len(fields) - 3 == PLIES:
            return fields[0], fields[3:]
    raise LookupError(f"no {PLIES}-ply game in the vectors")


def build() -> str:
    """Which build runs: compiled (mypyc) or the pure Python sources."""
    return "compiled" if not ai.search.__file__.endswith(".py") else "pure Python"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--runs", type=int, default=3, help="reviews timed")
    parser.add_argument("--depth", type=int, default=REVIEW_DEPTH, help="plies per position")
    args = parser.parse_args()
    game_type, moves = sixty_plies()
    print(
        f"review of a {len(moves)}-ply {game_type} game, depth {args.depth}, "
        f"K={REVIEW_BRANCHING}, {args.workers} worker process(es), {build()} build"
    )
    times = []
    done = None
    for run in range(args.runs):
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            done = review(game_type, moves, depth=args.depth, mapper=pool.map)
        times.append(time.perf_counter() - start)
        print(f"run {run + 1}: {times[-1]:.1f} s")
    print(f"median {statistics.median(times):.1f} s")
    if done is not None:
        print("\n".join(format_players(done)))


if __name__ == "__main__":
    main()
