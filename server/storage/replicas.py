"""What a change waits for when the primary has replicas (through Sentinel): ``WAIT`` right
behind the commit's script, on its connection, and a change no replica held in time, refused
(``UnreplicatedError``) or acknowledged on the primary alone. ``Replicas`` is a part of
``server.storage.store.Store``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import redis.exceptions

from server.game.clock import now_ms
from server.game.record import Record
from server.storage.channels import Channels, Published
from server.storage.codec import unpack
from server.storage.keys import game_key, log_key


class UnreplicatedError(redis.exceptions.TimeoutError):
    """No replica held a committed change within the wait, and such a change is refused
    (``Settings.on_no_replica``): it is on the primary, not published, not acknowledged."""


SHORT_WAIT_MS: Final = 20
"""How long a change waits for replicas once a wait has timed out, until one is answered in
time, when such changes are acknowledged anyway: a primary left without a replica (after a
failover) or with a stalled one does not slow every move by the whole wait."""


class Replicas:
    """The replicas' part of the store (see ``Store``'s arguments)."""

    redis: Any
    channels: Channels
    replicas: int
    wait_ms: int
    refuse_unreplicated: bool
    wait_timed_out: Callable[[bool], None]
    short_of_replicas: bool
    _touch: Any  # the store's script that reads a game and its last event

    async def _and_wait(self, script: Any, keys: list[str], args: list[Any]) -> tuple[Any, int]:
        """``script``'s answer, then how many replicas hold what it wrote (``WAIT`` on the
        same connection, in one round trip)."""
        for attempt in range(2):
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.evalsha(script.sha, len(keys), *keys, *args)
                short = self.short_of_replicas and not self.refuse_unreplicated
                pipe.wait(self.replicas, SHORT_WAIT_MS if short else self.wait_ms)
                try:
                    answer, acked = await pipe.execute()
                except redis.exceptions.NoScriptError:
                    if attempt:
                        raise
                    await self.redis.script_load(script.script)  # a new primary's first
                    continue
                except redis.exceptions.ResponseError as error:
                    if "replica" in str(error):  # a primary demoted (a failover): not ours
                        raise redis.exceptions.ConnectionError(str(error)) from error
                    raise
                self.short_of_replicas = int(acked) < self.replicas
                return answer, int(acked)
        raise AssertionError("unreachable")

    async def _settle(self, game_id: str) -> Record | None:
        """The game as the primary holds it (None: no such game), once replicas hold it too,
        published again then: a change committed and refused (no replica held it in time) is
        on the primary unpublished, and is published here once replicated (a process that
        has it already passes it by).

        Raises:
            UnreplicatedError: Replicas did not hold it in time (and such changes are refused).
        """
        keys = [game_key(game_id), log_key(game_id)]
        found, acked = await self._and_wait(self._touch, keys, [])
        if not found:
            return None
        version, body, event_body = found
        if acked < self.replicas:
            self.wait_timed_out(self.refuse_unreplicated)
            if self.refuse_unreplicated:
                raise UnreplicatedError(f"game {game_id}: no replica held it in time")
        if event_body:
            message = Published(game_id, int(version), body, event_body, "", now_ms()).pack()
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.publish(self.channels.game(game_id), message)
                pipe.publish(self.channels.events, message)
                await pipe.execute()
        return unpack(body)
