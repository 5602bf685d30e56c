"""How a game changes: decide, commit, then deliver.

A request's rule (``server.match``) decides the change on the cached game; the change is
committed to Redis against the version it was decided on (retried on a fresh copy when another
process changed the game meanwhile), published by Redis with this process's id for it, and
applied to the cached game. The listener (``server.listener``) of every process, this one
included, passes each change on to its watchers when it hears of it: the update is built
then, once per version (``Fanout.frame``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from server import match
from server.cache import GAME_ID, CachedGame, unknown
from server.clock import now_ms
from server.protocol import ErrorCode, Event, ProtocolError
from server.record import Record

if TYPE_CHECKING:
    from server.runtime import Hub

Decide = Callable[[CachedGame, int], tuple[Record, Event] | None]
"""A rule applied to the cached game at a time: the new record and its event, or None (no
change)."""


class Changes:
    """The changes made here: one at a time per game."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._ids = itertools.count(1)
        self._prefix = f"{hub.presence.process}:"  # of this process's change ids

    def deadline(self, record: Record) -> int | None:
        return match.deadline(record, self.hub.first_move_ms)

    def _next_id(self) -> str:
        return f"{self._prefix}{next(self._ids)}"

    def made_here(self, change: str) -> bool:
        """Whether the change of id ``change`` was made by this process."""
        return change.startswith(self._prefix)

    async def change(self, game_id: str, decide: Decide) -> Record | None:
        """Commit the change ``decide`` makes to the game (None: it made none).

        Raises:
            ProtocolError: from ``decide``, UNKNOWN_GAME, or STALE when the game kept changing.
        """
        if not GAME_ID.fullmatch(game_id):  # no lock for a name that is no game
            raise unknown(game_id)
        hub = self.hub
        cache, store = hub.cache, hub.store
        async with cache.changing.hold(game_id):
            for _ in range(3):
                cached = await cache.load(game_id)
                decided = decide(cached, now_ms())
                if decided is None:
                    return None
                record, event = decided
                was = cached.record
                if await store.commit(
                    record,
                    event,
                    expected=was.version,
                    deadline=self.deadline(record),
                    indexed=(was.status, self.deadline(was)),
                    change=self._next_id(),
                ):
                    cached.apply(record, event)  # unless the listener has applied it already
                    self.committed(record)
                    return record
                fresh = await store.get(game_id)
                if fresh is None:
                    raise unknown(game_id)
                cache.put(fresh)
            raise ProtocolError(ErrorCode.STALE, "the game kept changing; try again")

    async def create(self, record: Record, event: Event) -> None:
        """Commit a new game.

        Raises:
            ProtocolError: INTERNAL when its id is taken.
        """
        if not await self.hub.store.commit(
            record, event, expected=0, deadline=self.deadline(record), change=self._next_id()
        ):
            raise ProtocolError(ErrorCode.INTERNAL, "game id collision; try again")
        self.hub.cache.put(record, event)  # unless the listener has cached a later version
        self.committed(record)

    def committed(self, record: Record) -> None:
        """What follows a change here: the lobby, and the bot's turn if it is one."""
        self.hub.lobby_feed.update(record)
        self.hub.bot_turns.start_if_due(record)
