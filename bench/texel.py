"""Fit the evaluation's weights (``ai.evaluation.WEIGHTS``) to the results of games: the Texel
method.

    python -m bench.texel FILE [FILE ...] [--skip N] [--hold-out N] [--parallel P]

Reads games as ``hive-ai arena --save FILE`` writes them (one GameString a line; a game
adjudicated unfinished counts as a draw), and takes each position from ply ``--skip`` on that
is quiet: a 2-ply search finds no forced result in it (the static evaluation of a position with
a win in one on the board says nothing of who wins). Each position gives its features
(``ai.evaluation.features``, White's view) and White's result (1, 0.5 or 0).

The fit is the logistic ``P(White wins) = 1 / (1 + exp(-x . v))`` of the features ``x``, by
maximum likelihood (scipy's L-BFGS on the mean log-loss; a draw counts half a win and half a
loss). Its weights ``v`` are in logits a count; dividing by ``ai.analysis.WIN_CHANCE_SLOPE``
puts them in the evaluation's units, so that ``win_chance`` still reads scores as chances. A
feature that is zero in every position keeps its weight.

Every ``--hold-out``-th game is left out of the fit. On those games the command prints the
mean log-loss and Brier score of the weights in use (their own best slope fitted on the
training games, to be fair to them) and of the fitted ones: a lower loss on games the fit never
saw is the evidence that the new weights predict results better. Then the weights, current and
fitted, and the fitted ones as ``WEIGHTS`` entries. Whether they play better is for an arena to
say.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit
from tqdm import tqdm

from ai.analysis import WIN_CHANCE_SLOPE
from ai.evaluation import MATE_BOUND, WEIGHTS, features
from ai.search import search
from hive import Game

RESULTS = {"WhiteWins": 1.0, "BlackWins": 0.0}
"""White's result by the GameString's state; anything else (a draw, an adjudicated game) 0.5."""


def game_positions(game_string: str, skip: int) -> list[tuple[list[int], float]]:
    """The quiet positions of one game from ply ``skip`` on: each one's features in
    ``WEIGHTS``' order (White's view) and White's result."""
    fields = game_string.strip().split(";")
    white = RESULTS.get(fields[1], 0.5)
    game = Game(fields[0])
    out = []
    for ply, move in enumerate(fields[3:]):
        if ply >= skip and not game.is_over():
            sign = 1 if game.ply % 2 == 0 else -1
            if abs(search(game, depth=2, exact_top=1).ranked[0][1]) < MATE_BOUND:
                counts = features(game)
                out.append(([sign * counts[name] for name in WEIGHTS], white))
        game.play(move)
    return out


def log_loss(v: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    """The mean log-loss of the logistic with weights ``v`` (logits a count)."""
    p = np.clip(expit(x @ v), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def brier(v: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    """The mean squared error of the chances the logistic with weights ``v`` predicts."""
    return float(np.mean((expit(x @ v) - y) ** 2))


def fit(
    x: NDArray[np.float64], y: NDArray[np.float64], start: NDArray[np.float64], l2: float = 0.0
) -> NDArray[np.float64]:
    """The weights (logits a count) that make the results ``y`` likeliest, from ``start``;
    with ``l2``, the mean log-loss plus ``l2`` times the squared distance from ``start``."""

    def loss_and_gradient(v: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        away = v - start
        loss = log_loss(v, x, y) + l2 * float(away @ away)
        return loss, x.T @ (expit(x @ v) - y) / len(y) + 2 * l2 * away

    found = minimize(loss_and_gradient, start, jac=True, method="L-BFGS-B")
    if not found.success:
        raise RuntimeError(f"the fit did not converge: {found.message}")
    return np.asarray(found.x, dtype=np.float64)


def best_slope(x: NDArray[np.float64], y: NDArray[np.float64], w: NDArray[np.float64]) -> float:
    """The slope that makes ``y`` likeliest for the scores ``x . w`` (evaluation units)."""
    return float(fit((x @ w)[:, None], y, np.array([WIN_CHANCE_SLOPE]))[0])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("files", nargs="+", help="games, one GameString a line")
    parser.add_argument("--skip", type=int, default=6, help="plies skipped at each game's start")
    parser.add_argument("--hold-out", type=int, default=5, help="every N-th game left out")
    parser.add_argument("--parallel", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--l2", type=float, default=0.0, help="pull toward the weights in use (ridge penalty)"
    )
    args = parser.parse_args(argv)
    games = [line for name in args.files for line in Path(name).read_text().splitlines() if line]
    started = time.perf_counter()
    train: list[tuple[list[int], float]] = []
    test: list[tuple[list[int], float]] = []
    with ProcessPoolExecutor(max_workers=args.parallel) as pool:
        done = pool.map(game_positions, games, [args.skip] * len(games), chunksize=4)
        for i, found in enumerate(tqdm(done, total=len(games), unit="game")):
            (test if i % args.hold_out == 0 else train).extend(found)
    if not train or not test:
        raise SystemExit("too few games: no position to fit or none held out")
    x, y = (np.array([r[i] for r in train], dtype=np.float64) for i in (0, 1))
    xt, yt = (np.array([r[i] for r in test], dtype=np.float64) for i in (0, 1))
    current = np.array(list(WEIGHTS.values()), dtype=np.float64)
    used = np.any(x != 0, axis=0)
    slope = best_slope(x, y, current)
    fitted = current * slope
    fitted[used] = fit(x[:, used], y, fitted[used], args.l2)
    seconds = time.perf_counter() - started
    print(
        f"{len(games)} games, {len(train)} quiet positions to fit and {len(test)} held out "
        f"(every {args.hold_out}th game), from ply {args.skip}; {seconds:.0f} s"
    )
    print("held-out games | mean log-loss | Brier score")
    print("--- | ---: | ---:")
    for label, v in (
        ("the constant 0.5", current * 0),
        (f"weights in use (best slope {slope:.5f})", current * slope),
        ("fitted weights", fitted),
    ):
        print(f"{label} | {log_loss(v, xt, yt):.4f} | {brier(v, xt, yt):.4f}")
    units = np.rint(fitted / WIN_CHANCE_SLOPE).astype(int)
    print("\nfeature | in use | fitted | positions where it is not 0")
    print("--- | ---: | ---: | ---:")
    for i, name in enumerate(WEIGHTS):
        print(f"{name} | {int(current[i])} | {units[i]} | {int(np.count_nonzero(x[:, i]))}")
    print("\n" + "\n".join(f'    "{name}": {units[i]},' for i, name in enumerate(WEIGHTS)))


if __name__ == "__main__":
    main()
