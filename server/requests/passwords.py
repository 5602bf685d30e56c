"""Passwords hashed and checked off the event loop, within bounds: argon2id (``argon2-cffi``'s
default parameters, RFC 9106's low-memory choice) takes 64 MiB and about a fifth of a second
of one core for each hash or check.

They run on a pool of their own, ``Settings.hash_workers`` threads (not the default executor's
many, which let a stream of logins take every core and hundreds of megabytes), and at most
``Settings.hash_queue`` more wait for a thread; the next are refused (``rate_limited``, with a
message saying the server is busy) before any work. A job whose connection is gone by the time
a thread takes it up is not run. So what logins cost at once is bounded: ``hash_workers``
cores and ``hash_workers`` x 64 MiB, whoever sends them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Final, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from protocol import ErrorCode, ProtocolError

HASHER: Final = PasswordHasher()  # argon2id

_T = TypeVar("_T")


class GoneError(Exception):
    """The connection that asked for a hash was gone before a thread took it up."""


@functools.cache
def _nothing() -> str:
    """A hash to check an unknown name's password against (as long as a real check)."""
    return HASHER.hash("not anyone's password")


def hash_password(password: str) -> str:
    return HASHER.hash(password)


def verify(hashed: str | None, password: str) -> bool:
    """Whether ``password`` is the one of ``hashed`` (None: no one's, checked all the same)."""
    try:
        return HASHER.verify(hashed or _nothing(), password) and hashed is not None
    except (VerificationError, InvalidHashError):
        return False


class Hashing:
    """The pool that hashes and checks passwords.

    Args:
        workers: Threads hashing at once.
        queue: Jobs that may wait for a thread; more are refused.
    """

    def __init__(self, workers: int, queue: int) -> None:
        self.workers = workers
        self.queue = queue
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="password")
        self.pending = 0
        """Jobs running or waiting (done ones are counted out as they end, on the loop)."""
        self.skipped = 0
        """Jobs not run: their connection was gone."""

    async def run(self, alive: Callable[[], bool], work: Callable[..., _T], *args: object) -> _T:
        """``work(*args)`` on a thread of the pool, if ``alive()`` still holds when one takes
        it up (it is read there: a flag, nothing that needs the loop).

        Raises:
            ProtocolError: RATE_LIMITED: the pool and its queue are full.
            GoneError: The connection was gone: ``work`` did not run.
        """
        if self.pending >= self.workers + self.queue:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                "the server is busy checking passwords; try again in a few seconds",
            )
        loop = asyncio.get_running_loop()

        def job() -> _T:
            if not alive():
                raise GoneError()
            return work(*args)

        self.pending += 1
        future: Future[_T] = self.executor.submit(job)

        def done(_: Future[_T]) -> None:
            self.pending -= 1
            if not future.cancelled() and isinstance(future.exception(), GoneError):
                self.skipped += 1

        def counted_out(_: Future[_T]) -> None:
            # when the job ends (or is cancelled), not when its caller stops waiting
            with contextlib.suppress(RuntimeError):  # the loop closed (the server stopped)
                loop.call_soon_threadsafe(done, future)

        future.add_done_callback(counted_out)
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
