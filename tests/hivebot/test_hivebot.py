"""Bots from outside: bot accounts, ``bot_ready``, challenges, and ``hive-bot`` playing real
games as a separate process (with our bots, and wrapping a UHP engine), across a restart."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import sys
from pathlib import Path
from typing import cast

import pytest

from hivebot.engines import supported_types
from hivebot.move import Moves
from hivebot.move import Session as MovesSession
from protocol import (
    BotReady,
    CreateGame,
    Draw,
    ErrorCode,
    JoinGame,
    Rematch,
    Resign,
    TimeControl,
    Update,
)
from protocol.client import Client, ServerError
from server.embedded import RedisProcess
from tests.server.conftest import Running, StartServer, free_port
from tests.server.support import (
    ChildProcess,
    ServerProcess,
    create_bot,
    hive_bot,
    lobby_until,
    lobby_with_bot,
    play,
    play_to_the_end,
    run_command,
    scrape,
    updated,
    watch,
)

ROOT = Path(__file__).resolve().parents[2]


async def test_create_bot_makes_an_account_whose_token_signs_in_as_a_bot(srv: Running) -> None:
    status, token, err = await create_bot(srv.redis_url, "robo")
    assert status == 0, err
    token = token.strip()
    assert token.startswith("bot-")  # never "-...", which a command line would take for an option
    async with srv.connect(token=token) as robo:
        assert robo.welcome.bot and robo.welcome.nickname == "robo"
        player = robo.player

    status, _, err = await create_bot(srv.redis_url, "robo")
    assert status == 1 and "exists" in err  # a name is one account
    status, _, err = await create_bot(srv.redis_url, "no/slash")
    assert status == 2 and "name" in err

    status, new_token, err = await create_bot(srv.redis_url, "robo", "--new-token")
    assert status == 0, err
    with pytest.raises(ServerError) as refused:
        async with srv.connect(token=token):
            pass
    assert refused.value.error.code == ErrorCode.BAD_TOKEN  # the old token stopped working
    async with srv.connect(token=new_token.strip()) as robo:
        assert robo.player == player and robo.welcome.bot
    async with srv.connect("ada") as ada:
        assert not ada.welcome.bot


async def test_create_bot_uses_the_running_servers_embedded_redis(tmp_path: Path) -> None:
    """``make run``'s server keeps running while the operator creates a bot beside it."""
    server = ServerProcess("--port", "0", "--data", str(tmp_path / "data"), "--bot-workers", "1")
    await server.start()
    try:
        status, token, err = await run_command(
            sys.executable, "-m", "server", "create-bot", "robo", "--data", str(tmp_path / "data")
        )
        assert status == 0, err
        async with Client.connect(server.ws_url, token=token.strip()) as robo:
            assert robo.welcome.bot  # the same Redis, still up under the server
    finally:
        assert await server.stop() == 0


