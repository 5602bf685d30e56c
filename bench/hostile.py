"""A hostile run: the server attacked as a hostile player would, while honest games go on.

    python -m bench.hostile [--runs 3] [--phase 15] [--games 10] [--rounds 1]

Each run starts a Redis and a server process (``python -m server`` with its default limits,
trusting 127.0.0.1 as a proxy: every client here says its own address in
``X-Forwarded-For``, so an attacker with many addresses is played as such). ``--games`` games
between honest people play all along, a move a second each, and these attacks follow one
another, ``--phase`` seconds each:

1. **lobby**: 20 lobby subscribers that stop reading, while 40 guests open and cancel games
   as fast as they may;
2. **spectators**: 20 spectators of the honest games that stop reading while asking for
   snapshots (``watch`` from version 0) at their message limit, and two players who offer and
   decline draws and chat as fast as allowed, watched by them too;
3. **unknown ids**: 50 connections naming random game ids at their message limit;
4. **guests**: 2,000 guests asked for from 10 addresses;
5. **positions**: 6 clients asking for the positions of a 600-move GameString, again and
   again;
6. **idle sockets**: 1,000 TCP connections that send nothing, and 300 websockets (from 300
   addresses) that never say hello;
7. **frozen Redis**: Redis stopped (SIGSTOP) for 5 seconds, then let go;
8. **visualizer link**: ``/visualizer?src=data:...`` asked for (the page refuses the source:
   the browser tests show it; here, that the page carries its policy).

It prints, for each run, the server's RSS before the attacks (the honest games going), at its
highest and after them (once the attackers are gone and the idle sockets closed; with
``--rounds`` above 1 the attacks are made again and the RSS after each round shows whether
anything grows from round to round), what each
attack got (refusals, frames skipped), and the honest moves: how many, their latency (a move
sent to the opponent's update) and any not played; then the medians over the runs. The issue's
bar: the RSS within 64 MiB of its start, and every honest game still playing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import random
import resource
import signal
import socket
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from websockets.asyncio.client import ClientConnection, connect

from bench.load import ServerProcess, free_port, percentile, rss_bytes
from bench.loadgen import real_games
from protocol import (
    CancelGame,
    Chat,
    ClaimWin,
    CreateGame,
    Draw,
    DrawAction,
    Error,
    Hello,
    JoinGame,
    Lobby,
    Message,
    Play,
    Resign,
    Unwatch,
    Update,
    Watch,
    WatchLobby,
    encode,
)
from protocol.client import Client, ServerError
from server.embedded import RedisProcess

MIB: Final = 1024 * 1024
RSS_BAR: Final = 64 * MIB
REPETITION: Final = ["wQ \\wS1", "bQ bS1/", "wQ -wS1", "bQ bS1-"]
"""Queens going round a spider (legal again and again where no repetition draw is made: the
positions route's)."""
OPENING: Final = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]


def address(kind: int, n: int) -> dict[str, str]:
    """The headers of a client from address ``10.kind.x.y`` (the server trusts the bench)."""
    return {"X-Forwarded-For": f"10.{kind}.{n // 256 % 256}.{n % 256}"}


@dataclass
class Figures:
    """What one run measured."""

    rss_start: int = 0
    rss_peak: int = 0
    rss_end: int = 0
    rss_rounds: list[int] = field(default_factory=list)
    """The RSS after each round of attacks."""
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    unavailable: int = 0
    lost: int = 0
    playing_after: int = 0
    games: int = 0
    attacks: dict[str, Counter[str]] = field(default_factory=dict)


# -- honest games ------------------------------------------------------------------------------


