"""Fit ``ai.analysis.WIN_CHANCE_SLOPE``: self-play games, positions scored, a logistic fitted.

    python -m bench.calibrate [--games N] [--level L] [--per-game N] [--parallel P] [--seed S]

Plays ``--games`` Base+MLP games of the level against itself (``ai.arena.play_game``: colours
alternate, seeds from ``--seed``), takes ``--per-game`` positions of each at random plies,
scores each with the review's search (``ai.review.position_search``: ``REVIEW_DEPTH`` plies,
K = ``REVIEW_BRANCHING``) and pairs the score with the result the side to move got in the end
(a draw, or a game adjudicated at 300 plies, counts 0.5). Then it prints the slope fitted on
every sample, and, to show that it predicts: a slope fitted on the even-numbered games, and
on the odd-numbered ones (held out) its Brier score, the constant 0.5's, and the reliability
table by tenth of predicted chance. ``--save FILE`` writes the samples (score, result, game)
as TSV.
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor

from ai.arena import Player, play_game
from ai.calibration import Sample, brier, fit_slope, reliability
from ai.review import REVIEW_BRANCHING, REVIEW_DEPTH, position_search
from hive import Game, GameType


def game_samples(level: str, index: int, *, seed: int, per_game: int) -> list[tuple[int, Sample]]:
    """Game ``index``'s samples, each with the game's index."""
    player = Player.bot(level)
    record = play_game(player, player, index, game_type=GameType.parse("Base+MLP"), seed=seed)
    fields = record.game_string.split(";")
    moves = fields[3:]
    white = {"WhiteWins": 1.0, "BlackWins": 0.0}.get(fields[1], 0.5)
    rng = random.Random(seed * 1_000_003 + index)
    plies = sorted(rng.sample(range(len(moves)), min(per_game, len(moves))))
    game = Game(fields[0])
    out = []
    done = 0
    for ply in plies:
        while done < ply:
            game.play(moves[done])
            done += 1
        score = position_search(game)[0][1]
        result = white if ply % 2 == 0 else 1.0 - white
        out.append((index, Sample(score, result)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--level", default="medium")
    parser.add_argument("--per-game", type=int, default=4, help="positions taken per game")
    parser.add_argument("--parallel", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", metavar="FILE", help="write the samples as TSV")
    args = parser.parse_args()
    started = time.perf_counter()
    found: list[tuple[int, Sample]] = []
    with ProcessPoolExecutor(max_workers=args.parallel) as pool:
        futures = [
            pool.submit(game_samples, args.level, i, seed=args.seed, per_game=args.per_game)
            for i in range(args.games)
        ]
        for future in futures:
            found.extend(future.result())
    seconds = time.perf_counter() - started
    if args.save:
        with open(args.save, "w") as out:
            out.writelines(f"{s.score}\t{s.result}\t{i}\n" for i, s in found)
    samples = [s for _, s in found]
    train = [s for i, s in found if i % 2 == 0]
    test = [s for i, s in found if i % 2 == 1]
    slope = fit_slope(samples)
    held = fit_slope(train)
    print(
        f"{args.games} games of {args.level} self-play (seed {args.seed}), {len(samples)} "
        f"positions scored at depth {REVIEW_DEPTH}, K={REVIEW_BRANCHING}, in {seconds:.0f} s "
        f"on {args.parallel} process(es)"
    )
    print(f"slope fitted on every position: {slope:.6f}")
    print(f"slope fitted on the even games: {held:.6f}; on the odd games ({len(test)} positions):")
    print(f"  Brier score {brier(test, held):.4f} (the constant 0.5: {brier(test):.4f})")
    print(f"  Brier score with the slope of every position {brier(test, slope):.4f}")
    print("| predicted chance | mean predicted | mean observed | positions |")
    print("| --- | --- | --- | --- |")
    for b in reliability(test, held):
        print(f"| {b.low:.2f}-{b.high:.2f} | {b.predicted:.3f} | {b.observed:.3f} | {b.count} |")


if __name__ == "__main__":
    main()
