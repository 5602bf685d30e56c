"""Redis failing over under play, and what waiting for a replica costs.

    python -m bench.failover [--runs 3] [--games 50] [--down-after 2000] [--compare-games 50]

Each run starts Debian's ``redis-server`` as a primary, a replica and three sentinels
(``tests.server.sentinels``; the sentinels' ``down-after-milliseconds`` ``--down-after``) and
two ``hive-server`` processes on them through ``redis+sentinel://`` (``--on-no-replica
acknowledge``: the new primary has no replica left, and the games are to go on), plays
``--games`` games across the two (White on one, Black on the other; random legal moves, a
move refused ``unavailable`` sent again) and kills the primary (SIGKILL) once 300 moves have
been acknowledged. It measures:

- the seconds from the kill to the first acknowledgement of a move sent after it (so
  committed on the new primary);
- the acknowledged moves lost: updates any client saw that the new primary's games do not
  hold (0 is the promise);
- the moves refused ``unavailable`` during the failover, and how many of them were then
  played (sent again).

Then (``--compare-games``, 0: not) the same topology without a kill, the same games played
to their end with ``--redis-replicas 1`` (WAIT) and ``--redis-replicas 0``: the CPU the two
server processes used a move (user + system, from /proc) and the p50 and p99 from a move sent
to its update. Prints each run and the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from tests.server.conftest import free_port
from tests.server.sentinels import Games, Topology, lost, stored_games
from tests.server.support import ServerProcess

KILL_AFTER = 300
"""Moves acknowledged before the primary is killed."""


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process (and its children that ended)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


@contextlib.asynccontextmanager
async def servers(topology: Topology, data: str, *extra: str) -> AsyncIterator[list[ServerProcess]]:
    started = [
        ServerProcess(
            *("--port", str(free_port()), "--redis-url", topology.url, "--data", data),
            *("--bot-workers", "1", "--connections-per-address", "1000"),
            *("--guests-per-address", "1000", *extra),
        )
        for _ in range(2)
    ]
    try:
        for server in started:
            await server.start()
        yield started
    finally:
        for server in started:
            if server.process is not None:
                await server.stop()


async def failover_run(games: int, down_after: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="hive-failover-") as folder:
        topology = Topology(Path(folder) / "ha", down_after_ms=down_after)
        topology.start()
        try:
            async with (
                servers(topology, f"{folder}/data", "--on-no-replica", "acknowledge") as procs,
                Games([p.ws_url for p in procs], games, seed=7) as playing,
            ):
                task = asyncio.create_task(playing.play())
                while len(playing.played.acknowledged) < KILL_AFTER:
                    await asyncio.sleep(0.01)  # the players run on this loop
                killed_at = time.monotonic()
                topology.primary.kill()
                async with asyncio.timeout(300):
                    played = await task
            first = played.acknowledged_after(killed_at)
            assert first is not None, "no move acknowledged after the kill"
            stored = await stored_games(topology.replica.address, list(played.seen))
            return {
                "kill to first ack (s)": first,
                "acknowledged moves lost": len(lost(played, stored)),
                "refused unavailable": played.unavailable,
                "refused, then played": played.refused_then_played,
                "games ended": len(played.ended),
            }
        finally:
            topology.stop()


async def compare_run(games: int, replicas: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="hive-wait-") as folder:
        topology = Topology(Path(folder) / "ha")
        topology.start()
        try:
            async with (
                servers(topology, f"{folder}/data", "--redis-replicas", str(replicas)) as procs,
                Games([p.ws_url for p in procs], games, seed=8) as playing,
            ):
                pids = [p.process.pid for p in procs if p.process is not None]
                before = sum(cpu_seconds(pid) for pid in pids)
                started = time.monotonic()
                played = await playing.play()
                took = time.monotonic() - started
                cpu = sum(cpu_seconds(pid) for pid in pids) - before
            moves = len(played.latencies)
            latencies = sorted(played.latencies)
            return {
                "moves": moves,
                "moves/s": moves / took,
                "CPU ms a move": cpu / moves * 1000,
                "p50 ms": latencies[len(latencies) // 2] * 1000,
                "p99 ms": latencies[int(len(latencies) * 0.99)] * 1000,
            }
        finally:
            topology.stop()


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def show(title: str, figures: dict[str, float]) -> None:
    print(f"{title}: " + ", ".join(f"{k} {v:.3g}" for k, v in figures.items()), flush=True)


async def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.failover", description=__doc__)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--games", type=int, default=50, help="0: no failover runs")
    p.add_argument("--down-after", type=int, default=2000, help="sentinels' down-after, ms")
    p.add_argument("--compare-games", type=int, default=50, help="0: no WAIT comparison")
    args = p.parse_args(argv)
    runs = []
    for n in range(args.runs if args.games else 0):
        runs.append(await failover_run(args.games, args.down_after))
        show(f"failover run {n + 1}", runs[-1])
    if runs:
        show("failover medians", medians(runs))
    if not args.compare_games:
        return
    for replicas in (1, 0):
        compared = []
        for n in range(args.runs):
            compared.append(await compare_run(args.compare_games, replicas))
            show(f"--redis-replicas {replicas} run {n + 1}", compared[-1])
        show(f"--redis-replicas {replicas} medians", medians(compared))


if __name__ == "__main__":
    asyncio.run(main())
