"""Static evaluation: a weighted sum of counted features, from the side to move's point of view.

Every feature is a difference, the side to move's count minus the opponent's, so a position
and its colour-swapped twin score opposite. ``features(game)`` returns the counts,
``terms(game)`` each term weighted (the per-bug features summed; the search trace shows them),
``evaluate(game)`` their sum. All three come from one pass over the position,
``_white_counts``. Two sets of weights: ``WEIGHTS``, set by hand, which the shallow levels
play with, and ``FITTED_WEIGHTS``, which ``python -m bench.texel`` fitted to the results of
self-play games, for the deep ones; each is given to the three as a ``Weights``.

The evaluation is cheap on purpose: one pass over the 28 pieces and one articulation-point
search (``board.pinned()``), never a legal-move generation.

Terminal positions score ``±(WIN - ply)``: a win found sooner scores higher, a loss later
scores less badly. A draw scores 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hive import Game, GameState
from hive.board import EMPTY, HAND
from hive.hexes import NEIGHBORS
from hive.movegen import slide_directions
from hive.pieces import (
    BUG_OF,
    COLOR_OF,
    FIRST_OF,
    OWNER,
    PIECES_PER_COLOR,
    QUEENS,
    Bug,
)

if TYPE_CHECKING:  # the compiled build's fixed-width integers; plain ints when run as Python
    from mypy_extensions import i64

WIN: Final = 1_000_000
"""The score of a win at ply 0; a win at ply ``p`` scores ``WIN - p``."""

MATE_BOUND: Final = WIN - 100_000
"""Scores at or beyond ``±MATE_BOUND`` are wins or losses, never positional."""

BUGS: Final = tuple(bug.name.lower() for bug in Bug)

WEIGHTS: Final[dict[str, int]] = {
    # The pieces next to each Queen, by whose they are and whether they can leave (each one
    # fills a liberty): one's own pieces next to the enemy Queen press it hardest...
    "queen_attackers": 36,
    # ...one's own pieces that cannot move away crowd one's own Queen...
    "queen_blockers": -30,
    # ...and those that can crowd it less.
    "queen_neighbours": -15,
    # Pieces that can move, by bug (doubled on top of the hive): on the ground and not pinned,
    # not a crawler with no room to slide, not pressing the enemy Queen (a piece there is worth
    # its pressure, not its mobility). A Mosquito on the ground counts as the neighbour it
    # moves like that is worth most here (the Queen's walk is no gain), on top as a Beetle.
    **{f"mobility.{bug}": w for bug, w in zip(BUGS, (24, 4, 12, 4, 14, 16, 12, 10), strict=True)},
    # Pieces still in hand, by bug.
    **{f"in_hand.{bug}": w for bug, w in zip(BUGS, (12, 2, 6, 2, 7, 8, 6, 5), strict=True)},
    # A Pillbug (or a Mosquito beside one) next to its own Queen, with an empty hex beside it
    # that leaves the Queen room to run, can throw her out of a closing ring...
    "pillbug_defense": 120,
    # ...or a Pillbug in hand that could be placed next to her.
    "pillbug_reserve": 60,
}
"""Every feature's weight, set by hand (after nokamute's): a feature is a count, the side to
move's minus the opponent's, and the evaluation is the weighted sum (``features`` gives the
counts). The names are the features'; the shallow levels play with these weights."""

FITTED_WEIGHTS: Final[dict[str, int]] = {
    "queen_attackers": 75,
    "queen_blockers": -40,
    "queen_neighbours": -32,
    **{f"mobility.{bug}": w for bug, w in zip(BUGS, (26, 14, 10, 5, 48, 22, 11, 22), strict=True)},
    **{f"in_hand.{bug}": w for bug, w in zip(BUGS, (16, 20, -34, 23, 27, 23, 23, 2), strict=True)},
    "pillbug_defense": 132,
    "pillbug_reserve": 80,
}
"""The same features' weights fitted to the results of 700 ``hard`` self-play games
(``python -m bench.texel``, ridge 0.02, from ``WEIGHTS``): the levels that search 4 plies and
more play with these. They are worth +80 Elo at 1 s a move, but a bot that looks only a ply or
two ahead drifts with them (its games run to hundreds of plies), so the shallow levels keep
``WEIGHTS``; docs/load.md has the fit and the arenas."""

_TERM_OF: Final = tuple(name.split(".")[0] for name in WEIGHTS)
"""By feature (``WEIGHTS``' order): the term it adds to."""

