"""The finished games on their way to the archive, and the bots' search traces, in Redis:
``hive:over`` (finished, not yet archived), a process's claim on archiving one, the mark and
the expiry of an archived game's keys, and the traces kept beside a game. ``Archiving`` is a
part of ``server.storage.store.Store``."""

from __future__ import annotations

from typing import Any, Final

from server.storage.keys import claim_key, game_key, log_key, trace_key

PUT_TRACE: Final = """
if redis.call('HEXISTS', KEYS[1], 'a') == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
return 1
"""
"""KEYS: game hash, trace. ARGV: trace, seconds to keep it. Nothing once the game is
archived."""


class Archiving:
    """The archive's part of the store."""

    redis: Any
    _put_trace: Any  # ``PUT_TRACE``, registered with ``redis`` by the store

    async def finished(self, limit: int = 100) -> list[str]:
        """Finished games not yet archived, the longest finished first."""
        found = await self.redis.zrange("hive:over", 0, limit - 1)
        return [m.decode() for m in found]

    async def finished_count(self) -> int:
        """How many finished games are not yet archived."""
        count: int = await self.redis.zcard("hive:over")
        return count

    async def is_finished(self, game_id: str) -> bool:
        """Whether ``game_id`` has finished and is not yet archived (in ``hive:over``)."""
        return await self.redis.zscore("hive:over", game_id) is not None

    async def claim_archive(self, game_id: str, seconds: int) -> bool:
        """Claim the archiving of a finished game for ``seconds``: False while another
        process holds the claim. The claim spares the work twice, nothing more: the archive's
        write is right however many processes make it."""
        claimed = await self.redis.set(claim_key(game_id), 1, nx=True, ex=seconds)
        return bool(claimed)

    async def release_archive(self, game_id: str) -> None:
        """Let go of a claim that did not archive its game (the next sweep may try again)."""
        await self.redis.delete(claim_key(game_id))

    async def drop_finished(self, game_id: str) -> None:
        """Take a game that is gone out of ``hive:over``."""
        await self.redis.zrem("hive:over", game_id)

    async def traces(self, game_id: str, plies: int) -> dict[int, tuple[bytes, int]]:
        """The search traces still kept of a game of ``plies`` moves: ply -> (trace,
        milliseconds it has left)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for ply in range(1, plies + 2):  # the last: a move the game's end overtook
                pipe.get(trace_key(game_id, ply))
                pipe.pttl(trace_key(game_id, ply))
            found = await pipe.execute()
        return {
            ply: (body, left)
            for ply, body, left in zip(range(1, plies + 2), found[::2], found[1::2], strict=True)
            if body is not None and left > 0
        }

    async def archived(self, game_id: str, plies: int, grace: int, *, traced: bool) -> None:
        """The game is in the archive: mark it, let its keys expire in ``grace`` seconds
        (its traces sooner if they were to), and take it out of ``hive:over``. ``traced``:
        the game may have traces (one of the server's bots played it); a game of people has
        none, and its ``plies`` keys are not looked at (a command each)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(game_key(game_id), "a", 1)
            pipe.expire(game_key(game_id), grace)
            pipe.expire(log_key(game_id), grace)
            await pipe.execute()
        keys = [trace_key(game_id, ply) for ply in range(1, plies + 2)] if traced else []
        lefts = []
        if keys:
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.pttl(key)
                lefts = await pipe.execute()
        async with self.redis.pipeline(transaction=False) as pipe:
            for key, left in zip(keys, lefts, strict=True):
                if left > grace * 1000:
                    pipe.pexpire(key, grace * 1000)
            pipe.zrem("hive:over", game_id)
            pipe.delete(claim_key(game_id))
            await pipe.execute()

    # -- traces ------------------------------------------------------------------------------

    async def put_trace(self, game_id: str, ply: int, trace: bytes, ttl: int) -> None:
        """Keep a bot move's trace ``ttl`` seconds, unless its game is archived already (a
        move its game's end overtook: its key would outlive the game's)."""
        await self._put_trace(keys=[game_key(game_id), trace_key(game_id, ply)], args=[trace, ttl])

    async def get_trace(self, game_id: str, ply: int) -> bytes | None:
        data: bytes | None = await self.redis.get(trace_key(game_id, ply))
        return data
