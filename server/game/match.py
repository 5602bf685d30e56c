"""The rules of a game on the server: every change to its record, without any IO.

A ``Record`` (``server.game.record``) is what Redis holds of a game: seats, time control, the
moves as canonical UHP MoveStrings, the clocks and the event version. Each change (``join``,
``play``, ``resign``...; the chat's are in ``server.game.social``)
is a pure function from a record, a ``hive.Game`` of its moves and the time ``now`` (in
milliseconds) to a new record and the ``Event`` that describes the change, or a
``ProtocolError`` saying why it is refused. ``server.storage.store`` commits the new record only
if the stored version is still the one the change was made on.

Clocks: with a clock (``base`` + ``increment``), the side to move's time runs from
``turn_started``; it starts with each side's second turn. The first moves have
``first_move_timeout`` each, with a clock or without one (else the game is aborted); with
``days``, every move has that many days, the first ones too. Without a clock nothing else is
timed (``desert`` ends such a game that both players left). A side whose time runs out loses
(``timeout``) when the server notices: at its next move, or when the deadline sweep comes
round, whether or not anyone is connected.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Final

from hive import Game, GameState, GameType, HiveError
from hive.hexes import NEIGHBORS
from hive.pieces import QUEENS
from protocol import (
    Color,
    ColorChoice,
    ErrorCode,
    Event,
    Opponent,
    ProtocolError,
    RatingChange,
    Result,
    Seat,
    TimeControl,
)
from server.game.clock import DAY_MS, clocks_started, deadline, initial_clock, time_left
from server.game.frozen import evolve
from server.game.record import Record, other

_RESULTS: Final[dict[GameState, Result]] = {
    GameState.WHITE_WINS: "WhiteWins",
    GameState.BLACK_WINS: "BlackWins",
    GameState.DRAW: "Draw",
}


# -- creating and joining ----------------------------------------------------------------------


def canonical_type(text: str) -> str:
    """The game type ``text`` names, as stored and listed: ``"Base+PLM"`` is ``"Base+MLP"``.

    Raises:
        ProtocolError: BAD_MESSAGE for an unknown game type.
    """
    try:
        return str(GameType.parse(text))
    except HiveError as error:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, str(error)) from None


def create(
    game_id: str,
    creator: Seat,
    *,
    game_type: str,
    time: TimeControl,
    color: ColorChoice,
    now: int,
    ttl_ms: int,
    seed: int,
    wants: Opponent = "anyone",
    challenge: Seat | None = None,
    origin: str | None = None,
    rated: bool = False,
    rating_min: int | None = None,
    rating_max: int | None = None,
    tournament: str | None = None,
    tournament_name: str | None = None,
) -> Record:
    """A new open game, the creator seated on ``color`` (random: decided when someone joins);
    ``wants``, ``challenge`` and the rating range say who may join; ``tournament``: the one
    it is a game of, and its name. (Whether the game may be
    ``rated``, and have a range, is ``Seating``'s to check.)

    Raises:
        ProtocolError: BAD_MESSAGE for an unknown game type.
    """
    record = Record(
        id=game_id,
        game_type=canonical_type(game_type),
        time=time,
        status="open",
        created=now,
        creator=creator.player,
        creator_color=color,
        seed=seed,
        expires=now + ttl_ms,
        wants=wants,
        challenge=challenge,
        origin=origin,
        rated=rated,
        rating_min=rating_min,
        rating_max=rating_max,
        tournament=tournament,
        tournament_name=tournament_name,
    )
    if color == "black":
        return replace(record, black=creator)
    return replace(record, white=creator)  # white, or random until someone joins


def join(record: Record, seat: Seat, now: int) -> tuple[Record, Event]:
    """``seat`` joins the open game, which starts.

    Raises:
        ProtocolError: NOT_OPEN, OWN_GAME, NOT_ALLOWED (the game is for a bot, or challenges
            another one), ACCOUNT_REQUIRED (a guest joining a rated game, or one with a rating
            range), OUT_OF_RANGE (``seat``'s rating lies outside the game's range).
    """
    if record.status != "open":
        raise ProtocolError(ErrorCode.NOT_OPEN, f"game {record.id} is not open ({record.status})")
    if seat.player == record.creator:
        raise ProtocolError(ErrorCode.OWN_GAME, "you cannot join a game you created")
    if record.challenge is not None and seat.player != record.challenge.player:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, f"this game challenges the bot {record.challenge.name}"
        )
    if record.wants == "bots" and seat.account != "bot":
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "this game is for a bot account")
    _may_join(record, seat)
    creator = record.white or record.black
    assert creator is not None
    creator_color: Color
    if record.creator_color == "random":
        creator_color = "white" if random.Random(record.seed).random() < 0.5 else "black"
    else:
        creator_color = record.creator_color
    white, black = (creator, seat) if creator_color == "white" else (seat, creator)
    clock = initial_clock(record.time)
    version = record.version + 1
    started = replace(
        record,
        status="live",
        white=white,
        black=black,
        version=version,
        moved=version,
        clock_white=clock,
        clock_black=clock,
        turn_started=now,
        expires=None,
    )
    return started, Event(version, "joined", now, by=seat.name)


def _may_join(record: Record, seat: Seat) -> None:
    """Refuse a guest a rated game or one with a rating range, and a player whose rating
    (``seat.rating``: in the game's speed) lies outside the range."""
    low, high = record.rating_min, record.rating_max
    ranged = low is not None or high is not None
    if (record.rated or ranged) and seat.account == "guest":
        what = "a rated game" if record.rated else "a game with a rating range"
        raise ProtocolError(ErrorCode.ACCOUNT_REQUIRED, f"only an account may join {what}")
    if not ranged:
        return
    rating = seat.rating
    if rating is None or (low is not None and rating < low) or (high is not None and rating > high):
        bounds = f"{'' if low is None else low}-{'' if high is None else high}"
        raise ProtocolError(
            ErrorCode.OUT_OF_RANGE, f"this game is for ratings {bounds}; yours is {rating}"
        )


def expire(record: Record, now: int, first_move_ms: int) -> tuple[Record, Event] | None:
    """The change a passed deadline makes (None: the deadline has not passed)."""
    due = deadline(record, first_move_ms)
    if due is None or now < due:
        return None
    if record.status == "open":
        return _end(record, now, None, "expired")
    if record.held is not None:  # nobody came back: the clock runs from the hold's end
        version = record.version + 1
        return replace(record, held=None, version=version), Event(
            version, "resumed", now, by=record.turn
        )
    if not clocks_started(record):
        return _end(record, now, None, "aborted")
    winner: Result = "BlackWins" if record.turn == "white" else "WhiteWins"
    return _end(record, now, winner, "timeout")


def cancel(record: Record, player: str, now: int) -> tuple[Record, Event]:
    """The creator of an open game cancels it.

    Raises:
        ProtocolError: NOT_YOUR_GAME (not its creator), NOT_OPEN.
    """
    if record.creator != player:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, "only its creator may cancel a game")
    if record.status != "open":
        raise ProtocolError(ErrorCode.NOT_OPEN, f"game {record.id} is {record.status}")
    return _end(record, now, None, "cancelled")


def _end(
    record: Record, now: int, result: Result | None, reason: str, *, moves: list[str] | None = None
) -> tuple[Record, Event]:
    version = record.version + 1
    ended = replace(
        record,
        status="over",
        result=result,
        reason=reason,
        version=version,
        moved=version,
        ended=now,
        expires=None,
        draw_offer=None,
        moves=record.moves if moves is None else moves,
        clock_white=time_left(record, "white", now),
        clock_black=time_left(record, "black", now),
    )
    return ended, Event(version, "over", now, by=result, text=reason)


# -- acting in a game --------------------------------------------------------------------------


def require_live(record: Record, player: str) -> Color:
    """``player``'s colour in the game in progress (NOT_YOUR_GAME, GAME_OVER, NOT_ALLOWED)."""
    color = record.color_of(player)
    if color is None:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, f"you do not play in game {record.id}")
    if record.status == "over":
        raise ProtocolError(ErrorCode.GAME_OVER, f"game {record.id} is over ({record.reason})")
    if record.status != "live":
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"game {record.id} has not started")
    return color


