"""Profiles and leaderboards: the first page of a player with 10,000 archived games, and a
leaderboard over 10,000 players, on SQLite and on PostgreSQL.

    python -m bench.profiles [--games 10000] [--players 10000] [--samples 200] [--runs 3]
                             [--explain]

For each database (a SQLite file, and a PostgreSQL server of its own: Debian's, started in a
temporary folder on a free port, as the tests start it) it fills a fresh database:
``--players`` accounts, each rated in blitz (most established and recent, some provisional,
some stale) and half of them in rapid; one more account, ``star``, with ``--games`` archived
games (written by ``Archive.write``, as the sweep writes them: against those players and the
server's bot levels, each rated but one in ten, with its rating history), and three times as
many games between other players (rows copied from star's, new ids and players); then
``VACUUM ANALYZE`` (PostgreSQL; autovacuum's work) or ``ANALYZE`` (SQLite). Then ``--runs`` runs,
each timing ``--samples`` times:

- ``profile``: ``Profiles.read_profile("star")``, the first page (what the server answers);
- ``leaderboard``: ``Profiles.read_leaderboard("blitz")``, from the database (a server keeps
  it 5 s: most requests cost nothing);
- end to end: a real server (``python -m server``, on a Redis of its own) asked by websocket
  clients in this process, ``profile`` and ``leaderboard`` (as served: a process reads a
  leaderboard at most every 5 s), from sending the request to receiving the answer (its
  decoding, with every field checked, included);

and prints the median and p99 of each, then the median over the runs. It also downloads
star's games once (``/@/star/games.txt``) and prints its time and size, and the Python memory
``Profiles.download`` takes at most for them (tracemalloc). ``--explain`` prints the
databases' plans of the queries.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import functools
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from sqlalchemy import bindparam, select, text, update

from hive import Game
from protocol import (
    LEADERBOARD_SHOWN,
    PROFILE_PAGE,
    GetLeaderboard,
    GetProfile,
    Leaderboard,
    Profile,
    Seat,
    TimeControl,
)
from protocol.client import Client
from server.archive import queries as profile_queries
from server.archive.db import tables
from server.archive.db.database import Database
from server.archive.games import Archive
from server.embedded import RedisProcess
from server.game.rating import LEADERBOARD_WEEKS
from server.requests.profiles import Profiles
from server.storage.store import Store
from tests.server.conftest import free_port
from tests.server.postgres import PostgresProcess
from tests.server.support import RESULTS, ServerProcess, finished

STAR = "57a5000000000000"
DAY_MS = 24 * 3600 * 1000
LEVELS = ("beginner", "easy", "medium", "hard", "expert")
OTHERS = 3
"""Games between other players, per game of star's."""


def player_id(n: int) -> str:
    return f"{n:016x}"


def move_lists(count: int, rng: random.Random) -> list[list[str]]:
    """``count`` games of 30 to 80 random legal moves (their moves are reused)."""
    found = []
    for _ in range(count):
        game = Game("Base+MLP")
        moves: list[str] = []
        length = rng.randint(30, 80)
        while len(moves) < length and not game.is_over():
            move = rng.choice(game.legal_moves())
            moves.append(game.move_string(move))
            game.push(move)
        found.append(moves)
    return found


@dataclasses.dataclass
class Filled:
    url: str
    star_games: int
    players: int


