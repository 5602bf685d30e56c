"""Who is alive, in Redis: the heartbeat of the server processes, players' online marks and
when they left, the processes' shared spectator counts, and the request counts behind the
limits per player and per address. ``Liveness`` is a part of ``server.storage.store.Store``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, NamedTuple

import redis.exceptions

ONLINE_KEY: Final = "hive:online"
PROCESSES_KEY: Final = "hive:processes"


WINDOW_PARTS: Final = 10
"""The parts a limit's window is counted in: a request counts for its window and at most a
part more (a limit errs on the side of refusing), and a key holds at most ``WINDOW_PARTS``
+ 1 counters however many requests come."""

COUNT: Final = """
local add = tonumber(ARGV[3])
if add > 0 then redis.call('HINCRBY', KEYS[1], ARGV[1], add) end
local oldest = tonumber(ARGV[2])
local fields = redis.call('HGETALL', KEYS[1])
local count = 0
for i = 1, #fields, 2 do
  if tonumber(fields[i]) < oldest then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    count = count + tonumber(fields[i + 1])
  end
end
if add > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return count
"""
"""KEYS: the counts of one limit (a hash: the part of time, ``now // width`` -> requests
counted in it). ARGV: the part of ``now``, the oldest part still in the window, how many to
add (0 or 1), how long to keep the key (ms: a window and a part). Returns the requests in the
window's parts; forgets the older parts."""


