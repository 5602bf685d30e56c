"""A puzzle's moves checked by the rules engine: the position shown, a player's move against
the stored line, and the line's positions (the solution). Pure; run in the positions' worker
(``server.edge.review.Positions``), as the analysis board's positions are.

A move is right when it is the line's move, compared as the engine compares moves, by piece
and destination (never by its spelling: ``wQ -bA1`` and ``wQ \\bG1`` may be one move), or
when it wins the game at once (a last move that surrounds the Queen another way wins too).

A puzzle's position is read as the generator read it, without the draw by repetition (its
game's history may hold a position thrice; the puzzle's few moves never repeat one).
"""

from __future__ import annotations

from dataclasses import dataclass

from hive import GameState, HiveError
from protocol import ErrorCode, Position
from server.game.position import Refusal, position, replay

WON = {0: GameState.WHITE_WINS, 1: GameState.BLACK_WINS}


@dataclass(frozen=True)
class Step:
    """A player's move checked: ``correct``; the move as the engine spells it; ``frames``,
    the positions to show after it (the move and the defender's reply, when correct); how
    many moves of the line are now played; ``done``: the line is over (solved)."""

    correct: bool
    move: str
    frames: list[Position]
    played: int
    done: bool


def shown(game_string: str) -> Position | Refusal:
    """The puzzle's position as its page shows it."""
    return position("", game_string, [], repetition_draw=False)


def step(game_string: str, solution: list[str], played: int, move: str) -> Step | Refusal:
    """The player's ``move`` after ``played`` moves of ``solution`` (the solver's next).

    A wrong move plays nothing (``frames`` empty); an illegal or unreadable one is refused
    (``illegal_move``), as in a game.
    """
    game = replay("", game_string, solution[:played], repetition_draw=False)
    if isinstance(game, Refusal):
        return game
    try:
        mine = game.parse_move(move)
    except HiveError as error:
        return Refusal(ErrorCode.ILLEGAL_MOVE, str(error)[:240])
    expected = game.parse_move(solution[played])
    spelled = game.move_string(mine)
    me = game.ply & 1
    game.push(mine)
    wins = game.state is WON[me]
    game.pop()
    if (mine.piece, mine.destination) != (expected.piece, expected.destination) and not wins:
        return Step(False, spelled, [], played, False)
    done = wins or played + 1 >= len(solution)
    line = [*solution[:played], spelled]
    frames = [_framed(game_string, line)]
    if not done:
        line.append(solution[played + 1])
        frames.append(_framed(game_string, line))
        done = len(line) >= len(solution)
    return Step(True, spelled, frames, len(line), done)


def line(game_string: str, solution: list[str]) -> list[Position] | Refusal:
    """The positions along the whole solution, one after each of its moves."""
    frames = []
    for ply in range(1, len(solution) + 1):
        frame = position("", game_string, solution[:ply], repetition_draw=False)
        if isinstance(frame, Refusal):
            return frame
        frames.append(frame)
    return frames


def _framed(game_string: str, moves: list[str]) -> Position:
    frame = position("", game_string, moves, repetition_draw=False)
    assert not isinstance(frame, Refusal)  # (the line's moves were checked on load)
    return frame


__all__ = ["Step", "line", "shown", "step"]