async def fill(url: str, games: int, players: int, rng: random.Random) -> Filled:
    """A fresh database at ``url`` with star's games and the rated players."""
    database = Database(url)
    await database.migrate()
    now = int(time.time() * 1000)
    try:
        async with database.engine.begin() as connection:
            accounts = [
                {
                    "player": player_id(n),
                    "name": f"player{n:05d}",
                    "name_key": f"player{n:05d}",
                    "password": "not a hash",
                    "bot": n % 50 == 0,
                    "created": now - 400 * DAY_MS,
                    "password_changed": now - 400 * DAY_MS,
                }
                for n in range(players)
            ]
            accounts.append({**accounts[0], "player": STAR, "name": "star", "name_key": "star"})
            await connection.execute(tables.accounts.insert(), accounts)
            ratings = []
            for n in range(players):
                kind = n % 10
                updated = now - (40 * DAY_MS if kind == 9 else rng.randint(0, 20) * DAY_MS)
                rd = 200.0 if kind == 8 else rng.uniform(45, 105)
                for speed in ("blitz", "rapid") if n % 2 else ("blitz",):
                    ratings.append(
                        {
                            "player": player_id(n),
                            "speed": speed,
                            "rating": rng.gauss(1500, 250),
                            "rd": rd,
                            "volatility": 0.06,
                            "games": rng.randint(10, 500),
                            "updated": updated,
                            "opponents": rng.randint(1, 60),  # a few too few to be listed
                        }
                    )
            await connection.execute(tables.ratings.insert(), ratings)
        archive = Archive(Store(aioredis.Redis()), database)  # this Redis is never asked
        lists = move_lists(40, rng)
        star = Seat(STAR, "star", account="account")
        start = now - games * 600_000
        rated: list[dict[str, Any]] = []
        history: list[dict[str, Any]] = []
        for n in range(games):
            if n % 10 == 9:
                level = LEVELS[n % len(LEVELS)]
                other = Seat(f"bot:{level}", f"{level} bot", level, account="bot")
            else:
                m = rng.randrange(min(players, 2000))
                other = Seat(player_id(m), f"player{m:05d}", account="account")
            white, black = (star, other) if n % 2 else (other, star)
            ended = start + n * 600_000
            record = finished(
                f"s{n:07d}",
                white,
                black,
                rng.choice(RESULTS),
                "queen",
                ended,
                time=TimeControl("clock", 180, 2),
                moves=lists[n % len(lists)],
                game_type="Base+MLP",
                seed=n,
            )
            assert await archive.write(record, now=ended + 1000)
            if other.bot is None:
                change = rng.uniform(-15, 15)
                rated.append(
                    {
                        "gid": record.id,
                        "white_rating": rng.gauss(1500, 200),
                        "white_rd": 60.0,
                        "white_change": change,
                        "black_rating": rng.gauss(1500, 200),
                        "black_rd": 60.0,
                        "black_change": -change,
                    }
                )
                history.append(
                    {
                        "player": STAR,
                        "game": record.id,
                        "speed": "blitz",
                        "at": ended,
                        "rating": 1500 + n / 100,
                        "rd": 60.0,
                    }
                )
        async with database.engine.begin() as connection:
            await connection.execute(
                update(tables.games)
                .where(tables.games.c.id == bindparam("gid"))
                .values(
                    rated=True,
                    speed="blitz",
                    **{key: bindparam(key) for key in rated[0] if key != "gid"},
                ),
                rated,
            )
            await connection.execute(tables.rating_history.insert(), history)
            await connection.execute(
                tables.ratings.insert(),
                [
                    {
                        "player": STAR,
                        "speed": "blitz",
                        "rating": 1600.0,
                        "rd": 50.0,
                        "volatility": 0.06,
                        "games": len(history),
                        "updated": now,
                        "opponents": 40,
                    }
                ],
            )
            # Three times as many games between other players: star's rows, with new ids and
            # players.
            found = await connection.execute(select(tables.games))
            star_rows = [dict(row) for row in found.mappings()]
            rows = []
            for n in range(OTHERS * len(star_rows)):
                a, b = player_id(2000 + n % 8000), player_id(2000 + (n * 7 + 1) % 8000)
                row = {**star_rows[n % len(star_rows)], "id": f"o{n:07d}", "white": a, "black": b}
                row.update(white_name="a", black_name="b", white_level=None, black_level=None)
                rows.append(row)
            people = {r["white"] for r in rows} | {r["black"] for r in rows}
            await connection.execute(
                database.insert(tables.players).on_conflict_do_nothing(),
                [{"id": p, "name": "x", "kind": "account", "created": now} for p in people],
            )
            await connection.execute(tables.games.insert(), rows)
        # What autovacuum (PostgreSQL) and ``PRAGMA optimize`` (SQLite) do in time.
        async with database.engine.connect() as connection:
            connection = await connection.execution_options(isolation_level="AUTOCOMMIT")
            vacuum = "VACUUM ANALYZE" if database.dialect == "postgresql" else "ANALYZE"
            await connection.execute(text(vacuum))
    finally:
        await database.close()
    return Filled(url, games, players)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def p99(took: list[float]) -> float:
    ordered = sorted(took)
    return ordered[max(0, int(len(ordered) * 0.99) - 1)]


