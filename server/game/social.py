"""The talk around a game, without any IO: chat lines (players' and spectators'), the
players closing the chat to spectators, and mutes. Like ``server.game.match``, each change is a pure
function from a record and the time to a new record and its event, or a ``ProtocolError``."""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from protocol import ErrorCode, Event, ProtocolError
from server.game.record import Record

CHAT_KEPT: Final = 50
"""Chat lines a game keeps in its record (a snapshot shows them)."""
MUTED_KEPT: Final = 100
"""Most players a game's players may mute in it."""


def chat_line(text: str, max_length: int) -> str:
    """A chat line as said: stripped, not empty, at most ``max_length`` characters.

    Raises:
        ProtocolError: BAD_MESSAGE (an empty line), TOO_LONG.
    """
    text = text.strip()
    if not text:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "an empty chat line")
    if len(text) > max_length:
        raise ProtocolError(ErrorCode.TOO_LONG, f"chat lines are at most {max_length} characters")
    return text


def chat(record: Record, player: str, name: str, text: str, now: int) -> tuple[Record, Event]:
    """``player``, called ``name``, says ``text`` (a player or a spectator; see ``chat_line``).

    Raises:
        ProtocolError: NOT_ALLOWED when the game's players have muted ``player``, or closed the
            chat to spectators.
    """
    if player in record.muted:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you are muted in this game")
    if not record.spectator_chat and record.color_of(player) is None:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, "the players have closed this game's chat to spectators"
        )
    version = record.version + 1
    event = Event(version, "chat", now, by=name, text=text, player=player)
    return replace(record, version=version, chat=[*record.chat[-CHAT_KEPT + 1 :], event]), event


def spectator_chat(record: Record, player: str, on: bool, now: int) -> tuple[Record, Event]:
    """A player of the game opens (``on``) or closes its chat to spectators; the event's
    ``text`` is ``open`` or ``closed``.

    Raises:
        ProtocolError: NOT_YOUR_GAME, NOT_ALLOWED (it is so already).
    """
    color = record.color_of(player)
    if color is None:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, f"you do not play in game {record.id}")
    if record.spectator_chat == on:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, f"the chat is {'open' if on else 'closed'} to spectators already"
        )
    version = record.version + 1
    text = "open" if on else "closed"
    event = Event(version, "spectator_chat", now, by=color, text=text)
    return replace(record, version=version, spectator_chat=on), event


def chatter_name(record: Record, player: str) -> str | None:
    """The name ``player`` last chatted under in this game (None: no line of theirs is kept)."""
    for event in reversed(record.chat):
        if event.player == player:
            return event.by
    return None


def mute(record: Record, player: str, target: str, on: bool, now: int) -> tuple[Record, Event]:
    """``player`` mutes (``on``) or unmutes ``target``; the event names ``target`` by the name
    of their last chat line here.

    Only someone whose chat lines the game keeps may be muted, so that a mute publishes the
    name of nobody who has not chatted in the game; anyone muted may be unmuted.

    Raises:
        ProtocolError: NOT_YOUR_GAME (``player`` does not play here), NOT_ALLOWED (muting
            oneself, muting twice, unmuting someone not muted, too many muted), BAD_MESSAGE
            (nobody of that id chatted here).
    """
    color = record.color_of(player)
    if color is None:
        raise ProtocolError(ErrorCode.NOT_YOUR_GAME, f"you do not play in game {record.id}")
    if target == player:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot mute yourself")
    if on and chatter_name(record, target) is None:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"nobody {target[:40]!r} chatted in this game")
    name = chatter_name(record, target) or "a player"  # an unmute once their lines are gone
    if on and target in record.muted:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"{name} is already muted")
    if not on and target not in record.muted:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"{name} is not muted")
    if on and len(record.muted) >= MUTED_KEPT:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"at most {MUTED_KEPT} players are muted")
    muted = [*record.muted, target] if on else [p for p in record.muted if p != target]
    seat = record.seat(color)
    assert seat is not None
    version = record.version + 1
    event = Event(version, "mute" if on else "unmute", now, by=seat.name, text=name, player=target)
    return replace(record, version=version, muted=muted), event
