"""A UHP engine with a draw rule of its own, as nokamute has (a board seen 4 and 8 plies back,
blind to which piece moved last): from ``DRAWN_FROM`` plies on it holds every game drawn,
answering ``newgame`` with a ``Draw`` GameString, and a ``bestmove`` then kills it, as
nokamute's panics. Before, it plays the first legal move. Run as ``python drawing_engine.py``."""

from __future__ import annotations

import sys
from typing import Final

from hive import Game

DRAWN_FROM: Final = 6
"""Plies from which the engine holds the game drawn."""


def main() -> None:
    game: Game | None = None
    print("id drawing-engine 1.0\nok", flush=True)
    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        if command == "info":
            print("id drawing-engine 1.0\n")
        elif command == "newgame":
            game = Game.from_game_string(rest) if ";" in rest else Game(rest or "Base")
            fields = game.game_string().split(";")
            if game.ply >= DRAWN_FROM:
                fields[1] = "Draw"
            print(";".join(fields))
        elif command == "bestmove" and game is not None:
            if game.ply >= DRAWN_FROM:
                sys.exit(101)  # nokamute: "called `Option::unwrap()` on a `None` value"
            print(game.move_string(game.legal_moves()[0]))
        print("ok", flush=True)


if __name__ == "__main__":
    main()
