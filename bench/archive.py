"""The archive's figures: writing a finished game, and Redis staying flat.

    python -m bench.archive [--writes 200] [--games 10000] [--pairs 20] [--runs 3]
                            [--skip-writes] [--skip-flat] [--rated]

- **Writing a finished game** (``Archive.write``: its players and its row, one transaction),
  on a SQLite file and on a PostgreSQL server of its own (Debian's, started in a temporary
  folder on a free port, as the tests start it): ``--writes`` games of 60 moves each, one
  after the other; per run the median and p99 of one write, and the median of ``--runs`` runs.
  With ``--rated``, rated games between 50 accounts: each write also rates its game
  (``server.archive.ratings.rate``: the two ratings rows locked and updated, their history, the
  game's figures) in the same transaction.
- **Redis stays flat**: a server process (``python -m server``, grace period 1 s) on a Redis
  of its own; ``--pairs`` pairs of guests connect and finish a first game each, then Redis's
  ``used_memory`` is read; then they play ``--games`` games to their end (two moves, then a
  resignation), and once every game is archived and the grace period is over, ``used_memory``
  is read again, and every key of Redis is looked at: none may belong to a finished game.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import redis.asyncio as aioredis
from sqlalchemy import func, select

from hive import Game
from protocol import (
    AccountKind,
    CreateGame,
    JoinGame,
    Play,
    Resign,
    Seat,
    TimeControl,
    Unwatch,
    Update,
)
from protocol.client import Client
from server.archive.db import tables
from server.archive.db.database import Database
from server.archive.games import Archive
from server.embedded import RedisProcess
from server.game.record import Record
from server.storage.store import Store
from tests.server.conftest import free_port
from tests.server.postgres import PostgresProcess
from tests.server.support import RESULTS, ServerProcess
from tests.server.support import finished as finished_record


def finished(n: int, rng: random.Random, *, rated: bool = False) -> Record:
    """A finished game of 60 random moves between two guests (``rated``: a rated game
    between two accounts)."""
    game = Game("Base+MLP")
    moves: list[str] = []
    while len(moves) < 60 and not game.is_over():
        move = rng.choice(game.legal_moves())
        moves.append(game.move_string(move))
        game.push(move)
    kind: AccountKind = "account" if rated else "guest"
    return finished_record(
        f"b{n:07d}",
        Seat(f"p{n % 50}", f"white{n % 50}", account=kind),
        Seat(f"q{n % 50}", f"black{n % 50}", account=kind),
        rng.choice(RESULTS),
        "resign",
        int(time.time() * 1000),
        time=TimeControl("clock", 300, 5),
        moves=moves,
        game_type="Base+MLP",
        rated=rated,
        seed=n,
    )


async def accounts(database: Database, records: list[Record]) -> None:
    """The accounts of the rated ``records``' players (a rated game is between accounts)."""
    players = {seat.player for r in records for seat in (r.white, r.black) if seat is not None}
    rows = [
        {
            "player": player,
            "name": player,
            "name_key": player,
            "password": None,
            "bot": False,
            "created": 0,
            "password_changed": 0,
        }
        for player in sorted(players)
    ]
    async with database.engine.begin() as connection:
        await connection.execute(tables.accounts.insert(), rows)


