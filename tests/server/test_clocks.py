"""Server clocks: flags fall, first moves abort, open games expire, games without a clock both
players left end, with nobody connected."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from protocol import CreateGame, Seat, TimeControl, Update
from server.game import clock, match
from server.live.timers import TURN_GAMES, in_turns
from server.storage.codec import pack, unpack
from server.storage.keys import game_key
from tests.server.conftest import Running, StartServer
from tests.server.support import play, published, start_game, updated, watch

ROOT = Path(__file__).resolve().parents[2]


async def test_a_flag_falls_with_nobody_connected(srv: Running) -> None:
    assert srv.settings.redis_url is not None
    async with published(srv.redis_url) as wait:
        async with srv.connect("ada") as white, srv.connect("bob") as black:
            game_id, w, b = await start_game(white, black, time=TimeControl("clock", 1, 0))
            for mover, move in ((white, "wS1"), (black, "bS1 wS1-")):
                await play(mover, w if mover is white else b, move)
                w, b = await updated(white, game_id), await updated(black, game_id)
            assert w.state.clocks.running == "white"
            tokens = white.welcome.token, black.welcome.token
        over = await wait(game_id, "over")  # both players are gone by now
    assert (over.by, over.text) == ("BlackWins", "timeout")
    async with srv.connect(token=tokens[0]) as white:
        final = (await watch(white, game_id)).state
    assert (final.status, final.result, final.reason) == ("over", "BlackWins", "timeout")
    assert final.clocks.white == 0 and final.clocks.running is None
    assert final.moves == ["wS1", "bS1 wS1-"]


@pytest.mark.parametrize("time", [TimeControl("clock", 60, 0), TimeControl()])
async def test_first_moves_not_made_abort_the_game(
    start_server: StartServer, time: TimeControl
) -> None:
    """Whatever the time control, a game without a clock too: a game whose player never
    moves does not stay in progress forever."""
    async with (
        start_server(first_move_timeout=0.3) as srv,
        published(srv.redis_url) as wait,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, _, _ = await start_game(white, black, time=time)
        over = await wait(game_id, "over")
        final = (await updated(white, game_id)).state
    assert (over.by, over.text) == (None, "aborted")
    assert (final.status, final.result, final.reason) == ("over", None, "aborted")


def test_the_docs_say_which_first_moves_have_the_first_move_timeout() -> None:
    """With a clock or without one the first moves have ``first_move_timeout``; with days per
    move, their days: the README's flag table and the protocol's ``Limits`` say so too."""
    seats = Seat("a", "ada"), Seat("b", "bob")
    for time, due in [
        (TimeControl("clock", 60, 0), 60_000),
        (TimeControl(), 60_000),
        (TimeControl("days", days=2), 2 * clock.DAY_MS),
    ]:
        record = match.create(
            "0000cafe",
            seats[0],
            game_type="Base",
            time=time,
            color="white",
            now=0,
            ttl_ms=1,
            seed=0,
        )
        started, _ = match.join(record, seats[1], 1_000)
        assert clock.deadline(started, 60_000) == 1_000 + due, time
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    protocol = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    [flag] = [line for line in readme.splitlines() if line.startswith("| `--first-move-timeout`")]
    [limit] = [line for line in protocol.splitlines() if line.startswith("| `first_move_timeout`")]
    for line in (flag, limit):
        assert "whatever" not in line and "days per move the first moves have their days" in line


@pytest.mark.parametrize("moved", [False, True])
async def test_a_game_against_a_bot_ends_once_its_person_has_left(
    start_server: StartServer, moved: bool
) -> None:
    """Nobody can claim a game a person left against one of the server's bots: it ends by
    itself once the person has been gone past ``disconnect_claim``, aborted if they had not
    moved yet, else lost."""
    async with (
        start_server(disconnect_claim=0.3, first_move_timeout=60) as srv,
        published(srv.redis_url) as wait,
    ):
        async with srv.connect("ada") as ada:
            await ada.send(CreateGame(opponent="bot", level="beginner", color="white"))
            update = await ada.expect(Update)
            game_id = update.game
            if moved:
                await play(ada, update, "wS1")
                while len(update.state.moves) < 2:  # the bot answers
                    update = await updated(ada, game_id)
        over = await wait(game_id, "over")  # ada has left
    if moved:
        assert (over.by, over.text) == ("BlackWins", "abandoned")
    else:
        assert (over.by, over.text) == (None, "aborted")


async def test_a_game_without_a_clock_left_before_a_restart_ends_after_it(
    start_server: StartServer,
) -> None:
    """Both players leave a game without a clock; the server stops before its
    ``untimed_timeout``. The next server, which reloads the game, ends it (``deserted``,
    no result) once its own ``untimed_timeout`` has passed."""
    async with (  # the players leave, then the server stops
        start_server(untimed_timeout=3600.0) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, w, b = await start_game(white, black)
        for mover, move in ((white, "wS1"), (black, "bS1 wS1-")):
            await play(mover, w if mover is white else b, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
    async with start_server(untimed_timeout=0.3) as srv, published(srv.redis_url) as wait:
        over = await wait(game_id, "over")
        record = await srv.hub.store.get(game_id)
    assert (over.by, over.text) == (None, "deserted")
    assert record is not None and (record.status, record.result, record.moves) == (
        "over",
        None,
        ["wS1", "bS1 wS1-"],
    )


async def test_the_looks_over_every_game_let_other_work_run_between_their_turns() -> None:
    """The looks over every game in progress (deserted, abandoned) take them ``TURN_GAMES``
    at a time with a turn of the event loop between: a move is not held up behind a look
    over thousands of games."""
    turns = 0

    async def other_work() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    worker = asyncio.create_task(other_work())
    await asyncio.sleep(0)
    seen = [(len(some), turns) async for some in in_turns(range(2 * TURN_GAMES + 7))]
    worker.cancel()
    assert [size for size, _ in seen] == [TURN_GAMES, TURN_GAMES, 7]
    assert seen[0][1] < seen[1][1] < seen[2][1], seen


async def test_an_open_game_nobody_joins_expires(start_server: StartServer) -> None:
    async with (
        start_server(open_game_ttl=0.3) as srv,
        published(srv.redis_url) as wait,
        srv.connect("ada") as ada,
    ):
        await ada.send(CreateGame(game_type="Base"))
        created = await ada.expect(Update)
        assert created.state.status == "open"
        over = await wait(created.game, "over")
        final = (await updated(ada, created.game)).state
    assert over.text == "expired" and final.reason == "expired"
    assert srv.hub.lobby.open == {}


@pytest.mark.parametrize("turn_before_outage", [True, False])
async def test_time_while_no_server_ran_is_given_back_never_more(
    start_server: StartServer, turn_before_outage: bool
) -> None:
    """A restart reads the last heartbeat: the part of the outage the running clock was charged
    is given back, never more. Here the heartbeat is set back 60 s, as if the outage had
    lasted that long; with ``turn_before_outage`` the turn is set back 70 s too (it began 10 s
    before the outage: those 10 s stay charged), else the turn began after the last beat (a
    move just before the crash: only the time since then is given back, and the clock never
    goes up). A quick restart gives nothing. (The clock of the player to move does not wait
    for them here: ``reconnect_grace`` 0; the next test has it.)"""
    async with (
        start_server(reconnect_grace=0) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, w, b = await start_game(white, black, time=TimeControl("clock", 300, 0))
        for mover, move in ((white, "wS1"), (black, "bS1 wS1-")):
            await play(mover, w if mover is white else b, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
        tokens = white.welcome.token
    stored = await _turn_started(srv.redis_url, game_id)
    if turn_before_outage:
        stored = await _set_turn_back(srv.redis_url, game_id, 70_000)
    await _set_heartbeat_back(srv.redis_url, 60_000)
    async with start_server(reconnect_grace=0) as srv:
        shifted = await _turn_started(srv.redis_url, game_id)
        async with srv.connect(token=tokens) as white:
            after = (await watch(white, game_id)).state
    white_left = after.clocks.white
    assert white_left is not None
    if turn_before_outage:
        assert 60_000 <= shifted - stored < 60_000 + 10_000  # the outage, from the beat
        # (give or take the heartbeat's second: the last beat came just before or after)
        assert 300_000 - 10_000 - 10_000 < white_left <= 300_000 - 10_000 + 1_000
    else:
        assert 0 <= shifted - stored < 10_000  # the time since the turn began, not 60 s
        assert 300_000 - 10_000 < white_left <= 300_000
    async with start_server(reconnect_grace=0) as srv:  # a quick restart: no outage
        assert await _turn_started(srv.redis_url, game_id) == shifted


async def test_after_an_outage_the_clock_waits_for_its_player_to_come_back_to_any_process(
    start_server: StartServer,
) -> None:
    """After an outage the clock of the player to move does not run until their client is back
    (it watches the game), here on another process than the one that recovered the game;
    then it runs from there. The opponent's never ran."""
    async with start_server() as srv, srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, b = await start_game(white, black, time=TimeControl("clock", 300, 0))
        for mover, move in ((white, "wS1"), (black, "bS1 wS1-")):
            await play(mover, w if mover is white else b, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
        tokens = white.welcome.token
    await _set_heartbeat_back(srv.redis_url, 60_000)  # as if no server had run for 60 s
    async with start_server(reconnect_grace=30) as first, start_server() as second:
        recovered = await first.hub.store.get(game_id)
        assert recovered is not None and recovered.held is not None  # held by the first
        await asyncio.sleep(1.5)  # Ada's client is away a while longer: not charged
        async with second.connect(token=tokens) as white:
            held = (await watch(white, game_id)).state
            assert held.clocks.running is None and held.clocks.white == 300_000
            resumed = await updated(white, game_id)
            assert [e.kind for e in resumed.events] == ["resumed"]
            assert resumed.state.clocks.running == "white"
            assert 300_000 - 1_000 < (resumed.state.clocks.white or 0) <= 300_000
            assert resumed.state.clocks.black == 300_000


async def _turn_started(redis_url: str, game_id: str) -> int:
    client: Any = aioredis.Redis.from_url(redis_url)
    try:
        record = unpack(await client.hget(game_key(game_id), "r"))
    finally:
        await client.aclose()
    return record.turn_started


async def _set_heartbeat_back(redis_url: str, ms: int) -> None:
    client: Any = aioredis.Redis.from_url(redis_url)
    try:
        beat = int(await client.get("hive:heartbeat"))
        await client.set("hive:heartbeat", beat - ms)
    finally:
        await client.aclose()


async def _set_turn_back(redis_url: str, game_id: str, ms: int) -> int:
    """Move the running clock's start ``ms`` back in the stored game; its new start."""
    client: Any = aioredis.Redis.from_url(redis_url)
    try:
        record = unpack(await client.hget(game_key(game_id), "r"))
        record = replace(record, turn_started=record.turn_started - ms)
        await client.hset(game_key(game_id), "r", pack(record))
    finally:
        await client.aclose()
    return record.turn_started
