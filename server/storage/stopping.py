"""Stopping tasks that run Redis commands.

A task cancelled inside a redis-py command may swallow the cancellation: the command
completes and the task goes on (redis/redis-py#2028; in a trial, 279 of 673 cancels that
landed in an ``EVAL`` were swallowed, docs/load.md). ``task.cancel()`` and then waiting for
the task would then wait as long as the task runs, forever for a loop. ``cancel_all``
cancels again until each task ends.

A ``cancel_all`` may itself be cancelled: the listener stops its reader with one while the
server's stop cancels the listener again every ``RECANCEL_SECONDS``. It then goes on until
its tasks ended, and only then raises the cancellation: a task left running unwatched could
open a connection after the server had closed its Redis clients.

``finish`` is the other side: work a stop must do (letting go of a lease) is waited for even
through the cancels of that stop, where ``asyncio.shield`` would leave it running unwatched.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, Final

log = logging.getLogger(__name__)

RECANCEL_SECONDS: Final = 0.02
"""How long a stopping task has before it is cancelled again."""
STOP_SECONDS: Final = 15.0
"""The longest ``cancel_all`` tries, by default."""


async def cancel_all(tasks: Sequence[asyncio.Task[Any]], within: float = STOP_SECONDS) -> None:
    """Cancel ``tasks`` and wait until they end; the ones still running are cancelled again
    every ``RECANCEL_SECONDS``, for at most ``within`` seconds (then a warning names them).
    What the ended ones raised is taken as read, as ``gather(return_exceptions=True)`` does:
    the caller has stopped them, and asyncio would log it as never retrieved.

    Raises:
        asyncio.CancelledError: The caller was cancelled meanwhile (once the tasks ended).
    """
    loop = asyncio.get_running_loop()
    give_up = loop.time() + within
    stopped: asyncio.CancelledError | None = None
    pending = [task for task in tasks if not task.done()]
    while pending:
        for task in pending:
            task.cancel()
        stopped = await _wait(pending, RECANCEL_SECONDS) or stopped
        pending = [task for task in pending if not task.done()]
        if pending and loop.time() > give_up:
            log.warning("%d tasks would not stop: %s", len(pending), pending)
            break
    _take_as_read(tasks)
    if stopped is not None:
        raise stopped


async def finish(tasks: Sequence[asyncio.Task[Any]], within: float = STOP_SECONDS) -> None:
    """Wait until ``tasks`` end, even when the caller is cancelled meanwhile: the
    cancellation is raised once they ended. The ones still running after ``within`` seconds
    are stopped with ``cancel_all`` (a warning names them). What they raised is raised (the
    first error), unless the caller was cancelled.

    Raises:
        asyncio.CancelledError: The caller was cancelled meanwhile (once the tasks ended).
    """
    loop = asyncio.get_running_loop()
    give_up = loop.time() + within
    stopped: asyncio.CancelledError | None = None
    pending = [task for task in tasks if not task.done()]
    while pending and loop.time() < give_up:
        stopped = await _wait(pending, give_up - loop.time()) or stopped
        pending = [task for task in pending if not task.done()]
    if pending:
        log.warning("%d tasks would not finish: %s", len(pending), pending)
        await cancel_all(pending)
    if stopped is not None:
        _take_as_read(tasks)  # (the cancellation goes first)
        raise stopped
    for task in tasks:
        if not task.cancelled():
            task.result()


async def _wait(
    tasks: Sequence[asyncio.Task[Any]], timeout: float
) -> asyncio.CancelledError | None:
    """``asyncio.wait`` for ``tasks``, ``timeout`` seconds at most; a cancellation of the caller
    meanwhile is returned, not raised (the caller raises it once its tasks ended)."""
    try:
        await asyncio.wait(tasks, timeout=timeout)
    except asyncio.CancelledError as error:
        return error
    return None


def _take_as_read(tasks: Sequence[asyncio.Task[Any]]) -> None:
    """What the ended ``tasks`` raised, taken as read (asyncio would log it as never
    retrieved)."""
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()
