"""Fit the evaluation's weights (``ai.evaluation``) to the results of games: the Texel method.

    python -m bench.texel FILE [FILE ...] [--start fitted|hand-set] [--skip N] [--folds K]
        [--l2 R] [--parallel P]

Reads games as ``hive-ai arena --save FILE`` writes them (one GameString a line; a game
adjudicated unfinished counts as a draw), and takes each position from ply ``--skip`` on that
is quiet: a 2-ply search finds no forced result in it (the static evaluation of a position with
a win in one on the board says nothing of who wins). Each position gives its features
(``ai.evaluation.features``, White's view) and White's result (1, 0.5 or 0).

``--start`` names the weights in use that the fit starts from: ``fitted`` (the deep levels',
``FITTED_WEIGHTS``: a further round) or ``hand-set`` (``WEIGHTS``, which the first fit started
from); they also say which neighbour a Mosquito counts as.

The fit is the logistic ``P(White wins) = 1 / (1 + exp(-x . v))`` of the features ``x``, by
maximum likelihood (scipy's L-BFGS on the mean log-loss; a draw counts half a win and half a
loss), started from the weights in use at the slope that suits them best and pulled toward them
by a ridge penalty, ``--l2`` times the squared distance: the positions of one game are far from
independent, so a few hundred games are few samples for 21 weights. The weights ``v`` are in
logits a count; dividing by ``ai.analysis.WIN_CHANCE_SLOPE`` puts them in the evaluation's
units, so that ``win_chance`` still reads scores as chances. A feature that is zero in every
position keeps its weight.

First a cross-validation by game: for each of ``--folds`` folds, a fit on the other folds'
games, and on this fold's the mean log-loss of the weights in use (at their best slope on the
training games, to be fair to them) and of the fitted ones: a lower loss on games the fit never
saw is the evidence that the new weights predict results better. Then the fit on every game:
the weights in use and fitted, and the fitted ones as entries to paste into the dictionary.
Whether they play better is for an arena to say.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit
from tqdm import tqdm

from ai.analysis import WIN_CHANCE_SLOPE
from ai.calibration import Sample, fit_slope
from ai.evaluation import FITTED, HAND_SET, MATE_BOUND, WEIGHTS, Weights, features
from ai.search import search
from hive import Game

L2: Final = 0.02
"""The ridge penalty by default: of 0, 0.001, 0.01, 0.03 and 0.1, the held-out games of 700
``hard`` self-play games (3- and 5-fold) lost least from 0.01 to 0.03 (docs/load.md)."""

Positions = list[tuple[list[int], float]]
"""Positions as features in ``WEIGHTS``' order (White's view), each with White's result."""

RESULTS = {"WhiteWins": 1.0, "BlackWins": 0.0}
"""White's result by the GameString's state; anything else (a draw, an adjudicated game) 0.5."""


STARTS: Final = {"fitted": (FITTED, "FITTED_WEIGHTS"), "hand-set": (HAND_SET, "WEIGHTS")}
"""The weights a fit may start from, by ``--start``'s name, and their dictionary's name."""


def game_positions(game_string: str, skip: int, weights: Weights = HAND_SET) -> Positions:
    """The quiet positions of one game from ply ``skip`` on: each one's features (counted as
    ``weights`` say) in ``WEIGHTS``' order (White's view) and White's result."""
    fields = game_string.strip().split(";")
    white = RESULTS.get(fields[1], 0.5)
    game = Game(fields[0])
    out = []
    for ply, move in enumerate(fields[3:]):
        if ply >= skip and not game.is_over():
            sign = 1 if game.ply % 2 == 0 else -1
            if abs(search(game, depth=2, exact_top=1).ranked[0][1]) < MATE_BOUND:
                counts = features(game, weights)
                out.append(([sign * counts[name] for name in WEIGHTS], white))
        game.play(move)
    return out