def play(
    record: Record, game: Game, player: str, text: str, version: int, now: int, first_move_ms: int
) -> tuple[Record, Event]:
    """``player`` plays the MoveString ``text`` in the position of ``version``.

    ``game`` holds the record's moves; it is left as it was.

    Raises:
        ProtocolError: NOT_YOUR_GAME, GAME_OVER, STALE (the position changed since
            ``version``), NOT_YOUR_TURN, ILLEGAL_MOVE (with the engine's reason).
    """
    color = require_live(record, player)
    if not record.moved <= version <= record.version:
        raise ProtocolError(
            ErrorCode.STALE,
            f"the move was made on version {version}; the game is at version {record.version} "
            f"(the position last changed at {record.moved})",
        )
    if record.turn != color:
        raise ProtocolError(ErrorCode.NOT_YOUR_TURN, f"it is {record.turn}'s turn")
    try:
        move = game.parse_move(text)
    except HiveError as error:
        raise ProtocolError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
    expired = expire(record, now, first_move_ms)
    if expired is not None:
        return expired
    spelled = game.move_string(move)
    game.push(move)
    try:
        state = game.state
        why = _why_over(game) if state.is_over else None
    finally:
        game.pop()
    moves = [*record.moves, spelled]
    if why is not None:  # a move event all the same; the state says how the game ended
        ended, _ = _end(record, now, _RESULTS[state], why, moves=moves)
        return ended, Event(ended.version, "move", now, by=color, text=spelled)
    version = record.version + 1
    changes: dict[str, object] = {}
    if record.time.kind != "none" and clocks_started(record):
        left = time_left(record, color, now)
        assert left is not None
        gain = record.time.increment * 1000 if record.time.kind == "clock" else 0
        if record.time.kind == "days":
            left, gain = record.time.days * DAY_MS, 0
        changes["clock_white" if color == "white" else "clock_black"] = left + gain
    moved = evolve(  # a move's copy: ``replace`` would take 21 us of it
        record,
        moves=moves,
        version=version,
        moved=version,
        turn_started=now,
        draw_offer=None,
        takeback_offer=None,
        held=None,
        clocks_before=[*record.clocks_before[-1:], [record.clock_white, record.clock_black]],
        **changes,
    )
    return moved, Event(version, "move", now, by=color, text=spelled)


