"""The puzzle miner through a real server (real Redis, SQLite and PostgreSQL, the bot pool's
background workers): an archived game that holds a known puzzle's position gives that puzzle,
once; the game is read once, a restart included; a process without the lease reads nothing;
a pass whose cursor moved meanwhile writes nothing; the periodic job finds it alone, and a
full pass is followed by the next at once."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from ai.puzzles import Puzzle
from hive import Game, GameState
from protocol import Result, Seat, TimeControl
from server.archive import mining
from server.archive.db import tables
from server.game.clock import now_ms
from server.game.record import Record
from server.live.miner import LEASE_KEY, PuzzleMiner
from server.storage.leases import Lease
from server.storage.stopping import cancel_all
from tests.puzzled import fixture_puzzles
from tests.server.conftest import Running, StartServer
from tests.server.support import finished, rows, scrape
from tests.support import until

WIN2 = next(p for p in fixture_puzzles() if p.theme == "win2")
ANN = Seat("ann", "Ann")
BOB = Seat("bob", "Bob")
TWO_MOVES = ["wS1", "bS1 wS1-"]


def played_through(puzzle: Puzzle, game_id: str) -> Record:
    """The finished game of ``puzzle``'s position with its solution played: archived
    ``mining.SETTLE_MS`` and more ago."""
    game = Game.from_game_string(puzzle.game_string)
    for move in puzzle.solution:
        game.play(move)
    assert game.state is not GameState.IN_PROGRESS
    moves = [m.strip() for m in game.game_string().split(";")[3:]]
    result: Result = "WhiteWins" if game.state is GameState.WHITE_WINS else "BlackWins"
    return finished(
        game_id,
        ANN,
        BOB,
        result,
        "surrounded",
        now_ms() - 60_000,
        time=TimeControl("none"),
        moves=moves,
        game_type=puzzle.game_type,
    )


async def archived(srv: Running, record: Record) -> None:
    assert await srv.hub.archive.write(record, now=now_ms() - 2 * mining.SETTLE_MS)


def of(stored: list[dict[str, Any]], puzzle: Puzzle) -> list[dict[str, Any]]:
    """The rows of ``puzzle``'s position and line."""
    line = ";".join(puzzle.solution)
    return [r for r in stored if r["game_string"] == puzzle.game_string and r["solution"] == line]


async def test_an_archived_game_s_puzzle_is_added_once_and_a_restart_reads_on(
    start_server: StartServer, database_url: str
) -> None:
    async with start_server(database_url=database_url, puzzle_mining_interval=0) as srv:
        await archived(srv, played_through(WIN2, "g1"))
        assert await srv.hub.miner.mine_once() == 1
        stored = await rows(database_url, tables.puzzles)
        (row,) = of(stored, WIN2)
        assert row["theme"] == "win2" and row["source"].startswith("g1@")
        assert await srv.hub.miner.mine_once() == 0  # nothing new: the game is not read again
        figures = await scrape(srv)
        assert figures["hive_puzzle_games_mined_total"] == 1
        assert figures["hive_puzzles_mined_total"] == len(stored)
    async with start_server(database_url=database_url, puzzle_mining_interval=0) as again:
        assert await again.hub.miner.mine_once() == 0  # the cursor, from SQL: g1 was read
        await archived(again, played_through(WIN2, "g2"))  # the same position, another game
        assert await again.hub.miner.mine_once() == 1
        assert await rows(database_url, tables.puzzles) == stored  # each puzzle once
        figures = await scrape(again)
        assert figures["hive_puzzle_games_mined_total"] == 1
        assert figures["hive_puzzles_mined_total"] == 0
        cursor = await mining.cursor(again.hub.database)
        assert (cursor.game, cursor.games) == ("g2", 2)


async def test_one_miner_at_a_time_and_a_moved_cursor_writes_nothing(srv: Running) -> None:
    await archived(srv, played_through(WIN2, "g1"))
    other = Lease(srv.hub.store, LEASE_KEY, ms=60_000)
    assert await other.take("another process")
    assert await srv.hub.miner.mine_once() is None  # the lease is another's: nothing read
    assert await mining.cursor(srv.hub.database) == mining.Cursor(0, "", 0)
    await other.release("another process")
    was = await mining.cursor(srv.hub.database)
    games = await mining.after(srv.hub.database, was, now=now_ms(), limit=20)
    assert [g.id for g in games] == ["g1"]
    assert await srv.hub.miner.mine_once() == 1  # this process read g1 meanwhile
    # a pass that read g1 from the old cursor (its lease lost) stores nothing
    assert await mining.advance(srv.hub.database, was, games, [WIN2]) is None
    assert len(of(await rows(srv.hub.database.url, tables.puzzles), WIN2)) == 1
    assert (await mining.cursor(srv.hub.database)).games == 1


async def test_the_periodic_job_finds_the_puzzle_of_a_game_archived_while_it_runs(
    start_server: StartServer,
) -> None:
    async with start_server(puzzle_mining_interval=0.05) as srv:
        await archived(srv, played_through(WIN2, "g1"))

        async def found() -> list[dict[str, Any]]:
            return of(await rows(srv.hub.database.url, tables.puzzles), WIN2)

        async def added() -> float:
            return (await scrape(srv)).get("hive_puzzles_mined_total", 0.0)

        await until(added, "a pass that added the archived game's puzzles", timeout=120)
        assert len(await found()) == 1
        assert (await scrape(srv))["hive_puzzle_games_mined_total"] == 1


async def test_a_full_pass_is_followed_by_the_next_at_once_not_after_the_interval(
    srv: Running,
) -> None:
    # Games of two moves, resigned: nothing to prove, so the passes do not wait on the pool's
    # background workers (at the machine's lowest priority, a busy machine may starve them of
    # the seconds a whole game's proofs take).
    for game_id in ("g1", "g2"):
        record = finished(
            game_id,
            ANN,
            BOB,
            "BlackWins",
            "resigned",
            now_ms() - 60_000,
            time=TimeControl("none"),
            moves=TWO_MOVES,
        )
        await archived(srv, record)
    passes: list[int] = []
    settings = replace(srv.settings, puzzle_mining_interval=600)
    hub = srv.hub
    miner = PuzzleMiner(
        settings,
        hub.store,
        hub.database,
        hub.pool,
        lambda games, _: passes.append(games),
        games_a_pass=1,
    )
    sweep = asyncio.create_task(miner.sweep())
    try:
        await until(lambda: len(passes) >= 3, "three passes within the interval", timeout=300)
    finally:  # (cancelled again until it ends, as the server stops it: a cancel landing in a
        # redis-py command may be swallowed, and the sweep would go on to its 600 s wait)
        await cancel_all([sweep])
    assert passes[:3] == [1, 1, 0]  # a full pass, another, then nothing left: the interval
