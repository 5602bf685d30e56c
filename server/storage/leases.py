"""Leases in Redis: one holder at a time of a piece of work shared by every process.

A lease is a key holding its holder's id (a random token of the process) for a while: taken
with ``SET NX PX`` (``take``), renewed while the holder works (``renew``), and let go at the
end (``release``); a holder that dies lets go when it expires. ``renew`` and ``release`` act
only while the key is still the holder's (a Lua script each), so a holder whose lease expired
and was taken by another neither renews nor deletes the other's. The computer analyses'
claims (``server.storage.analyses``) and the puzzle miner's lease (``hive:puzzles:mining``,
``server.live.miner``) are leases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from server.storage.store import Store

RENEW: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
RELEASE: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Lease:
    """The lease at ``key``, lasting ``ms`` unless renewed.

    Args:
        store: The Redis store.
        key: The lease's key.
        ms: How long it lasts unless renewed.
    """

    def __init__(self, store: Store, key: str, *, ms: int) -> None:
        self.redis: Any = store.redis
        self.key = key
        self.ms = ms
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)

    async def take(self, owner: str) -> bool:
        """Take the lease for ``owner`` (False: another holds it)."""
        return bool(await self.redis.set(self.key, owner, nx=True, px=self.ms))

    async def renew(self, owner: str) -> bool:
        """Keep ``owner``'s lease for ``ms`` more (False: it lost it)."""
        return bool(await self._renew(keys=[self.key], args=[owner, self.ms]))

    async def release(self, owner: str) -> None:
        await self._release(keys=[self.key], args=[owner])