async def write_run(url: str, records: list[Record]) -> list[float]:
    """Write ``records`` to a fresh database at ``url``: the seconds of each write."""
    database = Database(url)
    await database.migrate()
    if any(record.rated for record in records):
        await accounts(database, records)
    # This Redis is never asked; every rated game rates, however many of a pair there are.
    archive = Archive(Store(aioredis.Redis()), database, pair_games=len(records))
    took = []
    try:
        for record in records:
            started = time.perf_counter()
            assert await archive.write(record)
            took.append(time.perf_counter() - started)
        async with database.engine.connect() as connection:
            count = await connection.scalar(select(func.count()).select_from(tables.games))
            rated = await connection.scalar(
                select(func.count()).select_from(tables.games).where(tables.games.c.rated)
            )
        assert count == len(records), count
        assert rated == sum(record.rated for record in records), rated
    finally:
        await database.close()
    return took


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def bench_writes(writes: int, runs: int, rated: bool) -> None:
    rng = random.Random(1)
    records = [finished(n, rng, rated=rated) for n in range(writes)]
    postgres = PostgresProcess()
    postgres.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            for kind in ("sqlite", "postgresql"):
                medians = []
                for run in range(runs):
                    if kind == "sqlite":
                        url = f"sqlite+aiosqlite:///{Path(folder) / f'run{run}.sqlite3'}"
                    else:
                        url = postgres.create()
                    took = sorted(await write_run(url, records))
                    median = statistics.median(took)
                    medians.append(median)
                    p99 = took[int(len(took) * 0.99) - 1]
                    print(
                        f"{kind} run {run + 1}: {writes} writes, median {ms(median)}, p99 {ms(p99)}"
                    )
                print(
                    f"{kind}: writing a finished {'rated ' if rated else ''}game, "
                    f"median of {runs} runs: "
                    f"{ms(statistics.median(medians))}"
                )
    finally:
        postgres.remove()


# -- Redis stays flat ----------------------------------------------------------------------------


async def one_game(white: Client, black: Client) -> str:
    await white.send(CreateGame("Base", color="white"))
    created = await white.expect(Update)
    game = created.game
    await black.send(JoinGame(game))
    update = await _next(white, game)
    await _next(black, game)
    for mover, move in ((white, "wS1"), (black, "bS1 wS1-")):
        await mover.send(Play(game, update.version, move))
        update = await _next(white, game)
        await _next(black, game)
    await white.send(Resign(game))
    assert (await _next(white, game)).state.status == "over"
    await _next(black, game)
    for client in (white, black):
        await client.send(Unwatch(game))  # a connection watches at most 32 games
    return game


async def _next(client: Client, game: str) -> Update:
    while True:
        update = await client.expect(Update)
        if update.game == game:
            return update


async def biggest(redis: aioredis.Redis, count: int = 5) -> list[tuple[int, str]]:
    """The ``count`` keys that take most memory: (bytes, key)."""
    sizes = [
        (await redis.memory_usage(key) or 0, key.decode())
        async for key in redis.scan_iter(count=1000)
    ]
    return sorted(sizes, reverse=True)[:count]


async def windows_lapsed(redis: aioredis.Redis, timeout: float = 90) -> None:
    """Wait until the limits' windows of games created have lapsed (their keys expire)."""
    give_up = time.monotonic() + timeout
    while [key async for key in redis.scan_iter(match="hive:rate:*:create")]:
        assert time.monotonic() < give_up, "the limits' windows never lapsed"
        await asyncio.sleep(1)


async def used_memory(redis: aioredis.Redis) -> tuple[int, int]:
    """Redis's ``used_memory``, and its part ``used_memory_dataset`` (the keys, without the
    clients' buffers and Redis's own overhead)."""
    info = await redis.info("memory")
    return int(info["used_memory"]), int(info["used_memory_dataset"])


async def settled(redis: aioredis.Redis, timeout: float) -> list[bytes]:
    """Wait until no finished game waits to be archived and no game key is left (every game
    finished here); the game keys left after ``timeout`` seconds."""
    give_up = time.monotonic() + timeout
    while True:
        over = await redis.zcard("hive:over")
        left = [key async for key in redis.scan_iter(match="hive:g:*", count=1000)]
        if (not over and not left) or time.monotonic() > give_up:
            return left
        await asyncio.sleep(0.5)


@contextlib.asynccontextmanager
async def server(folder: Path) -> AsyncIterator[tuple[ServerProcess, RedisProcess]]:
    redis_process = RedisProcess(folder / "redis", port=free_port(), persist=False)
    redis_process.start()
    process = ServerProcess(
        *("--port", str(free_port()), "--redis-url", redis_process.url),
        *("--data", str(folder / "data"), "--bot-workers", "1"),
        *("--archive-grace", "1", "--archive-interval", "0.2"),
        *("--games-per-minute", "100000", "--message-rate", "10000", "--message-burst", "10000"),
        *("--guests-per-address", "10000", "--connections-per-address", "1000"),
        *("--open-games-per-address", "1000"),
    )
    await process.start()
    try:
        yield process, redis_process
    finally:
        await process.stop()
        redis_process.stop()