def rated(
    record: Record, changes: list[RatingChange], now: int, why: str | None = None
) -> tuple[Record, Event] | None:
    """The finished game's rating ``changes``, as the archive made them (event ``rated``);
    with none, ``why`` a game chosen rated changed no rating (event ``unrated``, its text).
    None: the game has either already, or there is nothing to say."""
    if record.status != "over" or record.rating_changes or record.unrated is not None:
        return None
    version = record.version + 1
    if changes:
        made = replace(record, rating_changes=changes, version=version)
        return made, Event(version, "rated", now)
    if why is None:
        return None
    return replace(record, unrated=why, version=version), Event(version, "unrated", now, text=why)


def _why_over(game: Game) -> str:
    """The reason a finished game ended by the rules."""
    if game.state is not GameState.DRAW:
        return "queen"  # the loser's Queen is surrounded
    hex_of, height = game.board.hex_of, game.board.height
    surrounded = sum(
        1 for q in QUEENS if hex_of[q] >= 0 and all(height[n] for n in NEIGHBORS[hex_of[q]])
    )
    return "both_queens" if surrounded == 2 else "repetition"


def resign(record: Record, player: str, now: int) -> tuple[Record, Event]:
    color = require_live(record, player)
    return _end(record, now, "BlackWins" if color == "white" else "WhiteWins", "resign")


def draw(record: Record, player: str, action: str, now: int) -> tuple[Record, Event]:
    """Offer a draw, or accept or decline the opponent's offer.

    Raises:
        ProtocolError: NOT_ALLOWED when there is no offer to answer, or it is one's own.
    """
    color = require_live(record, player)
    version = record.version + 1
    if action == "offer":
        if record.draw_offer == other(color):  # offering back accepts
            return _end(record, now, "Draw", "agreement")
        if record.draw_offer == color:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you have already offered a draw")
        ply = len(record.moves)
        if (record.white_offered if color == "white" else record.black_offered) == ply:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED, "you offered a draw in this position: one offer a move"
            )
        if color == "white":
            record = replace(record, white_offered=ply)
        else:
            record = replace(record, black_offered=ply)
        return replace(record, draw_offer=color, version=version), Event(
            version, "draw_offer", now, by=color
        )
    if record.draw_offer != other(color):
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "there is no draw offer to answer")
    if action == "accept":
        return _end(record, now, "Draw", "agreement")
    return replace(record, draw_offer=None, version=version), Event(
        version, "draw_decline", now, by=color
    )


def claim(
    record: Record, player: str, now: int, gone_since: int | None, limit_ms: int
) -> tuple[Record, Event]:
    """``player`` claims the win: the opponent has been disconnected since ``gone_since`` (None:
    connected) for at least ``limit_ms``.

    Raises:
        ProtocolError: NOT_ALLOWED (the opponent is connected, or may still come back),
            NOT_YOUR_GAME, NOT_LIVE.
    """
    color = require_live(record, player)
    if gone_since is None:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "your opponent is connected")
    if now - gone_since < limit_ms:
        left = (limit_ms - (now - gone_since)) / 1000
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, f"your opponent may still come back ({left:.0f} s)"
        )
    return _end(record, now, "WhiteWins" if color == "white" else "BlackWins", "abandoned")


def desert(record: Record, now: int) -> tuple[Record, Event]:
    """Both players have left the game without a clock for longer than allowed (nothing else
    would end it: no clock runs, and nobody is there to claim): it ends without a result,
    ``deserted``.

    Raises:
        ProtocolError: NOT_ALLOWED when the game is not in progress, or has a clock.
    """
    if record.status != "live" or record.time.kind != "none":
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"game {record.id} is not live without a clock")
    return _end(record, now, None, "deserted")


def abandon(record: Record, player: str, now: int) -> tuple[Record, Event]:
    """``player`` has left a game against one of the server's bots for longer than allowed:
    the game is aborted if a side has not moved yet, else ``player`` loses (``abandoned``)."""
    color = require_live(record, player)
    if not clocks_started(record):
        return _end(record, now, None, "aborted")
    return _end(record, now, "BlackWins" if color == "white" else "WhiteWins", "abandoned")