async def test_bots_say_what_they_play_and_people_challenge_them_by_name(srv: Running) -> None:
    robo_id, robo_token = await srv.hub.store.new_bot("robo", 0)
    _, other_token = await srv.hub.store.new_bot("other", 0)
    async with srv.connect("ada") as ada, srv.connect("bob") as bob:
        with pytest.raises(ServerError) as refused:
            await ada.send(BotReady(["Base"]))
            await ada.expect(Update)
        assert refused.value.error.code == ErrorCode.NOT_ALLOWED  # not a bot account

        for name, code in (("nobody", ErrorCode.UNKNOWN_BOT), ("robo", ErrorCode.NOT_ALLOWED)):
            await ada.send(CreateGame("Base", opponent="bots", challenge=name))
            with pytest.raises(ServerError) as refused:
                await ada.expect(Update)
            assert refused.value.error.code == code  # unknown; known but not connected

        async with srv.connect(token=robo_token) as robo, srv.connect(token=other_token) as other:
            await robo.send(BotReady(["Base", "Nope"]))  # refused; the connection lives on
            with pytest.raises(ServerError, match="GameTypeString 'Nope'"):
                await robo.expect(Update)
            await robo.send(BotReady(["Base", "Base+PLM"], ["none", "days"], max_games=2))
            lobby = await lobby_with_bot(ada, "robo")
            (listed,) = lobby.bots
            assert (listed.player, listed.game_types, listed.times) == (
                robo_id,
                ["Base", "Base+MLP"],
                ["none", "days"],
            )
            refusals = [
                (CreateGame("Base+M", opponent="bots", challenge="robo"), "plays Base, Base+MLP"),
                (
                    CreateGame(
                        "Base", TimeControl("clock", 60, 0), opponent="bots", challenge="robo"
                    ),
                    "time controls none, days",
                ),
                (CreateGame("Base", opponent="anyone", challenge="robo"), "opponent 'bots'"),
                (CreateGame("Nope", opponent="bots", challenge="robo"), "GameTypeString 'Nope'"),
            ]
            for request, why in refusals:
                await ada.send(request)
                with pytest.raises(ServerError, match=re.escape(why)):
                    await ada.expect(Update)

            await ada.send(CreateGame("Base", color="white", opponent="bots", challenge="robo"))
            created = await ada.expect(Update)
            game_id = created.game
            for intruder in (bob, other):  # a person, and a bot that is not the one challenged
                await intruder.send(JoinGame(game_id))
                with pytest.raises(ServerError, match="challenges the bot robo"):
                    await intruder.expect(Update)

            await robo.send(JoinGame(game_id))
            started = await updated(robo, game_id)
            assert started.state.status == "live"
            assert started.state.black is not None and started.state.black.account == "bot"
            assert started.state.black.name == "robo"
            assert (await updated(ada, game_id)).state.status == "live"

            await bob.send(CreateGame("Base", opponent="bots"))  # for any bot, not for people
            for_bots = await bob.expect(Update)
            await ada.send(JoinGame(for_bots.game))
            with pytest.raises(ServerError, match="for a bot account"):
                await ada.expect(Update)
            await other.send(BotReady(["Base"]))
            await other.send(JoinGame(for_bots.game))
            assert (await updated(other, for_bots.game)).state.status == "live"

        await lobby_with_bot(ada, "robo", present=False)  # gone with its connection


async def test_hive_bot_plays_a_challenge_and_a_game_for_bots_at_once(
    start_server: StartServer,
) -> None:
    # Ada and Bob play at once, as fast as the bot: up to 100 moves each in a couple of
    # seconds, faster than a person may (their limit once cut Ada off with rate_limited).
    async with start_server(message_rate=1000.0, message_burst=1000) as srv:
        await two_games_at_once(srv)


async def two_games_at_once(srv: Running) -> None:
    _, token = await srv.hub.store.new_bot("robo", 0)
    args = ("--server", srv.ws_url, "--token", token, "--level", "beginner", "--max-games", "3")
    async with hive_bot(*args) as bot, srv.connect("ada") as ada, srv.connect("bob") as bob:
        await bot.wait_for("connected")
        await lobby_with_bot(ada, "robo")
        await ada.send(CreateGame("Base", opponent="bots", challenge="robo"))
        mine = await ada.expect(Update)
        await bob.send(CreateGame("Base+MLP", TimeControl("clock", 600, 5), opponent="bots"))
        theirs = await bob.expect(Update)
        starts = [await updated(ada, mine.game), await updated(bob, theirs.game)]
        assert all(start.state.status == "live" for start in starts)  # both joined at once
        ends = await asyncio.gather(
            play_to_the_end(ada, starts[0], random.Random(1)),
            play_to_the_end(bob, starts[1], random.Random(2)),
        )
        for end in ends:
            assert end.state.result is not None
            bot_color = "black" if end.state.white and end.state.white.name != "robo" else "white"
            bot_moves = end.state.moves[0 if bot_color == "white" else 1 :: 2]
            assert len(bot_moves) >= 3  # it played, not only joined
        await bot.wait_for(f"game ({ends[0].game}|{ends[1].game}) over")
        await bot.wait_for(f"game ({ends[0].game}|{ends[1].game}) over")
        assert await bot.stop() == 0  # a clean stop: its worker processes stopped too
        assert "stopping (2 games played to their end)" in bot.log[-1]


