"""The computer analyses of finished games waiting or running, in Redis, shared by every process.

- ``hive:analyses``: a sorted set of the games whose analysis was asked for and is not stored
  yet, by when it was asked (ms). At most the queue's ``limit`` at once: a request past it is
  refused (``request``), so the work waiting is bounded whoever asks.
- ``hive:g:{ID}:analysing``: the process analysing the game (its id), for ``CLAIM_MS``, renewed
  while it works: one analysis of a game at a time, and a process that died lets go of it when
  the claim expires (another process, or itself restarted, takes the game up again).
- ``hive:g:{ID}:analysed``: a hash of the positions searched so far (ply -> the review of the
  move, packed), so an analysis taken up again goes on where it stopped.

Progress is published on the analyses' channel (``server.storage.channels``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import msgpack

from ai.review import Mark, PlyReview
from server.game.clock import now_ms
from server.storage.channels import AnalysisNews, pack_analysis
from server.storage.leases import RELEASE, RENEW

if TYPE_CHECKING:
    from server.storage.store import Store

QUEUE_KEY: Final = "hive:analyses"
CLAIM_MS: Final = 15_000
"""How long a process's claim on an analysis lasts unless renewed (it renews it every few
seconds while it works): a process that died lets go of it within this."""

_REQUEST: Final = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 2
"""


def claim_key(game_id: str) -> str:
    return f"hive:g:{{{game_id}}}:analysing"


def plies_key(game_id: str) -> str:
    return f"hive:g:{{{game_id}}}:analysed"


def pack_ply(review: PlyReview) -> bytes:
    """A move's review as kept in ``hive:g:{ID}:analysed``."""
    mark = None if review.mark is None else review.mark.value
    packed: bytes = msgpack.packb(
        [
            review.ply,
            review.move,
            review.best,
            review.best_score,
            review.played_score,
            review.chance,
            review.played_chance,
            mark,
            review.accuracy,
        ]
    )
    return packed


def unpack_ply(data: bytes) -> PlyReview:
    ply, move, best, best_score, played_score, chance, played_chance, mark, accuracy = (
        msgpack.unpackb(data)
    )
    return PlyReview(
        ply,
        move,
        best,
        best_score,
        played_score,
        chance,
        played_chance,
        None if mark is None else Mark(mark),
        accuracy,
    )


class AnalysisQueue:
    """The analyses asked for, claimed and partly done, in the store's Redis.

    Args:
        store: The Redis store (its connection and its channels).
        limit: The most analyses waiting or running at once, over every process.
    """

    def __init__(self, store: Store, *, limit: int) -> None:
        self.redis = store.redis
        self.channel = store.channels.analyses
        self.limit = limit
        self._request = self.redis.register_script(_REQUEST)
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)

    async def request(self, game_id: str) -> bool | None:
        """Queue the analysis of ``game_id``: True if it was queued now, False if it was
        already, None if the queue is full (it is not queued)."""
        found = int(await self._request(keys=[QUEUE_KEY], args=[game_id, now_ms(), self.limit]))
        return None if found == 0 else found == 2

    async def queued(self) -> list[str]:
        """The games waiting or running, oldest request first."""
        return [m.decode() for m in await self.redis.zrange(QUEUE_KEY, 0, -1)]

    async def is_queued(self, game_id: str) -> bool:
        return await self.redis.zscore(QUEUE_KEY, game_id) is not None

    async def claim(self, game_id: str, owner: str) -> bool:
        """Take the analysis of ``game_id`` for ``owner`` (False: another has it)."""
        return bool(await self.redis.set(claim_key(game_id), owner, nx=True, px=CLAIM_MS))

    async def renew(self, game_id: str, owner: str) -> bool:
        """Keep ``owner``'s claim for ``CLAIM_MS`` more (False: it lost it)."""
        return bool(await self._renew(keys=[claim_key(game_id)], args=[owner, CLAIM_MS]))

    async def release(self, game_id: str, owner: str) -> None:
        await self._release(keys=[claim_key(game_id)], args=[owner])

    async def is_claimed(self, game_id: str) -> bool:
        return bool(await self.redis.exists(claim_key(game_id)))

    async def save(self, game_id: str, review: PlyReview) -> None:
        """Keep one position's review (for a restart)."""
        await self.redis.hset(plies_key(game_id), str(review.ply), pack_ply(review))

    async def saved(self, game_id: str) -> dict[int, PlyReview]:
        """The positions' reviews kept so far, by ply."""
        found = await self.redis.hgetall(plies_key(game_id))
        return {int(ply): unpack_ply(data) for ply, data in found.items()}

    async def progress(self, game_id: str) -> int:
        """How many positions are searched so far."""
        return int(await self.redis.hlen(plies_key(game_id)))

    async def finish(self, game_id: str) -> None:
        """The analysis is stored in the database (or cannot be made): forget it here."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(QUEUE_KEY, game_id)
            pipe.delete(plies_key(game_id))
            await pipe.execute()

    async def publish(self, news: AnalysisNews) -> None:
        await self.redis.publish(self.channel, pack_analysis(news))
