"""Players' open tries of puzzles, in Redis, so that a try goes on on whichever process the
player's next request reaches (a reconnect behind a balancer lands anywhere).

``hive:p:{PLAYER}:puzzle-tries`` is a hash: a puzzle's id -> its try, packed (``Try``). It
holds at most ``OPEN_PUZZLES`` tries (opening another forgets the one opened longest ago) and
lapses ``KEPT_SECONDS`` after the player's last puzzle request. A try's rating is not kept
here: it is the archive's, once per player and puzzle (``server.archive.puzzles.rate``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

import msgpack

from protocol import OPEN_PUZZLES

if TYPE_CHECKING:
    from server.storage.store import Store

KEPT_SECONDS: Final = 3600
"""How long a player's open tries outlast their last puzzle request."""


class Try(NamedTuple):
    """A player's open try of a puzzle: when it was opened (ms), the moves of its line played,
    whether it failed (a wrong move, or the solution asked), was rated, is over."""

    opened: int
    played: int = 0
    failed: bool = False
    rated: bool = False
    done: bool = False


def tries_key(player: str) -> str:
    return f"hive:p:{{{player}}}:puzzle-tries"


class OpenTries:
    """The open tries of puzzles, shared by every process."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def open(self, player: str, puzzle: int, now: int) -> None:
        """Open (again, from its start) ``player``'s try of ``puzzle``, forgetting the try
        opened longest ago past ``OPEN_PUZZLES``."""
        key = tries_key(player)
        redis = self.store.redis
        async with redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, str(puzzle), _pack(Try(now)))
            pipe.expire(key, KEPT_SECONDS)
            pipe.hgetall(key)
            *_, kept = await pipe.execute()
        if len(kept) > OPEN_PUZZLES:
            by_age = sorted(kept, key=lambda field: _unpack(kept[field]).opened)
            await redis.hdel(key, *by_age[: len(kept) - OPEN_PUZZLES])

    async def get(self, player: str, puzzle: int) -> Try | None:
        """``player``'s open try of ``puzzle`` (None: not open, or forgotten)."""
        data = await self.store.redis.hget(tries_key(player), str(puzzle))
        return None if data is None else _unpack(data)

    async def put(self, player: str, puzzle: int, attempt: Try) -> None:
        """Keep how ``player``'s open try of ``puzzle`` stands now."""
        key = tries_key(player)
        async with self.store.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, str(puzzle), _pack(attempt))
            pipe.expire(key, KEPT_SECONDS)
            await pipe.execute()


def _pack(attempt: Try) -> bytes:
    packed: bytes = msgpack.packb(list(attempt))
    return packed


def _unpack(data: bytes) -> Try:
    opened, played, failed, rated, done = msgpack.unpackb(data)
    return Try(int(opened), int(played), bool(failed), bool(rated), bool(done))
