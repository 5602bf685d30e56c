"""The archive, on SQLite and on a real PostgreSQL server (``database_url`` is each in turn):
the migrations make the schema ``server/archive/db/tables.py`` describes; a finished game is written
once, by one process or two, and after a SIGKILL between its end and the write; its keys then
leave Redis after the grace period, and its record, positions and search traces are served from
the database; while the database is down, games go on and are archived once it is back."""

from __future__ import annotations

import asyncio
import json
import signal
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select

from protocol import (
    CreateGame,
    PlayerTournament,
    Resign,
    Standing,
    TimeControl,
    Tournament,
    TournamentSummary,
    Update,
)
from protocol.client import Client
from server.archive.db import tables
from server.archive.db.database import Database
from server.archive.games import ARCHIVE_ERRORS
from server.archive.tournaments import TournamentArchive, of_player
from server.embedded import RedisProcess
from tests.server.conftest import Running, StartServer, free_port
from tests.server.postgres import PostgresProcess
from tests.server.support import (
    ServerProcess,
    game_keys,
    http_get,
    play,
    rows,
    run_command,
    scrape,
    start_game,
    updated,
)
from tests.support import until


async def finished_game(srv: Running | str, moves: int = 2) -> str:
    """Two guests play ``moves`` moves, then White resigns; the game's id."""
    url = srv if isinstance(srv, str) else srv.ws_url
    async with (
        Client.connect(url, nickname="ann") as white,
        Client.connect(url, nickname="bob") as black,
    ):
        game, w, _ = await start_game(white, black, time=TimeControl("clock", 300, 5))
        for move in ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"][:moves]:
            mover = white if w.state.turn == "white" else black
            await play(mover, w, move)
            w = await updated(white, game)
        await white.send(Resign(game))
        over = await updated(white, game)
        assert over.state.status == "over"
        return game


async def test_the_migrations_make_the_schema_of_tables(database_url: str) -> None:
    database = Database(database_url)
    try:
        await database.migrate()
        await database.migrate()  # again: nothing to do
        async with database.engine.connect() as connection:
            differences = await connection.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), tables.metadata)
            )
        assert differences == []
    finally:
        await database.close()


async def test_accounts_made_before_players_rows_said_account_say_it_once_migrated(
    database_url: str,
) -> None:
    """Migration 0005: a person's account whose ``players`` row still said ``guest`` (signed
    up before rows said ``account``) says ``account``; a guest and a bot account stay."""
    database = Database(database_url)
    try:
        await database.migrate("0004")
        people = [("a1", "ann", "guest"), ("g1", "gus", "guest"), ("b1", "robo", "bot")]
        async with database.engine.begin() as connection:
            await connection.execute(
                tables.players.insert(),
                [{"id": i, "name": n, "kind": k, "created": 0} for i, n, k in people],
            )
            await connection.execute(
                tables.accounts.insert(),
                [
                    {"player": i, "name": n, "name_key": n, "password": None, "bot": i == "b1"}
                    | {"created": 0, "password_changed": 0}
                    for i, n, _ in people
                    if i != "g1"
                ],
            )
        await database.migrate()
        async with database.engine.connect() as connection:
            found = await connection.execute(select(tables.players.c.id, tables.players.c.kind))
            kinds = {player: kind for player, kind in found.all()}
        assert kinds == {"a1": "account", "g1": "guest", "b1": "bot"}
    finally:
        await database.close()


async def test_ratings_made_before_they_counted_opponents_count_them_once_migrated(
    database_url: str,
) -> None:
    """Migration 0006: each rating counts the distinct opponents of its player's rated games
    of its speed (a casual game, or one of another speed, does not count)."""
    database = Database(database_url)
    try:
        await database.migrate("0005")
        people = ["a1", "b1", "c1"]
        played = [  # (id, white, black, rated, speed)
            ("g1", "a1", "b1", True, "rapid"),
            ("g2", "b1", "a1", True, "rapid"),
            ("g3", "a1", "c1", True, "rapid"),
            ("g4", "a1", "b1", True, "blitz"),
            ("g5", "c1", "a1", False, "blitz"),
        ]
        rated = [("a1", "rapid"), ("a1", "blitz"), ("b1", "rapid"), ("b1", "blitz")]
        rated += [("c1", "rapid"), ("c1", "blitz")]
        async with database.engine.begin() as connection:
            await connection.execute(
                tables.players.insert(),
                [{"id": p, "name": p, "kind": "account", "created": 0} for p in people],
            )
            await connection.execute(
                tables.accounts.insert(),
                [
                    {"player": p, "name": p, "name_key": p, "password": None, "bot": False}
                    | {"created": 0, "password_changed": 0}
                    for p in people
                ],
            )
            await connection.execute(
                tables.games.insert(),
                [
                    {"id": i, "white": w, "black": b, "rated": r, "speed": speed}
                    | {"game_type": "Base", "white_name": w, "black_name": b, "result": "Draw"}
                    | {"reason": "agreement", "time_kind": "clock", "time_base": 600}
                    | {"time_increment": 0, "time_days": 0, "moves": "", "plies": 0}
                    | {"created": 0, "ended": 0, "archived": 0}
                    for i, w, b, r, speed in played
                ],
            )
            await connection.execute(
                tables.ratings.insert(),
                [
                    {"player": p, "speed": speed, "rating": 1500.0, "rd": 300.0}
                    | {"volatility": 0.06, "games": 1, "updated": 0}
                    for p, speed in rated
                ],
            )
        await database.migrate()
        async with database.engine.connect() as connection:
            ratings = tables.ratings.c
            found = await connection.execute(
                select(ratings.player, ratings.speed, ratings.opponents)
            )
            counted = {(player, speed): count for player, speed, count in found.all()}
        assert counted == {
            ("a1", "rapid"): 2,
            ("a1", "blitz"): 1,
            ("b1", "rapid"): 1,
            ("b1", "blitz"): 1,
            ("c1", "rapid"): 1,
            ("c1", "blitz"): 0,
        }
    finally:
        await database.close()