async def test_hive_bot_does_not_ask_again_for_a_game_whose_rating_range_refused_it(
    srv: Running,
) -> None:
    """A bot at the start rating (1500) is refused a game for 1600 and up once, then joins the
    next game for bots without asking for the first again (each lobby change lists both)."""
    _, token = await srv.hub.store.new_bot("robo", 0)
    args = ("--server", srv.ws_url, "--token", token, "--level", "beginner")
    rapid = TimeControl("clock", 600, 5)
    async with hive_bot(*args) as bot, srv.connect("ada") as ada:
        await bot.wait_for("connected")
        await lobby_with_bot(ada, "robo")
        await ada.send(CreateGame("Base", rapid, "white", opponent="bots", rating_min=1600))
        high = await ada.expect(Update)
        await bot.wait_for(f"game {high.game}: not for this bot")
        await ada.send(CreateGame("Base", rapid, "white", opponent="bots"))
        while (low := await ada.expect(Update)).game == high.game:
            pass
        joined = await updated(ada, low.game)
        assert joined.state.status == "live" and joined.state.black is not None
        assert (joined.state.black.rating, joined.state.black.account) == (1500, "bot")
        figures = await scrape(srv)
        assert figures["hive_refused_total{code=out_of_range}"] == 1
        assert (await srv.hub.store.get(high.game)).status == "open"  # type: ignore[union-attr]


async def test_hive_bot_plays_a_whole_game_through_a_uhp_engine(srv: Running) -> None:
    _, token = await srv.hub.store.new_bot("uhp", 0)
    engine = str(Path(sys.executable).parent / "hive-engine")  # the console script
    args = ("--server", srv.ws_url, "--token", token, "--uhp", engine, "--uhp-search", "depth 1")
    async with hive_bot(*args) as bot, srv.connect("ada") as ada:
        await bot.wait_for("connected")
        lobby = await lobby_with_bot(ada, "uhp")
        assert len(lobby.bots[0].game_types) == 8  # all: the engine says it has every bug
        await ada.send(CreateGame("Base+MLP", opponent="bots", challenge="uhp"))
        created = await ada.expect(Update)
        end = await play_to_the_end(ada, await updated(ada, created.game), random.Random(3))
        assert end.state.result is not None and len(end.state.moves) >= 6


async def test_hive_bot_reconnects_after_a_restart_and_finishes_its_game(
    start_server: StartServer, redis_server: RedisProcess
) -> None:
    status, token, err = await create_bot(redis_server.url, "robo")
    assert status == 0, err
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    rng = random.Random(4)
    async with hive_bot("--server", url, "--token", token.strip(), "--level", "beginner") as bot:
        async with start_server(port=port) as srv, srv.connect("ada") as ada:
            await bot.wait_for("connected")
            await lobby_with_bot(ada, "robo")
            await ada.send(CreateGame("Base", color="white", opponent="bots"))
            game_id = (await ada.expect(Update)).game
            update = await updated(ada, game_id)
            while len(update.state.moves) < 6:  # three moves each; then White (ada) is to move
                if update.state.turn == "white":
                    await play(ada, update, rng.choice([m.move for m in update.state.legal]))
                update = await updated(ada, game_id)
            ada_token = ada.welcome.token
        before = len(update.state.moves)
        await bot.wait_for("connection lost")  # the server went away (close code 1001)

        async with start_server(port=port) as srv:
            await bot.wait_for("connected")  # the same bot process, back
            async with srv.connect(token=ada_token) as ada:
                assert ada.welcome.games == [game_id]
                end = await play_to_the_end(ada, await watch(ada, game_id), rng)
        assert end.state.result is not None and len(end.state.moves) > before + 2


def minimal_bot_source() -> str:
    """The minimal bot of docs/protocol.md ("Bots"): the first Python block of the section."""
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = doc[doc.index("\n## Bots\n") :]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None
    return found[1]


async def test_the_minimal_bot_of_the_protocol_doc_plays_a_whole_game(
    start_server: StartServer, tmp_path: Path
) -> None:
    # Ada plays at once, as fast as the bot: faster than a person may (the bot's own, higher
    # limit is the one under test).
    async with start_server(message_rate=1000.0, message_burst=1000) as srv:
        await minimal_bot_game(srv, tmp_path)


