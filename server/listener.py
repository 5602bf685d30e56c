"""The pub/sub listener: every committed change, from whichever process made it, to the
cache, the lobby and the watchers here; and the sessions ended elsewhere, closed here.

Changes arrive in the order Redis committed them. After a lost connection the listener
subscribes again and brings every watched game up to date from Redis (it may have missed
changes meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import msgpack
import redis.asyncio as aioredis

from server.clock import now_ms
from server.codec import unpack, unpack_event
from server.store import STORAGE_ERRORS, peek_published

if TYPE_CHECKING:
    from server.runtime import Hub

log = logging.getLogger(__name__)

RESUBSCRIBE_SECONDS = 0.5
"""Wait before subscribing again while Redis is away."""


class Listener:
    """This process's subscription to the changes of every process."""

    def __init__(self, hub: Hub, redis_client: aioredis.Redis) -> None:
        self.hub = hub
        self.redis = redis_client
        self.resyncs = 0  # times every watched game was brought up to date from Redis

    async def listen(self) -> None:
        """Forever: subscribe, resync, then pass each message on."""
        store = self.hub.store
        events, control = store.events_channel, store.control_channel
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(events, control)
                    await self.resync()
                    async for message in pubsub.listen():
                        if message["type"] != "message":
                            continue
                        if message["channel"] == control.encode():
                            _, player, hashed = msgpack.unpackb(message["data"])
                            self.hub.signin.signed_out(player, hashed)
                        else:
                            await self.published(message["data"])
            except STORAGE_ERRORS as error:
                log.warning("event listener lost Redis (%s); resubscribing", error)
                await asyncio.sleep(RESUBSCRIBE_SECONDS)  # back off while Redis is away

    async def published(self, data: bytes) -> None:
        """One committed change: update the cache, then pass it on to the lobby and the
        watchers here (unless it is left to the request here that made it)."""
        hub = self.hub
        cache = hub.cache
        change = peek_published(data)
        game_id, version = change.game, change.version
        made = "here" if hub.changes.made_here(change.change) else "elsewhere"
        hub.metrics.changes_heard.labels(made).inc()
        hub.metrics.change_delay.labels(made).observe(max(0, now_ms() - change.at) / 1000)
        if hub.changes.left_to_request(change.change):
            return
        try:
            event = unpack_event(change.event)
            cached = cache.get(game_id)
            if cached is None or cached.record.version < version:
                record = unpack(change.body)
                if cached is not None:
                    cached.apply(record, event)
                elif game_id in cache.watchers:
                    cache.put(record, event)
            else:
                record = cached.record
            await hub.fanout.pass_on(record, event)
        except STORAGE_ERRORS:
            raise
        except Exception:  # one game's failure must not stop the others' events
            log.exception("game %s: event %d not delivered", game_id, version)

    async def reload(self, game_id: str) -> None:
        """Bring the game and its watchers here up to date from Redis (a change of it went
        unheard).

        Raises:
            STORAGE_ERRORS: Redis did not answer.
        """
        hub = self.hub
        record = await hub.store.get(game_id)
        if record is not None:
            hub.cache.put(record)
            hub.lobby_feed.update(record)
            await hub.fanout.deliver(game_id)

    async def resync(self) -> None:
        """Reload every watched game from Redis (after the listener missed messages)."""
        self.resyncs += 1
        for game_id in list(self.hub.cache.watchers):
            await self.reload(game_id)
