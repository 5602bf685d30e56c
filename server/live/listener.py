"""The pub/sub listener: the committed changes of the games cached here, from whichever
process made them, to the cache, the lobby and the watchers here; the changes of every game's
place in the lobby, and the moves of the games in progress (for the lobby); and the sessions
ended elsewhere, closed here.

A process hears the changes of a game on the game's channel while it has the game in its cache
(``follow``, ``unfollow``), so a change is heard only by the processes that follow its game:
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
import logging
from typing import TYPE_CHECKING

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub

from server.game.clock import now_ms
from server.storage.channels import peek_published
from server.storage.codec import unpack, unpack_event
from server.storage.store import STORAGE_ERRORS

if TYPE_CHECKING:
    from server.runtime import Hub

log = logging.getLogger(__name__)

RESUBSCRIBE_SECONDS = 0.5
"""Wait before subscribing again while Redis is away."""


class Listener:
    """This process's subscriptions: the changes of the games it follows, the lobby's, the
    control channel's."""

    def __init__(self, hub: Hub, redis_client: aioredis.Redis) -> None:
        self.hub = hub
        self.redis = redis_client
        self.resyncs = 0  # times every followed game was brought up to date from Redis
        # The games followed are those cached here (``GameCache.games``); what came and went
        # since the subscriptions were last brought in line:
        self._follow: set[str] = set()
        self._unfollow: set[str] = set()
        self._changed = asyncio.Event()
        self._confirming: set[str] = set()  # subscribed to alone, read again once confirmed

    def follow(self, game_id: str) -> None:
        """Hear the game's changes (it is cached here now)."""
        self._unfollow.discard(game_id)
        self._follow.add(game_id)
        self._changed.set()

    def unfollow(self, game_id: str) -> None:
        """Stop hearing the game's changes (it left the cache here)."""
        self._follow.discard(game_id)
        self._unfollow.add(game_id)
        self._changed.set()

    async def listen(self) -> None:
        """Forever: subscribe, resync, then pass each message on."""
        channels = self.hub.store.channels
        control, lobby = channels.control.encode(), channels.lobby.encode()
        games = channels.games.encode()
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    self._follow.clear()
                    self._unfollow.clear()
                    self._confirming.clear()
                    followed = [channels.game(game_id) for game_id in self.hub.cache.games]
                    await pubsub.subscribe(channels.events, channels.control, channels.lobby)
                    for start in range(0, len(followed), 1000):
                        await pubsub.subscribe(*followed[start : start + 1000])
                    await self.resync()
                    keeper = asyncio.create_task(self._keep(pubsub))
                    try:
                        async for message in pubsub.listen():
                            kind, channel = message["type"], message["channel"]
                            if kind == "subscribe" and channel.startswith(games):
                                await self._confirmed(channel[len(games) :].decode())
                            if kind != "message":
                                continue
                            if channel == control:
                                _, player, hashed = msgpack.unpackb(message["data"])
                                self.hub.signin.signed_out(player, hashed)
                            elif channel == lobby:
                                self.hub.lobby_feed.heard(msgpack.unpackb(message["data"]))
                            else:
                                await self.published(message["data"])
                    finally:
                        keeper.cancel()
            except STORAGE_ERRORS as error:
                log.warning("event listener lost Redis (%s); resubscribing", error)
                await asyncio.sleep(RESUBSCRIBE_SECONDS)  # back off while Redis is away

    async def _keep(self, pubsub: PubSub) -> None:
        """Bring the subscriptions in line with the games cached as they change (a command
        for all the games that came, one for all that went)."""
        channels = self.hub.store.channels
        while True:
            await self._changed.wait()
            self._changed.clear()
            came, went = self._follow, self._unfollow
            self._follow, self._unfollow = set(), set()
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
        cache = self.hub.cache
        async with cache.changing.hold(game_id):
            if game_id in cache.games:  # (else no longer followed)
                await self.reload(game_id)
        cache.forget_if_idle(game_id)  # (its watchers may have gone meanwhile)

    async def published(self, data: bytes) -> None:
        """One committed change: to the cache, the lobby and the watchers here
        (``Fanout.pass_on``) if its game is followed here, unless the cache has it already
        (the request here that made it passed it on, or it was heard on the other channel);
        else to the lobby."""
        hub = self.hub
        cache = hub.cache
        change = peek_published(data)
        game_id, version = change.game, change.version
        made = "here" if hub.changes.made_here(change.change) else "elsewhere"
        hub.metrics.changes_heard.labels(made).inc()
        hub.metrics.change_delay.labels(made).observe(max(0, now_ms() - change.at) / 1000)
        cached = cache.get(game_id)
        if cached is not None and cached.record.version >= version:
            return  # (before unpacking it: ``pass_on`` would find it so)
        try:
            # A change made here whose commit has not returned yet: as the request holds it.
            known = hub.store.committing.get(change.change) if made == "here" else None
            record = unpack(change.body) if known is None else known[0]
            if cached is None and game_id not in cache.watchers:
                hub.lobby_feed.update(record)  # a game not followed here: its line in the lobby
            else:
                event = unpack_event(change.event) if known is None else known[1]
                await hub.fanout.pass_on(record, event)
        except STORAGE_ERRORS:
            raise
        except Exception:  # one game's failure must not stop the others' events
            log.exception("game %s: event %d not delivered", game_id, version)

    async def reload(self, game_id: str) -> bool:
        """Read the game again from Redis (a change of it may have gone unheard here) and pass
        on what the cache here did not have (``Fanout.pass_on``); whether there was any.

        Raises:
            STORAGE_ERRORS: Redis did not answer.
        """
        record = await self.hub.store.get(game_id)
        return record is not None and await self.hub.fanout.pass_on(record)

    async def resync(self) -> None:
        """Reload every game followed here from Redis (after the listener missed messages);
        the watchers of a game that did not change are brought up to date all the same (a
        delivery may have been cut short when the listener lost Redis)."""
        self.resyncs += 1
        for game_id in list(self.hub.cache.games):
            if not await self.reload(game_id):
                await self.hub.fanout.deliver(game_id)