async def minimal_bot_game(srv: Running, tmp_path: Path) -> None:
    source = minimal_bot_source()
    assert len(source.splitlines()) < 60
    script = tmp_path / "minimal_bot.py"
    script.write_text(source)
    _, token = await srv.hub.store.new_bot("tiny", 0)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        srv.ws_url,
        token,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        async with srv.connect("ada") as ada:
            await lobby_with_bot(ada, "tiny")
            await ada.send(CreateGame("Base", opponent="bots", challenge="tiny"))
            game_id = (await ada.expect(Update)).game
            start = await updated(ada, game_id)
            assert start.state.status == "live"
            end = await play_to_the_end(ada, start, random.Random(5))
        assert end.state.result is not None and len(end.state.moves) >= 6
        assert process.stdout is not None
        async with asyncio.timeout(30):
            line = (await process.stdout.readline()).decode()
        assert line.startswith(f"game {game_id} over: {end.state.result}")
    finally:
        process.terminate()
        await process.wait()


def test_a_uhp_engine_plays_the_game_types_its_expansions_allow() -> None:
    assert supported_types(set()) == ["Base"]
    two = {"Mosquito", "Pillbug"}
    assert sorted(supported_types(two)) == ["Base", "Base+M", "Base+MP", "Base+P"]
    assert len(supported_types({"Mosquito", "Ladybug", "Pillbug"})) == 8


# -- an engine author's bot: engines that die, games that end, rematches, clocks, claims --------

ENGINE = str(Path(sys.executable).parent / "hive-engine")
"""Our UHP engine's console script: a real engine, searching in a process of its own."""


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def bot_pid(bot: ChildProcess) -> int:
    assert bot.process is not None
    return bot.process.pid


async def next_of_mine(client: Client, game_id: str, plies: int) -> Update:
    """The first update of ``game_id`` with at least ``plies`` moves, or the game's end."""
    while True:
        update = await updated(client, game_id)
        if len(update.state.moves) >= plies or update.state.status == "over":
            return update


async def test_a_uhp_engine_killed_during_its_search_is_replaced_and_the_bot_plays_on(
    srv: Running,
) -> None:
    _, token = await srv.hub.store.new_bot("uhp", 0)
    args = ("--server", srv.ws_url, "--token", token, "--uhp", ENGINE)
    async with hive_bot(*args, "--uhp-search", "time 00:00:05") as bot, srv.connect("ada") as ada:
        await bot.wait_for("connected")
        await lobby_with_bot(ada, "uhp")
        clock = TimeControl("clock", 120, 0)
        await ada.send(CreateGame("Base", clock, color="white", opponent="bots", challenge="uhp"))
        game_id = (await ada.expect(Update)).game
        update = await updated(ada, game_id)
        rng = random.Random(6)
        # the bot's first two moves come from the book, its third is chosen at random (in
        # moments): its fourth is searched for seconds
        while len(update.state.moves) < 6:
            await play(ada, update, rng.choice([m.move for m in update.state.legal]))
            update = await next_of_mine(ada, game_id, len(update.state.moves) + 2)
        await play(ada, update, rng.choice([m.move for m in update.state.legal]))
        searching = await bot.wait_for(r"bestmove time \S+ at ply 7 \(engine (\d+)\)")
        os.kill(int(searching[1]), signal.SIGKILL)  # during its search of the bot's fourth move
        await bot.wait_for("starting a fresh engine")
        update = await next_of_mine(ada, game_id, 8)
        assert update.state.status == "live" and len(update.state.moves) == 8  # it moved
        assert len(children(bot_pid(bot))) == 1  # the fresh engine, and no other
        await ada.send(Resign(game_id))
        await bot.wait_for(f"game {game_id} over")
        assert children(bot_pid(bot)) == []  # none for a finished game


DRAWING_ENGINE = f"{sys.executable} {ROOT / 'tests' / 'engines' / 'claiming_engine.py'} 6 Draw"
"""Our UHP engine holding every game drawn from ply 6, and dying if asked for a move then."""


