"""The bot pool's background work (an analysis, engine lines): on workers of its own, never
more than ``workers - 1``, at the machine's lowest priority, so a bot's move never waits for
it."""

from __future__ import annotations

import asyncio
import os
import time

from ai.pool import BotPool
from tests.support import until


async def test_a_bot_move_does_not_wait_for_background_work() -> None:
    pool = BotPool(1)
    try:
        done: list[str] = []

        async def background() -> None:
            await pool.run(time.sleep, 2.0)
            done.append("background")

        async def move() -> None:
            answer = await pool.move("g", "Base", [], "beginner", 1)
            assert answer.move.startswith("w")
            done.append("move")

        slow = asyncio.create_task(background())
        await until(lambda: pool._low is not None and pool.background_queued == 1, "running")
        await asyncio.gather(move(), slow)
        assert done == ["move", "background"]
    finally:
        pool.close()


async def test_background_work_runs_at_the_lowest_priority_on_workers_1_fewer() -> None:
    pool = BotPool(3)
    try:
        assert await pool.run(sum, [1, 2, 3]) == 6  # any function of a worker, its answer
        assert await pool.run(os.nice, 0) == 19  # nice 19
        assert await pool.run(os.getpid) not in pool.pids()  # not a bot move's worker
        assert pool._low is not None and pool.background_workers == 2
        assert pool._background._value == 2  # (two at once, both free again)
    finally:
        pool.close()