async def test_an_ended_tournament_is_kept_once_and_older_games_have_none_once_migrated(
    database_url: str,
) -> None:
    """Migration 0011: a game archived before it has no tournament; an ended Swiss written
    twice at once is one row (``ON CONFLICT DO NOTHING``), read back as it was written, and
    listed for its players."""
    database = Database(database_url)
    try:
        await database.migrate("0010")
        async with database.engine.begin() as connection:
            await connection.execute(
                tables.players.insert(),
                [{"id": p, "name": p, "kind": "account", "created": 0} for p in ("a1", "b1")],
            )
            await connection.execute(
                tables.games.insert(),
                {"id": "g1", "white": "a1", "black": "b1", "rated": False, "speed": "blitz"}
                | {"game_type": "Base", "white_name": "a1", "black_name": "b1", "result": "Draw"}
                | {"reason": "agreement", "time_kind": "clock", "time_base": 600}
                | {"time_increment": 0, "time_days": 0, "moves": "", "plies": 0}
                | {"created": 0, "ended": 0, "archived": 0},
            )
        await database.migrate()
        (game,) = await rows(database_url)
        assert game["tournament"] is None
        summary = TournamentSummary(
            "7c1e5a9b",
            "<i>Friday</i>",
            "ada",
            "Base+M",
            TimeControl("clock", 180, 2),
            True,
            1000,
            1000,
            "over",
            3,
            64,
            None,
            1900,
            "swiss",
            3,
            3,
        )
        standings = [
            Standing("a1", "ada", 1500, 2.5, [1.0, 0.5, 1.0], byes=1, buchholz=3.5),
            Standing("b1", "bob", None, 1.0, [0.0, 1.0, 0.0], buchholz=4.0, sonneborn_berger=1.5),
            Standing("c1", "cy", 1600, 0.5, [0.5], status="paused"),
        ]
        final = Tournament(summary, standings, "a1")
        archive = TournamentArchive(database)
        written = await asyncio.gather(*(archive.write(final, "p0", 5000) for _ in range(2)))
        assert sorted(written) == [False, True]
        assert await archive.read("7c1e5a9b") == final
        assert await archive.read("nosuchid") is None
        assert len(await rows(database_url, tables.tournament_results)) == 3
        async with database.engine.connect() as connection:
            listed = await of_player(connection, "b1")
        assert listed == [PlayerTournament("7c1e5a9b", "<i>Friday</i>", "swiss", 2, 3, 1.0, 5000)]
    finally:
        await database.close()


async def test_hive_server_migrate_runs_the_migrations_alone(database_url: str) -> None:
    status, _, err = await run_command(
        sys.executable, "-m", "server", "migrate", "--database-url", database_url
    )
    assert status == 0, err
    assert "up to date" in err and "password" not in err
    assert await rows(database_url) == []  # the tables are there


