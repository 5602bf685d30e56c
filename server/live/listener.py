"""The pub/sub listener: the committed changes of the games cached here, from whichever
process made them, to the cache, the lobby and the watchers here; the changes of every game's
place in the lobby, and the moves of the games in progress (for the lobby); the sessions
ended elsewhere, closed here; and the news of the computer analyses of finished games.

A process hears the changes of a game on the game's channel while it has the game in its cache
(``Following``), so a change is heard only by the processes that follow its game:
with a game's connections on one process, by that one alone. Changes arrive in the order Redis
committed them; each is passed on here by ``Fanout.pass_on`` unless the cache has it already
(a change made here, passed on by its request; a change of a game's place in the lobby, heard
on the game's channel and on every process's). Once a game's subscription is in place, the
game is read again from Redis (a change may have come before it); after a lost connection the
listener subscribes again and brings every game cached here up to date from Redis (it may have
missed changes meanwhile): what the cache did not have is passed on, as a change heard is.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable

import prometheus_client
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub

from server.game.clock import now_ms
from server.live.cache import GameCache
from server.live.fanout import Fanout
from server.live.lobby import LobbyFeed
from server.storage.channels import (
    AnalysisNews,
    peek_published,
    unpack_analysis,
    unpack_moves,
    unpack_notice,
    unpack_signed_out,
)
from server.storage.codec import unpack, unpack_event
from server.storage.stopping import cancel_all
from server.storage.store import STORAGE_ERRORS, Store

log = logging.getLogger(__name__)

RESUBSCRIBE_SECONDS = 0.5
"""Wait before subscribing again while Redis is away."""
PRIMARY_SECONDS = 0.5
"""How often the sentinels are asked where the primary is."""


class Following:
    """The games whose channels are to be heard: those cached here, as they come and go since
    the listener last brought its subscriptions in line. The cache calls ``follow`` and
    ``unfollow`` (it is made before the listener, which reads the cache: this keeps the two
    from needing each other)."""

    def __init__(self) -> None:
        self.came: set[str] = set()
        self.went: set[str] = set()
        self.changed = asyncio.Event()

    def follow(self, game_id: str) -> None:
        """Hear the game's changes (it is cached here now)."""
        self.went.discard(game_id)
        self.came.add(game_id)
        self.changed.set()

    def unfollow(self, game_id: str) -> None:
        """Stop hearing the game's changes (it left the cache here)."""
        self.came.discard(game_id)
        self.went.add(game_id)
        self.changed.set()

    def take(self) -> tuple[set[str], set[str]]:
        """The games that came and went since the last ``take`` (or ``clear``)."""
        came, went = self.came, self.went
        self.came, self.went = set(), set()
        return came, went

    def clear(self) -> None:
        """Forget what came and went (every game cached is subscribed to anew)."""
        self.came.clear()
        self.went.clear()


