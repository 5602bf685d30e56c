"""Positions up to the symmetries of the hex grid, to count how varied an arena's games are.

``position_at(game_string, ply)`` gives a value that is equal for two positions that differ only
by translation, rotation, reflection, or which piece of a bug stands where.
"""

from __future__ import annotations

from typing import Final

from hive import Game
from hive.hexes import axial
from hive.pieces import BUG_OF, COLOR_OF

# The twelve symmetries of the hex grid, on axial coordinates: six rotations, each mirrored.
_SYMMETRIES: Final = tuple(
    (rotations, mirrored) for rotations in range(6) for mirrored in (False, True)
)

Position = tuple[tuple[int, int, int, int, int], ...]
"""A canonical position: ``(q, r, color, bug, level)`` per piece, sorted."""


def position_at(game_string: str, ply: int) -> Position | None:
    """The position after ``ply`` moves of a game, as a value equal for positions that differ
    only by translation, rotation, reflection or which piece of a bug stands where; None for a
    shorter game."""
    game = Game.from_game_string(game_string, repetition_draw=True)
    if game.ply < ply:
        return None
    game.undo(game.ply - ply)
    board = game.board
    pieces = []
    for h in board.occupied():
        q, r = axial(h)
        for level, piece in enumerate(board.stack(h)):
            pieces.append((COLOR_OF[piece], BUG_OF[piece], q, r, level))
    return min(_canonical(pieces, rotations, mirrored) for rotations, mirrored in _SYMMETRIES)


def _canonical(
    pieces: list[tuple[int, int, int, int, int]], rotations: int, mirrored: bool
) -> Position:
    moved = []
    for color, bug, q, r, level in pieces:
        if mirrored:
            q, r = r, q
        for _ in range(rotations):
            q, r = -r, q + r
        moved.append((q, r, color, bug, level))
    q0, r0 = min((q, r) for q, r, *_ in moved)
    return tuple(sorted((q - q0, r - r0, c, b, lv) for q, r, c, b, lv in moved))
