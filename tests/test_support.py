"""The tests' one wait (tests/support.py): the first true value, asked again until a deadline,
then a failure that says what was waited for."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from tests.support import until, until_blocking


async def test_until_returns_the_first_true_value_of_a_check_plain_or_awaited() -> None:
    asks = itertools.count()
    assert await until(lambda: max(next(asks) - 2, 0), "the third ask", every=0) == 1

    async def later() -> list[int] | None:
        return [next(asks)] if next(asks) > 8 else None

    assert await until(later, "a list", every=0) == [10]


async def test_until_fails_at_its_deadline_saying_what_it_waited_for() -> None:
    with pytest.raises(AssertionError, match=r"^not within 0\.05 s: the moon$"):
        await until(lambda: False, "the moon", timeout=0.05)
    seen: list[int] = []
    with pytest.raises(AssertionError, match=r"not within 0\.05 s: the moon, last \[1\]"):
        await until(lambda: seen.append(1), lambda: f"the moon, last {seen[-1:]}", timeout=0.05)


async def test_until_counts_a_slow_ask_and_lets_the_check_s_own_errors_through() -> None:
    with pytest.raises(AssertionError, match="never"):
        await until(lambda: asyncio.sleep(10), "never", timeout=0.05)

    async def own_timeout() -> bool:
        async with asyncio.timeout(0):
            await asyncio.sleep(1)
        return True

    with pytest.raises(TimeoutError):
        await until(own_timeout, "its own", timeout=5)


def test_until_blocking_is_the_same_wait_without_an_event_loop() -> None:
    asks = itertools.count()
    assert until_blocking(lambda: next(asks) == 3, "the fourth ask", every=0) is True
    with pytest.raises(AssertionError, match=r"^not within 0\.05 s: the moon$"):
        until_blocking(lambda: None, "the moon", timeout=0.05, every=0.01)
