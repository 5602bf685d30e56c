"""Puzzles from games: positions where one move alone wins by force, or saves the Queen.

``ai.proof`` proves them (what a win in ``n``, its unique solution and a defence are, and how);
this module keeps them: ``puzzle_of`` makes a ``Puzzle`` of a position it proves, ``find`` scans
the positions of games (the bots' own, ``hive-ai puzzles``; the server's archive), and ``mine``
plays one bots' game and finds its puzzles, in a worker process. (Not compiled: its ``Puzzle``
travels between processes by pickle.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from ai.proof import (
    DEEPEST,
    Known,
    forces,
    forcing_moves,
    is_queen_hemmed,
    saving_move,
    solve,
    winning_now,
    wins_within,
)
from hive import Game, GameState, HiveError, Move
from hive.pieces import BUG_OF, Bug

__all__ = [
    "DEEPEST",
    "MINING_LEVELS",
    "Puzzle",
    "find",
    "forces",
    "forcing_moves",
    "mine",
    "mine_moves",
    "puzzle_of",
    "saving_move",
    "solve",
    "winning_now",
    "wins_within",
]


@dataclass(frozen=True)
class Puzzle:
    """A position and its one solution.

    Attributes:
        game_string: The position, as a UHP GameString (its moves lead to it).
        solution: The line as MoveStrings: the solver's move, the defender's reply, ... ending
            with the solver's winning move (a defence: the one saving move alone).
        theme: ``win1``, ``win2``, ``win3`` or ``defend``.
        bugs: The bugs the solver moves in the solution, in order (``Queen``, ``Ant``...).
        source: Where the position came from (a game's id or an arena's game).
    """

    game_string: str
    solution: tuple[str, ...]
    theme: str
    bugs: tuple[str, ...]
    source: str = ""

    @property
    def game_type(self) -> str:
        return self.game_string.split(";", 1)[0]

    def position(self) -> tuple[int, int]:
        """The position's identity: its hash (pieces, stacks, side to move) and the piece
        that may not move; the same for the same position reached by other moves."""
        game = Game.from_game_string(self.game_string)
        return game.hash, game.last_moved


def puzzle_of(game: Game, source: str = "", known: Known | None = None) -> Puzzle | None:
    """The puzzle of this position, if it has one: a win, else a defence. ``known``: the
    answers proved so far in positions of the same game (a table of ``find``'s)."""
    known = {} if known is None else known
    solved = solve(game, known)
    if solved is not None:
        n, line = solved
        return _puzzle(game, line, f"win{n}", source)
    if is_queen_hemmed(game):
        move = saving_move(game, known)
        if move is not None:
            return _puzzle(game, [move], "defend", source)
    return None


def _puzzle(game: Game, line: list[Move], theme: str, source: str) -> Puzzle:
    spelled = []
    bugs = []
    for ply, move in enumerate(line):
        spelled.append(game.move_string(move))
        if ply % 2 == 0:
            bugs.append(Bug(BUG_OF[move.piece]).name.title())
        game.push(move)
    for _ in line:
        game.pop()
    return Puzzle(game.game_string(), tuple(spelled), theme, tuple(bugs), source)


def find(games: Iterable[tuple[str, Game]]) -> Iterator[Puzzle]:
    """The puzzles of every position of ``games`` (a source name and a finished or stopped
    game each: its positions from the start), one a position at most, each position once."""
    seen: set[int] = set()
    known: Known = {}
    for source, game in games:
        replay = Game(game.game_type)  # (no draw by repetition within a puzzle's few moves)
        for move in game.moves:
            replay.push(move)
            if replay.state is not GameState.IN_PROGRESS:
                break
            if replay.hash in seen or not (replay.queen_placed(0) and replay.queen_placed(1)):
                continue
            seen.add(replay.hash)
            found = puzzle_of(replay, f"{source}@{replay.ply}", known)
            if found is not None:
                yield found


MINING_LEVELS: Final = ("easy", "easy")
"""The bots whose games ``mine`` plays: quick, and they leave the Queen open often enough
(the same 24 games gave 76 puzzles between ``easy`` and itself, 33 between ``easy`` and
``medium``, in about the same time: docs/load.md, issue 37's generator)."""


def mine(index: int, game_type: str, seed: int, max_plies: int = 120) -> list[Puzzle]:
    """The puzzles of one game the bots play (``MINING_LEVELS``, colours by ``index``):
    a function of a worker process (``hive-ai puzzles``)."""
    from ai.arena import Player, play_game  # (the arena's bots, only where puzzles are mined)
    from hive import GameType

    a, b = (Player.bot(level) for level in MINING_LEVELS)
    record = play_game(
        a, b, index, game_type=GameType.parse(game_type), seed=seed, max_plies=max_plies
    )
    game = Game.from_game_string(record.game_string, repetition_draw=True)
    return list(find([(f"{game_type}#{seed}.{index}", game)]))


def mine_moves(game_type: str, moves: tuple[str, ...], source: str) -> list[Puzzle]:
    """The puzzles of one game given as its moves (an archived game's: the server's miner
    runs this in a background worker of its bot pool); none when the moves do not replay."""
    try:
        game = Game(game_type)
        for move in moves:
            game.play(move)
    except HiveError:
        return []
    return list(find([(source, game)]))
