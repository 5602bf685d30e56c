"""The analysis board's requests (server.requests.analysis): positions checked by the engine,
with clear refusals, and engine runs deepening in the bot pool, bounded per connection, per
address and per process, ended by a stop, a new position or a closed connection."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Final

import pytest

from protocol import (
    MAX_ANALYSIS_MOVES,
    CreateGame,
    EngineDone,
    Error,
    ErrorCode,
    GetPosition,
    Lines,
    Message,
    Play,
    Position,
    StartEngine,
    StopEngine,
    Update,
)
from protocol.client import Client
from server.requests.analysis import ENGINE_BURST, ENGINE_RATE
from tests.server.conftest import Running, StartServer
from tests.server.support import decisive_game, scrape
from tests.support import until

PROXY: Final = {"trusted_proxies": "127.0.0.1"}
MIDGAME: Final = "Base+MLP;InProgress;Black[4];wG1;bL /wG1;wM wG1/;bM /bL;wA1 wM\\;bQ bL\\;wQ \\wM"
"""A position of bench.ai's mid-game positions (Base+MLP, both Queens down)."""
LONG_RUN: Final = {"engine_seconds": 60.0, "engine_depth": 30}
"""Settings under which a run goes on until it is stopped."""


async def answer(client: Client, *kinds: type[Message]) -> Message:
    """The next message of one of ``kinds`` or an ``error`` (lobby messages skipped)."""
    while True:
        message = await client.recv(timeout=30)
        if isinstance(message, (*kinds, Error)):
            return message


async def refusal(client: Client, message: Message) -> Error:
    await client.send(message)
    found = await answer(client, Position, Lines, EngineDone)
    assert isinstance(found, Error), found
    assert found.request == message.TYPE
    return found


async def test_a_position_comes_with_its_legal_moves(srv: Running) -> None:
    async with srv.connect("ada") as ada:
        await ada.send(GetPosition("Base+MLP", moves=["wS1", "bG1 -wS1"], id=5))
        found = await ada.expect(Position)
        assert found.id == 5
        assert found.moves == ["wS1", "bG1 -wS1"]
        assert found.game_string == "Base+MLP;InProgress;White[2];wS1;bG1 -wS1"
        assert found.turn == "white" and found.state == "InProgress"
        assert {p.piece for p in found.pieces} == {"wS1", "bG1"}
        assert "wQ wS1-" in {m.move for m in found.legal}
        assert all(m.from_q is None for m in found.legal)  # only placements so far
        assert found.last is not None and found.last.move == "bG1 -wS1"
        await ada.send(GetPosition(game_string=MIDGAME, moves=["bP -bL"], id=6))
        after = await ada.expect(Position)
        assert after.game_type == "Base+MLP" and len(after.moves) == 8
        assert after.game_string == f"{MIDGAME.replace('Black[4]', 'White[5]')};bP -bL"


@pytest.mark.parametrize(
    "game_type", ["Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP"]
)
async def test_every_game_type_has_its_pieces(srv: Running, game_type: str) -> None:
    async with srv.connect("ada") as ada:
        await ada.send(GetPosition(game_type))
        found = await ada.expect(Position)
        expansions = {"M": "wM", "L": "wL", "P": "wP"}
        shown = {m.piece for m in found.legal}
        for letter, piece in expansions.items():
            assert (piece in shown) == (letter in game_type.split("+")[-1] and "+" in game_type)


