"""Zobrist hashing: the splitmix64 mixer and the keys of ``Game.hash`` and ``Game.kind_hash``.

A position's hash is the XOR of one key per piece on the board (its hex, and its level when it
is not on the ground), the side-to-move key when Black is to move, and the key of the game type,
so that the same moves in ``Base`` and ``Base+MLP`` hash differently. Its kind hash is made
alike, but a piece's keys are those of its kind (its colour and bug, not its number: ``wB1`` and
``wB2`` have the same keys), so two positions that differ only by pieces of a kind swapped hash
alike: the threefold repetition counts those (with ``STUNNED_KEYS``). Keys are
``zobrist_key(i)`` for ``i`` below ``ZOBRIST_KEY_COUNT``; other users of the mixer (a search's
own keys, say) take indices from ``ZOBRIST_KEY_COUNT`` on, so their keys are never one of these.

Keys, and so hashes, have 62 bits: the compiled build holds integers below ``2**62`` unboxed
(a "short" tagged integer), so XORing them never allocates; 64-bit keys made every ``push``
allocate and every hash compare through a Python object.
"""

from __future__ import annotations

from typing import Final

from hive.hexes import CELLS
from hive.pieces import ALL_GAME_TYPES, BUG_COUNTS, BUG_OF, COLOR_OF, NUM_PIECES, GameType

_MASK64: Final = 0xFFFFFFFFFFFFFFFF


def splitmix64(n: int) -> int:
    """A well-mixed 64-bit value for the integer ``n`` (splitmix64's output for state ``n``).

    Distinct ``n`` below ``2**64`` give distinct values, so ``splitmix64(i)`` for consecutive
    ``i`` makes a table of Zobrist keys.
    """
    z = (n + 1) * 0x9E3779B97F4A7C15 & _MASK64
    z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9 & _MASK64
    z = (z ^ z >> 27) * 0x94D049BB133111EB & _MASK64
    return z ^ z >> 31


KEY_BITS: Final = 62
"""Bits of a Zobrist key and of a hash."""


def zobrist_key(n: int) -> int:
    """The ``n``-th key: ``splitmix64(n)``'s top ``KEY_BITS`` bits."""
    return splitmix64(n) >> (64 - KEY_BITS)


LEVELS: Final = 8
"""Levels with a key of their own: more than a stack can hold (a piece with four Beetles and two
Mosquitoes on it is seven)."""

KINDS: Final = 2 * len(BUG_COUNTS)
"""Kinds of piece: a colour and a bug (``KIND_OF``)."""

KIND_OF: Final = tuple(COLOR_OF[p] * len(BUG_COUNTS) + BUG_OF[p] for p in range(NUM_PIECES))
"""``KIND_OF[piece]``: its kind, ``colour * 8 + bug``."""

_LEVEL_BASE: Final = NUM_PIECES * CELLS
_BLACK_INDEX: Final = _LEVEL_BASE + NUM_PIECES * LEVELS
_GAME_TYPE_BASE: Final = _BLACK_INDEX + 1
_KIND_BASE: Final = _GAME_TYPE_BASE + len(ALL_GAME_TYPES)
_KIND_LEVEL_BASE: Final = _KIND_BASE + KINDS * CELLS
_STUNNED_BASE: Final = _KIND_LEVEL_BASE + KINDS * LEVELS

ZOBRIST_KEY_COUNT: Final = _STUNNED_BASE + CELLS
"""The indices ``0 .. ZOBRIST_KEY_COUNT - 1`` of ``zobrist_key`` make the keys below."""

HEX_KEYS: Final = tuple(zobrist_key(i) for i in range(_LEVEL_BASE))
"""``HEX_KEYS[piece * CELLS + h]``: ``piece`` is on hex ``h`` (at any level)."""

LEVEL_KEYS: Final = tuple(zobrist_key(_LEVEL_BASE + i) for i in range(NUM_PIECES * LEVELS))
"""``LEVEL_KEYS[piece * LEVELS + level]``: ``piece`` is ``level`` pieces above the ground."""

BLACK_KEY: Final = zobrist_key(_BLACK_INDEX)
"""Black is to move."""

_GAME_TYPE_KEYS: Final = {
    game_type: zobrist_key(_GAME_TYPE_BASE + i) for i, game_type in enumerate(ALL_GAME_TYPES)
}


KIND_HEX_KEYS: Final = tuple(
    zobrist_key(_KIND_BASE + KIND_OF[p] * CELLS + h)
    for p in range(NUM_PIECES)
    for h in range(CELLS)
)
"""``KIND_HEX_KEYS[piece * CELLS + h]``: a piece of ``piece``'s kind is on hex ``h`` (at any
level). Indexed by piece, as ``HEX_KEYS``, so pieces of one kind repeat their kind's keys."""

KIND_LEVEL_KEYS: Final = tuple(
    zobrist_key(_KIND_LEVEL_BASE + KIND_OF[p] * LEVELS + level)
    for p in range(NUM_PIECES)
    for level in range(LEVELS)
)
"""``KIND_LEVEL_KEYS[piece * LEVELS + level]``: a piece of ``piece``'s kind is ``level`` pieces
above the ground."""

STUNNED_KEYS: Final = tuple(zobrist_key(_STUNNED_BASE + h) for h in range(CELLS))
"""``STUNNED_KEYS[h]``: the piece on top of hex ``h`` was moved last, so it is stunned (it may
not move, nor be thrown, this turn): part of a position when Pillbugs are in play."""


def piece_key(piece: int, h: int, level: int) -> int:
    """The key of ``piece`` on hex ``h``, ``level`` pieces above the ground (0 on the ground)."""
    key = HEX_KEYS[piece * CELLS + h]
    return key ^ LEVEL_KEYS[piece * LEVELS + level] if level else key


def kind_key(piece: int, h: int, level: int) -> int:
    """The key of a piece of ``piece``'s kind on hex ``h``, ``level`` pieces above the ground."""
    key = KIND_HEX_KEYS[piece * CELLS + h]
    return key ^ KIND_LEVEL_KEYS[piece * LEVELS + level] if level else key


def game_type_key(game_type: GameType) -> int:
    """The key of ``game_type``, part of every hash of a game of that type."""
    return _GAME_TYPE_KEYS[game_type]


__all__ = [
    "BLACK_KEY",
    "HEX_KEYS",
    "KEY_BITS",
    "KINDS",
    "KIND_HEX_KEYS",
    "KIND_LEVEL_KEYS",
    "KIND_OF",
    "LEVELS",
    "LEVEL_KEYS",
    "STUNNED_KEYS",
    "ZOBRIST_KEY_COUNT",
    "game_type_key",
    "kind_key",
    "piece_key",
    "splitmix64",
    "zobrist_key",
]
