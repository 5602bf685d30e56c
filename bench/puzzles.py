"""A puzzle served, with 100,000 puzzles in the database, on SQLite and on PostgreSQL.

    python -m bench.puzzles [--puzzles 100000] [--tried 2000] [--samples 200] [--runs 3]

For each database (a SQLite file, and a PostgreSQL server of its own: Debian's, started in a
temporary folder on a free port, as the tests start it) it fills a fresh database with
``--puzzles`` puzzles: the positions of ``tests/ai/data/win_in_two.tsv`` (real positions, won
in two) over and over, each row its own (its key), with ratings drawn around 1500 (deviation
300) and the four themes in turn; and one player, ``bench``, whose puzzle rating is 1500 and
who has tried ``--tried`` puzzles, those nearest 1500 (so the choice must skip them). Then
``ANALYZE`` (both). Then ``--runs`` runs, each timing ``--samples`` times:

- ``choice``: what the server reads for a ``puzzle`` request, from the database:
  ``server.archive.puzzles``' player's rating, the puzzle chosen near it (untried, any theme;
  then of one theme and game type), and their tries;
- end to end: a real server (``python -m server``, on a Redis of its own) asked by websocket
  clients in this process, each a new guest, ``puzzle`` (any theme) from sending the request
  to receiving the ``puzzle`` (the position computed in the positions' worker and the
  message decoded included);

and prints the median and p99 of each, then the medians over the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import select, text

from bench.forced_wins import load as won_in_two
from bench.profiles import report, server, timed
from protocol import GetPuzzle, Puzzle
from protocol.client import Client
from server.archive import puzzles
from server.archive.db import tables
from server.archive.db.database import Database
from server.game.clock import now_ms
from server.game.rating import START
from tests.server.postgres import PostgresProcess

PLAYER = "bench"
BATCH = 2000


async def fill(url: str, count: int, tried: int, rng: random.Random) -> None:
    """``count`` puzzles, and ``PLAYER``'s rating and ``tried`` tries (see the docstring)."""
    positions = []
    for game, moves in won_in_two():
        positions.append((game.game_string(), game.move_string(moves[0]), str(game.game_type)))
    database = Database(url)
    try:
        await database.migrate()
        async with database.engine.begin() as connection:
            for start in range(0, count, BATCH):
                rows = []
                for n in range(start, min(count, start + BATCH)):
                    game_string, move, game_type = positions[n % len(positions)]
                    rows.append(
                        {
                            "key": f"bench-{n}",
                            "game_type": game_type,
                            "game_string": game_string,
                            "solution": move,
                            "theme": puzzles.THEMES[n % len(puzzles.THEMES)],
                            "bugs": "Ant",
                            "source": f"bench@{n}",
                            "rating": rng.gauss(1500.0, 300.0),
                            "rd": START.rd,
                            "volatility": START.volatility,
                            "tries": 0,
                        }
                    )
                await connection.execute(tables.puzzles.insert(), rows)
            nearest = (
                await connection.execute(
                    select(tables.puzzles.c.id).order_by(text("abs(rating - 1500)")).limit(tried)
                )
            ).scalars()
            now = now_ms()
            tries = [
                {
                    "player": PLAYER,
                    "puzzle": puzzle,
                    "solved": n % 2 == 0,
                    "rating_before": 1500.0,
                    "rating_after": 1500.0,
                    "at": now - n,
                }
                for n, puzzle in enumerate(nearest)
            ]
            if tries:
                await connection.execute(tables.puzzle_tries.insert(), tries)
            await connection.execute(
                tables.puzzle_ratings.insert().values(
                    player=PLAYER,
                    rating=1500.0,
                    rd=80.0,
                    volatility=START.volatility,
                    tries=tried,
                    solved=tried // 2,
                    streak=0,
                    updated=now,
                )
            )
            await connection.execute(text("ANALYZE"))
    finally:
        await database.close()


async def choice(database: Database, theme: str | None, game_type: str | None) -> None:
    """What a ``puzzle`` request reads of the database."""
    mine = await puzzles.rating_of(database, PLAYER)
    found = await puzzles.choose(
        database, PLAYER, mine.rating.rating, theme=theme, game_type=game_type
    )
    assert found is not None
    await puzzles.history(database, PLAYER)


async def end_to_end(url: str, samples: int, folder: Path) -> list[float]:
    """``puzzle`` requests to a real server, one at a time, spread over connections (each
    may ask 20 at once): seconds of each round trip."""
    async with server(url, folder) as ws_url, contextlib.AsyncExitStack() as stack:
        per = 15
        clients = [
            await stack.enter_async_context(Client.connect(ws_url, nickname=f"p{n}"))
            for n in range(samples // per + 2)
        ]
        turn = iter(client for client in clients for _ in range(per))

        async def ask() -> None:
            client = next(turn)
            await client.send(GetPuzzle())
            found = await client.expect(Puzzle)
            assert found.position.legal

        await ask()  # warm up (the positions' worker starts)
        return await timed(samples, ask)


async def run_once(url: str, samples: int, folder: Path) -> dict[str, list[float]]:
    database = Database(url)
    try:
        took = {
            "choice, any theme": await timed(samples, lambda: choice(database, None, None)),
            "choice, win2 in Base": await timed(samples, lambda: choice(database, "win2", "Base")),
        }
    finally:
        await database.close()
    took["puzzle end to end"] = await end_to_end(url, samples, folder)
    return took


async def bench(count: int, tried: int, samples: int, runs: int) -> bool:
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
                await fill(url, count, tried, random.Random(1))
                print(
                    f"{kind}: {count} puzzles, {tried} tried by the player: "
                    f"filled in {time.perf_counter() - started:.0f} s"
                )
                ok &= await report(kind, runs, functools.partial(run_once, url, samples), folder)
                load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
                print(f"{kind}: the machine's load average then: {load} ({os.cpu_count()} cores)")
    finally:
        postgres.remove()
    print("p99 under 50 ms everywhere: " + ("yes" if ok else "NO"))
    return ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.puzzles", description=__doc__)
    p.add_argument("--puzzles", type=int, default=100_000)
    p.add_argument("--tried", type=int, default=2_000)
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    return 0 if asyncio.run(bench(args.puzzles, args.tried, args.samples, args.runs)) else 1


if __name__ == "__main__":
    sys.exit(main())
