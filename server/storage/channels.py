"""The pub/sub channels of the servers on one Redis, and every message between the
processes, packed and unpacked here alone (both directions side by side).

A change is published by the commit (``server.storage.store``) on its game's channel, and on the
events channel when it moves the game in the lobby (``Published``); a process hears a game's
channel while it has the game cached (``server.live.listener``). A session ended is published
on the control channel (``pack_signed_out``, by ``server.storage.players``; ``SignedOut``), the
moves of the games in progress a process changed on the lobby's (``pack_moves``, by
``server.live.lobby``; ``unpack_moves``), the notices for players wherever they are connected
on the notices' (``pack_notice``, by ``server.storage.invites``; ``unpack_notice``), and the
progress of the computer analyses of finished games on the analyses' (``pack_analysis``, by
``server.live.analyst``; ``AnalysisNews``).
docs/operating.md lists every channel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, NamedTuple

import msgpack

from protocol import Event
from server.game.record import Record
from server.storage.codec import unpack, unpack_event

CONTROL_CHANNEL: Final = "hive:control"
"""Pub/sub channel (of database 0, see ``channels``): ``["signed_out", player id, token hash or
None]`` (msgpack): a session ended (None: every session of the player), whose connections
every process closes."""
EVENTS_CHANNEL: Final = "hive:events"
"""Pub/sub channel (of database 0, see ``Channels``): the committed changes every process hears,
those that change a game's place in the lobby (a new game, a changed status), as on the game's
channel."""
GAME_CHANNEL: Final = "hive:events:game:"
"""Prefix of a game's pub/sub channel (of database 0, see ``Channels``): ``[game id, version,
record, event, change, at]`` (msgpack) of each committed change of the game, heard by the
processes that have the game in their cache; ``change``: the committing process's id for it (a
process knows its own changes by it); ``at``: when that process sent it to be committed (its
clock, in ms: the listeners measure how long a change takes to reach them)."""
LOBBY_CHANNEL: Final = "hive:lobby"
"""Pub/sub channel (of database 0, see ``Channels``): ``[[game id, version, moves], ...]``
(msgpack), the moves played in the games in progress a process changed since it last said, at
most twice a second (the lobby shows them)."""
NOTICES_CHANNEL: Final = "hive:notices"
"""Pub/sub channel (of database 0, see ``Channels``): ``[[player id, ...], frame]`` (msgpack):
a message of the protocol, already encoded, for every connection of those players on every
process (a challenge by name and its end)."""


ANALYSIS_CHANNEL: Final = "hive:analysis"
"""Pub/sub channel (of database 0, see ``Channels``): ``[game id, done, total, finished]``
(msgpack): a computer analysis of a finished game searched ``done`` of its ``total`` positions
(``finished``: it is stored in the database), heard by every process (each tells those who
follow it there)."""


class Channels(NamedTuple):
    """The pub/sub channels of the servers whose keys are in one database.

    Pub/sub ignores ``SELECT``: a channel is shared by every database of a Redis server, so
    each database other than 0 has channels of its own (``hive:events:1``...). Database 0
    keeps the bare names, which servers used before there were others."""

    events: str
    control: str
    lobby: str
    games: str
    """The prefix of a game's channel."""
    notices: str
    analyses: str

    def game(self, game_id: str) -> str:
        return self.games + game_id


def channels(db: int) -> Channels:
    """The pub/sub channels of the servers whose keys are in database ``db``."""
    if db == 0:
        return Channels(
            EVENTS_CHANNEL,
            CONTROL_CHANNEL,
            LOBBY_CHANNEL,
            GAME_CHANNEL,
            NOTICES_CHANNEL,
            ANALYSIS_CHANNEL,
        )
    return Channels(
        f"{EVENTS_CHANNEL}:{db}",
        f"{CONTROL_CHANNEL}:{db}",
        f"{LOBBY_CHANNEL}:{db}",
        f"{EVENTS_CHANNEL}:{db}:game:",
        f"{NOTICES_CHANNEL}:{db}",
        f"{ANALYSIS_CHANNEL}:{db}",
    )


class Published(NamedTuple):
    """A message of a game's channel with its record and event still packed (a process that
    made the change already has them)."""

    game: str
    version: int
    body: bytes
    """The record, packed (``server.storage.codec.pack``)."""
    event: bytes
    """The change's event, packed (``server.storage.codec.pack_event``)."""
    change: str
    """The committing process's id for the change."""
    at: int
    """When the committing process sent it to Redis (ms, its clock)."""

    def pack(self) -> bytes:
        """The message as published (``GAME_CHANNEL``)."""
        packed: bytes = msgpack.packb(list(self))
        return packed


def peek_published(data: bytes) -> Published:
    """A message of a game's channel (``Published.pack``), its record and event still packed."""
    return Published(*msgpack.unpackb(data))


def decode_published(data: bytes) -> tuple[str, int, Record, Event]:
    """A message of a game's channel: the change's game, version, record and event."""
    published = peek_published(data)
    return published.game, published.version, unpack(published.body), unpack_event(published.event)


class SignedOut(NamedTuple):
    """A message of the control channel: a session ended."""

    player: str
    hashed: str | None
    """The hash of the session's token (None: every session of the player)."""


def pack_signed_out(player: str, hashed: str | None) -> bytes:
    """The control channel's message (``CONTROL_CHANNEL``) that a session ended."""
    packed: bytes = msgpack.packb(["signed_out", player, hashed])
    return packed


def unpack_signed_out(data: bytes) -> SignedOut:
    """A message of the control channel (``pack_signed_out``)."""
    _, player, hashed = msgpack.unpackb(data)
    return SignedOut(player, hashed)


def pack_moves(made: Mapping[str, tuple[int, int]]) -> bytes:
    """The lobby channel's message (``LOBBY_CHANNEL``): the moves of the games in progress a
    process changed, ``made`` by game id: (version, moves)."""
    packed: bytes = msgpack.packb([[game_id, v, n] for game_id, (v, n) in made.items()])
    return packed


def unpack_moves(data: bytes) -> list[tuple[str, int, int]]:
    """A message of the lobby channel (``pack_moves``): (game id, version, moves) of each game;
    entries of other types are left out."""
    return [
        (game_id, version, moves)
        for game_id, version, moves in msgpack.unpackb(data)
        if isinstance(game_id, str) and isinstance(version, int) and isinstance(moves, int)
    ]


def pack_notice(players: list[str], frame: bytes) -> bytes:
    """The notices channel's message (``NOTICES_CHANNEL``): ``frame`` for ``players``."""
    packed: bytes = msgpack.packb([players, frame])
    return packed


def unpack_notice(data: bytes) -> tuple[list[str], bytes]:
    """A message of the notices channel (``pack_notice``): the players, and the frame."""
    players, frame = msgpack.unpackb(data)
    return [p for p in players if isinstance(p, str)], bytes(frame)


class AnalysisNews(NamedTuple):
    """A message of the analyses' channel: how far the analysis of ``game`` is."""

    game: str
    done: int
    total: int
    finished: bool
    """Stored in the database: read it there."""


def pack_analysis(news: AnalysisNews) -> bytes:
    """The analyses' channel's message (``ANALYSIS_CHANNEL``)."""
    packed: bytes = msgpack.packb(list(news))
    return packed


def unpack_analysis(data: bytes) -> AnalysisNews | None:
    """A message of the analyses' channel (``pack_analysis``); None: not one."""
    game, done, total, finished = msgpack.unpackb(data)
    if not isinstance(game, str) or not isinstance(done, int) or not isinstance(total, int):
        return None
    return AnalysisNews(game, done, total, bool(finished))
