"""Redis as docker compose's ``ha`` profile runs it, for real, without Docker: Debian's
``redis-server`` as a primary, a replica of it, and three sentinels (``redis-server FILE
--sentinel``) watching them, each on a free port of 127.0.0.1 in a folder of its own. The
sentinels call the primary down after ``DOWN_AFTER_MS`` without an answer, and promote the
replica. Without Debian's ``redis-server`` the tests that need it fail (``system_tool``)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
import signal
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import redis
import redis.asyncio as aioredis

from protocol import Error, ErrorCode, Message, Play, Resign, Update
from protocol.client import Client
from server.embedded import die_with_parent
from server.game.record import Record
from server.storage.store import Store
from tests.server.deployment import system_tool
from tests.server.support import start_game
from tests.support import until_blocking

SERVICE: Final = "hive"
DOWN_AFTER_MS: Final = 1000
FAILOVER_TIMEOUT_MS: Final = 4000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def poll(check: Callable[[], Any], what: str, timeout: float = 30.0, every: float = 0.05) -> Any:
    """The first true value of ``check()`` (another process's state: nothing to wait on but
    its answers; one that cannot be reached yet counts as not yet).

    Raises:
        AssertionError: ``what``, after ``timeout`` seconds.
    """

    def asked() -> Any:
        try:
            return check()
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            return None

    return until_blocking(asked, what, timeout=timeout, every=every)


class Node:
    """One ``redis-server`` (a data node or, with ``sentinel``, a sentinel) on its config."""

    def __init__(self, folder: Path, lines: list[str], *, sentinel: bool = False) -> None:
        self.folder = folder
        self.port = free_port()
        self.sentinel = sentinel
        folder.mkdir(parents=True)
        self.config = folder / ("sentinel.conf" if sentinel else "redis.conf")
        common = [f"port {self.port}", "bind 127.0.0.1", f"dir {folder}"]
        common.append(f"logfile {folder / 'redis.log'}")
        self.config.write_text("\n".join([*common, *lines]) + "\n")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self, **kwargs: Any) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=1, **kwargs)

    def start(self) -> None:
        args = [system_tool("redis-server"), str(self.config)]
        if self.sentinel:
            args.append("--sentinel")
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, preexec_fn=die_with_parent
        )

        def answers() -> bool:
            assert self.process is not None
            assert self.process.poll() is None, f"redis-server exited: see {self.folder}"
            with self.client() as client:
                return bool(client.ping())

        poll(answers, f"redis-server on {self.port} does not answer", timeout=10)

    def signal(self, sig: int) -> None:
        assert self.process is not None
        self.process.send_signal(sig)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # (a paused one too)
            self.process.kill()
            self.process.wait()

    def role(self) -> str:
        with self.client() as client:
            return str(client.execute_command("ROLE")[0].decode())


class Topology:
    """A primary, a replica and three sentinels (``start``, ``stop``)."""

    def __init__(self, folder: Path, *, down_after_ms: int = DOWN_AFTER_MS) -> None:
        self.primary = Node(folder / "primary", ['save ""', "appendonly no"])
        self.replica = Node(
            folder / "replica",
            ['save ""', "appendonly no", f"replicaof 127.0.0.1 {self.primary.port}"],
        )
        self.sentinels = [
            Node(
                folder / f"sentinel{n}",
                [
                    f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary.port} 2",
                    f"sentinel down-after-milliseconds {SERVICE} {down_after_ms}",
                    f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}",
                ],
                sentinel=True,
            )
            for n in (1, 2, 3)
        ]
        self.nodes = {node.address: node for node in (self.primary, self.replica)}

    @property
    def url(self) -> str:
        """The server's ``--redis-url``."""
        listed = ",".join(s.address for s in self.sentinels)
        return f"redis+sentinel://{listed}/{SERVICE}"

    def start(self) -> None:
        """Start every node, and wait until the replica has synced and each sentinel knows the
        replica and the two other sentinels (a failover needs them)."""
        self.primary.start()
        self.replica.start()
        for sentinel in self.sentinels:
            sentinel.start()

        def synced() -> bool:
            with self.replica.client() as client:
                return bool(client.info("replication").get("master_link_status") == "up")

        poll(synced, "the replica never synced")

        def known(sentinel: Node) -> Callable[[], bool]:
            def check() -> bool:
                with sentinel.client() as client:
                    state = client.sentinel_master(SERVICE)
                return bool(state["num-slaves"] == 1 and state["num-other-sentinels"] == 2)

            return check

        for sentinel in self.sentinels:  # (a sentinel asks the primary for its replicas every
            # 10 s, and hears of the others every 2 s: a loaded machine has taken over 30 s)
            poll(known(sentinel), f"sentinel {sentinel.port} never saw the others", timeout=60)

    def named_primary(self) -> str | None:
        """The primary the sentinels agree on, as ``HOST:PORT`` (None: they do not agree)."""
        named = set()
        for sentinel in self.sentinels:
            with sentinel.client() as client:
                host, port = client.sentinel_get_master_addr_by_name(SERVICE)
                named.add(f"{host.decode() if isinstance(host, bytes) else host}:{port}")
        return named.pop() if len(named) == 1 else None

    def promoted(self, timeout: float = 30.0) -> Node:
        """Wait until every sentinel names the replica the primary and it acts as one."""

        def done() -> bool:
            return self.named_primary() == self.replica.address and self.replica.role() == "master"

        poll(done, "the sentinels never promoted the replica", timeout=timeout)
        return self.replica

    def stop(self) -> None:
        for node in (*self.sentinels, self.primary, self.replica):
            node.kill()

    def logs(self, lines: int = 15) -> str:
        """The last ``lines`` of each node's log, for a failure to show."""
        shown = []
        for name, node in [("primary", self.primary), ("replica", self.replica)] + [
            (f"sentinel {n}", s) for n, s in enumerate(self.sentinels, 1)
        ]:
            log = node.folder / "redis.log"
            tail = log.read_text(errors="replace").splitlines()[-lines:] if log.exists() else []
            shown.append(f"{name} ({node.address}):\n" + "\n".join(tail))
        return "\n".join(shown)