async def test_a_uhp_engine_holding_a_game_drawn_that_goes_on_takes_or_offers_a_draw(
    srv: Running,
) -> None:
    """nokamute holds a game drawn by its own repetition rule where the server's goes on (and
    panics if asked for a move): the bot accepts a draw offered then, or plays our bot's move
    and offers one; it never resigns. An offer before is declined: it plays on."""
    _, token = await srv.hub.store.new_bot("uhp", 0)
    args = ("--server", srv.ws_url, "--token", token, "--uhp", DRAWING_ENGINE)
    async with hive_bot(*args, "--uhp-search", "depth 1") as bot, srv.connect("ada") as ada:
        await bot.wait_for("connected")
        await lobby_with_bot(ada, "uhp")
        rng = random.Random(2)
        for offers in (True, False):
            await ada.send(CreateGame("Base", color="white", opponent="bots", challenge="uhp"))
            game_id = (await ada.expect(Update)).game
            update = await updated(ada, game_id)
            while len(update.state.moves) < 10:  # the engine holds it drawn from ply 6
                await play(ada, update, rng.choice([m.move for m in update.state.legal]))
                ply = len(update.state.moves) + 1
                if offers and ply in (1, 7):
                    await ada.send(Draw(game_id, "offer"))
                update = await next_of_mine(ada, game_id, ply + 1)
                if ply == 7 and offers:
                    break
                assert update.state.status == "live", update.state.reason
            if offers:  # declined at ply 1, taken at ply 7, where the engine holds it drawn
                assert (update.state.result, update.state.reason) == ("Draw", "agreement")
                assert len(update.state.moves) == 7
                continue
            await bot.wait_for(f"game {game_id}: the engine holds the game drawn at ply 9")
            while update.state.draw_offer != "black":  # sent after its move, which withdraws one
                update = await updated(ada, game_id)
            assert len(update.state.moves) == 10
            await ada.send(Draw(game_id, "accept"))
            end = await next_of_mine(ada, game_id, 99)
            assert (end.state.status, end.state.result, end.state.reason) == (
                "over",
                "Draw",
                "agreement",
            )


async def test_no_engine_is_left_for_a_game_that_ended_during_the_bots_turn(
    srv: Running,
) -> None:
    """The opponent resigns while the bot's engine is starting: the engine is stopped, and no
    other starts after the game is over."""
    _, token = await srv.hub.store.new_bot("uhp", 0)
    args = ("--server", srv.ws_url, "--token", token, "--uhp", ENGINE, "--uhp-search", "depth 1")
    async with hive_bot(*args) as bot, srv.connect("ada") as ada:
        await bot.wait_for("connected")
        await lobby_with_bot(ada, "uhp")
        for n in range(2):
            await ada.send(CreateGame("Base", color="white", opponent="bots", challenge="uhp"))
            game_id = (await ada.expect(Update)).game
            update = await updated(ada, game_id)
            await play(ada, update, "wS1")
            await bot.wait_for(f"game {game_id}: starting the engine")
            os.kill(bot_pid(bot), signal.SIGSTOP)  # caught with its engine half started
            try:
                await ada.send(Resign(game_id))
                assert (await next_of_mine(ada, game_id, 99)).state.status == "over"
            finally:
                os.kill(bot_pid(bot), signal.SIGCONT)
            await bot.wait_for(f"game {game_id} over")
            assert children(bot_pid(bot)) == [], f"game {n + 1}"


async def test_stopping_a_move_lets_a_cancel_of_the_session_through() -> None:
    """A game ends while its move is being chosen, and the bot stops during the move's
    cleanup (its engine stopping): the session waiting for that cleanup is cancelled as asked,
    and does not go on to keep the bot from exiting (CI, 2026-11-29)."""
    moves = Moves(cast(MovesSession, None))  # (``stop`` uses nothing of the session)
    cleaning, cleaned = asyncio.Event(), asyncio.Event()

    async def move() -> None:
        try:
            await asyncio.Event().wait()  # choosing
        finally:
            cleaning.set()
            await cleaned.wait()  # the engine stopping

    moves.tasks["g"] = asyncio.create_task(move())
    session = asyncio.create_task(moves.stop("g"))
    await cleaning.wait()
    session.cancel()  # the bot stops
    cleaned.set()
    with pytest.raises(asyncio.CancelledError):
        await session
    assert "g" not in moves.tasks


