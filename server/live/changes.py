"""How a game changes: decide, commit, then deliver.

A request's rule (``server.game.match``) decides the change on the cached game; the change is
committed to Redis against the version it was decided on (retried on a fresh copy when another
process changed the game meanwhile), published by Redis on the game's channel with this
process's id for it (and to every process when the game's line in the lobby changes other than
its moves, which the lobby hears of at most twice a second), applied to the cached game, and
passed on to the lobby and the watchers here (``Fanout.pass_on``). The listeners of the
processes that have the game cached (``server.live.listener``), this one's too, hear of it and
do the same: whichever brings the cache here to the change first passes it on, once. What only
the process that made a change does stays with its request: the bot's turn, and the archive
woken by a change that ends a rated game (its players see their rating change at once; a casual
game waits for the sweep's next round), and the tournaments' director by one that ends a
tournament's game (paired again at once when it drives that tournament here); the archive's
``rated`` event (``rated``) is a change like the others. When the answer to a commit is lost
with its connection, the game is read again from Redis (``Fanout.reload``): a change committed
and published is passed on from there, unless the listener has passed it on already.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable
from typing import Any, TypeVar

import redis.exceptions

from protocol import ErrorCode, Event, ProtocolError, RatingChange
from server.game import clock, match
from server.game.clock import now_ms
from server.game.record import GAME_ID, Record
from server.live import lobby
from server.live.cache import CachedGame, GameCache, unknown
from server.live.fanout import Fanout
from server.live.lobby import LobbyFeed
from server.storage.store import STORAGE_ERRORS, Store

Decide = Callable[[CachedGame, int], tuple[Record, Event] | None]
"""A rule applied to the cached game at a time: the new record and its event, or None (no
change)."""
T = TypeVar("T")


def _no_bots(record: Record) -> None:
    """No bot's turn is started (until the wiring gives ``Changes.start_bot_turn``)."""


def _nothing() -> None:
    """Nobody is told (until the wiring gives ``Changes.game_ended``)."""


class Changes:
    """The changes made here: one at a time per game.

    Args:
        cache: The games here (each decided on as cached, and its lock held meanwhile).
        store: Where a change is committed (and published).
        fanout: Passes each change on (and reads a game again after a lost answer).
        lobby_feed: Told of the moves made here (the other processes' lobbies show them).
        process: This process's id (``Presence.process``): its change ids start with it.
        first_move_ms: The time for a game's first moves (``Settings.first_move_timeout``).
        wake_archive: Called when a change ends a rated game (the archive rates it at once).
    """

    def __init__(
        self,
        cache: GameCache,
        store: Store,
        fanout: Fanout,
        lobby_feed: LobbyFeed,
        *,
        process: str,
        first_move_ms: int,
        wake_archive: Callable[[], None],
    ) -> None:
        self.cache = cache
        self.store = store
        self.fanout = fanout
        self.lobby_feed = lobby_feed
        self.first_move_ms = first_move_ms
        self.wake_archive = wake_archive
        self.game_ended: Callable[[], None] = _nothing
        """Called when a change made here ends a tournament's game: the director's wake
        (``Director.woken``), given by the wiring once it is made, so that the players are
        paired again at once when it drives the tournament here (else at its next tick)."""
        self.start_bot_turn: Callable[[Record], None] = _no_bots
        """Starts the bot's turn, if it is one, of a game changed here: ``BotTurns.start_if_due``,
        given by the wiring once the bots' turns are made (they play through this door, so
        each needs the other: this callable is passed later)."""
        self._ids = itertools.count(1)
        self._prefix = f"{process}:"  # of this process's change ids

    def deadline(self, record: Record) -> int | None:
        return clock.deadline(record, self.first_move_ms)

    def _next_id(self) -> str:
        return f"{self._prefix}{next(self._ids)}"

    def made_here(self, change: str) -> bool:
        """Whether the change of id ``change`` was made by this process."""
        return change.startswith(self._prefix)

    async def _commit(self, record: Record, event: Event, **indexes: Any) -> bool:
        """``Store.commit`` under a new change id. When its connection broke, its answer may
        be lost with a change Redis committed and published: the game is read again from Redis
        (settled: with replicas, once they hold it, and published then) and passed on (not
        after a timeout: a frozen Redis would hold the read as long again; the listener hears
        of the change when Redis answers)."""
        try:
            return await self.store.commit(
                record, event, change=self._next_id(), deadline_of=self.deadline, **indexes
            )
        except redis.exceptions.ConnectionError:
            with contextlib.suppress(*STORAGE_ERRORS):
                stored = await self.store.settle(record.id)
                if stored is not None:
                    await self.fanout.pass_on(stored)
            raise

    async def change(self, game_id: str, decide: Decide) -> Record | None:
        """Commit the change ``decide`` makes to the game (None: it made none).

        Raises:
            ProtocolError: from ``decide``, UNKNOWN_GAME, or STALE when the game kept changing.
        """

        def deciding(cached: CachedGame, now: int) -> tuple[Record, Event, None] | None:
            decided = decide(cached, now)
            return None if decided is None else (*decided, None)

        done = await self.change_with(game_id, deciding)
        return None if done is None else done[0]

    async def change_with(
        self, game_id: str, decide: Callable[[CachedGame, int], tuple[Record, Event, T] | None]
    ) -> tuple[Record, T] | None:
        """``change``, for a rule that decides a value beside the change (a rematch's new
        game): the record committed and the value decided with it (None: no change).

        Raises:
            ProtocolError: from ``decide``, UNKNOWN_GAME, or STALE when the game kept changing.
        """
        if not GAME_ID.fullmatch(game_id):  # no lock for a name that is no game
            raise unknown(game_id)
        cache = self.cache
        try:
            async with cache.changing.hold(game_id):
                return await self._change(game_id, decide)
        finally:  # a game loaded for this change only is not kept (nor followed)
            cache.forget_if_idle(game_id)

    async def _change(
        self, game_id: str, decide: Callable[[CachedGame, int], tuple[Record, Event, T] | None]
    ) -> tuple[Record, T] | None:
        """``change_with``, holding the game's lock."""
        fresh: CachedGame | None = None  # the game as Redis holds it, decided on again
        for _ in range(3):
            cached = fresh or await self.cache.load(game_id)
            decided = decide(cached, now_ms())
            if decided is None:
                return None
            record, event, value = decided
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
                    self.lobby_feed.moved(record)  # the other processes' lobbies are told
                if record.status == "over" and was.status != "over":
                    if record.rated:
                        self.wake_archive()  # rated now, not at the sweep's next round
                    if record.tournament is not None:
                        self.game_ended()
                await self.committed(record, event)
                return record, value
            # (Settled: a change refused for want of a replica is published once one holds
            # it, the client's resend of it being what finds it here.)
            stored = await self.store.settle(game_id)
            if stored is None:
                raise unknown(game_id)
            # (Not cached: the listener brings the change here, and passes it on.)
            fresh = CachedGame.of(stored)
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
        await self.committed(record, event)

    async def committed(self, record: Record, event: Event) -> None:
        """What follows a change made here: the bot's turn if it is one, and the change passed
        on to the lobby and the watchers here (unless the listener has passed it on)."""
        self.start_bot_turn(record)
        await self.fanout.pass_on(record, event)