TERMS: Final = tuple(dict.fromkeys(_TERM_OF))
"""The terms the trace shows: each feature, with the per-bug ones summed (``mobility``,
``in_hand``)."""

_IN_PROGRESS: Final = (GameState.IN_PROGRESS, GameState.NOT_STARTED)
_FEATURES: Final = len(WEIGHTS)
# Where each feature's count lies in ``_white_counts``' list (WEIGHTS' order).
_ATTACKERS: Final = 0
_BLOCKERS: Final = 1
_NEIGHBOURS: Final = 2
_MOBILITY: Final = 3
_IN_HAND: Final = _MOBILITY + len(Bug)
_DEFENSE: Final = _IN_HAND + len(Bug)
_RESERVE: Final = _DEFENSE + 1
_BEETLE: Final = int(Bug.BEETLE)
_MOSQUITO: Final = int(Bug.MOSQUITO)
_PILLBUG: Final = int(Bug.PILLBUG)
_CRAWLER: Final = tuple(b in (Bug.QUEEN, Bug.SPIDER, Bug.ANT, Bug.PILLBUG) for b in Bug)
"""The bugs that move by sliding only: one with no room to slide cannot move at all."""


class Weights:
    """A weight for every feature, as ``evaluate`` reads them.

    Args:
        by_feature: Each feature's weight by its name (``WEIGHTS``' names, all of them).

    Raises:
        ValueError: A feature is missing or unknown.
    """

    def __init__(self, by_feature: dict[str, int]) -> None:
        missing = [name for name in WEIGHTS if name not in by_feature]
        unknown = [name for name in by_feature if name not in WEIGHTS]
        if missing or unknown:
            raise ValueError(f"weights: missing {missing}, unknown {unknown}")
        self.by_feature = {name: int(by_feature[name]) for name in WEIGHTS}
        self.vector: tuple[int, ...] = tuple(self.by_feature.values())
        # By bug: what a Mosquito beside it is worth moving like it (-1: the Queen, never).
        self.mimic: tuple[int, ...] = tuple(
            -1 if b == Bug.QUEEN else self.vector[_MOBILITY + b] for b in Bug
        )

    def __repr__(self) -> str:
        return f"Weights({self.by_feature!r})"

    def __reduce__(self) -> tuple[type[Weights], tuple[dict[str, int]]]:
        # Pickled by its dictionary (the compiled class has no default way to be rebuilt).
        return (Weights, (self.by_feature,))


HAND_SET: Final = Weights(WEIGHTS)
"""``WEIGHTS``, ready for ``evaluate``: the default, and the shallow levels'."""

FITTED: Final = Weights(FITTED_WEIGHTS)
"""``FITTED_WEIGHTS``, ready for ``evaluate``: the deep levels'."""


def terminal_score(game: Game) -> int:
    """The score of a finished game for the side to move: ``-(WIN - ply)`` for a loss (the side
    to move is the one whose Queen was surrounded), ``WIN - ply`` for a win, 0 for a draw."""
    state = game.state
    if state is GameState.DRAW:
        return 0
    winner = 0 if state is GameState.WHITE_WINS else 1
    score = WIN - game.ply
    return score if winner == game.ply & 1 else -score


def features(game: Game, weights: Weights = HAND_SET) -> dict[str, int]:
    """Each feature's count (side to move minus opponent), by its name in ``WEIGHTS``; empty
    for a finished game. ``evaluate(game, weights)`` is their sum weighted by ``weights``
    (which also say which neighbour a Mosquito counts as: the one it is worth most as)."""
    if game.state not in _IN_PROGRESS:
        return {}
    sign = 1 if game.ply & 1 == 0 else -1
    counts = _white_counts(game, weights.mimic)
    return {name: sign * c for name, c in zip(WEIGHTS, counts, strict=True)}


def terms(game: Game, weights: Weights = HAND_SET) -> dict[str, int]:
    """Each term's weighted contribution to ``evaluate(game, weights)`` (side to move minus
    opponent); empty for a finished game, whose score is ``terminal_score``."""
    counts = features(game, weights)
    if not counts:
        return {}
    out = dict.fromkeys(TERMS, 0)
    for term, weight, count in zip(_TERM_OF, weights.vector, counts.values(), strict=True):
        out[term] += weight * count
    return out


def evaluate(game: Game, weights: Weights = HAND_SET) -> int:
    """The position's score for the side to move: positive is good for it."""
    if game.state not in _IN_PROGRESS:
        return terminal_score(game)
    counts = _white_counts(game, weights.mimic)
    vector = weights.vector
    score: i64 = 0
    i: i64
    for i in range(_FEATURES):
        score += vector[i] * counts[i]
    return score if game.ply & 1 == 0 else -score


