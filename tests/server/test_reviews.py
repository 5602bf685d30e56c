"""Computer analyses of finished games through a real server: asked for, searched in the bot
pool with progress pushed to everyone who follows the game, stored once and read back; bounded
per address and in all; taken up again by another process when the one analysing stops."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed

from ai.bots import LEVELS
from ai.pool import BotPool
from protocol import (
    Account,
    AnalyseGame,
    CreateGame,
    Error,
    ErrorCode,
    GameAnalysis,
    GetProfile,
    LeaveAnalysis,
    Play,
    Profile,
    Seat,
    SignUp,
    Speed,
    SpeedAccuracy,
    TimeControl,
    Update,
)
from protocol.client import Client
from server.archive import analyses
from server.archive.db import tables
from server.live.session import LOOKUP_BURST
from server.storage.analyses import AnalysisQueue
from server.storage.store import Store
from tests.server.analysed import (
    BLITZ,
    PLIES,
    analysis,
    archive_game,
    played_game,
    short_game,
    until_done,
)
from tests.server.archived import ask
from tests.server.conftest import Running, StartServer
from tests.server.support import rows, scrape
from tests.support import until


def analysed(figures: dict[str, float]) -> float:
    return figures.get("hive_analysed_positions_total", 0.0)


async def test_an_analysis_is_pushed_to_every_follower_and_stored_once(srv: Running) -> None:
    await archive_game(srv, "aaaaaaaa")
    async with (
        Client.connect(srv.ws_url, nickname="ann") as ann,
        Client.connect(srv.ws_url, nickname="watcher") as watcher,
    ):
        assert await analysis(watcher, "aaaaaaaa") == GameAnalysis("aaaaaaaa", "none", 0, PLIES)
        started = await analysis(ann, "aaaaaaaa", start=True)
        assert isinstance(started, GameAnalysis)
        assert started.status in ("queued", "running")
        # (both read as it goes: a client left unread stops reading its pongs, and its
        # connection closes on the keepalive timeout)
        pushed, mine = await asyncio.gather(
            until_done(watcher, "aaaaaaaa"), until_done(ann, "aaaaaaaa")
        )
    progress = [m.done for m in pushed if m.status == "running"]
    assert progress == sorted(progress) and progress[-1] == PLIES and len(progress) >= PLIES
    done = pushed[-1]
    assert done == mine[-1]
    assert [m.ply for m in done.moves] == list(range(PLIES))
    assert done.depth == 5 and done.white is not None and done.black is not None
    assert done.white.accuracy is not None and 0 <= done.white.accuracy <= 100
    marks = [m.mark for m in done.moves]
    assert marks.count("blunder") == done.white.blunders + done.black.blunders
    assert any(marks)  # two beginner bots: something to mark
    worse = [m for m in done.moves if m.best != m.move and m.played_score < m.best_score]
    assert worse and all(m.best_to is not None for m in worse)
    assert analysed(await scrape(srv)) == PLIES
    stored = await rows(srv.hub.database.url, tables.analyses)
    assert [row["game"] for row in stored] == ["aaaaaaaa"]
    # asked again, and again with start: read back, nothing searched again
    async with Client.connect(srv.ws_url, nickname="late") as late:
        assert await analysis(late, "aaaaaaaa", start=True) == done
        await late.send(LeaveAnalysis("aaaaaaaa"))
    assert analysed(await scrape(srv)) == PLIES


async def test_only_archived_games_are_analysed(srv: Running) -> None:
    async with Client.connect(srv.ws_url, nickname="ann") as ann:
        refused = await analysis(ann, "zzzzzzzz", start=True)
        assert getattr(refused, "code", None) == ErrorCode.UNKNOWN_GAME
        refused = await analysis(ann, "not-a-game", start=True)
        assert getattr(refused, "code", None) == ErrorCode.UNKNOWN_GAME


async def test_a_game_that_just_ended_is_reviewed_at_once(start_server: StartServer) -> None:
    """The review page asks for a game's analysis the moment it ends, before the archive's
    sweep comes (here: not for an hour): the game is archived then and there, and its analysis
    may start; a game in progress is still unknown to reviews."""
    async with start_server(archive_interval=3600) as srv:
        game_id, token = await played_game(srv, archived=False)
        assert await analyses.archived(srv.hub.database, game_id) is None
        async with srv.connect("ann") as ann:
            await ann.send(CreateGame(game_type="Base", time=TimeControl()))
            open_id = (await ann.expect(Update)).game
            refused = await analysis(ann, open_id)
            assert getattr(refused, "code", None) == ErrorCode.UNKNOWN_GAME
        async with Client.connect(srv.ws_url, token=token) as ann:
            answer = await analysis(ann, game_id)
            assert isinstance(answer, GameAnalysis)
            assert (answer.status, answer.total) == ("none", len(short_game()))
            started = await analysis(ann, game_id, start=True)
            assert isinstance(started, GameAnalysis) and started.status in {"queued", "running"}
        assert await analyses.archived(srv.hub.database, game_id) is not None
        archived = await rows(srv.hub.database.url, tables.games)
        assert [row["id"] for row in archived] == [game_id]  # once


async def test_one_address_may_start_few_analyses(start_server: StartServer) -> None:
    async with start_server(analyses_per_address=2, analyses_queued=10) as srv:
        for n in range(4):
            await archive_game(srv, f"bbbbbbb{n}")
        async with (
            Client.connect(srv.ws_url, nickname="ann") as ann,
            Client.connect(srv.ws_url, nickname="ann2") as other,
        ):
            for n in range(2):
                assert isinstance(await analysis(ann, f"bbbbbbb{n}", start=True), GameAnalysis)
            # a second guest of the same address is counted with the first
            refused = await analysis(other, "bbbbbbb2", start=True)
            assert getattr(refused, "code", None) == ErrorCode.RATE_LIMITED
            assert "2 computer analyses from one address in 10 min" in refused.message  # type: ignore[union-attr]
            # following one already started is no new analysis
            assert isinstance(await analysis(other, "bbbbbbb0", start=True), GameAnalysis)
        # a flood of asks from one connection: its allowance (as for profiles), then refused,
        # and a connection that goes on is closed (1008) as for any limit
        answers = []
        with contextlib.suppress(ConnectionClosed):
            async with Client.connect(srv.ws_url, nickname="flood") as flood:
                for _ in range(LOOKUP_BURST + 20):
                    await flood.send(AnalyseGame("bbbbbbb0"))
                for _ in range(LOOKUP_BURST + 20):
                    answers.append(await flood.recv())
        errors = [a for a in answers if isinstance(a, Error)]
        assert errors and all(a.code == ErrorCode.RATE_LIMITED for a in errors)
        assert len(answers) - len(errors) <= LOOKUP_BURST + 5
        assert "analyses, profiles or leaderboards a second" in errors[0].message


async def test_the_queue_of_analyses_is_capped(start_server: StartServer) -> None:
    async with start_server(analyses_per_address=100, analyses_queued=2) as srv:
        for n in range(4):
            await archive_game(srv, f"ccccccc{n}")
        queued = 0
        async with Client.connect(srv.ws_url, nickname="g") as guest:
            for n in range(4):
                answer = await analysis(guest, f"ccccccc{n}", start=True)
                if isinstance(answer, GameAnalysis):
                    queued += 1
                else:
                    assert answer.code == ErrorCode.UNAVAILABLE
                    assert "analysing 2 games already" in answer.message
        assert queued == 2
        assert len(await srv.hub.reviews.queue.queued()) <= 2


@pytest.mark.slow
async def test_another_process_takes_up_an_analysis_stopped_midway(
    start_server: StartServer,
) -> None:
    async with start_server() as first:
        await archive_game(first, "dddddddd")
        async with Client.connect(first.ws_url, nickname="ann") as ann:
            await analysis(ann, "dddddddd", start=True)
            await until(lambda: analysed_now(first) >= 4, "4 positions searched", timeout=60)
    # stopped midway (its claim let go on the way out; a killed one's expires); read with a
    # client of the test's own, the stopped server's being closed
    async with contextlib.aclosing(aioredis.Redis.from_url(first.redis_url)) as redis:
        kept = len(await AnalysisQueue(Store(redis), limit=1).saved("dddddddd"))
    assert 4 <= kept < PLIES
    async with start_server() as second:
        async with Client.connect(second.ws_url, nickname="ann") as ann:
            answer = await analysis(ann, "dddddddd")
            assert isinstance(answer, GameAnalysis) and answer.status in ("queued", "running")
            done = (await until_done(ann, "dddddddd"))[-1]
        assert len(done.moves) == PLIES
        assert analysed(await scrape(second)) == PLIES - kept


def analysed_now(srv: Running) -> int:
    return int(srv.hub.metrics.analysed._value.get())


async def test_a_live_bot_answers_within_its_budget_while_two_games_are_analysed(
    start_server: StartServer,
) -> None:
    """Two workers: background work takes at most one, so the expert bot (2 s a move) finds a
    worker free at once however many positions wait to be searched."""
    budget = LEVELS["expert"].seconds
    assert budget is not None
    async with start_server(bot_workers=2, analyses_at_once=2) as srv:
        waits = timed_live_slots(srv.hub.pool)
        for game in ("eeeeeee1", "eeeeeee2"):
            await archive_game(srv, game)
        async with Client.connect(srv.ws_url, nickname="ann") as ann:
            for game in ("eeeeeee1", "eeeeeee2"):
                assert isinstance(await analysis(ann, game, start=True), GameAnalysis)
            queue = srv.hub.reviews.queue
            await until(lambda: len(srv.hub.analyst.running) == 2, "two analyses running")
            await ann.send(
                CreateGame(game_type="Base", opponent="bot", level="expert", color="white")
            )
            update = await ann.expect(Update)
            replies = []
            for _ in range(4):
                while update.state.turn != "white" or update.state.status != "live":
                    update = await ann.expect(Update)
                sent = time.monotonic()
                await ann.send(Play(update.game, update.version, update.state.legal[0].move))
                plies = len(update.state.moves) + 2  # mine, then the bot's
                while len(update.state.moves) < plies:
                    update = await ann.expect(Update)
                replies.append(time.monotonic() - sent)
                # the analyses were still going when the bot answered
                assert len(srv.hub.analyst.running) == 2, "the analyses ended too soon"
            assert min([await queue.progress(g) for g in ("eeeeeee1", "eeeeeee2")]) < PLIES
    assert max(replies) < budget * 1.25, f"bot replies took {replies} s, the budget {budget} s"
    assert len(waits) >= 4 and max(waits) < 0.1, f"bot moves waited {waits} s for a worker"


def timed_live_slots(pool: BotPool) -> list[float]:
    """The waits of the pool's bot moves for a worker, in seconds, as they come (only bot
    moves take its slots: background work has workers of its own)."""
    waits: list[float] = []
    slots = pool._slots
    acquire = slots.acquire

    async def timed() -> bool:
        asked = time.monotonic()
        got = await acquire()
        waits.append(time.monotonic() - asked)
        return got

    slots.acquire = timed  # type: ignore[method-assign,assignment]
    return waits


async def test_a_profile_gives_the_average_accuracy_per_speed(srv: Running) -> None:
    async with Client.connect(srv.ws_url, nickname="ann") as ann:
        await ann.send(SignUp("annie", "correct horse battery"))
        await ann.expect(Account)
        annie = Seat(ann.player, "annie", account="account")
        await archive_game(srv, "ffffffff", white=annie, time=BLITZ)
        await archive_game(srv, "fffffff1", black=annie, time=TimeControl())
        for game in ("ffffffff", "fffffff1"):
            await analysis(ann, game, start=True)
            done = (await until_done(ann, game))[-1]
            assert done.white is not None and done.black is not None
            side = done.white if game == "ffffffff" else done.black
            assert side.accuracy is not None
            expected = round(side.accuracy, 1)
            answer = await ask(ann, GetProfile("annie"))
            assert isinstance(answer, Profile)
            speed: Speed | None = "blitz" if game == "ffffffff" else None
            found = next(a for a in answer.accuracy if a.speed == speed)
            assert found == SpeedAccuracy(speed, expected, 1)
        assert len(answer.accuracy) == 2
