"""How a game changes: decide, commit, then deliver.

A request's rule (``server.match``) decides the change on the cached game; the change is
committed to Redis against the version it was decided on (retried on a fresh copy when another
process changed the game meanwhile), published by Redis on the game's channel with this
process's id for it (and to every process when the game's line in the lobby changes other than
its moves, which the lobby hears of at most twice a second), applied to the cached game, and
passed on to the watchers here (``Fanout.pass_on``). The listeners of the other processes that
have the game cached (``server.listener``) pass it on to their watchers as they hear of it; this
process's listener leaves a change to its request while the request waits for the commit.
A change that ends a rated game wakes this process's archive sweep (its players see their
rating change at once; a casual game waits for the sweep's next round); the archive's
``rated`` event (``rated``) is a change like the others.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from server import lobby, match
from server.cache import CachedGame, unknown
from server.clock import now_ms
from server.protocol import ErrorCode, Event, ProtocolError, RatingChange
from server.record import GAME_ID, Record
from server.store import STORAGE_ERRORS

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
        # The changes whose requests wait for their commit, by id: whether the listener heard
        # of them meanwhile (and left them to their request).
        self.committing: dict[str, bool] = {}

    def deadline(self, record: Record) -> int | None:
        return match.deadline(record, self.hub.first_move_ms)

    def _next_id(self) -> str:
        return f"{self._prefix}{next(self._ids)}"

    def made_here(self, change: str) -> bool:
        """Whether the change of id ``change`` was made by this process."""
        return change.startswith(self._prefix)

    def left_to_request(self, change: str) -> bool:
        """Whether the change of id ``change``, just heard of, is its request's to pass on."""
        if change in self.committing:
            self.committing[change] = True
            return True
        return False

    async def _commit(self, record: Record, event: Event, **indexes: Any) -> bool:
        """``Store.commit`` under a new change id. When Redis published the change but its
        answer was lost, the change is passed on from Redis (the listener left it)."""
        change = self._next_id()
        self.committing[change] = False
        try:
            return await self.hub.store.commit(record, event, change=change, **indexes)
        except BaseException:
            if self.committing[change]:  # committed: the listener heard of it
                with contextlib.suppress(*STORAGE_ERRORS):
                    await self.hub.listener.reload(record.id)
            raise
        finally:
            del self.committing[change]

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
                relisted = lobby.relisted(was, record)
                if await self._commit(
                    record,
                    event,
                    expected=was.version,
                    deadline=self.deadline(record),
                    indexed=(was.status, self.deadline(was)),
                    lobby=relisted,
                ):
                    if not relisted and len(record.moves) != len(was.moves):
                        hub.lobby_feed.moved(record)  # the other processes' lobbies are told
                    cached.apply(record, event)  # unless a later change came meanwhile
                    if record.rated and record.status == "over" and was.status != "over":
                        hub.archive.wake()  # rated now, not at the sweep's next round
                    await self.committed(record, event)
                    return record
                fresh = await store.get(game_id)
                if fresh is None:
                    raise unknown(game_id)
                cache.put(fresh)
            raise ProtocolError(ErrorCode.STALE, "the game kept changing; try again")

    async def rated(
        self, game_id: str, changes: list[RatingChange], why: str | None = None
    ) -> None:
        """Commit the finished game's ``rated`` event with the rating ``changes`` the archive
        made, or with none its ``unrated`` event saying ``why`` (unless it has either
        already: once, whoever commits it first)."""
        await self.change(
            game_id, lambda cached, now: match.rated(cached.record, changes, now, why)
        )

    async def create(self, record: Record, event: Event) -> None:
        """Commit a new game.

        Raises:
            ProtocolError: INTERNAL when its id is taken.
        """
        if not await self._commit(record, event, expected=0, deadline=self.deadline(record)):
            raise ProtocolError(ErrorCode.INTERNAL, "game id collision; try again")
        self.hub.cache.put(record, event)  # unless a later change came meanwhile
        await self.committed(record, event)

    async def committed(self, record: Record, event: Event) -> None:
        """What follows a change made here: the bot's turn if it is one, and the change passed
        on to the lobby and the watchers here."""
        self.hub.bot_turns.start_if_due(record)
        await self.hub.fanout.pass_on(record, event)