# -- games played through a failover ---------------------------------------------------------


@dataclass
class Played:
    """What the players of ``Games`` saw: every update any of them received (by game: its
    version and moves), when each move was acknowledged to its mover (the update with it, by
    ``time.monotonic``), and the refusals ``unavailable`` (the moves refused so, then
    played once sent again)."""

    seen: dict[str, list[tuple[int, tuple[str, ...]]]] = field(default_factory=dict)
    acknowledged: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    """Seconds from each move sent (the first time) to its update."""
    unavailable: int = 0
    refused_then_played: int = 0
    ended: dict[str, Update] = field(default_factory=dict)

    def acknowledged_after(self, moment: float) -> float | None:
        """Seconds from ``moment`` to the first acknowledgement of a move sent after it (the
        first time; None: none)."""
        later = [
            acked
            for acked, took in zip(self.acknowledged, self.latencies, strict=True)
            if acked - took > moment
        ]
        return min(later) - moment if later else None


class Games:
    """``count`` games, one player on each of the first and last server (each process hears the
    other's moves through Redis; White on the first in even games, on the last in odd ones),
    played to their end with random legal moves (a
    resignation after ``max_plies``); a move refused ``unavailable`` is sent again as it was,
    and one refused ``stale`` waits for the update that says what happened. The games drift
    apart: at a given moment one process's players may be to move in nearly all of them
    (``describe`` says who does what)."""

    def __init__(self, urls: list[str], count: int, *, seed: int = 1, max_plies: int = 60) -> None:
        self.urls = urls
        self.count = count
        self.rng = random.Random(seed)
        self.max_plies = max_plies
        self.played = Played()
        self.failure: BaseException | None = None
        """What ended a player early (a connection closed under it, say), if anything did."""
        self.stack = contextlib.AsyncExitStack()
        self.starts: list[tuple[Client, Client, str, Update, Update, str, str]] = []
        """Each game: its players, its id, their first updates, and their servers' names."""
        self.doing: dict[tuple[str, str], str] = {}
        """What each player (by its server's name, and ``COLOR GAME``) does now, for a failure
        to show."""

    async def __aenter__(self) -> Games:
        await self.stack.__aenter__()
        ends = ((self.urls[0], "server 1"), (self.urls[-1], f"server {len(self.urls)}"))
        for n in range(self.count):
            (white_url, white_at), (black_url, black_at) = ends if n % 2 == 0 else ends[::-1]
            white = await self.stack.enter_async_context(
                Client.connect(white_url, nickname=f"w{n}")
            )
            black = await self.stack.enter_async_context(
                Client.connect(black_url, nickname=f"b{n}")
            )
            game_id, w, b = await start_game(white, black)
            self.starts.append((white, black, game_id, w, b, white_at, black_at))
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.stack.__aexit__(*exc_info)

    def going(self) -> bool:
        """True while no player has failed; a player's failure, raised (a wait for moves or
        figures ends with the cause, not with a timeout)."""
        if self.failure is not None:
            raise AssertionError(f"a player failed: {self.failure!r}") from self.failure
        return True

    def describe(self) -> str:
        """How many players do what now (on which server), for a failure to show."""
        counted = collections.Counter(
            f"{server}: {doing}" for (server, _), doing in self.doing.items()
        )
        return "\n".join(f"  {n} on {what}" for what, n in sorted(counted.items()))

    async def play(self) -> Played:
        """Every game to its end (a task per player)."""
        seeds = [self.rng.random() for _ in range(2 * self.count)]
        players = []
        for n, (white, black, game_id, w, b, white_at, black_at) in enumerate(self.starts):
            for client, color, update, at, seed in (
                (white, "white", w, white_at, seeds[2 * n]),
                (black, "black", b, black_at, seeds[2 * n + 1]),
            ):
                play = self._play(client, game_id, color, update, random.Random(seed), at)
                players.append(self._noting_failure(play))
        await asyncio.gather(*players)
        return self.played

    async def _noting_failure(self, play: Awaitable[None]) -> None:
        """Await one player's ``play``, keeping the first failure for a wait to show."""
        try:
            await play
        except BaseException as failure:
            self.failure = self.failure or failure
            raise

    async def _play(
        self,
        client: Client,
        game_id: str,
        color: str,
        update: Update,
        rng: random.Random,
        at: str,
    ) -> None:
        """One player's game to its end (``at``: its server's name)."""
        me = (at, f"{color} {game_id}")  # its key in ``doing``
        played = self.played
        seen = played.seen.setdefault(game_id, [])
        seen.append((update.version, tuple(update.state.moves)))
        sent: Message | None = None  # the move waiting for its update
        sent_at = 0.0
        refused = False  # it was refused "unavailable" once at least
        while update.state.status != "over":
            state = update.state
            if sent is None and state.status == "live" and state.turn == color:
                if len(state.moves) >= self.max_plies:
                    sent = Resign(game_id)
                else:
                    move = rng.choice([m.move for m in state.legal] or ["pass"])
                    sent = Play(game_id, update.version, move)
                refused = False
                sent_at = time.monotonic()
                await client.send(sent)
            self.doing[me] = "waiting for an answer" if sent else "waiting for the opponent"
            try:
                message = await client.recv(timeout=90)
            except TimeoutError:
                raise AssertionError(
                    f"{color} in {game_id}: nothing heard for 90 s at version {update.version} "
                    f"({len(update.state.moves)} moves, {update.state.turn} to move), waiting "
                    f"for the answer to {sent!r} (refused unavailable before: {refused})"
                ) from None
            if isinstance(message, Update) and message.game == game_id:
                seen.append((message.version, tuple(message.state.moves)))
                if message.version > update.version:
                    update = message
                    if sent is not None:
                        played.acknowledged.append(time.monotonic())
                        played.latencies.append(played.acknowledged[-1] - sent_at)
                        played.refused_then_played += refused
                        sent = None
            elif isinstance(message, Error) and message.game == game_id:
                self.doing[me] = f"refused {message.code.value}"
                if message.code == ErrorCode.UNAVAILABLE and sent is not None:
                    played.unavailable += 1
                    refused = True
                    await asyncio.sleep(0.2)  # then the same move again
                    await client.send(sent)
                elif message.code not in (
                    ErrorCode.UNAVAILABLE,
                    ErrorCode.STALE,
                    ErrorCode.GAME_OVER,
                ):
                    raise AssertionError(f"{color} in {game_id}: {message}")
                # (stale, over: the update that says why is on its way; unavailable with no
                # move waiting: a move sent again, played meanwhile)
        played.ended[game_id] = update
        self.doing[me] = "over"