class Honest:
    """Two people playing real games (``../shared/hive-vectors``) one after another, a move a
    second; each game resigned when its moves run out, and the next one started."""

    def __init__(self, url: str, n: int, figures: Figures) -> None:
        self.url = url
        self.n = n
        self.figures = figures
        self.moved_at = 0.0  # when a move of theirs was last seen played
        self.game_id = ""

    async def run(self, stop: asyncio.Event) -> None:
        games = [g for g in real_games() if len(g.moves) >= 10]
        async with (
            Client.connect(
                self.url, nickname=f"white{self.n}", headers=address(1, self.n)
            ) as white,
            Client.connect(
                self.url, nickname=f"black{self.n}", headers=address(2, self.n)
            ) as black,
        ):
            for number in itertools.count(self.n):
                if stop.is_set():
                    return
                try:
                    await self._game(white, black, games[number % len(games)], stop)
                except ServerError as error:  # Redis away as a game started or ended
                    if error.error.code != "unavailable":
                        raise
                    self.figures.unavailable += 1
                    await asyncio.sleep(1.0)  # and the next game

    async def _game(self, white: Client, black: Client, replay: Any, stop: asyncio.Event) -> None:
        await white.send(CreateGame(game_type=replay.game_type, color="white"))
        self.game_id = (await white.expect(Update)).game
        await black.send(JoinGame(self.game_id))
        await self._until(black, 0)
        update = await self._until(white, 0)
        await self._play(white, black, update, list(replay.moves), stop)
        if (await self._resync(white)).state.status == "live":
            await white.send(Resign(self.game_id))
            await self._over(white)
        for client in (white, black):  # as a person leaves the game's page
            await client.send(Unwatch(self.game_id))

    async def _play(
        self, white: Client, black: Client, update: Update, moves: list[str], stop: asyncio.Event
    ) -> None:
        ply = 0
        while ply < len(moves) and not stop.is_set() and update.state.status == "live":
            mover, other = (white, black) if ply % 2 == 0 else (black, white)
            sent = time.perf_counter()
            await mover.send(Play(self.game_id, update.version, moves[ply]))
            try:
                await self._until(mover, ply + 1)
                update = await self._until(other, ply + 1)
            except ServerError as error:  # Redis frozen: the game as it stands, and on
                if error.error.code not in ("unavailable", "stale"):
                    raise
                self.figures.unavailable += 1
                await asyncio.sleep(0.5)
                update = await self._resync(mover)
                ply = len(update.state.moves)
                continue
            self.figures.latencies.append(time.perf_counter() - sent)
            self.figures.moves += 1
            self.moved_at = time.perf_counter()
            ply += 1
            await asyncio.sleep(1.0)  # a person thinks

    async def _resync(self, client: Client) -> Update:
        """The game as it stands: the snapshot a ``watch`` brings (older updates skipped),
        asked again while Redis is away."""
        async with asyncio.timeout(60):
            while True:
                await client.send(Watch(self.game_id))
                try:
                    while True:
                        message = await client.expect(Update)
                        if message.game == self.game_id and message.snapshot:
                            return message
                except ServerError as error:
                    if error.error.code != "unavailable":
                        raise
                    await asyncio.sleep(0.5)  # Redis is away: ask again in a moment

    async def _until(self, client: Client, plies: int) -> Update:
        """The client's next update of the game with at least ``plies`` moves."""
        async with asyncio.timeout(60):
            while True:
                message = await client.expect(Update)
                if message.game == self.game_id and len(message.state.moves) >= plies:
                    return message

    async def _over(self, client: Client) -> None:
        async with asyncio.timeout(60):
            while True:
                message = await client.expect(Update)
                if message.game == self.game_id and message.state.status == "over":
                    return


# -- attackers -------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def stalled(
    url: str, nickname: str, headers: dict[str, str]
) -> AsyncIterator[ClientConnection]:
    """A client that says hello and then reads nothing (its receive buffer as small as the
    kernel allows); dropped without a closing handshake."""
    host, port = url.removeprefix("ws://").split("/")[0].split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.connect((host, int(port)))
    ws = await connect(
        url, sock=sock, max_size=None, max_queue=1, additional_headers=headers, open_timeout=30
    )
    try:
        await ws.send(encode(Hello(nickname=nickname)))
        await ws.recv()
        yield ws
    finally:
        ws.transport.abort()


async def paced(send: Any, rate: float, stop: asyncio.Event) -> int:
    """Call ``send()`` ``rate`` times a second until ``stop``; how many times."""
    sent = 0
    start = time.perf_counter()
    while not stop.is_set():
        await send()
        sent += 1
        delay = start + sent / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
    return sent


async def drain(client: Client, stop: asyncio.Event, seen: Counter[str]) -> None:
    """Read everything the client is sent, counting the errors by code."""
    with contextlib.suppress(Exception):
        while not stop.is_set():
            message = await client.recv(timeout=3600)
            if isinstance(message, Error):
                seen[message.code.value] += 1