async def test_bad_positions_are_refused_saying_why(srv: Running) -> None:
    async with srv.connect("ada") as ada:
        bad = await refusal(ada, GetPosition(game_string="Base;Nonsense;White[1]"))
        assert bad.code == ErrorCode.BAD_MESSAGE and "GameString" in bad.message
        bad = await refusal(ada, GetPosition(game_string="not a game string at all"))
        assert bad.code == ErrorCode.BAD_MESSAGE and "GameString" in bad.message
        unknown = await refusal(ada, GetPosition("Base+X"))
        assert (
            unknown.code == ErrorCode.BAD_MESSAGE
            and "unknown game type 'Base+X'" in unknown.message
        )
        illegal = await refusal(ada, GetPosition("Base", moves=["wS1", "wS2"]))
        assert illegal.code == ErrorCode.ILLEGAL_MOVE and "move 2 'wS2'" in illegal.message
        garbled = await refusal(ada, GetPosition("Base", moves=["wS1", "bX9 wS1"]))
        assert garbled.code == ErrorCode.ILLEGAL_MOVE and "move 2" in garbled.message
        many = ["wS1", "bS1 wS1-"] * (MAX_ANALYSIS_MOVES // 2 + 1)
        long = await refusal(ada, GetPosition("Base", moves=many))
        assert long.code == ErrorCode.TOO_LONG and str(MAX_ANALYSIS_MOVES) in long.message
        engine = await refusal(ada, StartEngine("Base", moves=["wS1", "wS2"]))
        assert engine.code == ErrorCode.ILLEGAL_MOVE
        assert not srv.hub.analysis.runs  # nothing started for a refused position
        await ada.send(GetPosition("Base", moves=["wS1"]))  # and the connection lives on
        assert (await ada.expect(Position)).moves == ["wS1"]


async def test_engine_lines_deepen_then_end_at_the_depth_cap(start_server: StartServer) -> None:
    async with start_server(engine_depth=3) as srv, srv.connect("ada") as ada:
        await ada.send(StartEngine(game_string=MIDGAME, id=9))
        depths = []
        while True:
            found = await answer(ada, Lines, EngineDone)
            if isinstance(found, EngineDone):
                break
            assert isinstance(found, Lines) and found.id == 9
            depths.append(found.depth)
            assert len(found.lines) == 3
            assert all(line.pv[0] == line.move and 0 <= line.chance <= 1 for line in found.lines)
        assert depths == [1, 2, 3]
        assert found == EngineDone(9, "depth", 3)
        await until(lambda: not srv.hub.analysis.runs, "the run is forgotten")


async def test_a_finished_game_has_no_lines(srv: Running) -> None:
    async with srv.connect("ada") as ada:
        await ada.send(StartEngine("Base", moves=list(decisive_game("Base")), id=3))
        assert await answer(ada, Lines, EngineDone) == EngineDone(3, "over", 0)


async def test_a_stop_a_new_position_and_a_closed_connection_end_a_run(
    start_server: StartServer,
) -> None:
    async with start_server(**LONG_RUN) as srv:
        analysis = srv.hub.analysis
        async with srv.connect("ada") as ada:
            await ada.send(StartEngine(game_string=MIDGAME, id=1))
            assert (await ada.expect(Lines)).id == 1
            await ada.send(StartEngine("Base", moves=["wS1"], id=2))  # replaces run 1
            while (found := await answer(ada, Lines)) and getattr(found, "id", 2) == 1:
                pass
            assert isinstance(found, Lines) and found.id == 2
            assert analysis.cancelled == 1 and len(analysis.runs) == 1
            await ada.send(StopEngine())
            stopped = await answer(ada, EngineDone)
            assert isinstance(stopped, EngineDone) and (stopped.id, stopped.reason) == (
                2,
                "stopped",
            )
            assert not analysis.runs and analysis.cancelled == 2
            await ada.send(StartEngine(game_string=MIDGAME, id=3))
            await ada.expect(Lines)
            assert len(analysis.runs) == 1
        await until(lambda: not analysis.runs, "the closed connection's run is cancelled")
        assert analysis.cancelled == 3
        await until(lambda: srv.hub.pool.background_queued == 0, "no engine work left queued")
        figures = await scrape(srv)  # what an operator sees
        assert figures["hive_engine_runs"] == 0 and figures["hive_background_queue"] == 0
        assert figures["hive_engine_runs_cancelled_total"] == 3


async def test_a_flood_from_one_connection_is_refused(start_server: StartServer) -> None:
    async with start_server(**LONG_RUN) as srv, srv.connect("ada") as ada:
        analysis = srv.hub.analysis
        sent = ENGINE_BURST + 5  # (10 refusals in a row would close it: 1008)
        began = time.monotonic()
        for number in range(sent):
            await ada.send(StartEngine("Base", moves=["wS1"], id=number))
        refused = 0
        while refused + analysis.started < sent:
            found = await answer(ada, Lines, EngineDone)
            if isinstance(found, Error):
                assert found.code == ErrorCode.RATE_LIMITED
                assert found.message == "engine asked too often; slow down"
                refused += 1
        allowed = ENGINE_BURST + (time.monotonic() - began) * ENGINE_RATE
        assert refused >= 1 and analysis.started <= allowed
        assert len(analysis.runs) <= 1  # each run replaced the one before
        assert srv.hub.pool.background_queued <= 1


async def test_an_address_has_at_most_its_runs(start_server: StartServer) -> None:
    async with (
        start_server(engine_runs_per_address=2, **LONG_RUN, **PROXY) as srv,
        srv.connect("ada", address="10.0.0.1") as ada,
        srv.connect("bob", address="10.0.0.1") as bob,
        srv.connect("cy", address="10.0.0.1") as cy,
        srv.connect("dee", address="10.0.0.2") as dee,
    ):
        for client in (ada, bob):
            await client.send(StartEngine(game_string=MIDGAME))
            await client.expect(Lines)
        third = await refusal(cy, StartEngine(game_string=MIDGAME))
        assert third.code == ErrorCode.RATE_LIMITED
        assert "at most 2 engine runs at once from your address" in third.message
        await dee.send(StartEngine(game_string=MIDGAME))  # another address may
        await dee.expect(Lines)
        await ada.send(StopEngine())
        await ada.expect(EngineDone)
        await cy.send(StartEngine(game_string=MIDGAME))  # a run ended: room for one more
        await cy.expect(Lines)


async def test_many_guests_find_the_engine_busy_and_queued_work_stays_capped(
    start_server: StartServer,
) -> None:
    runs = 3
    async with start_server(engine_runs=runs, **LONG_RUN, **PROXY) as srv:
        async with contextlib.AsyncExitStack() as stack:
            clients: list[Client] = [
                await stack.enter_async_context(srv.connect(f"g{n}", address=f"10.0.1.{n}"))
                for n in range(8)
            ]
            for client in clients:
                await client.send(StartEngine(game_string=MIDGAME))
            answers = [await answer(client, Lines) for client in clients]
            refused = [a for a in answers if isinstance(a, Error)]
            assert len(refused) == len(clients) - runs
            assert {a.code for a in refused} == {ErrorCode.UNAVAILABLE}
            assert all("the engine is busy" in a.message for a in refused)
            for _ in range(20):  # while the runs go on, the queue never holds more than they
                assert len(srv.hub.analysis.runs) == runs
                assert srv.hub.pool.background_queued <= runs
                await asyncio.sleep(0.05)
        await until(lambda: not srv.hub.analysis.runs, "every run ends with its connection")


async def test_live_bot_moves_go_first_while_engines_run(start_server: StartServer) -> None:
    async with (
        start_server(bot_workers=2, **LONG_RUN, **PROXY) as srv,
        srv.connect("ada", address="10.0.2.1") as ada,
        srv.connect("bob", address="10.0.2.2") as bob,
        srv.connect("cy", address="10.0.2.3") as cy,
    ):
        for client in (ada, bob):  # two long runs, deepening all along
            await client.send(StartEngine(game_string=MIDGAME))
            await client.expect(Lines)
        await until(lambda: srv.hub.analysis.started == 2, "both runs started")
        # until the runs search depths of seconds, then a game against a bot
        await until(
            lambda: all(run.depth >= 4 for run in srv.hub.analysis.runs.values()),
            "both runs past depth 4",
        )
        await cy.send(CreateGame(opponent="bot", level="beginner", color="black"))
        update = await cy.expect(Update)
        waits = []
        for _ in range(4):  # the bot's move, then cy's, four times
            asked = time.monotonic()
            while len(update.state.moves) % 2 == 0:  # white (the bot) to move
                update = await cy.expect(Update)
            waits.append(time.monotonic() - asked)
            await cy.send(Play(update.game, update.version, update.state.legal[0].move))
            update = await cy.expect(Update)
        assert len(srv.hub.analysis.runs) == 2  # the engines went on meanwhile
        assert max(waits) < 2.0, waits  # a worker kept free for live moves
