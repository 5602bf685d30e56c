"""Static evaluation: a weighted sum of named terms, from the side to move's point of view.

Every term is a difference, the side to move's count minus the opponent's, so a position and
its colour-swapped twin score opposite. ``terms(game)`` returns each term already multiplied
by its weight (the search trace shows them); ``evaluate(game)`` is their sum. Both come from
one pass over the position, ``_white_terms``. The weights live in one place, ``WEIGHTS``.

The evaluation is cheap on purpose: one pass over the 28 pieces and one articulation-point
search (``board.articulation_points()``), never a legal-move generation.

Terminal positions score ``±(WIN - ply)``: a win found sooner scores higher, a loss later
scores less badly. A draw scores 0.
"""

from __future__ import annotations

from typing import Final

from hive import Game, GameState
from hive.board import EMPTY, HAND
from hive.hexes import NEIGHBORS
from hive.pieces import (
    BUG_AT,
    BUG_OF,
    COLOR_OF,
    FIRST_OF,
    NUM_PIECES,
    OWNER,
    PIECES_PER_COLOR,
    QUEENS,
    Bug,
)

WIN: Final = 1_000_000
"""The score of a win at ply 0; a win at ply ``p`` scores ``WIN - p``."""

MATE_BOUND: Final = WIN - 100_000
"""Scores at or beyond ``±MATE_BOUND`` are wins or losses, never positional."""

WEIGHTS: Final[dict[str, int]] = {
    # Empty hexes around each Queen: own liberties are safety, the enemy's are its escape.
    "queen_liberties": 24,
    # Escalating danger as a Queen's ring fills (table below, by occupied neighbours).
    "queen_danger": 1,
    # Pieces that can move: on the board, on top, not pinned, Queen placed (by bug value).
    "mobility": 2,
    # Own pieces on the ground that cannot lift without splitting the hive.
    "pinned": -3,
    # Own pieces under a stack.
    "covered": -6,
    # Own pieces (any height) next to the enemy Queen.
    "queen_attackers": 6,
    # Own Beetles or Mosquitoes on top of the enemy Queen (it cannot move).
    "queen_beetles": 40,
    # Pieces still in hand (flexible reserves).
    "in_hand": 3,
    # A Pillbug (or Mosquito) next to its own Queen can throw attackers away.
    "queen_guard": 12,
    # Having the move.
    "tempo": 8,
}

# How much each bug adds to mobility when it is free to move (a Mosquito takes the best of its
# neighbours', a Beetle's on top of the hive).
BUG_VALUE: Final = (6, 3, 5, 4, 8, 0, 5, 4)

# queen_danger per occupied neighbour count (6 is a loss, handled as terminal).
DANGER: Final = (0, 0, 4, 14, 34, 80, 0)

_IN_PROGRESS: Final = (GameState.IN_PROGRESS, GameState.NOT_STARTED)
_VALUE_AT: Final = (*(BUG_VALUE[b] for b in BUG_OF), 0)
_BEETLE: Final = int(Bug.BEETLE)
_MOSQUITO: Final = int(Bug.MOSQUITO)
_PILLBUG: Final = int(Bug.PILLBUG)


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
    result = {name: sign * v for name, v in zip(_COUNTED, _white_terms(game), strict=True)}
    result["tempo"] = _TEMPO
    return result


def evaluate(game: Game) -> int:
    """The position's score for the side to move: positive is good for it."""
    if game.state not in _IN_PROGRESS:
        return terminal_score(game)
    score = 0
    for term in _white_terms(game):
        score += term
    return (score if game.ply & 1 == 0 else -score) + _TEMPO


def _signed(value: int) -> tuple[int, ...]:
    """``value`` per piece, positive for White's pieces and negative for Black's."""
    return tuple(value if p < PIECES_PER_COLOR else -value for p in range(NUM_PIECES))


