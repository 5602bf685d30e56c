"""Games against the server's bots: every level to the end, traces, clocks, crashed workers."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time

import pytest

from ai.bots import LEVELS
from ai.pool import BotPool
from protocol import CreateGame, Resign, TimeControl, Update
from protocol.client import Client
from tests.server.conftest import Running, StartServer
from tests.server.support import http_get, play, updated
from tests.support import until

MAX_PLIES = 300
"""A random player may lock its own pieces where no bot piece can reach its Queen's last gap
(seen once in CI at the hard level): the person resigns there, so the game still ends."""


async def bot_game(client: Client, level: str, color: str, **create: object) -> Update:
    await client.send(CreateGame(opponent="bot", level=level, color=color, **create))  # type: ignore[arg-type]
    update = await client.expect(Update)
    assert update.state.status == "live"  # the bot is seated at once
    return update


async def play_out(client: Client, update: Update, me: str, rng: random.Random) -> Update:
    """Play random legal moves until the game ends (resigning after ``MAX_PLIES``)."""
    game_id = update.game
    resigned = False
    while update.state.status == "live":
        if len(update.state.moves) >= MAX_PLIES and not resigned:
            await client.send(Resign(game_id))
            resigned = True
        elif update.state.turn == me and not resigned:
            moves = [m.move for m in update.state.legal] or ["pass"]
            await play(client, update, rng.choice(moves))
        update = await updated(client, game_id)
    return update


@pytest.mark.parametrize("level", list(LEVELS))
async def test_a_game_against_a_bot_of_each_level_goes_to_its_end(
    start_server: StartServer, level: str
) -> None:
    rng = random.Random(level)
    # The person here answers at once, up to 150 moves in a second or two against a quick
    # bot: past a person's message budget (20 a second after 60), which is for people.
    async with (
        start_server(message_rate=1000.0, message_burst=3000) as srv,
        srv.connect("ada") as client,
    ):
        start = await bot_game(client, level, "black", game_type="Base+MLP")
        bot_seat = start.state.white
        assert bot_seat is not None and bot_seat.bot == level and bot_seat.connected
        end = await play_out(client, start, "black", rng)
        assert end.state.status == "over" and end.state.result is not None
        assert end.state.reason in ("queen", "both_queens", "repetition") or (
            end.state.reason == "resign" and len(end.state.moves) >= MAX_PLIES
        )
        # Every bot move keeps its search trace, by move number (White's are the odd ones).
        status, kind, body = await http_get(f"{srv.http_url}/games/{end.game}/trace/3.json")
        assert (status, kind) == (200, "application/json")
        trace = json.loads(body)
        assert trace["format"] == "hive-arena-search-trace"
        assert trace["run"]["chosen"] == end.state.moves[2]
        status, _, _ = await http_get(f"{srv.http_url}/games/{end.game}/trace/2.json")
        assert status == 404  # a move of the person


async def test_a_bots_thinking_time_runs_on_its_clock(srv: Running) -> None:
    async with srv.connect("ada") as client:
        update = await bot_game(
            client, "medium", "white", time=TimeControl("clock", 600, 0), game_type="Base"
        )
        rng = random.Random(1)
        while len(update.state.moves) < 6:
            if update.state.turn == "white":
                await play(client, update, rng.choice([m.move for m in update.state.legal]))
            update = await updated(client, update.game)
    clocks = update.state.clocks
    assert clocks.black is not None and clocks.black < 600_000  # its third move took time
    assert clocks.running == "white"


async def test_a_killed_bot_worker_is_replaced_and_its_game_goes_on(srv: Running) -> None:
    async with srv.connect("ada") as client:
        update = await bot_game(client, "easy", "white", game_type="Base")
        await play(client, update, update.state.legal[0].move)
        update = await updated(client, update.game)
        while update.state.turn != "white":
            update = await updated(client, update.game)
        pids = srv.hub.pool.pids()
        assert pids
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        await play(client, update, update.state.legal[0].move)
        update = await updated(client, update.game)
        while update.state.turn != "white":
            update = await updated(client, update.game)
    assert len(update.state.moves) == 4
    assert srv.hub.pool.replaced >= 1
    assert not set(srv.hub.pool.pids()) & set(pids)


async def test_cheap_levels_do_not_wait_behind_expensive_ones() -> None:
    """Three expert moves (a second or more each) are asked for, then one beginner move
    (milliseconds): with two workers the experts take one at a time, so the beginner's move
    is done while the first expert's still runs. (One queue in order of arrival made it wait
    behind two of them. On a loaded machine the first expert's, a second ahead, may end
    first: the beginner's is then still done before the second's.)"""
    from tests.server.support import decisive_game

    pool = BotPool(2)
    moves = list(decisive_game("Base")[:10])
    finished: list[str] = []

    async def move(level: str, game: str) -> None:
        await pool.move(game, "Base", moves, level, 1)
        finished.append(level)

    try:
        # both workers started first (two moves at once), so that the order below is the
        # lanes' alone, not a worker's start under load
        await asyncio.gather(move("beginner", "warm1"), move("beginner", "warm2"))
        finished.clear()
        experts = [asyncio.create_task(move("expert", f"game{n}")) for n in range(3)]
        await until(lambda: pool.queued == 3, "the expert moves are asked first")
        await move("beginner", "fast")
        assert finished in (["beginner"], ["expert", "beginner"])
        await asyncio.gather(*experts)
    finally:
        pool.close()
    assert finished[-2:] == ["expert", "expert"] and len(finished) == 4


async def test_a_level_s_budget_counts_from_the_ask_the_wait_for_a_worker_included() -> None:
    """Three expert moves (a 2 s budget each) asked at once share one worker (the expensive
    levels' lane): each counts its budget from its ask, so the last answer comes about 2 s
    after the asks, not 6 (the ones that waited search what time is left, one ply at least)."""
    from tests.server.support import decisive_game

    pool = BotPool(2)
    moves = list(decisive_game("Base")[:10])
    budget = LEVELS["expert"].seconds
    assert budget is not None
    try:
        asked = time.monotonic()
        await asyncio.gather(*(pool.move(f"g{n}", "Base", moves, "expert", 1) for n in range(3)))
        took = time.monotonic() - asked
    finally:
        pool.close()
    assert took < 1.5 * budget, f"three expert moves took {took:.1f} s, a budget being {budget} s"
