"""A position of the analysis board: a game type or a GameString, then moves, checked by the
rules engine and turned into the wire ``Position`` (the pieces, the hands, the legal moves).
Nothing is stored. Run in a worker process (``server.edge.review.Positions``): a GameString
of hundreds of moves takes tens of milliseconds to check, which the event loop never spends.

A refusal is a ``Refusal`` value, not an exception, so that it comes back from the worker as
it is: the handler (``server.requests.analysis``) turns it into an ``error``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from hive import PASS, Game, HiveError, Layout, Move
from hive.pieces import NAMES
from protocol import MAX_ANALYSIS_MOVES, ErrorCode, LegalMove, PieceAt, Position

QUOTED: Final = 120
"""The most characters of a client's GameString or move quoted in a refusal."""


@dataclass(frozen=True)
class Refusal:
    """Why a position was refused: the ``error``'s code and message."""

    code: ErrorCode
    message: str


@dataclass(frozen=True)
class Checked:
    """A position checked: its game type and every move from the start, as the engine spells
    them (what an engine run searches)."""

    game_type: str
    moves: list[str]


def replay(
    game_type: str, game_string: str | None, moves: list[str], *, repetition_draw: bool = True
) -> Game | Refusal:
    """The game of a GameString (or the start of ``game_type``) followed by ``moves``, every
    move checked, or why not: ``bad_message`` (an unknown game type, a malformed GameString),
    ``too_long`` (more than ``MAX_ANALYSIS_MOVES`` moves in all), ``illegal_move`` (which
    move, and why). ``repetition_draw``: a third repetition ends the game (as on the server;
    a puzzle's position is read without it, as the generator reads it)."""
    head = moves
    if game_string is not None:
        fields = [part.strip() for part in game_string.split(";")]
        if len(fields) + len(moves) - 3 > MAX_ANALYSIS_MOVES:
            return Refusal(ErrorCode.TOO_LONG, f"at most {MAX_ANALYSIS_MOVES} moves in all")
        try:
            game = Game.from_game_string(game_string, repetition_draw=repetition_draw)
        except HiveError as error:
            return Refusal(ErrorCode.BAD_MESSAGE, f"not a GameString: {_quoted(str(error))}")
    else:
        try:
            game = Game(game_type, repetition_draw=repetition_draw)
        except HiveError:
            return Refusal(ErrorCode.BAD_MESSAGE, f"unknown game type {game_type[:QUOTED]!r}")
    if len(game.moves) + len(head) > MAX_ANALYSIS_MOVES:
        return Refusal(ErrorCode.TOO_LONG, f"at most {MAX_ANALYSIS_MOVES} moves in all")
    for number, text in enumerate(head, len(game.moves) + 1):
        try:
            game.play(text)
        except HiveError as error:
            return Refusal(
                ErrorCode.ILLEGAL_MOVE, f"move {number} {text[:QUOTED]!r}: {_quoted(str(error))}"
            )
    return game


def check(game_type: str, game_string: str | None, moves: list[str]) -> Checked | Refusal:
    """The position's game type and moves, checked (in the worker; see ``replay``)."""
    game = replay(game_type, game_string, moves)
    if isinstance(game, Refusal):
        return game
    return Checked(str(game.game_type), _spelled(game))


def position(
    game_type: str,
    game_string: str | None,
    moves: list[str],
    asked: int = 0,
    *,
    repetition_draw: bool = True,
) -> Position | Refusal:
    """The ``position`` answer for the request ``asked`` (in the worker; see ``replay``)."""
    game = replay(game_type, game_string, moves, repetition_draw=repetition_draw)
    if isinstance(game, Refusal):
        return game
    layout = game.layout()
    legal: list[LegalMove] = []
    found = game.legal_moves() if not game.is_over() else []
    for move, text in zip(found, game.move_strings(found), strict=True):
        if move != PASS:
            legal.append(_legal(text, move, layout))
    played = _spelled(game)
    last: LegalMove | None = None
    if game.moves and game.moves[-1] != PASS:
        before = Layout(game.moves[:-1])
        last = _legal(played[-1], game.moves[-1], before)
    return Position(
        id=asked,
        game_type=str(game.game_type),
        moves=played,
        game_string=";".join([game.game_string_head(), *played]),
        state=str(game.state),
        turn="white" if game.ply % 2 == 0 else "black",
        pieces=[
            PieceAt(NAMES[piece], q, r, level) for piece, (q, r, level) in layout.positions.items()
        ],
        legal=legal,
        hand_white=[NAMES[p] for p in game.hand(0)],
        hand_black=[NAMES[p] for p in game.hand(1)],
        must_pass=found == [PASS],
        last=last,
    )


def _legal(text: str, move: Move, layout: Layout) -> LegalMove:
    source, target = layout.endpoints(move)
    assert target is not None  # (not a pass)
    return LegalMove(
        text,
        NAMES[move.piece],
        None if source is None else source[0],
        None if source is None else source[1],
        target[0],
        target[1],
    )


def _spelled(game: Game) -> list[str]:
    """Every move of ``game`` from the start, as the engine spells it where it was played."""
    moves = list(game.moves)
    for _ in moves:
        game.pop()
    spelled = []
    for move in moves:
        spelled.append(game.move_string(move))
        game.push(move)
    return spelled


def _quoted(text: str) -> str:
    return text if len(text) <= 2 * QUOTED else f"{text[: 2 * QUOTED]}..."


__all__ = ["Checked", "Refusal", "check", "position", "replay"]