async def test_a_finished_game_is_archived_once_then_served_from_the_database(
    start_server: StartServer, database_url: str
) -> None:
    async with (
        start_server(database_url=database_url, archive_grace=1.0, archive_interval=0.05) as srv,
        Client.connect(srv.ws_url, nickname="cid") as person,
    ):
        # A game against a server bot: its move leaves a search trace.
        await person.send(CreateGame("Base", color="white", opponent="bot", level="beginner"))
        started = await person.expect(Update)
        game = started.game
        await play(person, started, "wS1")
        while (update := await updated(person, game)).state.moves[-1:] == ["wS1"]:
            pass
        assert len(update.state.moves) == 2  # the bot has moved
        status, _, _ = await http_get(f"{srv.http_url}/games/{game}/trace/2.json")
        assert status == 200
        await person.send(Resign(game))
        await updated(person, game)

        archived = await until(lambda: rows(database_url), "the game was never archived")
        assert len(archived) == 1
        row = archived[0]
        assert (row["id"], row["game_type"], row["result"], row["reason"]) == (
            game,
            "Base",
            "BlackWins",
            "resign",
        )
        assert row["white_name"] == "cid" and row["black_level"] == "beginner"
        assert row["moves"].split(";")[0] == "wS1" and row["plies"] == 2
        assert row["rated"] is False and row["ended"] >= row["created"]
        players = {p["id"]: p["kind"] for p in await rows(database_url, tables.players)}
        assert players == {person.player: "guest", "bot:beginner": "level"}

        # After the grace period Redis holds nothing of the game...
        await until(lambda: _gone(srv.redis_url, game), "the game's keys outlived the grace period")
        # ...and its record, positions and trace come from the database.
        status, _, body = await http_get(f"{srv.http_url}/games/{game}.txt")
        assert (status, body.decode()) == (200, f"Base;InProgress;White[2];{row['moves']}\n")
        status, _, body = await http_get(f"{srv.http_url}/games/{game}/positions.json")
        document = json.loads(body)
        assert status == 200 and len(document["frames"]) == 3
        assert (document["white"], document["result"], document["reason"]) == (
            "cid",
            "BlackWins",
            "resign",
        )
        status, _, trace = await http_get(f"{srv.http_url}/games/{game}/trace/2.json")
        assert status == 200 and json.loads(trace)
        assert srv.hub.archive.written == 1


async def _gone(redis_url: str, game: str) -> bool:
    return await game_keys(redis_url, game) == []


async def test_two_processes_archive_each_game_once(
    start_server: StartServer, database_url: str
) -> None:
    """Two servers on one Redis and one database, sweeping together: every game once."""
    settings = {"database_url": database_url, "archive_interval": 0.01, "archive_grace": 60.0}
    async with start_server(**settings) as one, start_server(**settings) as two:
        games = [await finished_game(one if n % 2 else two, moves=n % 3) for n in range(6)]
        # Both sweep the same games at once, besides their own loops.
        await asyncio.gather(one.hub.archive.sweep_once(60), two.hub.archive.sweep_once(60))
        await until(lambda: _all_archived(database_url, games), "not every game was archived")
        await until(lambda: _none_over(one.redis_url, games), "left in hive:over")
        assert one.hub.archive.written + two.hub.archive.written == len(games)
        assert sorted(row["id"] for row in await rows(database_url)) == sorted(games)


async def _none_over(redis_url: str, games: list[str]) -> bool:
    return all([await _out_of_over(redis_url, game) for game in games])


async def _all_archived(url: str, games: list[str]) -> bool:
    return len(await rows(url)) >= len(games)


async def test_a_game_that_cannot_be_archived_does_not_stop_the_others(
    start_server: StartServer, database_url: str
) -> None:
    async with start_server(database_url=database_url, archive_interval=0.05) as srv:
        redis = srv.hub.store.redis
        await redis.hset("hive:g:{zzzzzzzz}", "r", b"not a record")
        await redis.zadd("hive:over", {"zzzzzzzz": 0})  # first in line, every round
        game = await finished_game(srv)
        archived = await until(lambda: rows(database_url), "the good game was not archived")
        assert [row["id"] for row in archived] == [game]
        assert await redis.zscore("hive:over", "zzzzzzzz") is not None  # still waiting


async def test_a_restart_leaves_archived_games_alone(
    start_server: StartServer, database_url: str
) -> None:
    """A starting server rebuilds the indexes from the games in Redis: an archived game
    (still there for its grace period) is not listed, nor archived, nor given a new grace."""
    async with start_server(
        database_url=database_url, archive_grace=1000.0, archive_interval=0.05
    ) as srv:
        game = await finished_game(srv)
        await until(lambda: _out_of_over(srv.redis_url, game), "never archived")
    async with start_server(
        database_url=database_url, archive_grace=5000.0, archive_interval=0.05
    ) as srv:
        rounds = srv.hub.archive.rounds
        await until(lambda: srv.hub.archive.rounds > rounds, "no sweep")
        assert await _out_of_over(srv.redis_url, game)
        assert 0 < await srv.hub.store.redis.ttl(f"hive:g:{{{game}}}") <= 1000
        assert srv.hub.archive.written == 0


