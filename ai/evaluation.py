"""Static evaluation: a weighted sum of named terms, from the side to move's point of view.

Every term is a difference, the side to move's count minus the opponent's, so a position and
its colour-swapped twin score opposite. ``terms(game)`` returns each term already multiplied
by its weight (the search trace shows them); ``evaluate(game)`` is their sum. Both come from
one pass over the position, ``_white_terms``. The weights live in one place, ``WEIGHTS``.

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

WEIGHTS: Final[dict[str, int]] = {
    # The pieces next to each Queen, by whose they are and whether they can leave (each one
    # fills a liberty): one's own pieces next to the enemy Queen press it hardest...
    "queen_attackers": 36,
    # ...one's own pieces that cannot move away crowd one's own Queen...
    "queen_blockers": -30,
    # ...and those that can crowd it less.
    "queen_neighbours": -15,
    # Pieces that can move (by bug value, doubled on top of the hive): on the ground and not
    # pinned, not a crawler with no room to slide, not pressing the enemy Queen (a piece there
    # is worth its pressure, not its mobility).
    "mobility": 2,
    # Pieces still in hand, by bug value.
    "in_hand": 1,
    # A Pillbug (or a Mosquito beside one) next to its own Queen, with an empty hex beside it
    # that leaves the Queen room to run, can throw her out of a closing ring...
    "pillbug_defense": 120,
    # ...or a Pillbug in hand that could be placed next to her.
    "pillbug_reserve": 60,
}

# What each bug adds to mobility and in hand (a Mosquito on the ground takes the best of its
# neighbours' but the Queen's, on top of the hive a Beetle's).
BUG_VALUE: Final[tuple[int, ...]] = (12, 2, 6, 2, 7, 8, 6, 5)

_IN_PROGRESS: Final = (GameState.IN_PROGRESS, GameState.NOT_STARTED)


def terminal_score(game: Game) -> int:
    """The score of a finished game for the side to move: ``-(WIN - ply)`` for a loss (the side
    to move is the one whose Queen was surrounded), ``WIN - ply`` for a win, 0 for a draw."""
    state = game.state
    if state is GameState.DRAW:
        return 0
    winner = 0 if state is GameState.WHITE_WINS else 1
    score = WIN - game.ply
    return score if winner == game.ply & 1 else -score


def terms(game: Game) -> dict[str, int]:
    """Each term's weighted contribution to ``evaluate(game)`` (side to move minus opponent);
    empty for a finished game, whose score is ``terminal_score``."""
    if game.state not in _IN_PROGRESS:
        return {}
    sign = 1 if game.ply & 1 == 0 else -1
    return {name: sign * v for name, v in zip(WEIGHTS, _white_terms(game), strict=True)}


def evaluate(game: Game) -> int:
    """The position's score for the side to move: positive is good for it."""
    if game.state not in _IN_PROGRESS:
        return terminal_score(game)
    a, b, c, d, e, f, g = _white_terms(game)
    score = a + b + c + d + e + f + g
    return score if game.ply & 1 == 0 else -score


def _signed(values: tuple[int, ...]) -> tuple[int, ...]:
    """``values[piece]``, positive for White's pieces and negative for Black's."""
    return tuple(v if p < PIECES_PER_COLOR else -v for p, v in enumerate(values))


_BEETLE: Final = int(Bug.BEETLE)
_MOSQUITO: Final = int(Bug.MOSQUITO)
_PILLBUG: Final = int(Bug.PILLBUG)
_CRAWLER: Final = tuple(b in (Bug.QUEEN, Bug.SPIDER, Bug.ANT, Bug.PILLBUG) for b in Bug)
"""The bugs that move by sliding only: one with no room to slide cannot move at all."""
# Per piece (Final: the compiled build reads them directly).
_HAND_W: Final = _signed(tuple(WEIGHTS["in_hand"] * BUG_VALUE[b] for b in BUG_OF))
_MIMIC: Final = (*(0 if b == Bug.QUEEN else BUG_VALUE[b] for b in BUG_OF), 0)
"""By top piece (EMPTY last): what a Mosquito beside it moves like (a Queen's walk is no gain)."""
_ATTACKERS_W: Final = WEIGHTS["queen_attackers"]
_BLOCKERS_W: Final = WEIGHTS["queen_blockers"]
_NEIGHBOURS_W: Final = WEIGHTS["queen_neighbours"]
_MOBILITY_W: Final = WEIGHTS["mobility"]
_DEFENSE_W: Final = WEIGHTS["pillbug_defense"]
_RESERVE_W: Final = WEIGHTS["pillbug_reserve"]


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


def _white_terms(game: Game) -> tuple[i64, i64, i64, i64, i64, i64, i64]:
    """Every term (``WEIGHTS``), weighted, from White's point of view: one pass over the
    pieces, each one's mobility and its place next to either Queen, then the Pillbugs in hand.
    (Seven integers, not ``tuple[int, ...]``: a fixed length is a C struct, not a Python tuple,
    in the compiled build.)"""
    board = game.board
    top, height, hex_of = board.top, board.height, board.hex_of
    attackers: i64 = 0
    blockers: i64 = 0
    neighbours: i64 = 0
    mobility: i64 = 0
    in_hand: i64 = 0
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
        if h == HAND:
            in_hand += _HAND_W[p]
            continue
        if top[h] != p:  # covered: the stack counts as its top piece
            continue
        bug = BUG_OF[p]
        up = height[h] > 1
        value: i64 = BUG_VALUE[bug]
        crawler = _CRAWLER[bug]
        powers = bug == _PILLBUG
        if bug == _MOSQUITO:
            if up:
                value = BUG_VALUE[_BEETLE]
            else:  # it moves as its neighbours do: a crawler if they all are
                value = 0
                crawler = True
                for n in NEIGHBORS[h]:
                    t = top[n]
                    if t == EMPTY:
                        continue
                    if _MIMIC[t] > value:
                        value = _MIMIC[t]
                    b = BUG_OF[t]
                    if b == _PILLBUG:
                        powers = True
                    if not _CRAWLER[b]:
                        crawler = False
        if up:
            value *= 2
            stuck = False
        else:
            stuck = bool(pinned_pieces >> p & 1) or (crawler and not slide_directions(top, h))
        sign: i64 = 1 if p < PIECES_PER_COLOR else -1
        if home >> p & 1:
            if stuck:
                blockers += sign
            else:
                neighbours += sign
            if powers and pillbugs:
                color = COLOR_OF[p]
                own = queens[color]
                if height[own] == 1 and _escape(top, h, own) > 2:
                    defended[color] = True
        if pressing >> p & 1:
            attackers += sign
        elif not stuck:
            mobility += sign * value
    defense: i64 = 0
    reserve: i64 = 0
    if pillbugs:
        defense = int(defended[0]) - int(defended[1])
        reserve = int(_reserve(game, 0)) - int(_reserve(game, 1))
    return (
        attackers * _ATTACKERS_W,
        blockers * _BLOCKERS_W,
        neighbours * _NEIGHBOURS_W,
        mobility * _MOBILITY_W,
        in_hand,
        defense * _DEFENSE_W,
        reserve * _RESERVE_W,
    )
