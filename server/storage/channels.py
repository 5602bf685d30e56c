"""The pub/sub channels of the servers on one Redis, and the messages of a game's channel.

A change is published by the commit (``server.storage.store``) on its game's channel, and on the
events channel when it moves the game in the lobby; a process hears a game's channel while it
has the game cached (``server.live.listener``). docs/operating.md lists every channel.
"""

from __future__ import annotations

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

    def game(self, game_id: str) -> str:
        return self.games + game_id


def channels(db: int) -> Channels:
    """The pub/sub channels of the servers whose keys are in database ``db``."""
    if db == 0:
        return Channels(EVENTS_CHANNEL, CONTROL_CHANNEL, LOBBY_CHANNEL, GAME_CHANNEL)
    return Channels(
        f"{EVENTS_CHANNEL}:{db}",
        f"{CONTROL_CHANNEL}:{db}",
        f"{LOBBY_CHANNEL}:{db}",
        f"{EVENTS_CHANNEL}:{db}:game:",
    )


def decode_published(data: bytes) -> tuple[str, int, Record, Event]:
    """A message of a game's channel: the change's game, version, record and event."""
    published = peek_published(data)
    return published.game, published.version, unpack(published.body), unpack_event(published.event)


class Published(NamedTuple):
    """A message of a game's channel with its record and event still packed (a process that
    made the change already has them)."""

    game: str
    version: int
    body: bytes
    event: bytes
    change: str
    """The committing process's id for the change."""
    at: int
    """When the committing process sent it to Redis (ms, its clock)."""


def peek_published(data: bytes) -> Published:
    return Published(*msgpack.unpackb(data))