async def attack_lobby(url: str, seconds: float, seen: Counter[str]) -> None:
    stop = asyncio.Event()
    async with contextlib.AsyncExitStack() as stack:
        for n in range(20):
            ws = await stack.enter_async_context(stalled(url, f"lurker{n}", address(3, n)))
            await ws.send(encode(WatchLobby()))
        churners = [
            await stack.enter_async_context(
                Client.connect(url, nickname=f"churner{n}", headers=address(4, n // 2))
            )
            for n in range(40)
        ]

        async def churn(client: Client) -> None:
            while not stop.is_set():
                await client.send(CreateGame())
                message = await client.recv(timeout=30)
                while not (
                    isinstance(message, Error)
                    or (isinstance(message, Update) and message.state.status == "open")
                ):
                    message = await client.recv(timeout=30)
                if isinstance(message, Error):
                    seen[message.code.value] += 1
                    await asyncio.sleep(1.0)  # refused: try again in a moment
                    continue
                seen["created"] += 1
                await client.send(CancelGame(message.game))

        tasks = [asyncio.create_task(churn(c)) for c in churners]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)


async def attack_spectators(url: str, games: list[str], seconds: float, seen: Counter[str]) -> None:
    stop = asyncio.Event()
    async with contextlib.AsyncExitStack() as stack:
        ada = await stack.enter_async_context(
            Client.connect(url, nickname="ada", headers=address(5, 1))
        )
        bob = await stack.enter_async_context(
            Client.connect(url, nickname="bob", headers=address(5, 2))
        )
        await ada.send(CreateGame(game_type="Base", color="white"))
        game_id = (await ada.expect(Update)).game
        await bob.send(JoinGame(game_id))
        watched = [*games, game_id]
        lurkers = [
            await stack.enter_async_context(stalled(url, f"fan{n}", address(6, n)))
            for n in range(20)
        ]

        async def spam(ws: ClientConnection, game: str) -> None:
            await paced(lambda: ws.send(encode(Watch(game, since=0))), 18.0, stop)

        async def offer(client: Client, action: DrawAction) -> None:
            await paced(lambda: client.send(Draw(game_id, action)), 5.0, stop)

        async def talk(client: Client) -> None:
            await paced(lambda: client.send(Chat(game_id, "x" * 300)), 1.0, stop)

        tasks = [
            asyncio.create_task(spam(ws, watched[n % len(watched)])) for n, ws in enumerate(lurkers)
        ]
        tasks += [
            asyncio.create_task(offer(ada, "offer")),
            asyncio.create_task(offer(bob, "decline")),
            asyncio.create_task(talk(ada)),
            asyncio.create_task(drain(ada, stop, seen)),
            asyncio.create_task(drain(bob, stop, seen)),
        ]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await ada.send(Resign(game_id))


async def attack_unknown_ids(url: str, seconds: float, seen: Counter[str]) -> None:
    stop = asyncio.Event()
    rng = random.Random(1)
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                Client.connect(url, nickname=f"prober{n}", headers=address(7, n))
            )
            for n in range(50)
        ]

        async def probe(client: Client) -> None:
            kinds: list[Callable[[str], Message]] = [
                lambda g: Play(g, 1, "wS1"),
                ClaimWin,
                lambda g: Chat(g, "hi"),
                JoinGame,
                Watch,
            ]

            async def one() -> None:
                seen["sent"] += 1
                await client.send(rng.choice(kinds)(f"{rng.getrandbits(32):08x}"))

            await paced(one, 18.0, stop)

        tasks = [asyncio.create_task(probe(c)) for c in clients]
        tasks += [asyncio.create_task(drain(c, stop, seen)) for c in clients]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)


async def attack_guests(url: str, seen: Counter[str]) -> None:
    async def ask(n: int) -> None:
        try:
            async with Client.connect(url, nickname=f"g{n}", headers=address(8, n % 10)):
                seen["made"] += 1
        except ServerError as error:
            seen[error.error.code.value] += 1

    for start in range(0, 2000, 100):
        await asyncio.gather(*(ask(n) for n in range(start, start + 100)))


