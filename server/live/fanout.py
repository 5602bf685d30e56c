"""Passing a game's changes on to the connections here that follow it.

Every watcher is brought to the game's latest version: the events it has not seen, then the
state (a snapshot when the events are too old, more than ``FAR_BEHIND``, or weigh
``EVENTS_SHARE`` of the state or more: a small request never buys a large answer). A client that
does not read (more than ``Settings.queue_limit`` bytes wait for it) is skipped and owed the
game; ``catch_up`` sends it one update when it reads again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Collection
from typing import Final

from websockets.asyncio.server import broadcast

from hive import Game, Layout
from protocol import Event, GameState, Update, encode, packed_size
from server.game.clock import now_ms
from server.game.record import Record
from server.game.view import state, to_move, with_legal
from server.live.backlog import Backlog
from server.live.cache import GameCache
from server.live.lobby import LobbyFeed
from server.live.presence import Presence
from server.live.session import Session
from server.storage.store import STORAGE_ERRORS, Store

log = logging.getLogger(__name__)

FAR_BEHIND: Final = 50
"""A watcher more events behind than this gets a snapshot, not the events it missed."""
EVENTS_SHARE: Final = 0.5
"""The events a watcher missed go with the state while their bytes are under this share of
the state's; beyond, the state alone (a snapshot) says what matters in fewer bytes (the state
holds the chat's last lines too), so that no update weighs more than 1.5 states."""
STATE_FLOOR: Final = 256
"""Fewer bytes than any state takes (the names of its fields alone take more): events under
``EVENTS_SHARE`` of it go without the state being measured."""
CATCH_UP_SECONDS: Final = 0.25
"""How often the clients whose feeds were skipped are looked at again."""


