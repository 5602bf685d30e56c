"""Hive rules engine: pure, standard library only.

The public API::

    from hive import PASS, Game, GameType, Move, Piece
    game = Game("Base+MLP")
    game.play("wS1")
    game.legal_moves()
    game.positions()  # {Piece.wS1: (0, 0, 0)}: plain axial (q, r) and level

``Board`` (``game.board``) is the fast read-only view of the stacks that a search reads: its
lists are indexed by the integer hexes of ``hive.hexes``, with ``EMPTY`` and ``HAND`` as
sentinels. ``hive.pieces`` holds the per-piece tables (``OWNER``, ``BUG_AT``, ``QUEENS``,
``BUG_OF``, ``COLOR_OF``, ``FIRST_OF``) and ``hive.hashing`` the Zobrist keys and
``splitmix64``.
"""

from hive.board import EMPTY, HAND, Board
from hive.errors import HiveError, IllegalMoveError, InvalidGameStringError, InvalidMoveError
from hive.game import PASS, Game, GameState, Move
from hive.layout import Layout
from hive.pieces import Bug, Color, GameType, Piece

__all__ = [
    "EMPTY",
    "HAND",
    "PASS",
    "Board",
    "Bug",
    "Color",
    "Game",
    "GameState",
    "GameType",
    "HiveError",
    "IllegalMoveError",
    "InvalidGameStringError",
    "InvalidMoveError",
    "Layout",
    "Move",
    "Piece",
]