def _positions(base: str, query: str) -> int:
    try:
        with urllib.request.urlopen(f"{base}/positions.json?{query}", timeout=60) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


async def attack_positions(base: str, seconds: float, seen: Counter[str]) -> None:
    moves = OPENING + REPETITION * 149
    game = f"Base;InProgress;White[1];{';'.join(moves)}"
    query = urllib.parse.urlencode({"game": game})
    give_up = time.perf_counter() + seconds

    async def loop() -> None:
        while time.perf_counter() < give_up:
            seen[f"HTTP {await asyncio.to_thread(_positions, base, query)}"] += 1

    await asyncio.gather(*(loop() for _ in range(6)))


async def attack_idle(url: str, seconds: float, seen: Counter[str]) -> None:
    host, port = url.removeprefix("ws://").split("/")[0].split(":")
    sockets = []
    for _ in range(1000):
        sock = socket.socket()
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect((host, int(port)))
        sockets.append(sock)
    quiet: list[ClientConnection] = []
    for n in range(300):
        try:
            quiet.append(await connect(url, additional_headers=address(9, n), open_timeout=30))
        except Exception as error:  # refused: counted
            seen[type(error).__name__] += 1
    await asyncio.sleep(seconds)
    closed = 0
    for ws in quiet:
        if ws.close_code is not None:
            closed += 1
            seen[f"closed {ws.close_code}"] += 1
    seen["quiet websockets"] = len(quiet)
    for sock in sockets:
        sock.close()
    for ws in quiet:
        ws.transport.abort()


async def attack_frozen_redis(redis: RedisProcess, seconds: float, seen: Counter[str]) -> None:
    assert redis.process is not None
    redis.process.send_signal(signal.SIGSTOP)
    try:
        await asyncio.sleep(seconds)
    finally:
        redis.process.send_signal(signal.SIGCONT)
    seen["frozen seconds"] = int(seconds)