class Fanout:
    """Frames to the watchers of the games here, and the clients owed some.

    Args:
        cache: The games here and their watchers.
        presence: Who is at each game (a state shows it), and the players' connections here
            (they follow a rematch).
        lobby_feed: Takes each change passed on (the lobby shows the game), and offers the
            lobby to a client that reads again.
        store: Where the events a watcher missed are read when the cache no longer has them,
            and a game read again (``reload``).
        backlog: Which watchers read what they are sent, and those skipped.
    """

    def __init__(
        self,
        cache: GameCache,
        presence: Presence,
        lobby_feed: LobbyFeed,
        store: Store,
        backlog: Backlog,
    ) -> None:
        self.cache = cache
        self.presence = presence
        self.lobby_feed = lobby_feed
        self.store = store
        self.backlog = backlog
        # Counted as plain ints, read when scraped (``server.edge.metrics.Figures``): a
        # prometheus_client Counter takes a lock at each ``inc``.
        self.states_built = 0
        self.passed_on = 0

    @property
    def lagging(self) -> set[Session]:
        """The sessions owed an update or the lobby (``Backlog.lagging``)."""
        return self.backlog.lagging

    def state(self, record: Record, game: Game, layout: Layout) -> GameState:
        """The state of ``record`` (``game`` holds its moves) without legal moves, with this
        process's view of the spectators and of who is connected."""
        presence = self.presence
        self.states_built += 1
        return state(
            record,
            game,
            now_ms(),
            spectators=presence.spectators(record),
            connected=presence.connected,
            legal=False,
            layout=layout,
        )

    async def pass_on(self, record: Record, event: Event | None = None) -> bool:
        """Bring the cache here to a committed change and, if that moved it forward, pass the
        change on: to the lobby, to the players' connections here that follow the game into
        the rematch it started, and to the watchers here. Whether it was passed on now.

        Whatever brings the cache to a change calls this: the request that made it, the
        listener that heard of it (maybe twice: on the game's channel and on every process's),
        a read from Redis (``reload``). The first passes it on; the others find the
        cache there already: a version is passed on once here.

        Args:
            record: The game as the change left it.
            event: The change's event (None: ``record`` was read from Redis).
        """
        cache = self.cache
        cached = cache.get(record.id)
        # The rematch this change starts, unless the cache here knows of it already.
        rematch = None if cached is not None and cached.record.rematch else record.rematch
        if not cache.advance(record, event):
            return False
        self.passed_on += 1
        self.lobby_feed.update(record)
        if rematch is not None:
            self.follow_rematch(record, rematch)  # before the event goes out
        await self.deliver(record.id)
        cache.forget_if_idle(record.id)
        return True

    async def reload(self, game_id: str) -> bool:
        """Read the game again from Redis (a change of it may have gone unheard here) and pass
        on what the cache here did not have (``pass_on``); whether there was any. A game Redis
        holds at an earlier version than the cache (a failover lost a change heard here) is
        taken back to it, and its watchers sent a snapshot.

        Raises:
            STORAGE_ERRORS: Redis did not answer.
        """
        record = await self.store.get(game_id)
        if record is None:
            return False
        if self.cache.take_back(record):  # an earlier version: a failover lost the later ones
            log.warning("game %s: back to version %d (a Redis failover)", game_id, record.version)
            self.lobby_feed.update(record)
            await self.deliver(game_id)
            return True
        return await self.pass_on(record)

    def follow_rematch(self, old: Record, new_id: str) -> None:
        """The players' connections here that follow the old game follow its rematch (the game
        ``new_id``, a value of the old game's change): their clients go to the new game on the
        old one's ``rematch`` event, without a ``watch``."""
        cache = self.cache
        for player in old.players():
            for other in self.presence.sessions_of(player):
                if old.id in other.watching and new_id not in other.watching:
                    cache.watch(other, new_id, 0, checked=False)

    async def deliver(self, game_id: str, *, also: Session | None = None) -> None:
        """Bring every watcher of the game up to date. ``also`` gets an update even when it
        has seen everything (it has just asked to watch). The state is built once, for all of
        them (once per change when the listener delivers it); the legal moves only for the
        connections of the player to move, if any is here."""
        cache = self.cache
        async with cache.sending.hold(game_id):
            watchers = cache.watchers.get(game_id)
            cached = cache.get(game_id)
            if not watchers or cached is None:
                return
            record = cached.record
            mover = to_move(record)
            behind: dict[tuple[int | None, bool], list[Session]] = {}
            for session in watchers:
                seen = session.watching.get(game_id, record.version)
                if seen is None or seen < record.version or session is also:
                    moving = mover is not None and session.player == mover
                    behind.setdefault((seen, moving), []).append(session)
            if also is None:  # every watcher is told who is at the game
                self.presence.told[game_id] = self.presence.view(record)
            layout: Layout | None = None
            plain: GameState | None = None  # the state sent to all but the player to move
            full: GameState | None = None  # ... and to the player to move
            for (seen, moving), waiting in behind.items():
                sessions = self.backlog.ready(waiting, game_id)
                if not sessions:
                    continue
                if layout is None or plain is None:
                    layout = cached.game.layout()
                    plain = self.state(record, cached.game, layout)
                game_state = plain
                if moving:
                    full = full or with_legal(plain, cached.game, layout)
                    game_state = full
                events: list[Event] | None = None
                if seen is not None and record.version - seen <= FAR_BEHIND:
                    events = cached.events_after(seen)
                    if events is None:
                        events = await self.store.events_after(game_id, seen)
                    if events and _outweigh(events, game_state):
                        events = None
                snapshot = events is None
                frame = encode(Update(game_id, record.version, events or [], game_state, snapshot))
                broadcast([s.ws for s in sessions], frame)
                for s in sessions:
                    s.owed.discard(game_id)
                    if game_id in s.watching:
                        s.watching[game_id] = record.version

    async def catch_up(self, sessions: Collection[Session]) -> None:
        """Every ``CATCH_UP_SECONDS``, bring the clients that were skipped and read again up to
        date: one update of each game they are owed, and the lobby as it stands. ``sessions``:
        the connections here (given when the loop starts: they are made above live)."""
        lagging = self.backlog.lagging
        while True:
            await asyncio.sleep(CATCH_UP_SECONDS)
            limit = self.backlog.queue_limit // 2
            for session in list(lagging):
                if session not in sessions:
                    lagging.discard(session)
                    continue
                if session.queued() >= limit:
                    continue
                lagging.discard(session)
                if session.lobby_stale and session.lobby:
                    session.lobby_stale = False
                    self.lobby_feed.offer(session)
                for game_id in list(session.owed):
                    session.owed.discard(game_id)
                    if game_id in session.watching:
                        with contextlib.suppress(*STORAGE_ERRORS):
                            await self.deliver(game_id, also=session)


def _outweigh(events: list[Event], game_state: GameState) -> bool:
    """Whether ``events`` weigh ``EVENTS_SHARE`` of ``game_state`` or more, in msgpack bytes
    (the state is measured only when the events might)."""
    weight = packed_size(events)
    if weight < STATE_FLOOR * EVENTS_SHARE:
        return False
    return weight >= packed_size(game_state) * EVENTS_SHARE
