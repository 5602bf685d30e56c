"""Locks by key that exist only while they are used.

A lock per game id kept in a plain dict grows with every id ever named, existing or not (a
client naming random ids left one behind each). ``Locks.hold(key)`` makes the key's lock on
first use and drops it when its last holder or waiter leaves, so the dict holds only the keys
in use.
"""

from __future__ import annotations

import asyncio
from types import TracebackType


class Locks:
    """One ``asyncio.Lock`` per key, alive while someone holds it or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    def hold(self, key: str) -> Held:
        """Hold ``key``'s lock for the block (``async with locks.hold(key):``)."""
        return Held(self._locks, key)

    def busy(self, key: str) -> bool:
        """Whether someone holds or waits for ``key``'s lock."""
        return key in self._locks

    def __len__(self) -> int:
        return len(self._locks)


class Held:
    """``Locks.hold``'s block: the key's lock made on entry if it is not there, and dropped
    on exit by its last user (a class, not a generator-based context manager: a change
    takes two of these, and the generator's machinery cost more than the lock)."""

    __slots__ = ("_entry", "_key", "_locks")

    def __init__(self, locks: dict[str, tuple[asyncio.Lock, list[int]]], key: str) -> None:
        self._locks = locks
        self._key = key
        self._entry: tuple[asyncio.Lock, list[int]] | None = None

    async def __aenter__(self) -> None:
        entry = self._locks.get(self._key)
        if entry is None:
            entry = self._locks[self._key] = (asyncio.Lock(), [0])
        self._entry = entry
        entry[1][0] += 1
        try:
            await entry[0].acquire()
        except BaseException:  # cancelled while waiting: no longer a user
            self._leave()
            raise

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._entry is not None
        self._entry[0].release()
        self._leave()

    def _leave(self) -> None:
        assert self._entry is not None
        users = self._entry[1]
        users[0] -= 1
        if not users[0]:
            del self._locks[self._key]
