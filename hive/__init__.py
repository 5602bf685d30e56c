"""Hive rules engine: pure, standard library only.

The public API::

    from hive import Game, GameType, Move, Piece
    game = Game(GameType.parse("Base+MLP"))
    game.play("wS1")
    game.legal_moves()
"""

from hive.errors import HiveError, IllegalMoveError, InvalidGameStringError, InvalidMoveError
from hive.game import Game, GameState, Move
from hive.pieces import Bug, Color, GameType, Piece

__all__ = [
    "Bug",
    "Color",
    "Game",
    "GameState",
    "GameType",
    "HiveError",
    "IllegalMoveError",
    "InvalidGameStringError",
    "InvalidMoveError",
    "Move",
    "Piece",
]