async def test_a_game_killed_before_its_archive_is_archived_by_the_next_sweep(
    redis_server: RedisProcess, start_server: StartServer, database_url: str
) -> None:
    """A process that ends a game and is SIGKILLed before it archives it (its sweep waits an
    hour): the game waits in ``hive:over`` and the next process archives it, once."""
    process = ServerProcess(
        *("--port", str(free_port()), "--redis-url", redis_server.url),
        *("--database-url", database_url, "--archive-interval", "3600", "--bot-workers", "1"),
    )
    await process.start()
    try:
        game = await finished_game(process.ws_url)
        assert b"hive:over" in await game_keys(redis_server.url, game)
    finally:
        assert await process.stop(signal.SIGKILL) == -signal.SIGKILL
    assert await rows(database_url) == []
    async with start_server(database_url=database_url, archive_interval=0.05) as srv:
        archived = await until(lambda: rows(database_url), "never archived")
        assert [row["id"] for row in archived] == [game]
        await until(lambda: _out_of_over(redis_server.url, game), "still listed as not archived")
        assert srv.hub.archive.written == 1


async def _out_of_over(redis_url: str, game: str) -> bool:
    return b"hive:over" not in await game_keys(redis_url, game)


async def test_games_go_on_while_the_database_is_down(
    start_server: StartServer, postgres_server: PostgresProcess
) -> None:
    """PostgreSQL stopped: moves are played and games end (in Redis), /healthz says ok,
    and once PostgreSQL is back the games are archived."""
    url = postgres_server.create()
    async with start_server(database_url=url, archive_interval=0.05) as srv:
        postgres_server.stop()
        try:
            game = await finished_game(srv, moves=4)
            status, _, body = await http_get(f"{srv.http_url}/healthz")
            assert (status, json.loads(body)["status"]) == (200, "ok")
            assert b"hive:over" in await game_keys(srv.redis_url, game)
            await until(lambda: _behind(srv), "the metrics do not show the archive behind")
        finally:
            postgres_server.restart()
        archived = await until(lambda: rows(url), "not archived once the database came back")
        assert [row["id"] for row in archived] == [game]
        figures = await until(lambda: _caught_up(srv), "the metrics never caught up")
        assert figures["hive_games_archived_total"] == 1


async def _behind(srv: Running) -> bool:
    figures = await scrape(srv)
    return figures["hive_archive_up"] == 0 and figures["hive_archive_waiting"] == 1


async def _caught_up(srv: Running) -> dict[str, float] | None:
    figures = await scrape(srv)
    done = figures["hive_archive_up"] == 1 and figures["hive_archive_waiting"] == 0
    return figures if done else None


async def test_a_server_whose_database_cannot_be_reached_does_not_start(
    redis_server: RedisProcess,
) -> None:
    """It must migrate first: it stops at once and says which database (no password)."""
    nobody = f"postgresql://hive:secret@127.0.0.1:{free_port()}/hive"
    status, _, err = await run_command(
        *(sys.executable, "-m", "server", "--port", "0", "--redis-url", redis_server.url),
        *("--database-url", nobody, "--bot-workers", "1"),
    )
    assert status == 2, err
    assert "the database postgresql+asyncpg://hive:***@127.0.0.1" in err
    assert "secret" not in err


async def test_a_game_claimed_by_another_process_is_passed_by_until_the_claim_goes(
    start_server: StartServer, database_url: str
) -> None:
    """Two processes sweep the same ``hive:over``: the one that claimed a game archives it,
    the other passes it by (not writing it twice); a claim let go (a failed archive, or
    the end of one) leaves nothing behind."""
    async with start_server(database_url=database_url, archive_interval=3600) as srv:
        archive, redis = srv.hub.archive, srv.hub.store.redis
        game = await finished_game(srv)
        claim = f"hive:g:{{{game}}}:archiving"
        await redis.set(claim, "elsewhere", ex=60)
        await archive.sweep_once(60)
        assert await rows(database_url) == [] and archive.written == 0
        assert not await _out_of_over(srv.redis_url, game)
        await redis.delete(claim)  # the other process died: its claim lapsed
        await archive.sweep_once(60)
        assert [row["id"] for row in await rows(database_url)] == [game]
        assert archive.written == 1 and await _out_of_over(srv.redis_url, game)
        assert not await redis.exists(claim)


async def test_a_failed_archive_lets_go_of_its_claim(
    start_server: StartServer, postgres_server: PostgresProcess
) -> None:
    url = postgres_server.create()
    async with start_server(database_url=url, archive_interval=3600) as srv:
        game = await finished_game(srv)
        postgres_server.stop()
        try:
            with pytest.raises(ARCHIVE_ERRORS):
                await srv.hub.archive.sweep_once(60)
            assert not await srv.hub.store.redis.exists(f"hive:g:{{{game}}}:archiving")
        finally:
            postgres_server.restart()
        await srv.hub.archive.sweep_once(60)
        assert [row["id"] for row in await rows(url)] == [game]
