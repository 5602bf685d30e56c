"""The transposition table: search results by position, kept by a bot between its searches.

An entry is ``key -> (depth, value, bound, best move)``, the key being ``position_key(game)``;
``to_table`` and ``from_table`` convert mate scores to and from the form stored.
"""

from __future__ import annotations

from typing import Final

from ai.evaluation import HAND_SET, MATE_BOUND, Weights
from hive import Game, Move
from hive.hashing import ZOBRIST_KEY_COUNT, zobrist_key
from hive.pieces import NUM_PIECES

EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2
"""The bounds of a stored value: the true value, at least it (a cutoff), at most it (nothing
reached the window)."""


STUN_KEYS: Final = tuple(zobrist_key(ZOBRIST_KEY_COUNT + i) for i in range(NUM_PIECES + 1))
"""``STUN_KEYS[piece]``: ``piece`` was moved last, so it is stunned (a Pillbug may not throw it,
it may not move); ``STUN_KEYS[-1]``: no piece is. With Pillbugs in play this is part of the
position. The keys follow the Zobrist keys' indices, so none is a Zobrist key."""


def position_key(game: Game) -> int:
    """The table key of ``game``'s position: ``game.hash``, mixed with the stunned piece (the
    one moved last) when Pillbugs are in play."""
    if game.game_type.pillbug:
        return game.hash ^ STUN_KEYS[game.last_moved]
    return game.hash


class TranspositionTable:
    """Search results by position: ``key -> (depth, value, bound, best move)``.

    Keys are ``position_key(game)``. Mate scores are stored relative to the position
    (``to_table``), so they stay right wherever it recurs. A table serves searches of one
    branching limit, one set of evaluation weights and one way of searching (leaves with or
    without their threats, null moves or none): a search with another clears it first. It
    also caches static evaluations, and with threats whether the side to move wins at once.
    When full it is cleared (cheap, and good enough between moves).

    Args:
        capacity: Most entries kept in the table and in the evaluation cache (a few hundred
            bytes each). (The board keeps its articulation points by shape itself.)
    """

    def __init__(self, capacity: int = 1 << 18) -> None:
        self.capacity = capacity
        self.entries: dict[int, tuple[int, int, int, Move | None]] = {}
        self.evals: dict[int, int] = {}
        self.wins: dict[int, bool] = {}  # whether the side to move wins at once (threats)
        self.branching: int | None = None
        self.weights = HAND_SET
        self.threats = False
        self.null_move = False

    def __len__(self) -> int:
        return len(self.entries)

    def clear(self) -> None:
        """Forget everything."""
        self.entries.clear()
        self.evals.clear()
        self.wins.clear()

    def prepare(
        self,
        branching: int | None,
        weights: Weights,
        threats: bool = False,
        null_move: bool = False,
    ) -> None:
        """Get ready for a search with branching limit ``branching``, the evaluation's
        ``weights``, leaves scored with ``threats`` or not and null moves or none (clears on a
        change of any)."""
        if (
            branching != self.branching
            or weights is not self.weights
            or threats != self.threats
            or null_move != self.null_move
        ):
            self.clear()
            self.branching = branching
            self.weights = weights
            self.threats = threats
            self.null_move = null_move
        if len(self.entries) > self.capacity:
            self.entries.clear()
        if len(self.evals) > self.capacity:
            self.evals.clear()
        if len(self.wins) > self.capacity:
            self.wins.clear()


def to_table(value: int, ply: int) -> int:
    """A score at ``ply`` as stored: wins and losses counted from the position, not the game's
    start."""
    if value >= MATE_BOUND:
        return value + ply
    if value <= -MATE_BOUND:
        return value - ply
    return value


def from_table(value: int, ply: int) -> int:
    """A stored score as seen at ``ply`` (the inverse of ``to_table``)."""
    if value >= MATE_BOUND:
        return value - ply
    if value <= -MATE_BOUND:
        return value + ply
    return value


__all__ = [
    "EXACT",
    "LOWER",
    "STUN_KEYS",
    "UPPER",
    "TranspositionTable",
    "from_table",
    "position_key",
    "to_table",
]
