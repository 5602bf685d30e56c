"""Logins as an attacker sends them: what a stream of password checks costs the server.

    python -m bench.logins [--runs 3] [--rate 500] [--seconds 60] [--addresses 1]
        [--patience 1.0] [--hash-workers 1] [-- SERVER FLAGS...]

Each run starts a Redis and a server process (``python -m server`` with its default limits,
trusting 127.0.0.1 as a proxy so that each client says its address in ``X-Forwarded-For``),
makes one account, lets the server sit idle for ``--idle`` seconds, then opens ``--rate``
connections a minute for ``--seconds``, paced evenly and never waiting for each other, each
of which sends a ``login`` with a wrong password (at the account, or at an unknown name, in
turn), waits at most ``--patience`` seconds for the answer and hangs up. They come from one
address (``--addresses 1``, issue 33's case: the limits per address refuse most of them before
any hash), or spread over as many addresses as given (``--addresses 500``: each under its
limits, so that every login reaches the password pool, whose size then bounds the cost).
Flags after ``--`` go to the server (``-- --hash-workers 2``).

It prints, for each run, the server's CPU share (its CPU seconds over the seconds of the
stream, 100% = one core) beside its idle share, its RSS idle, at its highest (sampled every
50 ms) and after the stream, and how the logins were answered; then the medians over the runs.
The issue's bar: a bounded CPU share, and the RSS within 64 MiB of idle. A hash in flight
holds 64 MiB of its own (argon2id's memory cost) until it ends: so the bar is read as the RSS
at its highest within 64 MiB of idle beyond the pool's hashes (``--hash-workers`` x 64 MiB),
and after the stream within 64 MiB of idle.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus, WebSocketException

from bench.load import ServerProcess, cpu_seconds, free_port, rss_bytes
from protocol import Error, LogIn, SignUp, Welcome, decode_server, encode
from protocol.client import Client
from server.embedded import RedisProcess

MIB: Final = 1024 * 1024
RSS_BAR: Final = 64 * MIB
HASH_MEMORY: Final = 64 * MIB
"""What one argon2id hash holds while it runs (``argon2-cffi``'s default memory cost)."""
ACCOUNT: Final = "target_1"
PASSWORD: Final = "the right password"


@dataclass
class Figures:
    """What one run measured."""

    cpu_idle: float = 0.0  # share of a core
    cpu_stream: float = 0.0
    rss_idle: int = 0
    rss_peak: int = 0
    rss_end: int = 0
    sent: int = 0
    answers: Counter[str] = field(default_factory=Counter)


def _address(n: int, addresses: int) -> dict[str, str]:
    k = n % addresses
    return {"X-Forwarded-For": f"10.{k // 65536 % 256}.{k // 256 % 256}.{k % 256}"}


async def _login(url: str, n: int, args: argparse.Namespace, answers: Counter[str]) -> None:
    name = ACCOUNT if n % 2 == 0 else f"nobody{n}"
    try:
        async with connect(
            url, compression=None, additional_headers=_address(n, args.addresses)
        ) as ws:
            await ws.send(encode(LogIn(name, f"guess number {n}")))
            try:
                async with asyncio.timeout(args.patience):
                    answer = decode_server(await ws.recv(decode=False))
            except TimeoutError:
                answers["hung up before an answer"] += 1
                return
            if isinstance(answer, Error):
                busy = " (busy)" if "busy" in answer.message else ""
                answers[f"{answer.code.value}{busy}"] += 1
            elif isinstance(answer, Welcome):
                answers["welcome"] += 1
    except InvalidStatus as refused:
        answers[f"handshake {refused.response.status_code}"] += 1
    except (OSError, WebSocketException) as error:
        answers[f"connection {type(error).__name__}"] += 1


async def _sample_rss(pid: int, figures: Figures, stop: asyncio.Event) -> None:
    while not stop.is_set():
        figures.rss_peak = max(figures.rss_peak, rss_bytes(pid))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.05):
                await stop.wait()


