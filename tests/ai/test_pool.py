"""The bot pool's priorities: a bot's move in a live game goes before background work (an
analysis), which never takes every worker; ``Slots`` hands its slots out by priority."""

from __future__ import annotations

import asyncio
import time

import pytest

from ai.pool import BACKGROUND, LIVE, BotPool, Slots
from tests.support import until


async def test_slots_go_by_priority_then_in_the_order_asked() -> None:
    slots = Slots(1)
    order: list[str] = []
    holder = slots.taken(LIVE)
    await holder.__aenter__()

    async def take(name: str, priority: int) -> None:
        async with slots.taken(priority):
            order.append(name)

    tasks = []
    for name, priority in [("a", BACKGROUND), ("b", LIVE), ("c", BACKGROUND), ("d", LIVE)]:
        tasks.append(asyncio.create_task(take(name, priority)))
        await until(lambda: slots.waiting(LIVE) + slots.waiting(BACKGROUND) == len(tasks), "queued")
    await holder.__aexit__(None, None, None)
    await asyncio.gather(*tasks)
    assert order == ["b", "d", "a", "c"]
    assert slots.free == 1


async def test_a_waiter_cancelled_gives_up_its_place_and_no_slot_is_lost() -> None:
    slots = Slots(1)
    holder = slots.taken(LIVE)
    await holder.__aenter__()
    cancelled = asyncio.create_task(slots._acquire(LIVE))
    await until(lambda: slots.waiting(LIVE) == 1, "queued")
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert slots.waiting(LIVE) == 0
    await holder.__aexit__(None, None, None)
    assert slots.free == 1
    async with slots.taken(BACKGROUND):
        assert slots.free == 0


async def test_a_bot_move_waiting_goes_before_background_work_asked_earlier() -> None:
    pool = BotPool(1)
    try:
        done: list[str] = []

        async def background(name: str, seconds: float) -> None:
            await pool.run(time.sleep, seconds)
            done.append(name)

        async def move() -> None:
            answer = await pool.move("g", "Base", [], "beginner", 1)
            assert answer.move.startswith("w")
            done.append("move")

        first = asyncio.create_task(background("first", 2.0))
        await until(lambda: pool.background_queued == 1 and pool._slots.free == 0, "running")
        second = asyncio.create_task(background("second", 0.0))
        await until(lambda: pool.background_queued == 2, "second queued")
        bot = asyncio.create_task(move())
        await until(lambda: pool.waiting(LIVE) == 1, "the move queued")
        await asyncio.gather(first, second, bot)
        assert done == ["first", "move", "second"]
        assert await pool.run(sum, [1, 2, 3]) == 6  # any function of a worker, its answer
    finally:
        pool.close()