async def timed(samples: int, work: Callable[[], Awaitable[Any]]) -> list[float]:
    took = []
    for _ in range(samples):
        started = time.perf_counter()
        await work()
        took.append(time.perf_counter() - started)
    return took


async def explain(database: Database) -> None:
    """Print the plan of each query a profile and a leaderboard make."""
    prefix = "EXPLAIN QUERY PLAN " if database.dialect == "sqlite" else "EXPLAIN "
    queries = profile_queries.explained("star", STAR, "blitz")
    async with database.engine.connect() as connection:
        for name, query in queries.items():
            compiled = query.compile(
                dialect=database.engine.dialect, compile_kwargs={"literal_binds": True}
            )
            rows = (await connection.execute(text(prefix + str(compiled)))).all()
            print(f"  {name}:")
            for row in rows:
                print("    " + " | ".join(str(value) for value in row))


@contextlib.asynccontextmanager
async def server(url: str, folder: Path) -> AsyncIterator[str]:
    """A server process (``python -m server``) on the database at ``url`` and a Redis of its
    own: its websocket URL."""
    redis_process = RedisProcess(folder / "redis", port=free_port(), persist=False)
    redis_process.start()
    process = ServerProcess(
        *("--port", str(free_port()), "--redis-url", redis_process.url),
        *("--database-url", url, "--data", str(folder / "data"), "--bot-workers", "1"),
        # every client here is a new guest, from one address, asking one lookup after another
        *("--guests-per-address", "10000", "--connections-per-address", "1000"),
        *("--lookups-per-address", "100000"),
    )
    try:
        await process.start()
        yield process.ws_url
    finally:
        await process.stop()
        redis_process.stop()


async def end_to_end(url: str, samples: int, folder: Path) -> tuple[list[float], list[float]]:
    """Profile and leaderboard requests to a real server: seconds of each round trip. The
    requests go one at a time, spread over connections (each may ask 10 at once)."""
    async with server(url, folder) as ws_url, contextlib.AsyncExitStack() as stack:
        per = 8  # requests a connection (within its burst)
        clients = [
            await stack.enter_async_context(Client.connect(ws_url, nickname=f"b{n}"))
            for n in range((2 * samples + per - 1) // per + 1)
        ]
        turn = iter(client for client in clients for _ in range(per))

        async def ask_profile() -> None:
            client = next(turn)
            await client.send(GetProfile("star"))
            found = await client.expect(Profile)
            assert len(found.games) == PROFILE_PAGE

        async def ask_board() -> None:
            client = next(turn)
            await client.send(GetLeaderboard("blitz"))
            found = await client.expect(Leaderboard)
            assert len(found.players) == LEADERBOARD_SHOWN

        await ask_profile()  # warm up
        return await timed(samples, ask_profile), await timed(samples, ask_board)


async def download(url: str, folder: Path) -> str:
    """Star's games downloaded once through a real server (its time and size), and once
    from ``Profiles.download`` under tracemalloc (the Python memory it takes at most)."""
    async with server(url, folder) as ws_url:
        http_url = ws_url.replace("ws://", "http://").removesuffix("/ws")
        started = time.perf_counter()
        body = await asyncio.to_thread(_fetch, f"{http_url}/@/star/games.txt")
        took = time.perf_counter() - started
    database = Database(url)
    try:
        tracemalloc.start()
        found = await Profiles(database).download("star")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        await database.close()
    assert found is not None and found.body == body
    return (
        f"download of {found.games} games: {took:.2f} s, {len(body) / 1e6:.1f} MB; "
        f"Python memory at most {peak / 1e6:.1f} MB (tracemalloc)"
    )


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=300) as answer:
        body: bytes = answer.read()
        return body