def log_loss(v: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    """The mean log-loss of the logistic with weights ``v`` (logits a count)."""
    p = np.clip(expit(x @ v), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


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


def arrays(positions: Positions) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The features (one row a position) and the results, as arrays."""
    x = np.array([counts for counts, _ in positions], dtype=np.float64).reshape(-1, len(WEIGHTS))
    return x, np.array([result for _, result in positions], dtype=np.float64)


def fitted_weights(
    x: NDArray[np.float64], y: NDArray[np.float64], l2: float, start: Weights = HAND_SET
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """The slope that suits the weights in use, ``start``, best on the positions ``x`` and
    results ``y`` (``ai.calibration.fit_slope``), those weights at that slope, and the weights
    fitted from them (all in logits a count); a feature never seen keeps its weight."""
    current = np.array(start.vector, dtype=np.float64)
    scores = (x @ current).astype(int)
    slope = fit_slope([Sample(int(s), float(r)) for s, r in zip(scores, y, strict=True)])
    fitted = current * slope
    seen = np.any(x != 0, axis=0)
    fitted[seen] = fit(x[:, seen], y, fitted[seen], l2)
    return slope, current * slope, fitted


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("files", nargs="+", help="games, one GameString a line")
    parser.add_argument(
        "--start", choices=STARTS, default="fitted", help="the weights in use, to fit from"
    )
    parser.add_argument("--skip", type=int, default=6, help="plies skipped at each game's start")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (games)")
    parser.add_argument("--parallel", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--l2", type=float, default=L2, help="pull toward the weights in use (ridge penalty)"
    )
    args = parser.parse_args(argv)
    start, dictionary = STARTS[args.start]
    games = [line for name in args.files for line in Path(name).read_text().splitlines() if line]
    if len(games) < max(args.folds, 2):
        raise SystemExit(f"too few games: {len(games)} for {args.folds} folds")
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.parallel) as pool:
        skips, starts = [args.skip] * len(games), [start] * len(games)
        done = pool.map(game_positions, games, skips, starts, chunksize=4)
        by_game = list(tqdm(done, total=len(games), unit="game"))
    everything = [p for found in by_game for p in found]
    print(
        f"{len(games)} games, {len(everything)} quiet positions from ply {args.skip}, "
        f"ridge {args.l2}; {time.perf_counter() - started:.0f} s to read them"
    )
    print("\nheld-out fold | positions | the constant 0.5 | weights in use | fitted | change")
    print("--- | ---: | ---: | ---: | ---: | ---:")
    changes = []
    for fold in range(args.folds):
        train = [p for i, found in enumerate(by_game) if i % args.folds != fold for p in found]
        test = [p for i, found in enumerate(by_game) if i % args.folds == fold for p in found]
        _, now, fitted = fitted_weights(*arrays(train), args.l2, start)
        xt, yt = arrays(test)
        before, after = log_loss(now, xt, yt), log_loss(fitted, xt, yt)
        changes.append(after - before)
        print(
            f"{fold} | {len(test)} | {log_loss(now * 0, xt, yt):.4f} | {before:.4f} | "
            f"{after:.4f} | {after - before:+.4f}"
        )
    print(f"mean log-loss change on held-out games: {np.mean(changes):+.4f} (lower is better)")
    x, y = arrays(everything)
    slope, _, fitted = fitted_weights(x, y, args.l2, start)
    units = np.rint(fitted / WIN_CHANCE_SLOPE).astype(int)
    print(f"\nfitted on every game (the weights in use fit best at slope {slope:.5f}):")
    print(f"feature | in use ({dictionary}) | fitted | positions where it is not 0")
    print("--- | ---: | ---: | ---:")
    for i, (name, weight) in enumerate(start.by_feature.items()):
        print(f"{name} | {weight} | {units[i]} | {int(np.count_nonzero(x[:, i]))}")
    print(f"\nas {dictionary} entries:")
    print("\n".join(f'    "{name}": {units[i]},' for i, name in enumerate(WEIGHTS)))


if __name__ == "__main__":
    main()
