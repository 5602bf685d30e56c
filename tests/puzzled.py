"""Small puzzles for the server's and the browser's tests: wins in two of
``tests/ai/data/win_in_two.tsv`` kept by ``ai.puzzles.solve`` (so proved unique), and the wins
in one after their first two moves, each proved again here."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from ai.puzzles import Puzzle, solve
from bench.forced_wins import load
from hive import Game
from hive.pieces import BUG_OF, Bug


def proved(game_string: str) -> Puzzle:
    """The puzzle of ``game_string``, proved by the generator's own solver."""
    game = Game.from_game_string(game_string)
    solved = solve(game)
    assert solved is not None, game_string
    length, line = solved
    spelled, bugs = [], []
    for ply, move in enumerate(line):
        spelled.append(game.move_string(move))
        if ply % 2 == 0:
            bugs.append(Bug(BUG_OF[move.piece]).name.title())
        game.push(move)
    return Puzzle(game_string, tuple(spelled), f"win{length}", tuple(bugs), "tests")


def after(game_string: str, moves: tuple[str, ...]) -> str:
    """The GameString of ``game_string``'s position after ``moves``."""
    game = Game.from_game_string(game_string)
    for move in moves:
        game.play(move)
    return game.game_string()


@functools.cache
def fixture_puzzles(wins_in_two: int = 3) -> tuple[Puzzle, ...]:
    """``wins_in_two`` wins in two, then as many wins in one (each its win in two's position
    after the line's first two moves)."""
    found: list[Puzzle] = []
    for game, moves in load():
        if len(found) == wins_in_two:
            break
        if len(moves) == 1 and solve(game) is not None:
            found.append(proved(game.game_string()))
    ones = [proved(after(p.game_string, p.solution[:2])) for p in found]
    for one, two in zip(ones, found, strict=True):
        assert one.theme == "win1" and one.solution == two.solution[2:]
    return (*found, *ones)


def write(path: Path, puzzles: tuple[Puzzle, ...]) -> Path:
    """``puzzles`` as ``hive-ai puzzles`` writes them (a JSON object a line)."""
    lines = [
        json.dumps(
            {
                "game_string": p.game_string,
                "solution": list(p.solution),
                "theme": p.theme,
                "bugs": list(p.bugs),
                "source": p.source,
            }
        )
        for p in puzzles
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