async def bench_flat(games: int, pairs: int) -> tuple[bool, float, float]:
    """One run: whether Redis stayed flat (no game key left, ``used_memory`` within 10% once
    the limits' windows lapsed, every game archived), and ``used_memory``'s change after the
    grace period and once the windows lapsed."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        async with server(folder) as (process, redis_process), contextlib.AsyncExitStack() as stack:
            redis = aioredis.Redis.from_url(redis_process.url)
            stack.push_async_callback(redis.aclose)
            clients = [
                (
                    await stack.enter_async_context(
                        Client.connect(process.ws_url, nickname=f"w{n}")
                    ),
                    await stack.enter_async_context(
                        Client.connect(process.ws_url, nickname=f"b{n}")
                    ),
                )
                for n in range(pairs)
            ]
            await asyncio.gather(*(one_game(w, b) for w, b in clients))  # warm-up
            assert not await settled(redis, 60)
            before, keys_before = await used_memory(redis), await redis.dbsize()
            started = time.perf_counter()
            per_pair = [games // pairs + (n < games % pairs) for n in range(pairs)]

            async def play_many(white: Client, black: Client, count: int) -> None:
                for _ in range(count):
                    await one_game(white, black)

            await asyncio.gather(
                *(play_many(w, b, c) for (w, b), c in zip(clients, per_pair, strict=True))
            )
            played = time.perf_counter() - started
            left = await settled(redis, 120)
            after, keys_after = await used_memory(redis), await redis.dbsize()
            biggest_after = await biggest(redis)
            # The limits' windows (games created by each player in the last minute: the bench
            # lifts the limit, so they hold every game of the last minute) lapse a minute
            # after the last game: live state, bounded by --games-per-minute, not kept.
            await windows_lapsed(redis)
            lapsed = await used_memory(redis)
        database = Database(f"sqlite+aiosqlite:///{folder / 'data' / 'hive.sqlite3'}")
        async with database.engine.connect() as connection:
            archived = await connection.scalar(select(func.count()).select_from(tables.games))
        await database.close()
    change = (lapsed[0] - before[0]) / before[0]
    print(
        f"Redis flat: {games} games in {played:.1f} s ({games / played:.0f}/s), "
        f"{archived} archived; game keys left: {len(left)}; keys {keys_before} -> {keys_after}; "
        f"used_memory {before[0]:,} -> {after[0]:,} bytes after the grace period "
        f"({(after[0] - before[0]) / before[0]:+.1%}; biggest keys {biggest_after[:2]}), "
        f"{lapsed[0]:,} once the limits' windows lapsed ({change:+.1%}); of which the "
        f"dataset {before[1]:,} -> {after[1]:,} -> {lapsed[1]:,} bytes"
    )
    ok = not left and abs(change) <= 0.10 and archived == games + pairs
    return ok, (after[0] - before[0]) / before[0], change


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.archive", description=__doc__)
    p.add_argument("--writes", type=int, default=200)
    p.add_argument("--games", type=int, default=10_000)
    p.add_argument("--pairs", type=int, default=20)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--skip-writes", action="store_true")
    p.add_argument("--skip-flat", action="store_true")
    p.add_argument("--rated", action="store_true", help="write rated games between accounts")
    args = p.parse_args(argv)
    ok = True
    if not args.skip_writes:
        asyncio.run(bench_writes(args.writes, args.runs, args.rated))
    if not args.skip_flat:
        results = [asyncio.run(bench_flat(args.games, args.pairs)) for _ in range(args.runs)]
        ok = all(flat for flat, _, _ in results)
        print(
            f"Redis flat, median of {args.runs} runs: used_memory "
            f"{statistics.median(r[1] for r in results):+.1%} after the grace period, "
            f"{statistics.median(r[2] for r in results):+.1%} once the limits' windows lapsed: "
            + ("flat" if ok else "NOT flat")
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