async def test_hive_bot_takes_rematches_and_frees_the_slot_of_a_finished_game(
    srv: Running,
) -> None:
    _, token = await srv.hub.store.new_bot("robo", 0)
    args = ("--server", srv.ws_url, "--token", token, "--level", "beginner", "--max-games", "1")
    async with hive_bot(*args) as bot, srv.connect("ada") as ada:
        await bot.wait_for("connected")
        await lobby_with_bot(ada, "robo")
        await ada.send(CreateGame("Base", color="black", opponent="bots", challenge="robo"))
        game_id = (await ada.expect(Update)).game
        assert len((await next_of_mine(ada, game_id, 1)).state.moves) == 1  # the bot moved
        played = [game_id]
        for late in (True, False):  # an offer once the bot saw the end, and one at once
            await ada.send(Resign(game_id))
            assert (await next_of_mine(ada, game_id, 99)).state.status == "over"
            if late:
                await bot.wait_for(f"game {game_id} over")
            await ada.send(Rematch(game_id))
            update = await updated(ada, game_id)
            while update.state.rematch is None:
                update = await updated(ada, game_id)
            game_id = update.state.rematch
            start = await watch(ada, game_id)
            white = start.state.white
            me = "white" if white is not None and white.player == ada.player else "black"
            if me == "white":
                await play(ada, start, "wS1")
            # the bot moves in the rematch
            moved = await next_of_mine(ada, game_id, 2 if me == "white" else 1)
            assert moved.state.status == "live", moved.state.reason
            played.append(game_id)
        await ada.send(Resign(game_id))
        await bot.wait_for(f"game {game_id} over")
        # Its one slot is free: it joins a new challenge, and the lobby says it plays nothing.
        lobby = await lobby_until(
            ada, lambda lobby: bool(lobby.bots) and lobby.bots[0].playing == 0
        )
        assert lobby.bots[0].max_games == 1
        await ada.send(CreateGame("Base", opponent="bots", challenge="robo"))
        while (created := await ada.expect(Update)).state.status != "open":
            pass  # the last updates of the games before
        assert (await updated(ada, created.game)).state.status == "live"
    over = [line for line in bot.log if " over: " in line]
    assert len(over) == len(played) and all(any(g in line for line in over) for g in played)


@pytest.mark.parametrize(
    "engine",
    [("--level", "expert"), ("--uhp", ENGINE, "--uhp-search", "time 00:00:05")],
    ids=["level", "uhp"],
)
async def test_hive_bot_budgets_its_moves_from_its_clock(
    start_server: StartServer, engine: tuple[str, ...]
) -> None:
    """At 10+0, a search of 2 s a move (expert's) or up to 5 s (the ceiling given) loses on
    time within ten moves: each move gets its share of the clock instead."""
    async with start_server(message_rate=1000.0, message_burst=1000) as srv:
        _, token = await srv.hub.store.new_bot("robo", 0)
        async with (
            hive_bot("--server", srv.ws_url, "--token", token, *engine) as bot,
            srv.connect("ada") as ada,
        ):
            await bot.wait_for("connected")
            await lobby_with_bot(ada, "robo")
            clock = TimeControl("clock", 10, 0)
            await ada.send(
                CreateGame("Base", clock, color="white", opponent="bots", challenge="robo")
            )
            game_id = (await ada.expect(Update)).game
            update = await updated(ada, game_id)
            rng = random.Random(7)
            while update.state.status == "live" and len(update.state.moves) < 24:
                if update.state.turn == "white":
                    legal = [m.move for m in update.state.legal] or ["pass"]
                    await play(ada, update, rng.choice(legal))
                update = await updated(ada, game_id)
            if update.state.status == "live":
                await ada.send(Resign(game_id))
                update = await next_of_mine(ada, game_id, 99)
        state = update.state
        assert state.reason != "timeout", f"the bot lost on time after {len(state.moves)} plies"
        assert len(state.moves) >= 10


