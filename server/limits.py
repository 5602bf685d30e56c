"""Abuse limits: token buckets for what one connection may do, and the strikes that close it.

A ``Bucket`` holds up to ``burst`` tokens and gains ``rate`` a second; each action takes one.
It is pure: the caller passes the time (``time.monotonic()`` in the server, any numbers in
tests). Limits per player across server processes live in Redis (``Store.count_in_window``).
"""

from __future__ import annotations


class Bucket:
    """A token bucket, full at the start."""

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
