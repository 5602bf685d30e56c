"""Rematches, without any IO: a player offers one after a game; when the other offers too the
new game starts, colours swapped, with the same game type, time control, and rated or
casual."""

from __future__ import annotations

from dataclasses import replace

from protocol import ErrorCode, Event, ProtocolError
from server.game.clock import initial_clock
from server.game.record import Record, other


def rematch(
    record: Record, player: str, now: int, game_id: str, seed: int
) -> tuple[Record, Event, Record | None]:
    """``player`` asks for a rematch of a finished game: an offer, or, when the opponent has
    offered one (two offers are an agreement), the rematch itself. Returns the finished game
    after the request, its event, and the rematch (``game_id``, colours swapped) if it
    starts.

    Raises:
        ProtocolError: NOT_YOUR_GAME, NOT_ALLOWED (no result, already offered or started).
    """
    if rematch_accepted(record, player):
        old, new, event = start_rematch(record, game_id, now, seed)
        return old, event, new
    old, event = offer_rematch(record, player, now)
    return old, event, None


def offer_rematch(record: Record, player: str, now: int) -> tuple[Record, Event]:
    """Offer a rematch of a finished game (see ``rematch``, which starts it when the other side
    has offered one)."""
    color = record.color_of(player)
    if color is None:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, f"you do not play in game {record.id}")
    if record.status != "over" or record.result is None:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "a rematch follows a finished game")
    if record.rematch is not None:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"the rematch is game {record.rematch}")
    if record.rematch_offer == color:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you have already offered a rematch")
    version = record.version + 1
    return replace(record, rematch_offer=color, version=version), Event(
        version, "rematch_offer", now, by=color
    )


def rematch_accepted(record: Record, player: str) -> bool:
    """Whether ``player``'s rematch request accepts the opponent's offer."""
    color = record.color_of(player)
    return color is not None and record.rematch_offer == other(color)


def start_rematch(
    record: Record, game_id: str, now: int, seed: int
) -> tuple[Record, Record, Event]:
    """The finished game pointing to its rematch, the rematch (colours swapped, live), and the
    finished game's event."""
    assert record.white is not None and record.black is not None
    clock = initial_clock(record.time)
    new = Record(
        id=game_id,
        game_type=record.game_type,
        time=record.time,
        status="live",
        created=now,
        creator=record.creator,
        creator_color="random",
        seed=seed,
        white=record.black,
        black=record.white,
        version=2,
        moved=2,
        clock_white=clock,
        clock_black=clock,
        turn_started=now,
        rematch_of=record.id,
        origin=record.origin,
        spectator_chat=record.spectator_chat,
        rated=record.rated,  # a rated game's rematch is rated too
    )
    version = record.version + 1
    old = replace(record, rematch=game_id, rematch_offer=None, version=version)
    return old, new, Event(version, "rematch", now, text=game_id)