class Listener:
    """This process's subscriptions: the changes of the games it follows, the lobby's, the
    control channel's.

    Args:
        redis_client: The listener's own connection.
        store: The channels, and where a game is read again.
        cache: The games here (the games followed are those cached).
        following: The games that came into the cache and left it.
        fanout: Passes each change heard on (or a game read again).
        lobby_feed: Takes the changes of the games not followed here, and the moves the
            other processes made.
        made_here: Whether a change id is this process's (``Changes.made_here``).
        on_signed_out: Called with a player and a token hash (None: all the player's) when a
            session ended anywhere (``SignIn.signed_out`` closes its connections here).
        on_notice: Called with players and a frame for them, heard from any process
            (``Presence.tell`` sends it to their connections here).
        changes_heard: Counts the changes heard, by where they were made.
        change_delay: Observes how long each change took to be heard, by where it was made.
        primary: Where the Redis primary is now, as ``HOST:PORT`` (None: not known now):
            ``RedisClients.primary``.
        primary_changes: Counts the times the primary moved (failovers seen).
        on_analysis: Called with the news of a computer analysis (any process's) heard on the
            analyses' channel (``Reviews.heard``).
    """

    def __init__(
        self,
        redis_client: aioredis.Redis,
        store: Store,
        cache: GameCache,
        following: Following,
        fanout: Fanout,
        lobby_feed: LobbyFeed,
        *,
        made_here: Callable[[str], bool],
        on_signed_out: Callable[[str, str | None], None],
        on_notice: Callable[[list[str], bytes], None],
        changes_heard: prometheus_client.Counter,
        change_delay: prometheus_client.Histogram,
        primary: Callable[[], Awaitable[str | None]],
        primary_changes: prometheus_client.Counter,
        on_analysis: Callable[[AnalysisNews], None] | None = None,
    ) -> None:
        self.redis = redis_client
        self.store = store
        self.cache = cache
        self.following = following
        self.fanout = fanout
        self.lobby_feed = lobby_feed
        self.made_here = made_here
        self.on_signed_out = on_signed_out
        self.on_notice = on_notice
        # each label's series looked up once (the lookup cost more than the count)
        self._heard = functools.cache(changes_heard.labels)
        self._delay = functools.cache(change_delay.labels)
        self.primary = primary
        self.primary_changes = primary_changes
        self.on_analysis = on_analysis
        self.primary_address: str | None = None  # where the primary was last seen
        self.moved = asyncio.Event()  # the primary moved: subscribe again
        self.resyncs = 0  # times every followed game was brought up to date from Redis
        self._confirming: set[str] = set()  # subscribed to alone, read again once confirmed

    async def listen(self) -> None:
        """Forever: subscribe, resync, then pass each message on."""
        channels = self.store.channels
        control, lobby = channels.control.encode(), channels.lobby.encode()
        notices = channels.notices.encode()
        games = channels.games.encode()
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    self.following.clear()
                    self._confirming.clear()
                    followed = [channels.game(game_id) for game_id in self.cache.games]
                    await pubsub.subscribe(
                        channels.events,
                        channels.control,
                        channels.lobby,
                        channels.notices,
                        channels.analyses,
                    )
                    for start in range(0, len(followed), 1000):
                        await pubsub.subscribe(*followed[start : start + 1000])
                    self.moved.clear()
                    await self.resync()
                    keeper = asyncio.create_task(self._keep(pubsub))
                    reading = asyncio.create_task(
                        self._read(pubsub, control, lobby, notices, games)
                    )
                    moved = asyncio.create_task(self.moved.wait())
                    try:
                        await asyncio.wait([reading, moved], return_when=asyncio.FIRST_COMPLETED)
                        if reading.done():
                            reading.result()  # (it ends only by raising)
                    finally:  # (a task in a redis-py command may swallow a single cancel)
                        await cancel_all([keeper, reading, moved])
            except STORAGE_ERRORS as error:
                log.warning("event listener lost Redis (%s); resubscribing", error)
                await asyncio.sleep(RESUBSCRIBE_SECONDS)  # back off while Redis is away

    async def _read(
        self, pubsub: PubSub, control: bytes, lobby: bytes, notices: bytes, games: bytes
    ) -> None:
        """Pass each message heard on."""
        analysed = self.store.channels.analyses.encode()
        async for message in pubsub.listen():
            kind, channel = message["type"], message["channel"]
            if kind == "subscribe" and channel.startswith(games):
                await self._confirmed(channel[len(games) :].decode())
            if kind != "message":
                continue
            if channel == control:
                self.on_signed_out(*unpack_signed_out(message["data"]))
            elif channel == lobby:
                self.lobby_feed.heard(unpack_moves(message["data"]))
            elif channel == notices:
                self.on_notice(*unpack_notice(message["data"]))
            elif channel == analysed:
                news = unpack_analysis(message["data"])
                if news is not None and self.on_analysis is not None:
                    self.on_analysis(news)
            else:
                await self.published(message["data"])

    async def follow_primary(self) -> None:
        """Forever, every ``PRIMARY_SECONDS``: ask where the Redis primary is (the sentinels,
        through ``primary``); when it moved (a failover), count it and subscribe again on the
        new one, bringing every game followed here up to date from it. (A listener whose
        primary died notices by itself; one on a primary that was cut off, then came back,
        would go on hearing it.)"""
        while True:
            found = await self.primary()
            if found is not None:
                if self.primary_address is not None and found != self.primary_address:
                    log.warning(
                        "the Redis primary moved from %s to %s: subscribing there",
                        self.primary_address,
                        found,
                    )
                    self.primary_changes.inc()
                    self.moved.set()
                self.primary_address = found
            await asyncio.sleep(PRIMARY_SECONDS)

    async def _keep(self, pubsub: PubSub) -> None:
        """Bring the subscriptions in line with the games cached as they change (a command
        for all the games that came, one for all that went)."""
        channels = self.store.channels
        following = self.following
        while True:
            await following.changed.wait()
            following.changed.clear()
            came, went = following.take()
            try:
                if came:
                    self._confirming |= came
                    await pubsub.subscribe(*(channels.game(game_id) for game_id in came))
                if went:
                    await pubsub.unsubscribe(*(channels.game(game_id) for game_id in went))
            except STORAGE_ERRORS:
                return  # the listener sees the connection lost, and subscribes again to all

    async def _confirmed(self, game_id: str) -> None:
        """The game's subscription is in place: read it again from Redis, for a change made
        elsewhere before it (after the change being made here, if one is)."""
        if game_id not in self._confirming:
            return
        self._confirming.discard(game_id)
        cache = self.cache
        async with cache.changing.hold(game_id):
            if game_id in cache.games:  # (else no longer followed)
                await self.fanout.reload(game_id)
        cache.forget_if_idle(game_id)  # (its watchers may have gone meanwhile)

    async def published(self, data: bytes) -> None:
        """One committed change: to the cache, the lobby and the watchers here
        (``Fanout.pass_on``) if its game is followed here, unless the cache has it already
        (the request here that made it passed it on, or it was heard on the other channel);
        else to the lobby."""
        cache = self.cache
        change = peek_published(data)
        game_id, version = change.game, change.version
        made = "here" if self.made_here(change.change) else "elsewhere"
        self._heard(made).inc()
        self._delay(made).observe(max(0, now_ms() - change.at) / 1000)
        cached = cache.get(game_id)
        if cached is not None and cached.record.version >= version:
            return  # (before unpacking it: ``pass_on`` would find it so)
        try:
            # A change made here whose commit has not returned yet: as the request holds it.
            known = self.store.committing.get(change.change) if made == "here" else None
            record = unpack(change.body) if known is None else known[0]
            if cached is None and game_id not in cache.watchers:
                self.lobby_feed.update(record)  # a game not followed here: its line in the lobby
            else:
                event = unpack_event(change.event) if known is None else known[1]
                await self.fanout.pass_on(record, event)
        except STORAGE_ERRORS:
            raise
        except Exception:  # one game's failure must not stop the others' events
            log.exception("game %s: event %d not delivered", game_id, version)

    async def resync(self) -> None:
        """Reload every game followed here from Redis (after the listener missed messages);
        the watchers of a game that did not change are brought up to date all the same (a
        delivery may have been cut short when the listener lost Redis)."""
        self.resyncs += 1
        for game_id in list(self.cache.games):
            if not await self.fanout.reload(game_id):
                await self.fanout.deliver(game_id)
