"""Helpers for the server tests: games to play, and moves through real clients."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import re
import resource
import signal
import socket
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ai.bots import Bot
from hive import Game, GameState
from protocol import (
    Account,
    CreateGame,
    ErrorCode,
    Event,
    Hello,
    JoinGame,
    Lobby,
    Message,
    Play,
    Resign,
    Result,
    Seat,
    SignUp,
    TimeControl,
    Update,
    Watch,
    WatchLobby,
    Welcome,
    decode_server,
    encode,
)
from protocol.client import Client, ServerError
from server.archive.db import tables
from server.archive.db.database import Database
from server.game.record import Record
from server.storage.channels import channels, decode_published
from server.storage.store import database
from tests.support import until

if TYPE_CHECKING:
    from tests.server.conftest import Running


RESULTS: tuple[Result, ...] = ("WhiteWins", "BlackWins", "Draw")
"""Every result of a game."""


def finished(
    game: str,
    white: Seat,
    black: Seat,
    result: Result | None,
    reason: str,
    ended: int,
    *,
    time: TimeControl,
    moves: list[str] | tuple[str, ...],
    game_type: str = "Base",
    rated: bool = False,
    seed: int = 1,
    version: int = 1,
) -> Record:
    """A finished game between ``white`` and ``black`` as the archive is given it (created
    a minute before it ``ended``, by White; at ``version``), for the tests and benches of
    the archive."""
    return Record(
        id=game,
        game_type=game_type,
        time=time,
        status="over",
        created=ended - 60_000,
        creator=white.player,
        creator_color="white",
        seed=seed,
        white=white,
        black=black,
        moves=list(moves),
        version=version,
        moved=version,
        result=result,
        reason=reason,
        ended=ended,
        rated=rated,
    )


SHORT_GAME: Final = 40
"""The most plies of ``decisive_game``'s game: each ply of a game played through the pages
costs a test about a second."""


@functools.cache
def decisive_game(game_type: str = "Base", within: int = SHORT_GAME) -> tuple[str, ...]:
    """The MoveStrings of a short whole game that one side wins (two seeded beginner bots; the
    first seed's game that ends within ``within`` plies: 31 plies in Base, White wins)."""
    for seed in range(100):
        game = Game(game_type)
        white, black = Bot("beginner", seed=seed), Bot("beginner", seed=seed + 1000)
        while not game.is_over() and game.ply < within:
            bot = white if game.ply % 2 == 0 else black
            game.push(bot.choose(game).move)
        if game.state in (GameState.WHITE_WINS, GameState.BLACK_WINS):
            replay = Game(game_type)
            spelled = []
            for move in game.moves:
                spelled.append(replay.move_string(move))
                replay.push(move)
            return tuple(spelled)
    raise AssertionError("no decisive game in 100 seeds")


async def updated(client: Client, game: str) -> Update:
    """The next update of ``game`` this client receives."""
    while True:
        update = await client.expect(Update)
        if update.game == game:
            return update


async def start_game(
    white: Client,
    black: Client,
    *,
    game_type: str = "Base",
    time: TimeControl | None = None,
) -> tuple[str, Update, Update]:
    """``white`` creates a game as White, ``black`` joins; both see it start."""
    await white.send(CreateGame(game_type=game_type, color="white", time=time or TimeControl()))
    created = await white.expect(Update)
    assert created.state.status == "open"
    await black.send(JoinGame(created.game))
    return created.game, await updated(white, created.game), await updated(black, created.game)


async def watch(client: Client, game: str, since: int | None = None) -> Update:
    """``client`` watches ``game`` (from version ``since``); the update it gets first."""
    await client.send(Watch(game, since=since))
    return await updated(client, game)


async def play(client: Client, update: Update, move: str) -> None:
    await client.send(Play(update.game, update.version, move))


def _get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


async def http_get(url: str) -> tuple[int, str, bytes]:
    """``(status, content type, body)`` of a GET, from a thread (the server runs on this loop)."""
    return await asyncio.to_thread(_get, url)


async def raw_http(srv: Running, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as it is; the answer's status, headers (lower-case names) and body."""
    host, port = srv.http_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {
            name.lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        return int(status_line.split()[1]), headers, body
    finally:
        writer.close()


async def scrape(srv: Running) -> dict[str, float]:
    """Every sample of the server's /metrics by name and labels, e.g.
    ``hive_refused_total{code=stale}``."""
    status, kind, body = await http_get(srv.metrics_url)
    assert status == 200 and kind.startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


STOP_SECONDS: Final = 30.0
"""How long a child process (a server, a bot) has to stop once signalled."""
ABORT_SECONDS: Final = 5.0
"""How long one that did not stop has to print its stacks on SIGABRT before it is killed."""


class ChildProcess:
    """``python -m MODULE ARGS`` in a child process; ``log`` holds what it printed on stderr
    (read as it comes, so ``wait_for`` can wait for a line)."""

    def __init__(self, module: str, *args: str) -> None:
        self.module = module
        self.args = args
        self.process: asyncio.subprocess.Process | None = None
        self.log: list[str] = []
        self._lines: asyncio.Queue[str] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None

    async def spawn(self, *, files: int | None = None) -> None:
        """Start it (``files``: its limit of open files, soft and hard)."""

        def limit_files() -> None:
            if files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            self.module,
            *self.args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            preexec_fn=limit_files,
        )
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        async for raw in self.process.stderr:
            line = raw.decode()
            self.log.append(line)
            self._lines.put_nowait(line)
        self._lines.put_nowait("")  # the end

    async def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        """The next line of its log matching ``pattern`` (its match).

        Raises:
            AssertionError: It exited first (with its log).
        """
        async with asyncio.timeout(timeout):
            while True:
                line = await self._lines.get()
                if not line:
                    raise AssertionError(f"{self.module} exited:\n" + "".join(self.log))
                found = re.search(pattern, line)
                if found:
                    return found

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send ``sig`` (unless it has gone already); its exit status once it and everything it
        started have gone (its children hold its stderr open until then). One that stops badly
        fails the test: a stop asked for here (SIGTERM, SIGINT) that exits with another status
        than 0 (a server past its own limit printed its stacks and exited with 1), or one not
        gone within ``STOP_SECONDS``, with where it hung: it is sent SIGABRT (a server prints
        every thread's stack, ``faulthandler``), then killed; no process outlives its test."""
        assert self.process is not None
        process = self.process
        asked = process.returncode is None  # (else it has gone already: killed, say)
        if asked:
            process.send_signal(sig)
        try:
            async with asyncio.timeout(STOP_SECONDS):
                status = await process.wait()
                if self._reader is not None:
                    await self._reader
        except TimeoutError:
            pass
        else:
            if asked and sig in (signal.SIGTERM, signal.SIGINT) and status != 0:  # a bad stop
                raise AssertionError(
                    f"{self.module} exited with {status} on signal {sig}\n"
                    + "".join(self.log[-200:])
                )
            return status
        if process.returncode is not None:
            why = f"exited ({process.returncode}), but what it started held its stderr open"
        else:
            why = "still running: its stacks on SIGABRT"
            process.send_signal(signal.SIGABRT)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(ABORT_SECONDS):
                    await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()
        if self._reader is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(ABORT_SECONDS):
                    await self._reader
        raise AssertionError(
            f"{self.module} did not stop within {STOP_SECONDS} s of signal {sig}: {why}\n"
            + "".join(self.log[-200:])
        )


class ServerProcess(ChildProcess):
    """``python -m server`` in a child process, as an operator runs it."""

    def __init__(self, *args: str) -> None:
        super().__init__("server", *args)
        self.url = ""

    async def start(self) -> str:
        """Start it and wait for its "ready" line; returns the URL it prints."""
        await self.spawn()
        self.url = (await self.wait_for(r"open (http://\S+)"))[1].rstrip("/")
        return self.url

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"


@contextlib.asynccontextmanager
async def running_all(servers: list[ServerProcess]) -> AsyncIterator[list[ServerProcess]]:
    """Start ``servers`` in turn; each one started is stopped on exit (one gone already, a
    test killed it, is waited for)."""
    try:
        for server in servers:
            await server.start()
        yield servers
    finally:
        for server in servers:
            if server.process is not None:
                await server.stop()


async def closed_with(client: object) -> int | None:
    """The close code of a connection the server closes (reading until it does)."""
    ws = client.ws  # type: ignore[attr-defined]
    try:
        async with asyncio.timeout(30):
            while True:
                await ws.recv()
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None


@contextlib.asynccontextmanager
async def published(redis_url: str) -> AsyncIterator[Callable[[str, str], Awaitable[Event]]]:
    """Listen to the server's committed changes in Redis (no websocket needed): yields
    ``wait(game_id, kind)``, which returns the next event of that kind in that game, once
    Redis has confirmed the subscription (every change published after, and so every change
    made after a read that follows, is heard)."""
    client = aioredis.Redis.from_url(redis_url)
    pubsub = client.pubsub()
    await pubsub.psubscribe(channels(database(client)).games + "*")
    async with asyncio.timeout(30):
        async for message in pubsub.listen():
            if message["type"] == "psubscribe":
                break

    async def wait(game_id: str, kind: str) -> Event:
        async with asyncio.timeout(30):
            async for message in pubsub.listen():
                if message["type"] != "pmessage":
                    continue
                found, _, _, event = decode_published(message["data"])
                if found == game_id and event.kind == kind:
                    return event
        raise AssertionError("the subscription ended")

    try:
        yield wait
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await client.aclose()


class ListenerCut:
    """A Redis user of its own for one server (start it with ``url``), so that a test can cut
    that server's pub/sub listener off Redis while the rest of it goes on: ``cut`` kills the
    listener's connection and refuses the user's new connections (the connections already
    open go on: a user disabled in Redis keeps them); ``restore`` lets them in again."""

    NAME = "cut"

    def __init__(self, redis_url: str) -> None:
        self.admin = aioredis.Redis.from_url(redis_url)
        self.url = redis_url.replace("redis://", f"redis://{self.NAME}:{self.NAME}@", 1)

    async def __aenter__(self) -> ListenerCut:
        await self._command("ACL", "SETUSER", self.NAME, "on", f">{self.NAME}", "~*", "&*", "+@all")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.admin.aclose()

    async def cut(self, srv: Running) -> None:
        """Cut ``srv``'s listener off; first its pool of connections is given a few more
        than its loops and one request use at once (only new ones are refused)."""
        await until(lambda: srv.hub.listener.resyncs > 0, "the listener never subscribed")
        redis = srv.hub.store.redis
        await asyncio.gather(*(redis.ping() for _ in range(8)))
        await self._command("ACL", "SETUSER", self.NAME, "off")
        killed = await self._command("CLIENT", "KILL", "USER", self.NAME, "TYPE", "pubsub")
        assert killed == 1, f"{killed} listener connections"

    async def restore(self) -> None:
        await self._command("ACL", "SETUSER", self.NAME, "on")

    async def _command(self, *args: str) -> object:
        return await self.admin.execute_command(*args)  # type: ignore[no-untyped-call]


class LostAnswer:
    """A TCP proxy between one server and Redis (start the server with ``url``) that loses
    the answer to a game's commit for real: after ``lose(game_id)`` the game's next commit
    reaches Redis, which commits and publishes the change, and the commit's connection is
    broken (reset) before the answer reaches the server. What becomes of the commit sent
    again on a new connection (redis-py sends a command again after a broken connection):
    with ``cut_retries`` it is broken off too before it reaches Redis, until ``restore``
    (the commit fails), else it goes through (and finds the game changed). With ``hold``,
    what Redis sends the server's pub/sub listener waits in the proxy until ``restore``."""

    def __init__(self, redis_url: str) -> None:
        found = re.fullmatch(r"redis://([^:/]+):(\d+)(/\d+)?", redis_url)
        assert found is not None, redis_url
        self.host, self.port, self.db = found[1], int(found[2]), found[3] or ""
        self.url = ""
        self.lost = asyncio.Event()
        """Set once an answer was lost."""
        self._server: asyncio.Server | None = None
        self._channel: bytes | None = None  # the game's channel, named by its commit
        self._cut_retries = False
        self._hold = False
        self._held: dict[asyncio.StreamWriter, list[bytes]] = {}  # the listener's, by connection
        self._ends: set[asyncio.StreamWriter] = set()

    async def __aenter__(self) -> LostAnswer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"redis://127.0.0.1:{port}{self.db}"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for end in list(self._ends):
            end.transport.abort()
        await self._server.wait_closed()

    def lose(self, game_id: str, *, cut_retries: bool = False, hold: bool = False) -> None:
        self._channel = channels(int(self.db[1:] or 0)).game(game_id).encode()
        self._cut_retries, self._hold = cut_retries, hold
        self.lost.clear()

    def holding(self) -> bool:
        """Whether something waits in the proxy for the listener."""
        return any(self._held.values())

    def restore(self) -> None:
        """Commits go through again; what waited for the listener goes on to it."""
        self._channel, self._hold = None, False
        for writer, held in self._held.items():
            for data in held:
                writer.write(data)
            held.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        ends = (writer, up_writer)
        self._ends.update(ends)
        losing = asyncio.Event()  # this connection's next answer is the one to lose

        def cut() -> None:
            for end in ends:
                end.transport.abort()  # a reset: no answer, no orderly close

        async def up() -> None:  # server -> Redis
            while data := await reader.read(1 << 16):
                if b"SUBSCRIBE" in data:
                    self._held.setdefault(writer, [])  # the listener's connection
                if self._channel is not None and b"EVALSHA" in data and self._channel in data:
                    if self.lost.is_set():
                        if self._cut_retries:
                            cut()  # the commit again: broken off before Redis
                            return
                    else:
                        losing.set()
                up_writer.write(data)
                await up_writer.drain()

        async def down() -> None:  # Redis -> server
            while data := await up_reader.read(1 << 16):
                if losing.is_set():
                    self.lost.set()
                    cut()  # Redis committed and published: its answer is lost
                    return
                held = self._held.get(writer)
                if held is not None and (self._hold or held):
                    held.append(data)
                    continue
                writer.write(data)
                await writer.drain()

        pumps = [asyncio.create_task(up()), asyncio.create_task(down())]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:  # one end closed or cut: so is the other
            for end in ends:
                end.transport.abort()
                self._ends.discard(end)
            self._held.pop(writer, None)
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)


# -- bots from outside ----------------------------------------------------------------------

MAX_PLIES = 200
"""A random player may wall its own pieces in where a bot cannot finish: it resigns here."""


async def run_command(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def create_bot(redis_url: str, name: str, *more: str) -> tuple[int, str, str]:
    """``hive-server create-bot`` as an operator runs it (with a database of its own in a
    temporary folder, unless ``more`` names one with ``--database-url``)."""
    with tempfile.TemporaryDirectory(prefix="hive-bot-") as folder:
        data = [] if "--database-url" in more else ["--database-url", _sqlite(folder)]
        return await run_command(
            *(sys.executable, "-m", "server", "create-bot", name, "--redis-url", redis_url),
            *data,
            *more,
        )


def _sqlite(folder: str) -> str:
    return f"sqlite+aiosqlite:///{folder}/hive.sqlite3"


@contextlib.asynccontextmanager
async def hive_bot(*args: str) -> AsyncIterator[ChildProcess]:
    """``hive-bot ARGS`` running, stopped on exit; ``wait_for`` reads its log."""
    bot = ChildProcess("hivebot", *args)
    await bot.spawn()
    try:
        yield bot
    finally:
        await bot.stop()


async def lobby_until(client: Client, holds: Callable[[Lobby], bool]) -> Lobby:
    """The client's lobby once ``holds`` is true of it: as it stands, or after the lobby
    messages still to come (the client must have subscribed)."""
    async with asyncio.timeout(30):
        while client.lobby is None or not holds(client.lobby):
            await client.expect(Lobby)
        return client.lobby


async def lobby_with_bot(client: Client, name: str, present: bool = True) -> Lobby:
    """Subscribe to the lobby and wait until it lists (or no longer lists) the bot ``name``."""
    await client.send(WatchLobby())
    await client.expect(Lobby)
    return await lobby_until(
        client, lambda lobby: any(b.name == name for b in lobby.bots) == present
    )


async def play_to_the_end(client: Client, update: Update, rng: random.Random) -> Update:
    """Random legal moves for ``client``'s side until the game ends (a resignation after
    MAX_PLIES)."""
    game_id = update.game
    me = "white" if update.state.white and update.state.white.player == client.player else "black"
    resigned = False
    while update.state.status != "over":
        if len(update.state.moves) >= MAX_PLIES and not resigned:
            await client.send(Resign(game_id))
            resigned = True
        elif update.state.status == "live" and update.state.turn == me and not resigned:
            await play(client, update, rng.choice([m.move for m in update.state.legal] or ["pass"]))
        update = await updated(client, game_id)
    return update


# -- hostile clients ---------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def stalled(ws_url: str, nickname: str) -> AsyncIterator[ClientConnection]:
    """A client that says hello and then reads nothing unless told to: its socket's receive
    buffer is as small as the kernel allows and its websocket holds one message, so what the
    server sends it soon waits in the server."""
    host, port = ws_url.removeprefix("ws://").split("/")[0].split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.connect((host, int(port)))
    ws = await connect(ws_url, sock=sock, max_size=None, max_queue=1, compression=None)
    try:
        await ws.send(encode(Hello(nickname=nickname)))
        assert isinstance(decode_server(await ws.recv(decode=False)), Welcome)
        yield ws
    finally:
        ws.transport.abort()  # it goes as it came: no closing handshake it would not read


async def read_until(ws: ClientConnection, holds: Callable[[Message], bool]) -> list[Message]:
    """Read ``ws`` until a message for which ``holds`` is true; every message read. (A
    ``stalled`` client reads again at full speed: its receive buffer grows back.)"""
    sock = ws.transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    read: list[Message] = []
    async with asyncio.timeout(30):
        while True:
            message = decode_server(await ws.recv(decode=False))
            read.append(message)
            if holds(message):
                return read


async def refused(client: Client, game: str) -> ErrorCode:
    """The code of the refusal the client's last request about ``game`` got."""
    try:
        await updated(client, game)
    except ServerError as error:
        return error.error.code
    raise AssertionError("not refused")


async def rows(url: str, table: Any = tables.games) -> list[dict[str, Any]]:
    """Every row of ``table`` in the database at ``url``."""
    database = Database(url)
    try:
        async with database.engine.connect() as connection:
            found = await connection.execute(select(table))
            return [dict(row) for row in found.mappings()]
    finally:
        await database.close()


async def game_keys(redis_url: str, game_id: str) -> list[bytes]:
    """Every key of the game in Redis, and its place in ``hive:over``."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        keys: list[bytes] = [key async for key in client.scan_iter(match=f"*{{{game_id}}}*")]
        if await client.zscore("hive:over", game_id) is not None:
            keys.append(b"hive:over")
        return keys
    finally:
        await client.aclose()


PASSWORD: Final = "correct horse battery"
"""The password of the accounts ``signed_up`` makes."""


@contextlib.asynccontextmanager
async def signed_up(url: str, name: str) -> AsyncIterator[Client]:
    """A connection of a new account ``name`` (a guest that signs up with ``PASSWORD``),
    open in the block: its ``welcome.token`` signs a page in."""
    async with Client.connect(url, nickname=name) as client:
        await client.send(SignUp(name, PASSWORD))
        await client.expect(Account)
        yield client