# Each term's weight per piece, signed by colour (Final: the compiled build reads them directly).
_HAND_W: Final = _signed(WEIGHTS["in_hand"])
_ATTACK_W: Final = _signed(WEIGHTS["queen_attackers"])
_COVERED_W: Final = _signed(WEIGHTS["covered"])
_PINNED_W: Final = _signed(WEIGHTS["pinned"])
_MOBILE_W: Final = tuple(
    (WEIGHTS["mobility"] * BUG_VALUE[BUG_OF[p]]) * (1 if p < PIECES_PER_COLOR else -1)
    for p in range(NUM_PIECES)
)
_IS_MOSQUITO: Final = tuple(BUG_OF[p] == Bug.MOSQUITO for p in range(NUM_PIECES))
# On top of the hive a Mosquito moves as a Beetle.
_MOBILE_UP_W: Final = tuple(
    _MOBILE_W[FIRST_OF[COLOR_OF[p]][_BEETLE]] if _IS_MOSQUITO[p] else _MOBILE_W[p]
    for p in range(NUM_PIECES)
)


# By free hexes around a Queen (the others are occupied).
_LIBERTIES_W: Final = tuple(WEIGHTS["queen_liberties"] * free for free in range(7))
_DANGER_W: Final = tuple(-WEIGHTS["queen_danger"] * DANGER[6 - free] for free in range(7))
_TEMPO: Final = WEIGHTS["tempo"]
_COUNTED: Final = tuple(name for name in WEIGHTS if name != "tempo")


_BEETLES_W: Final = WEIGHTS["queen_beetles"]
_GUARD_W: Final = WEIGHTS["queen_guard"]
_MOBILITY_W: Final = WEIGHTS["mobility"]


def _white_terms(game: Game) -> tuple[int, ...]:
    """Every term but tempo (``_COUNTED``), weighted, from White's point of view: the Queens'
    rings (their liberties, danger, attackers, Beetles on top and guards), then one pass over
    the pieces, each weight looked up in the tables above."""
    board = game.board
    top, height, hex_of = board.top, board.height, board.hex_of
    liberties = danger = mobility = pinned = covered = attackers = beetles = in_hand = guard = 0
    placed0 = placed1 = False
    pillbugs = game.game_type.pillbug
    for color in (0, 1):
        queen = QUEENS[color]
        h = hex_of[queen]
        if h == HAND:
            continue
        sign = 1 if color == 0 else -1
        if color == 0:
            placed0 = True
        else:
            placed1 = True
        free = 0
        guarded = False
        for n in NEIGHBORS[h]:
            t = top[n]
            if t == EMPTY:
                free += 1
                continue
            if OWNER[t] != color:  # the enemy's pieces next to this Queen, at any height
                attackers += _ATTACK_W[t]
            elif pillbugs and height[n] == 1 and BUG_AT[t] in (_PILLBUG, _MOSQUITO):
                guarded = True
            if height[n] > 1:
                for p in board.under[n]:
                    if COLOR_OF[p] != color:
                        attackers += _ATTACK_W[p]
        liberties += sign * _LIBERTIES_W[free]
        danger += sign * _DANGER_W[free]
        if guarded:
            guard += sign * _GUARD_W
        if top[h] != queen:  # enemy Beetles or Mosquitoes on it count for the enemy
            enemies = 1 if COLOR_OF[top[h]] != color else 0
            for p in board.under[h][1:]:
                if COLOR_OF[p] != color:
                    enemies += 1
            beetles -= sign * _BEETLES_W * enemies
    # The pieces alone on an articulation point (the board keeps those by shape), one bit
    # each: a small integer, where a set of hexes would make an object of each hex looked up.
    pinned_pieces = 0
    for h in board.articulation_points():
        if height[h] == 1:
            pinned_pieces |= 1 << top[h]
    for p in game.pieces:
        h = hex_of[p]
        if h == HAND:
            in_hand += _HAND_W[p]
            continue
        if top[h] != p:
            covered += _COVERED_W[p]
            continue
        white = p < PIECES_PER_COLOR
        if height[h] == 1:
            if pinned_pieces >> p & 1:
                pinned += _PINNED_W[p]
                continue
            if not (placed0 if white else placed1):
                continue
            if _IS_MOSQUITO[p]:
                value = 0
                for n in NEIGHBORS[h]:
                    if _VALUE_AT[top[n]] > value:
                        value = _VALUE_AT[top[n]]
                mobility += _MOBILITY_W * value if white else -_MOBILITY_W * value
            else:
                mobility += _MOBILE_W[p]
        elif placed0 if white else placed1:
            mobility += _MOBILE_UP_W[p]
    return liberties, danger, mobility, pinned, covered, attackers, beetles, in_hand, guard
