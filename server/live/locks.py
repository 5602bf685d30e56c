"""Locks by key that exist only while they are used.

A lock per game id kept in a plain dict grows with every id ever named, existing or not (a
client naming random ids left one behind each). ``Locks.hold(key)`` makes the key's lock on
first use and drops it when its last holder or waiter leaves, so the dict holds only the keys
in use.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class Locks:
    """One ``asyncio.Lock`` per key, alive while someone holds it or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Hold ``key``'s lock for the block."""
        entry = self._locks.get(key)
        if entry is None:
            entry = self._locks[key] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[key]

    def busy(self, key: str) -> bool:
        """Whether someone holds or waits for ``key``'s lock."""
        return key in self._locks

    def __len__(self) -> int:
        return len(self._locks)
