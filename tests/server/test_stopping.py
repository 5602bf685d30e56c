"""Stopping tasks that run Redis commands (``server.storage.stopping``): a redis-py command
may swallow a cancel, so a task is cancelled again until it ends."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

from server.storage.stopping import cancel_all, finish
from tests.support import until


async def test_a_stop_ends_a_task_that_swallowed_its_cancellation() -> None:
    """A task cancelled inside a redis-py command may swallow the cancellation and go on
    waiting: ``cancel_all`` cancels it again until it ends (the event loop's own end
    cancels once, and would wait for it forever)."""
    forever, waiting = asyncio.Event(), asyncio.Event()
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        try:
            waiting.set()
            await forever.wait()
        except asyncio.CancelledError:
            swallowed += 1
            await forever.wait()  # cancelled again here

    task = asyncio.create_task(stubborn())
    await waiting.wait()
    async with asyncio.timeout(5):
        await cancel_all([task])
    assert task.cancelled() and swallowed == 1


async def test_what_a_stopped_task_raised_is_not_logged_as_never_retrieved() -> None:
    """A task that failed before the stop (a keeper whose Redis went away) is taken as read,
    as the ``gather(return_exceptions=True)`` it replaces did: no "never retrieved" error."""
    loop = asyncio.get_running_loop()
    unread: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: unread.append(context))
    failed = asyncio.Event()

    async def keeper() -> None:
        failed.set()
        raise ConnectionError("Redis went away")

    async def forever() -> None:
        await asyncio.Event().wait()

    tasks = [asyncio.create_task(keeper()), asyncio.create_task(forever())]
    await failed.wait()
    await cancel_all(tasks)
    assert tasks[0].done() and tasks[1].cancelled()
    del tasks
    gc.collect()
    assert unread == []


async def test_a_stop_within_a_stopping_task_still_ends_what_it_stops() -> None:
    """The listener's task stops its reader with ``cancel_all`` when it is itself stopped by
    the server's ``cancel_all``, whose next cancel lands in that inner stop: the inner stop
    goes on until the reader ended (else the reader would run on unwatched, and could open a
    connection after the server closed its Redis clients), then the task ends cancelled."""
    forever, waiting, released = asyncio.Event(), asyncio.Event(), asyncio.Event()
    swallowed = 0

    async def reader() -> None:  # swallows a few cancels, as a redis-py command may
        nonlocal swallowed
        waiting.set()
        while not released.is_set():
            try:
                await released.wait()
            except asyncio.CancelledError:
                swallowed += 1
                if swallowed == 5:
                    raise

    child = asyncio.create_task(reader())

    async def listener() -> None:
        try:
            await forever.wait()
        finally:
            await cancel_all([child])

    parent = asyncio.create_task(listener())
    await waiting.wait()
    try:
        async with asyncio.timeout(5):
            await cancel_all([parent])
        assert parent.cancelled()
        assert child.cancelled() and swallowed == 5
    finally:
        released.set()  # (a reader left running by a failure ends)
        await asyncio.wait([child])


async def test_what_a_stop_must_do_is_finished_through_the_stops_next_cancels() -> None:
    """The director lets go of its leases as it is stopped, and the server's ``cancel_all``
    cancels it again meanwhile: ``finish`` waits for that work through the cancels (where
    ``asyncio.shield`` let the director end while the release ran on unwatched, to open a
    connection after the server had closed its Redis clients), then the director ends
    cancelled."""
    forever, waiting, stopping = asyncio.Event(), asyncio.Event(), asyncio.Event()
    released = asyncio.Event()

    async def release() -> str:
        await released.wait()
        return "let go"

    job = asyncio.create_task(release())

    async def director() -> None:
        try:
            waiting.set()
            await forever.wait()
        finally:
            stopping.set()
            await finish([job])

    task = asyncio.create_task(director())
    await waiting.wait()
    stopper = asyncio.create_task(cancel_all([task]))
    await stopping.wait()
    # the stop's next cancels land while the release still runs
    await until(lambda: task.cancelling() >= 3 or task.done(), "cancelled three times")
    assert not task.done() and not job.done()
    released.set()
    async with asyncio.timeout(5):
        await stopper
    assert task.cancelled() and job.result() == "let go"


async def test_finish_raises_what_its_task_raised() -> None:
    async def failing() -> None:
        raise ConnectionError("Redis went away")

    with pytest.raises(ConnectionError, match="went away"):
        await finish([asyncio.create_task(failing())])
