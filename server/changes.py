"""How a game changes: decide, commit, then deliver.

A request's rule (``server.match``) decides the change on the cached game; the change is
committed to Redis against the version it was decided on (retried on a fresh copy when another
process changed the game meanwhile); Redis publishes it with this process's id for it, and the
listener (``server.listener``) passes it on to the watchers here, as every process does for
the changes it hears of. The listener usually hears of a change made here before the request
resumes: it finds the change by its id among the ones in flight here and takes its record,
event and game instead of unpacking the record and replaying its move.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from hive import Game
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


class Pending(NamedTuple):
    """A change in flight here: its id, and what the listener may take instead of unpacking."""

    id: str
    record: Record
    event: Event
    game: Game | None


class Changes:
    """The changes made here: one at a time per game."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.pending: dict[str, Pending] = {}  # by game id
        self._ids = itertools.count(1)
        self._prefix = f"{hub.presence.process}:"  # of this process's change ids

    def deadline(self, record: Record) -> int | None:
        return match.deadline(record, self.hub.first_move_ms)

    def made_here(self, change: str | None) -> bool:
        """Whether the change of id ``change`` was made by this process."""
        return change is not None and change.startswith(self._prefix)

    def taken(self, game_id: str, change: str | None) -> Pending | None:
        """The change in flight here with id ``change``, if it is one."""
        mine = self.pending.get(game_id)
        return mine if mine is not None and mine.id == change else None

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
                game = None if hub.presence.alone else _game_after(cached, record)
                change = f"{self._prefix}{next(self._ids)}"
                self.pending[game_id] = Pending(change, record, event, game)
                try:
                    committed = await store.commit(
                        record,
                        event,
                        expected=was.version,
                        deadline=self.deadline(record),
                        indexed=(was.status, self.deadline(was)),
                        update=None if game is None else hub.fanout.update(record, game, event),
                        change=change,
                    )
                finally:
                    del self.pending[game_id]
                if committed:
                    cached.apply(record, event, game)
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
            record, event, expected=0, deadline=self.deadline(record)
        ):
            raise ProtocolError(ErrorCode.INTERNAL, "game id collision; try again")
        self.hub.cache.put(record)  # unless the listener has cached a later version meanwhile
        self.committed(record)

    def committed(self, record: Record) -> None:
        """What follows a change here: the lobby, and the bot's turn if it is one."""
        self.hub.lobby_feed.update(record)
        self.hub.bot_turns.start_if_due(record)


def _game_after(cached: CachedGame, record: Record) -> Game | None:
    """The game of ``record``, a change of the cached one: the cached game itself when no move
    was made, a copy with the move played when one was, else None."""
    played = cached.record.moves
    if record.moves == played:
        return cached.game
    if len(record.moves) == len(played) + 1 and record.moves[:-1] == played:
        game = cached.game.copy()
        game.play_unchecked(record.moves[-1])  # checked by the change
        return game
    return None
