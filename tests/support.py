"""What every package of the tests shares: the one way a test waits for something.

A test never sleeps to let something happen: it asks again until the thing holds, and fails
with what it waited for once a deadline has passed. ``until`` is that wait, for a condition of
this process (a server running in it), of another process (haproxy, Redis, PostgreSQL) or of a
page in the browser; ``until_blocking`` is the same wait for code that runs no event loop (a
fixture starting a process).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar, overload

T = TypeVar("T")

EVERY = 0.02
"""How often a condition is asked again, in seconds, unless told otherwise."""


def _failure(what: str | Callable[[], str], timeout: float) -> AssertionError:
    said = what if isinstance(what, str) else what()
    return AssertionError(f"not within {timeout:g} s: {said}")


@overload
async def until(
    check: Callable[[], Awaitable[T | None]],
    what: str | Callable[[], str],
    *,
    timeout: float = 30.0,
    every: float = EVERY,
) -> T: ...
@overload
async def until(
    check: Callable[[], T | None],
    what: str | Callable[[], str],
    *,
    timeout: float = 30.0,
    every: float = EVERY,
) -> T: ...
async def until(
    check: Callable[[], object],
    what: str | Callable[[], str],
    *,
    timeout: float = 30.0,
    every: float = EVERY,
) -> object:
    """The first true value of ``check()`` (awaited when it is awaitable), asked again every
    ``every`` seconds: between two asks the event loop runs whatever else it has.

    Args:
        check: What to ask; it returns something false (None, False, an empty list) while
            the condition does not hold. An exception it raises ends the wait at once.
        what: The condition in words, for the failure (or a function that says it then,
            with what it sees).
        timeout: The deadline, in seconds, a slow ask included.
        every: Seconds between two asks.

    Raises:
        AssertionError: ``not within TIMEOUT s: WHAT``, once the deadline has passed.
    """
    deadline = asyncio.timeout(timeout)
    try:
        async with deadline:
            while True:
                found = check()
                if inspect.isawaitable(found):
                    found = await found
                if found:
                    return found
                await asyncio.sleep(every)
    except TimeoutError:
        if not deadline.expired():
            raise  # the check's own
        raise _failure(what, timeout) from None


def until_blocking(
    check: Callable[[], T | None],
    what: str | Callable[[], str],
    *,
    timeout: float = 30.0,
    every: float = 0.05,
) -> T:
    """``until`` for code that runs no event loop: the first true value of ``check()``, the
    thread blocked between two asks.

    Raises:
        AssertionError: ``not within TIMEOUT s: WHAT``, once the deadline has passed.
    """
    give_up = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > give_up:
            raise _failure(what, timeout)
        time.sleep(every)