async def stored_games(address: str, game_ids: list[str]) -> dict[str, Record]:
    """The games as the Redis at ``address`` (``HOST:PORT``) holds them."""
    host, port = address.rsplit(":", 1)
    client = aioredis.Redis(host=host, port=int(port))
    try:
        store = Store(client)
        return {game_id: record for game_id in game_ids if (record := await store.get(game_id))}
    finally:
        await client.aclose()


async def event_versions(address: str, game_id: str) -> list[int]:
    """The versions of the game's event log in the Redis at ``address``."""
    host, port = address.rsplit(":", 1)
    client = aioredis.Redis(host=host, port=int(port))
    try:
        events = await Store(client).events_after(game_id, 0)
        assert events is not None
        return [event.version for event in events]
    finally:
        await client.aclose()


def lost(played: Played, stored: dict[str, Record]) -> list[str]:
    """Every update some client saw that the stored games do not hold (its moves not those
    of the game at its version): acknowledged changes lost, or played twice."""
    wrong = []
    for game_id, updates in played.seen.items():
        record = stored.get(game_id)
        for version, moves in updates:
            if record is None or version > record.version:
                wrong.append(f"{game_id} v{version}: not in the store")
            elif tuple(record.moves[: len(moves)]) != moves:
                wrong.append(f"{game_id} v{version}: {moves} is not how the game went")
    return wrong