async def run_once(url: str, samples: int, folder: Path) -> dict[str, list[float]]:
    database = Database(url)
    reader = Profiles(database)
    try:
        first = await reader.read_profile("star")
        assert first is not None and len(first.games) == PROFILE_PAGE
        assert first.total_games > 0
        board = await reader.read_leaderboard("blitz")
        assert len(board.players) == LEADERBOARD_SHOWN and board.weeks == LEADERBOARD_WEEKS
        took = {
            "profile": await timed(samples, lambda: reader.read_profile("star")),
            "leaderboard": await timed(samples, lambda: reader.read_leaderboard("blitz")),
        }
    finally:
        await database.close()
    e2e_profile, e2e_board = await end_to_end(url, samples, folder)
    took["profile end to end"] = e2e_profile
    took["leaderboard end to end"] = e2e_board
    return took


async def report(
    kind: str,
    runs: int,
    run_once: Callable[[Path], Awaitable[dict[str, list[float]]]],
    folder: Path,
) -> bool:
    """Run ``run_once`` (a folder of its own in ``folder``: its times by figure) ``runs``
    times, print each figure's median and p99 in each run, then their medians over the runs;
    whether each figure's p99 (that median) is under 50 ms."""
    medians: dict[str, list[float]] = {}
    p99s: dict[str, list[float]] = {}
    for run in range(runs):
        for what, values in (await run_once(folder / f"{kind}-run{run}")).items():
            median, high = statistics.median(values), p99(values)
            medians.setdefault(what, []).append(median)
            p99s.setdefault(what, []).append(high)
            print(
                f"{kind} run {run + 1}: {what}: {len(values)} samples, "
                f"median {ms(median)}, p99 {ms(high)}"
            )
    ok = True
    for what in medians:
        high = statistics.median(p99s[what])
        ok = ok and high < 0.050
        print(
            f"{kind}: {what}, medians of {runs} runs: median "
            f"{ms(statistics.median(medians[what]))}, p99 {ms(high)}"
        )
    return ok


async def bench(games: int, players: int, samples: int, runs: int, show_plans: bool) -> bool:
    postgres = PostgresProcess()
    postgres.start()
    ok = True
    try:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            for kind in ("sqlite", "postgresql"):
                if kind == "sqlite":
                    url = f"sqlite+aiosqlite:///{folder / 'bench.sqlite3'}"
                else:
                    url = postgres.create()
                started = time.perf_counter()
                await fill(url, games, players, random.Random(1))
                print(
                    f"{kind}: {games} games of star, {players} rated players: "
                    f"filled in {time.perf_counter() - started:.0f} s"
                )
                if show_plans:
                    database = Database(url)
                    await explain(database)
                    await database.close()
                ok &= await report(kind, runs, functools.partial(run_once, url, samples), folder)
                print(f"{kind}: " + await download(url, folder / "download"))
                load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
                print(f"{kind}: the machine's load average then: {load} ({os.cpu_count()} cores)")
    finally:
        postgres.remove()
    print("p99 under 50 ms everywhere: " + ("yes" if ok else "NO"))
    return ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.profiles", description=__doc__)
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--players", type=int, default=10_000)
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--explain", action="store_true")
    args = p.parse_args(argv)
    ok = asyncio.run(bench(args.games, args.players, args.samples, args.runs, args.explain))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
