"""Our UHP engine with an ending of its own, as nokamute holds a game drawn by its repetition
rule where ours plays on: once its game reaches ply PLY, it answers ``play`` and ``newgame``
with the game over as STATE (``Draw``, or a win), and a ``bestmove`` then ends it with status
101, as nokamute panics. Run as ``python tests/engines/claiming_engine.py PLY STATE``: its
folder holds no package that would hide ``hive`` or ``ai``."""

from __future__ import annotations

import sys

from ai.uhp import Engine, serve


class Claims(Engine):
    def __init__(self, ply: int, state: str) -> None:
        super().__init__()
        self.ply = ply
        self.state = state

    def claims(self) -> bool:
        return self.game is not None and self.game.ply >= self.ply

    def handle(self, line: str) -> list[str]:
        if line.startswith("bestmove") and self.claims():
            sys.exit(101)  # nokamute: "called `Option::unwrap()` on a `None` value"
        lines = super().handle(line)
        if line.startswith(("play", "newgame")) and self.claims():
            lines[0] = lines[0].replace(";InProgress;", f";{self.state};", 1)
        return lines


if __name__ == "__main__":
    sys.exit(serve(sys.stdin.buffer, sys.stdout.buffer, Claims(int(sys.argv[1]), sys.argv[2])))
