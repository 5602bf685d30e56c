"""Takebacks, without any IO: in a casual game between people, a player asks to take back
their last move; the opponent accepts or declines.

Accepted, the moves are taken back so that it is the asker's turn again: their own last move
if the opponent has not answered it yet (one ply), else the opponent's answer too (two plies).
The clocks go back to what they were at the start of the asker's turn then taken back, and the
asker's runs again from the takeback. One request is outstanding at a time (a move, the
asker's or the opponent's, withdraws it), and each side may ask ``TAKEBACKS_PER_GAME`` times a
game. Rated games refuse them (the rating would count a game its players shaped), and so do
games against a bot (the server's or a bot account): a bot is never asked.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from protocol import Color, ErrorCode, Event, ProtocolError
from server.game.match import require_live
from server.game.record import Record, other

TAKEBACKS_PER_GAME: Final = 3
"""How many takebacks each side may ask for in a game."""


def takeback(record: Record, player: str, action: str, now: int) -> tuple[Record, Event]:
    """``player`` asks for a takeback, or accepts or declines the opponent's request.

    Events: ``takeback_offer`` (``by`` the asker), ``takeback_decline`` (``by`` who declined),
    ``takeback`` (``by`` the asker; ``text`` how many plies were taken back, ``1`` or ``2``).

    Raises:
        ProtocolError: NOT_YOUR_GAME, GAME_OVER, NOT_ALLOWED (a rated game, a bot's, no move
            of the asker's to take back, a request already outstanding, none to answer, or
            the game's requests used up).
    """
    color = require_live(record, player)
    if record.rated:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, "takebacks are for casual games: this game is rated"
        )
    opponent = record.seat(other(color))
    if opponent is None or opponent.account == "bot":
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "bots do not take back moves")
    if action == "ask":
        return _ask(record, color, now)
    if record.takeback_offer != other(color):
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "there is no takeback request to answer")
    if action == "accept":
        return take_back(record, other(color), now)
    version = record.version + 1
    declined = replace(record, takeback_offer=None, version=version)
    return declined, Event(version, "takeback_decline", now, by=color)


def plies_back(record: Record, asker: Color) -> int:
    """How many plies a takeback ``asker`` asks for takes back: 1 when ``asker`` moved last,
    else 2 (0: ``asker`` has not moved)."""
    plies = 1 if record.turn != asker else 2
    return plies if len(record.moves) >= plies else 0


def _ask(record: Record, color: Color, now: int) -> tuple[Record, Event]:
    if record.takeback_offer == color:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you have already asked for a takeback")
    if record.takeback_offer is not None:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, "your opponent asks for a takeback: answer it first"
        )
    if plies_back(record, color) == 0:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you have no move to take back")
    asked = record.white_takebacks if color == "white" else record.black_takebacks
    if asked >= TAKEBACKS_PER_GAME:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, f"you may ask for {TAKEBACKS_PER_GAME} takebacks a game"
        )
    counted = {f"{color}_takebacks": asked + 1}
    version = record.version + 1
    made = replace(record, takeback_offer=color, version=version, **counted)  # type: ignore[arg-type]
    return made, Event(version, "takeback_offer", now, by=color)


def take_back(record: Record, asker: Color, now: int) -> tuple[Record, Event]:
    """The takeback ``asker`` asked for, made: see the module's docstring."""
    plies = plies_back(record, asker)
    assert plies > 0
    clocks: dict[str, object] = {}
    if len(record.clocks_before) >= plies:  # (else kept: a record from before they were)
        white, black = record.clocks_before[-plies]
        clocks = {"clock_white": white, "clock_black": black}
    version = record.version + 1
    taken = replace(
        record,
        moves=record.moves[:-plies],
        version=version,
        moved=version,
        turn_started=now,
        draw_offer=None,
        takeback_offer=None,
        held=None,
        clocks_before=record.clocks_before[:-plies],
        **clocks,  # type: ignore[arg-type]
    )
    return taken, Event(version, "takeback", now, by=asker, text=str(plies))