def _escape(top: list[int], h: i64, queen: i64) -> i64:
    """The most room a Queen at ``queen`` would have if a Pillbug at ``h`` threw her onto one
    of its empty neighbours: that hex's empty neighbours (her own hex included)."""
    best: i64 = 0
    lib: i64
    n: i64
    for lib in NEIGHBORS[h]:
        if top[lib] != EMPTY:
            continue
        room: i64 = 0
        for n in NEIGHBORS[lib]:
            if n == queen or top[n] == EMPTY:
                room += 1
        if room > best:
            best = room
    return best


def _reserve(game: Game, color: int) -> bool:
    """Whether ``color`` has a Pillbug in hand and an empty hex next to its uncovered Queen
    where it could place it (no enemy piece beside it)."""
    board = game.board
    queen: i64 = board.hex_of[QUEENS[color]]
    pillbug = FIRST_OF[color][_PILLBUG]
    if queen == HAND or board.height[queen] != 1 or board.hex_of[pillbug] != HAND:
        return False
    top = board.top
    enemy: i64 = 1 - color
    lib: i64
    n: i64
    for lib in NEIGHBORS[queen]:
        if top[lib] != EMPTY:
            continue
        placeable = True
        for n in NEIGHBORS[lib]:
            if OWNER[top[n]] == enemy:
                placeable = False
                break
        if placeable:
            return True
    return False


def _white_counts(game: Game, mimic: tuple[int, ...]) -> list[i64]:
    """Every feature's count (``WEIGHTS``' order) from White's point of view: one pass over
    the pieces, each one's mobility and its place next to either Queen, then the Pillbugs in
    hand. ``mimic``: by bug, what a Mosquito beside it is worth moving like it."""
    board = game.board
    top, height, hex_of = board.top, board.height, board.hex_of
    counts: list[i64] = [0] * _FEATURES
    queens = [hex_of[QUEENS[0]], hex_of[QUEENS[1]]]
    pillbugs = game.game_type.pillbug
    defended = [False, False]
    # The pieces alone on an articulation point, one bit each.
    pinned_pieces: i64 = board.pinned()
    # The pieces next to each Queen, one bit each: next to their own, next to the enemy's.
    home: i64 = 0
    pressing: i64 = 0
    for color in range(2):
        queen = queens[color]
        if queen == HAND:
            continue
        for n in NEIGHBORS[queen]:
            t = top[n]
            if t == EMPTY:
                continue
            if OWNER[t] == color:
                home |= 1 << t
            else:
                pressing |= 1 << t
    for p in game.pieces:
        h = hex_of[p]
        bug: i64 = BUG_OF[p]
        sign: i64 = 1 if p < PIECES_PER_COLOR else -1
        if h == HAND:
            counts[_IN_HAND + bug] += sign
            continue
        if top[h] != p:  # covered: the stack counts as its top piece
            continue
        up = height[h] > 1
        crawler = _CRAWLER[bug]
        powers = bug == _PILLBUG
        if bug == _MOSQUITO:
            if up:
                bug = _BEETLE
            else:  # it moves as its neighbours do: a crawler if they all are
                best: i64 = -1  # only Queens beside it: it moves like one, no gain
                bug = -1
                crawler = True
                for n in NEIGHBORS[h]:
                    t = top[n]
                    if t == EMPTY:
                        continue
                    b = BUG_OF[t]
                    if mimic[b] > best:
                        best = mimic[b]
                        bug = b
                    if b == _PILLBUG:
                        powers = True
                    if not _CRAWLER[b]:
                        crawler = False
        if up:
            stuck = False
        else:
            stuck = bool(pinned_pieces >> p & 1) or (crawler and not slide_directions(top, h))
        if home >> p & 1:
            if stuck:
                counts[_BLOCKERS] += sign
            else:
                counts[_NEIGHBOURS] += sign
            if powers and pillbugs:
                color = COLOR_OF[p]
                own = queens[color]
                if height[own] == 1 and _escape(top, h, own) > 2:
                    defended[color] = True
        if pressing >> p & 1:
            counts[_ATTACKERS] += sign
        elif not stuck and bug >= 0:
            counts[_MOBILITY + bug] += 2 * sign if up else sign
    if pillbugs:
        counts[_DEFENSE] = int(defended[0]) - int(defended[1])
        counts[_RESERVE] = int(_reserve(game, 0)) - int(_reserve(game, 1))
    return counts
