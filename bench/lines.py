"""How soon the engine lines reach each depth on typical mid-game positions.

    python -m bench.lines [--positions N] [--depth D] [--count N] [--pool WORKERS] [--repeat R]

Each position (``bench.ai.positions``: mid-game Base+MLP positions of real games, both
Queens down) is analysed by ``ai.analysis.generate_lines`` (the best ``--count`` moves, K =
``LINES_BRANCHING``, a fresh table) up to ``--depth``; the wall-clock seconds from the start
until each depth completes are printed per position, then their medians and largest.

With ``--pool WORKERS`` the lines are searched as the analysis board's engine runs search
them (``server.requests.analysis``): one job a depth, ``ai.lines.lines_at_depth`` through
``ai.pool.BotPool.run`` (background priority) on a pool of that many worker processes, each
job replaying the position and searching with the table its worker kept; the seconds count
from the run's start, each job's wait and transfer included. ``--repeat R`` analyses each
position R times (each time a new position key for the workers' tables, so none is reused)
and takes the median per position and depth.

With ``--server ws://HOST:PORT/ws`` the lines come from a running server, as the analysis
board gets them: one connection sends ``engine`` for each position (after the server's first
answer, then at most one a second: its limit) and times each ``lines`` from the request;
each run is stopped once it reached ``--depth``. ``--cpu`` (searched here only): the
process's CPU seconds instead of the wall clock's, what a core of its own would take on a
machine busy with other work.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from ai.analysis import LINES_BRANCHING, generate_lines
from ai.lines import Found, lines_at_depth
from ai.pool import BotPool
from bench.ai import positions
from bench.review import build
from hive import Game
from protocol import EngineDone, Error, GetPosition, Lines, Position, StartEngine, StopEngine
from protocol.client import Client


def in_process(game: Game, count: int, depth: int, cpu: bool = False) -> list[float]:
    """Seconds from the start until each depth completes, searched here (with ``cpu``: this
    process's CPU seconds, what a core of its own would take, whatever else runs)."""
    clock = time.process_time if cpu else time.perf_counter
    start = clock()
    return [clock() - start for _ in generate_lines(game, count=count, max_depth=depth)]


async def through_pool(pool: BotPool, game: Game, count: int, depth: int, tag: str) -> list[float]:
    """Seconds from the start until each depth completes, a job a depth in the pool (as an
    engine run of the analysis board)."""
    head = game.game_string().split(";")
    moves = [m for m in head[3:] if m]
    start = time.perf_counter()
    deadline = time.monotonic() + 60.0
    reached = []
    for d in range(1, depth + 1):
        found = await pool.run(lines_at_depth, head[0], moves, d, count, deadline, tag)
        if not isinstance(found, Found):
            break
        reached.append(time.perf_counter() - start)
    return reached


async def through_server(url: str, games: list[Game], args: argparse.Namespace) -> list[Any]:
    """Per position, per repetition, the seconds until each depth, from a running server."""
    results = []
    async with Client.connect(url, nickname="bench-lines") as client:
        await client.send(GetPosition("Base"))  # its positions' worker started
        await client.expect(Position, timeout=60)
        asked = 0
        for game in games:
            runs = []
            for _ in range(args.repeat):
                asked += 1
                began = time.perf_counter()
                await client.send(StartEngine(game_string=game.game_string(), id=asked))
                reached: list[float] = []
                while len(reached) < args.depth:
                    message = await client.recv(timeout=120)
                    if isinstance(message, Lines) and message.id == asked:
                        reached.append(time.perf_counter() - began)
                    elif isinstance(message, EngineDone) and message.id == asked:
                        break
                    elif isinstance(message, Error):
                        raise SystemExit(f"the server refused: {message.message}")
                await client.send(StopEngine(asked))
                await client.expect(EngineDone)
                runs.append(reached)
                await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - began)))  # its limit
            results.append(runs)
    return results


async def measure(args: argparse.Namespace, games: list[Game]) -> list[list[list[float]]]:
    """Per position, per repetition, the seconds until each depth."""
    if args.server:
        return await through_server(args.server, games, args)
    pool = BotPool(args.pool) if args.pool else None
    try:
        if pool is not None:  # the workers started (and warm) before the clock runs
            warm = time.monotonic() + 10
            await asyncio.gather(
                *(pool.run(lines_at_depth, "Base", [], 1, 1, warm) for _ in range(args.pool))
            )
        results = []
        for game in games:
            runs = []
            for repeat in range(args.repeat):
                if pool is None:
                    runs.append(in_process(game, args.count, args.depth, args.cpu))
                else:  # each run a table of its own (another tag), as a new position's
                    tag = f"bench {repeat}"
                    runs.append(await through_pool(pool, game, args.count, args.depth, tag))
            results.append(runs)
        return results
    finally:
        if pool is not None:
            pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=10, help="how many positions")
    parser.add_argument("--depth", type=int, default=4, help="the deepest search")
    parser.add_argument("--count", type=int, default=3, help="lines shown")
    parser.add_argument("--pool", type=int, default=0, help="search in a pool of N workers")
    parser.add_argument("--repeat", type=int, default=1, help="runs per position (median)")
    parser.add_argument("--server", help="ask a running server's engine (its /ws URL)")
    parser.add_argument("--cpu", action="store_true", help="CPU seconds, not wall (here only)")
    args = parser.parse_args()
    games = positions(args.positions)
    where = f"through a pool of {args.pool} worker(s), a job a depth" if args.pool else "here"
    where = f"by the server at {args.server}" if args.server else where
    where += ", CPU seconds" if args.cpu and not (args.pool or args.server) else ""
    print(
        f"{len(games)} mid-game Base+MLP positions, {args.count} lines, K={LINES_BRANCHING}, "
        f"{build()} build, searched {where}; seconds until each depth completes"
        f"{f' (median of {args.repeat})' if args.repeat > 1 else ''}"
    )
    print("position " + " ".join(f"{d:>7}" for d in range(1, args.depth + 1)))
    reached: dict[int, list[float]] = {d: [] for d in range(1, args.depth + 1)}
    for number, runs in enumerate(asyncio.run(measure(args, games))):
        row = []
        for depth in range(1, args.depth + 1):
            times = [run[depth - 1] for run in runs if len(run) >= depth]
            if len(times) == len(runs):
                seconds = statistics.median(times)
                reached[depth].append(seconds)
                row.append(f"{seconds:7.3f}")
        print(f"{number:8} " + " ".join(row))
    for depth, values in reached.items():
        if values:
            print(
                f"depth {depth}: median {statistics.median(values):.3f} s, "
                f"largest {max(values):.3f} s ({len(values)} positions)"
            )


if __name__ == "__main__":
    main()