async def test_hive_bot_claims_the_win_when_its_opponent_leaves(
    start_server: StartServer,
) -> None:
    async with start_server(disconnect_claim=1) as srv:
        _, token = await srv.hub.store.new_bot("robo", 0)
        args = ("--server", srv.ws_url, "--token", token, "--level", "beginner")
        async with hive_bot(*args) as bot, srv.connect("cy") as cy:
            await bot.wait_for("connected")
            async with srv.connect("ada") as ada:
                await lobby_with_bot(ada, "robo")
                await ada.send(CreateGame("Base", color="white", opponent="bots", challenge="robo"))
                game_id = (await ada.expect(Update)).game
                await play(ada, await updated(ada, game_id), "wS1")
                assert len((await next_of_mine(ada, game_id, 2)).state.moves) == 2
            await bot.wait_for(f"game {game_id}: the opponent left; claiming the win")
            end = await watch(cy, game_id)
            while end.state.status != "over":
                end = await updated(cy, game_id)
    assert (end.state.result, end.state.reason) == ("BlackWins", "abandoned")


async def test_a_bot_challenges_a_server_level_and_another_bot_a_few_times_a_day(
    start_server: StartServer,
) -> None:
    """``hive-bot --challenge NAME --games N`` plays N games against a level or a bot, then
    stops with the score; a bot pair plays at most ``bot_pair_games`` games a day."""
    async with start_server(bot_pair_games=2, message_rate=1000.0, message_burst=1000) as srv:
        _, a_token = await srv.hub.store.new_bot("alpha", 0)
        _, b_token = await srv.hub.store.new_bot("beta", 0)
        base = ("--server", srv.ws_url, "--level", "beginner", "--challenge-type", "Base")
        async with hive_bot(*base, "--token", b_token) as beta:
            await beta.wait_for("connected")
            for name in ("beginner", "beta"):
                challenge = ("--token", a_token, "--challenge", name, "--games", "2")
                async with hive_bot(*base, *challenge) as alpha:
                    score = await alpha.wait_for(
                        rf"challenge of {name} over: (\d+) won, (\d+) drawn"
                    )
                    assert alpha.process is not None
                    async with asyncio.timeout(30):
                        assert await alpha.process.wait() == 0
                played = [line for line in alpha.log if "playing game" in line]
                assert len(played) == 2 and int(score[1]) + int(score[2]) <= 2
            async with srv.connect(token=a_token) as again:  # the day's games are played
                for request in (
                    CreateGame("Base", opponent="bot", level="beginner"),
                    CreateGame("Base", opponent="bots", challenge="beta"),
                ):
                    await again.send(request)
                    with pytest.raises(ServerError, match="2 games in a day against"):
                        await again.expect(Update)


async def test_games_of_a_bot_account_against_a_level_or_a_bot_show_in_the_lobby(
    srv: Running,
) -> None:
    """A bot account's games, against one of the server's levels or another bot account, are
    listed in the lobby's games in progress like any other, with their players."""
    _, a_token = await srv.hub.store.new_bot("alpha", 0)
    _, b_token = await srv.hub.store.new_bot("beta", 0)
    async with (
        srv.connect("ada") as ada,
        srv.connect(token=a_token) as alpha,
        srv.connect(token=b_token) as beta,
    ):
        await beta.send(BotReady(["Base"]))
        await lobby_with_bot(ada, "beta")

        async def created(request: CreateGame, known: set[str]) -> str:
            await alpha.send(request)
            update: Update = await alpha.expect(Update)
            while update.game in known:
                update = await alpha.expect(Update)
            return update.game

        level = await created(
            CreateGame("Base", color="white", opponent="bot", level="beginner"), set()
        )
        other = await created(
            CreateGame("Base", color="white", opponent="bots", challenge="beta"), {level}
        )
        await beta.send(JoinGame(other))
        lobby = await lobby_until(ada, lambda lobby: {level, other} <= {g.id for g in lobby.live})
        seats = {g.id: (g.white, g.black) for g in lobby.live}
        white, black = seats[level]
        assert white is not None and white.name == "alpha" and white.account == "bot"
        assert black is not None and black.bot == "beginner"
        white, black = seats[other]
        assert white is not None and black is not None
        assert (white.name, black.name, black.account) == ("alpha", "beta", "bot")
