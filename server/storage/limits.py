"""Abuse limits: token buckets for what one connection may do, and the strikes that close it.

A ``Bucket`` holds up to ``burst`` tokens and gains ``rate`` a second; each action takes one.
It is pure: the caller passes the time (``time.monotonic()`` in the server, any numbers in
tests). Limits per player and per address hold across server processes: they are counted in
Redis (``per_player``, ``per_origin``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import ErrorCode, ProtocolError
from server.game.clock import now_ms

if TYPE_CHECKING:
    from server.storage.store import Store


class Bucket:
    """A token bucket, full at the start. (Slots: every connection holds four.)"""

    __slots__ = ("burst", "checked", "rate", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"a bucket needs rate > 0 and burst >= 1, not {rate}, {burst}")
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.checked = now

    def take(self, now: float) -> bool:
        """Take a token if there is one; False (and nothing taken) when the bucket is empty."""
        self.tokens = min(self.burst, self.tokens + (now - self.checked) * self.rate)
        self.checked = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


async def per_player(store: Store, player: str, what: str, limit: int, seconds: float) -> None:
    """Refuse the player's ``limit + 1``-th ``what`` within a window of ``seconds``,
    whichever server processes its connections are on.

    Raises:
        ProtocolError: RATE_LIMITED.
    """
    if await store.count_in_window(player, what, seconds, now_ms()) > limit:
        raise ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"at most {limit} {what} requests in {seconds:.0f} s; wait a little",
        )


async def per_origin(
    store: Store, origin: str, what: str, limit: int, seconds: float, words: str
) -> None:
    """Refuse the ``limit + 1``-th ``what`` from an address (its ``origin`` hash) within a
    window of ``seconds``, on every server process.

    Raises:
        ProtocolError: RATE_LIMITED.
    """
    if await store.count_in_window(origin, what, seconds, now_ms()) > limit:
        span = f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"
        raise ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"at most {limit} {words} from one address in {span}; wait a little",
        )