def _headers(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return dict(answer.headers)


async def attack_link(base: str, seen: Counter[str]) -> None:
    src = urllib.parse.quote(
        'data:application/json,{"root":{"depth":"<image href=x onerror=alert(1)>"}}'
    )
    headers = await asyncio.to_thread(_headers, f"{base}/visualizer?src={src}")
    seen["policy"] = int("script-src 'self'" in headers.get("Content-Security-Policy", ""))


# -- a run ---------------------------------------------------------------------------------------


async def watch_rss(pid: int, figures: Figures, stop: asyncio.Event) -> None:
    while not stop.is_set():
        figures.rss_peak = max(figures.rss_peak, rss_bytes(pid))
        await asyncio.sleep(0.2)


async def one_run(args: argparse.Namespace, folder: Path) -> Figures:
    figures = Figures()
    redis = RedisProcess(folder / "redis", port=free_port())
    redis.start()
    server = ServerProcess(folder, redis.url, bot_workers=1)
    server.launch()
    try:
        await asyncio.to_thread(server.wait_ready)
        url, base = server.ws_url, server.http_url
        stop_honest = asyncio.Event()
        honest = [Honest(url, n, figures) for n in range(args.games)]
        honest_tasks = [asyncio.create_task(h.run(stop_honest)) for h in honest]
        await asyncio.sleep(5)  # the games going
        figures.rss_start = rss_bytes(server.pid)
        figures.rss_peak = figures.rss_start
        stop_watch = asyncio.Event()
        watcher = asyncio.create_task(watch_rss(server.pid, figures, stop_watch))
        games = (await _live_games(url))[: args.games]
        phases: list[tuple[str, Any]] = [
            ("lobby", lambda seen: attack_lobby(url, args.phase, seen)),
            ("spectators", lambda seen: attack_spectators(url, games, args.phase, seen)),
            ("unknown ids", lambda seen: attack_unknown_ids(url, args.phase, seen)),
            ("guests", lambda seen: attack_guests(url, seen)),
            ("positions", lambda seen: attack_positions(base, args.phase, seen)),
            ("idle sockets", lambda seen: attack_idle(url, args.phase, seen)),
            ("frozen redis", lambda seen: attack_frozen_redis(redis, 5.0, seen)),
            ("visualizer link", lambda seen: attack_link(base, seen)),
        ]
        for round_ in range(args.rounds):
            for name, attack in phases:
                seen = figures.attacks.setdefault(name, Counter())
                if not args.quiet:
                    print(f"  round {round_ + 1}: {name}...", file=sys.stderr, flush=True)
                await attack(seen)
            await asyncio.sleep(12)  # the attackers' connections closed and forgotten
            figures.rss_rounds.append(rss_bytes(server.pid))
        after = time.perf_counter()
        await asyncio.sleep(3)  # each honest game moves again
        figures.playing_after = sum(1 for h in honest if h.moved_at > after)
        figures.games = len(honest)
        figures.rss_end = rss_bytes(server.pid)
        stop_watch.set()
        stop_honest.set()
        await watcher
        for outcome in await asyncio.gather(*honest_tasks, return_exceptions=True):
            if isinstance(outcome, BaseException):
                figures.attacks.setdefault("honest errors", Counter())[repr(outcome)[:120]] += 1
        figures.attacks["server"] = _refusals(server.metrics_url)
    finally:
        server.stop()
        redis.stop()
    return figures


async def _live_games(url: str) -> list[str]:
    """The games in progress, as the lobby lists them."""
    async with Client.connect(url, nickname="peek", headers=address(10, 1)) as peek:
        await peek.send(WatchLobby())
        return [game.id for game in (await peek.expect(Lobby)).live]


def _refusals(metrics_url: str) -> Counter[str]:
    """The server's own counts (from /metrics): refusals by code, frames skipped."""
    found: Counter[str] = Counter()
    with urllib.request.urlopen(metrics_url, timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith("hive_refused_total{"):
                code = line.split('"')[1]
                found[f"refused {code}"] = int(float(line.split()[-1]))
            elif line.startswith("hive_frames_skipped_total"):
                found["frames skipped"] = int(float(line.split()[-1]))
    return found


def report(n: int, f: Figures) -> None:
    print(f"run {n}:")
    print(
        f"  server RSS: {f.rss_start / MIB:.0f} MiB before the attacks, {f.rss_peak / MIB:.0f} "
        f"at the highest, {f.rss_end / MIB:.0f} after them: {(f.rss_end - f.rss_start) / MIB:+.1f} "
        f"MiB (bar: within {RSS_BAR // MIB}); after each round: "
        + ", ".join(f"{rss / MIB:.0f}" for rss in f.rss_rounds)
    )
    print(
        f"  honest games: {f.playing_after} of {f.games} playing after the attacks; "
        f"{f.moves} moves, p50 {percentile(f.latencies, 0.5) * 1000:.1f} ms, p99 "
        f"{percentile(f.latencies, 0.99) * 1000:.1f} ms, {f.unavailable} answered 'unavailable' "
        f"(Redis frozen), {f.lost} lost"
    )
    for name, seen in f.attacks.items():
        print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in sorted(seen.items())))


async def main_async(args: argparse.Namespace) -> int:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the idle sockets are files too
    runs = []
    for n in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="hive-hostile-") as folder:
            figures = await one_run(args, Path(folder))
        report(n, figures)
        runs.append(figures)
    deltas = [(f.rss_end - f.rss_start) / MIB for f in runs]
    peaks = [(f.rss_peak - f.rss_start) / MIB for f in runs]
    p99s = [percentile(f.latencies, 0.99) * 1000 for f in runs]
    print(
        f"median of {len(runs)}: RSS after the attacks {statistics.median(deltas):+.1f} MiB from "
        f"before them (at the highest {statistics.median(peaks):+.1f}); honest moves p99 "
        f"{statistics.median(p99s):.1f} ms; games playing after: "
        f"{min(f.playing_after for f in runs)} of {args.games} in the worst run"
    )
    ok = all(d * MIB <= RSS_BAR for d in deltas) and all(
        f.playing_after == f.games and f.lost == 0 for f in runs
    )
    print("bar met" if ok else "bar NOT met")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="(default %(default)s)")
    parser.add_argument("--phase", type=float, default=15.0, help="seconds an attack lasts")
    parser.add_argument("--games", type=int, default=10, help="honest games along")
    parser.add_argument(
        "--rounds", type=int, default=1, help="times every attack is made in a run (default 1)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