async def one_run(args: argparse.Namespace, folder: Path) -> Figures:
    figures = Figures()
    redis = RedisProcess(folder / "redis", port=free_port())
    redis.start()
    flags = ("--hash-workers", str(args.hash_workers), *args.server)
    server = ServerProcess(folder, redis.url, bot_workers=1, extra=flags)
    server.launch()
    try:
        await asyncio.to_thread(server.wait_ready)
        url = server.ws_url
        async with Client.connect(url, nickname="owner") as owner:
            await owner.send(SignUp(ACCOUNT, PASSWORD))
            await owner.recv()
        before, clock = cpu_seconds(server.pid), time.perf_counter()
        await asyncio.sleep(args.idle)  # the server idle
        figures.cpu_idle = (cpu_seconds(server.pid) - before) / (time.perf_counter() - clock)
        figures.rss_idle = figures.rss_peak = rss_bytes(server.pid)
        stop = asyncio.Event()
        sampler = asyncio.create_task(_sample_rss(server.pid, figures, stop))
        logins: set[asyncio.Task[None]] = set()
        count = int(args.rate * args.seconds / 60)
        before, start = cpu_seconds(server.pid), time.perf_counter()
        for n in range(count):
            await asyncio.sleep(max(0.0, start + n * 60 / args.rate - time.perf_counter()))
            task = asyncio.create_task(_login(url, n, args, figures.answers))
            logins.add(task)
            task.add_done_callback(logins.discard)
        figures.sent = count
        await asyncio.sleep(max(0.0, start + args.seconds - time.perf_counter()))
        figures.cpu_stream = (cpu_seconds(server.pid) - before) / (time.perf_counter() - start)
        await asyncio.gather(*logins)
        await asyncio.sleep(3)  # hashes queued or running, finished
        figures.rss_end = rss_bytes(server.pid)
        stop.set()
        await sampler
    finally:
        server.stop()
        redis.stop()
    return figures


def report(n: int, f: Figures) -> None:
    print(
        f"run {n}: {f.sent} logins; server CPU {f.cpu_stream:.0%} of a core during them "
        f"(idle {f.cpu_idle:.0%}); RSS idle {f.rss_idle / MIB:.0f} MiB, highest "
        f"{(f.rss_peak - f.rss_idle) / MIB:+.1f}, after {(f.rss_end - f.rss_idle) / MIB:+.1f}"
    )
    print("  answers: " + ", ".join(f"{k} {v}" for k, v in sorted(f.answers.items())))


async def main_async(args: argparse.Namespace) -> int:
    runs = []
    for n in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="hive-logins-") as folder:
            figures = await one_run(args, Path(folder))
        report(n, figures)
        runs.append(figures)
    cpu = statistics.median(f.cpu_stream for f in runs)
    peak = statistics.median(f.rss_peak - f.rss_idle for f in runs)
    after = statistics.median(f.rss_end - f.rss_idle for f in runs)
    print(
        f"median of {len(runs)}: server CPU {cpu:.0%} of a core; RSS at the highest "
        f"{peak / MIB:+.1f} MiB over idle, after the stream {after / MIB:+.1f} MiB"
    )
    hashes = args.hash_workers * HASH_MEMORY
    ok = all(
        f.rss_peak - f.rss_idle <= hashes + RSS_BAR and f.rss_end - f.rss_idle <= RSS_BAR
        for f in runs
    )
    print(
        f"bar {'met' if ok else 'NOT met'}: RSS within 64 MiB of idle after the stream, and at "
        f"the highest beyond the pool's {hashes // MIB} MiB of hashes"
    )
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="(default %(default)s)")
    parser.add_argument("--rate", type=float, default=500.0, help="logins a minute")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long they come")
    parser.add_argument("--addresses", type=int, default=1, help="addresses they come from")
    parser.add_argument(
        "--patience", type=float, default=1.0, help="seconds a login waits for its answer"
    )
    parser.add_argument(
        "--hash-workers", type=int, default=1, help="the server's password threads (default 1)"
    )
    parser.add_argument("--idle", type=float, default=5.0, help="seconds idle before them")
    parser.add_argument("server", nargs="*", help="flags for the server (after --)")
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