def window_part(seconds: float) -> int:
    """The length in ms of one of a window's ``WINDOW_PARTS`` parts (at least 1)."""
    return max(1, -(-int(seconds * 1000) // WINDOW_PARTS))


def rate_key(who: str, what: str) -> str:
    """The counts behind the limit of ``what`` for ``who`` (``Liveness.count_in_window``)."""
    return f"hive:rate:{{{who}}}:{what}"


def offline_key(player: str) -> str:
    return f"hive:offline:{{{player}}}"


class View(NamedTuple):
    """What ``Store.share_view`` learns."""

    spectators: dict[str, int]
    """The other live processes' spectator counts, summed per game."""
    online: set[str]
    """The players asked about that are connected anywhere (their online marks)."""
    renewed: bool
    """Whether this process's counts were still in Redis (False: none were shared yet, the
    last one went, which takes the key away, or they lapsed; Redis holds only the changes
    sent now)."""
    others: int
    """How many other server processes are alive."""


class Liveness:
    """The liveness part of the store."""

    redis: Any
    _count: Any  # ``_COUNT``, registered with ``redis`` by the store

    async def set_online(self, player: str, now: int, ttl: int) -> None:
        """Mark ``player`` as connected until ``ttl`` seconds from ``now`` (ms)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(ONLINE_KEY, {player: now + ttl * 1000})
            pipe.delete(f"hive:offline:{{{player}}}")
            await pipe.execute()

    async def keep_online(
        self, players: list[str], now: int, ttl: int, *, forget_lapsed: bool = True
    ) -> None:
        """Renew the online marks of ``players``, and (``forget_lapsed``) forget the lapsed
        marks, in one command each however many players there are."""
        async with self.redis.pipeline(transaction=False) as pipe:
            if players:
                until = now + ttl * 1000
                pipe.zadd(ONLINE_KEY, dict.fromkeys(players, until))
            if forget_lapsed:
                pipe.zremrangebyscore(ONLINE_KEY, "-inf", now)
            await pipe.execute()

    async def set_offline(self, player: str, now: int, ttl: int) -> None:
        """``player``'s last connection here closed at ``now`` (kept ``ttl`` seconds)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(ONLINE_KEY, player)
            pipe.set(offline_key(player), now, ex=ttl)
            await pipe.execute()

    async def gone_since(self, player: str, now: int) -> int | None:
        """When ``player``'s last connection closed; None while one is open. A player whose
        online mark lapsed without a goodbye (a server process died) counts as gone since 0."""
        return (await self.gone_since_many([player], now))[0]

    async def gone_since_many(self, players: list[str], now: int) -> list[int | None]:
        """``gone_since`` of each of ``players``, in two commands however many they are."""
        if not players:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zmscore(ONLINE_KEY, players)
            pipe.mget([offline_key(player) for player in players])
            marks, offline = await pipe.execute()
        return [
            None if until is not None and until > now else int(gone) if gone is not None else 0
            for until, gone in zip(marks, offline, strict=True)
        ]

    async def share_view(
        self,
        process: str,
        changes: dict[str, int],
        players: Iterable[str],
        now: int,
        ttl: int,
    ) -> View:
        """Share this server process's spectator counts, kept for ``ttl`` seconds: ``changes``
        since the last call (game id -> count; 0 drops the game). Return what the other live
        processes share (see ``View``).

        Only changes travel and only the players asked about are looked up: a process with a
        thousand games sent and read everything every two seconds, a pause of several
        milliseconds for the moves of all its games."""
        key = f"hive:proc:{process}:spectators"
        kept = {game_id: count for game_id, count in changes.items() if count}
        gone = [game_id for game_id, count in changes.items() if not count]
        asked = list(players)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.expire(key, ttl)  # 0: the key had lapsed (or never held anything)
            if kept:
                pipe.hset(key, mapping=kept)
                pipe.expire(key, ttl)
            if gone:
                pipe.hdel(key, *gone)
            pipe.zadd(PROCESSES_KEY, {process: now})
            pipe.zremrangebyscore(PROCESSES_KEY, "-inf", now - ttl * 1000)
            pipe.zrange(PROCESSES_KEY, 0, -1)
            if asked:
                pipe.zmscore(ONLINE_KEY, asked)
            replies = await pipe.execute()
        renewed = bool(replies[0])
        if asked:
            *_, processes, scores = replies
        else:
            *_, processes = replies
            scores = []
        online = {player for player, until in zip(asked, scores, strict=True) if (until or 0) > now}
        others = [p.decode() for p in processes if p.decode() != process]
        totals: dict[str, int] = {}
        if others:
            async with self.redis.pipeline(transaction=False) as pipe:
                for other in others:
                    pipe.hgetall(f"hive:proc:{other}:spectators")
                for counts in await pipe.execute():
                    for game_id, count in counts.items():
                        name = game_id.decode()
                        totals[name] = totals.get(name, 0) + int(count)
        return View(totals, online, renewed, len(others))

    async def count_in_window(self, who: str, what: str, seconds: float, now: int) -> int:
        """Count one more ``what`` of ``who`` (a player id, or an origin hash) at ``now`` (ms);
        how many there were in the last ``seconds``, this one included (one round trip).

        A request refused counts too: a flood keeps its sender refused while it lasts, and
        costs Redis nothing more (see ``COUNT``)."""
        return await self._window(who, what, seconds, now, 1)

    async def count_so_far(self, who: str, what: str, seconds: float, now: int) -> int:
        """How many ``what`` of ``who`` ``count_in_window`` counted in the last ``seconds``
        (none added)."""
        return await self._window(who, what, seconds, now, 0)

    async def _window(self, who: str, what: str, seconds: float, now: int, add: int) -> int:
        width = window_part(seconds)
        part = now // width
        oldest = (now - int(seconds * 1000)) // width
        try:
            count = await self._count(
                keys=[rate_key(who, what)], args=[part, oldest, add, int(seconds * 1000) + width]
            )
        except redis.exceptions.ResponseError as error:
            if "OOM" in str(error):  # Redis at its maxmemory, as a script sees it
                raise redis.exceptions.OutOfMemoryError(str(error)) from error
            raise
        return int(count)

    async def heartbeat(self, now: int) -> int | None:
        """Record that a server is alive at ``now``; returns the previous beat."""
        previous = await self.redis.set("hive:heartbeat", now, get=True)
        return None if previous is None else int(previous)
