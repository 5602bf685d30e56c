"""The load bench's simulated clients: players replaying real games, spectators, bot opponents.

One ``Generator`` runs in its own process (``generator_process``) with an asyncio loop and a
share of the games, and obeys the coordinator in ``bench.load`` over a pipe:

- ``("setup",)``: start a game in every slot (create, join, watch); answers ``("live", n)``.
- ``("go", t0, interval)``: every slot plays one move each ``interval`` seconds (its first at
  ``t0`` plus its phase, so that moves are spread evenly over the games): an open-loop
  schedule, except that a move waits for the update of the move before it.
- ``("pace", interval)``: a new interval (the sweep).
- ``("window", start, end)``: answers ``("result", Window)`` with what happened to the moves
  sent between ``start`` and ``end`` (``time.perf_counter`` values, the same in every process
  on Linux: ``CLOCK_MONOTONIC``).
- ``("count",)``: answers ``("count", n)``, the games started so far.
- ``("acks",)``: stops the games (no move is sent after it) and answers ``("acks", Acks)``: the
  moves sent and those acknowledged (``reconnect`` plans).
- ``("stop",)``: closes the connections; answers ``("stopped",)``.

It also sends ``("progress", moves, errors)`` every second. Modes: ``server`` (the game server's
protocol: msgpack messages of ``protocol``), ``relay`` (``bench.relay``: the same
schedule, each move a frame of the size of the server's real updates) and ``bots`` (players
against a bot level, thinking between moves like people).

A plan lists the server processes' URLs: a game's white player connects to the process of its
slot number, black to the next one (so with two processes or more every move crosses processes
through Redis), and the spectators go round-robin. With ``reconnect`` (the kill check), a
client whose connection is lost says ``hello`` with its token to the next process, watches its
games again since the last version it saw, and sends again a move (or a resignation) that the
game does not show; and each move the mover sees acknowledged (the update at the move's version,
holding the move) is kept, for the coordinator to find in the game's record.

Latency is measured from the moment a move is sent to the moment the opponent (and each
spectator) receives the update with the new version. Updates are not fully decoded: the
generator reads the frame's type, game, version and the state's status and skips the rest
(``peek``), so that it stays cheap next to the server it measures.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import json
import random
import time
import urllib.request
import zlib
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Final, Literal

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from hive import Game, HiveError
from protocol import (
    Color,
    CreateGame,
    Hello,
    JoinGame,
    Play,
    Resign,
    Unwatch,
    Update,
    Watch,
    Welcome,
    decode_server,
    encode,
)
from tests.vectors import VECTORS, tsv_rows

Mode = Literal["server", "relay", "bots"]
Role = Literal["white", "black", "spectator", "human"]

WAIT_TIMEOUT: Final = 10.0
"""Longest wait for an update before a game is given up (and counted as an error)."""
CONNECT_AT_ONCE: Final = 50
"""Connections opened (and games started) at the same time, over all generator processes (the
server's listen backlog is 100)."""
HELLO_TRIES: Final = 5
LATE: Final = 0.05
"""A move sent this much after its due time counts as late (the schedule slipped)."""
CHECKED: Final = 0.005
"""Share of the server's frames decoded in full to check ``peek`` and the replay."""
BOT_MAX_PLIES: Final = 80
"""A game against a bot that lasts this long is resigned (and another one started)."""
RECONNECT_SECONDS: Final = 60.0
"""Longest a client tries to reconnect (``reconnect`` plans) before it gives up."""
RECONNECT_PAUSE: Final = 0.2
"""Pause between two tries to reconnect."""


# -- the games replayed ----------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    """A real game: its type and its moves as canonical MoveStrings (the engine's spelling)."""

    name: str
    game_type: str
    moves: tuple[str, ...]


def _replay(name: str, game_string: str) -> Replay | None:
    """The moves of a GameString, replayed as the server would (threefold repetition draws);
    None when it has fewer than two moves. The replay stops where the game ends."""
    fields = [f.strip() for f in game_string.strip().split(";")]
    game = Game(fields[0], repetition_draw=True)
    moves = []
    for text in filter(None, fields[3:]):
        if game.is_over():
            break
        try:
            move = game.parse_move(text)
        except HiveError:
            break
        moves.append(game.move_string(move))
        game.push(move)
    if len(moves) < 2:
        return None
    return Replay(name, str(game.game_type), tuple(moves))


def real_games() -> list[Replay]:
    """The games of ``../shared/hive-vectors``: the longest prefix of each real game of
    ``mzinga_validmoves_realgames.tsv``, every GameString of ``nokamute_uhp_tests.txt`` and of
    the mid-game perft positions (duplicates once)."""
    found: dict[str, Replay] = {}
    longest: dict[str, str] = {}
    title = ""
    for line in (VECTORS / "mzinga_validmoves_realgames.tsv").read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("# ").strip()
        elif line.strip():
            game_string = line.split("\t")[0]
            if game_string.count(";") > longest.get(title, "").count(";"):
                longest[title] = game_string
    strings = [(name, text) for name, text in longest.items()]
    name = ""
    for line in (VECTORS / "nokamute_uhp_tests.txt").read_text().splitlines():
        if line.startswith("#"):
            name = "nokamute: " + line.lstrip("# ").strip()
        elif line.startswith("Base"):
            strings.append((name, line))
    perft = json.loads((VECTORS / "oracle_nokamute_midgame_perft.json").read_text())
    strings += [(p["name"], p["gamestring"]) for p in perft["positions"]]
    for row in tsv_rows("mzinga_perft/Board_BaseMLP_PerftTest.tsv"):
        strings.append(("mzinga perft", row[0]))  # start positions: no moves, left out below
    for name, text in strings:
        replay = _replay(name, text)
        if replay is not None and replay.moves not in {r.moves for r in found.values()}:
            found[name + text] = replay
    return list(found.values())


# -- reading frames --------------------------------------------------------------------------


def peek(frame: bytes) -> tuple[str | None, str | None, int, str | None, Any]:
    """``(type, game, version, status, code)`` of a server frame, without decoding the state:
    ``status`` is the state's (updates), ``code`` the error code (errors)."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(frame)
    kind = game = status = code = None
    version = 0
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        if key == "type":
            kind = unpacker.unpack()
        elif key == "game":
            game = unpacker.unpack()
        elif key == "version":
            version = unpacker.unpack()
        elif key == "code":
            code = unpacker.unpack()
        elif key == "state":
            for _ in range(unpacker.read_map_header()):
                if unpacker.unpack() == "status":
                    status = unpacker.unpack()
                else:
                    unpacker.skip()
        else:
            unpacker.skip()
    return kind, game, version, status, code


class GameFailed(Exception):
    """The server refused a request of the game (``refused``: the error is counted already),
    or an update did not come in time."""

    def __init__(self, why: str, *, refused: bool = False) -> None:
        super().__init__(why)
        self.refused = refused


@dataclass
class Pending:
    """A move in flight: when it was sent, by whom, and how many receipts are still due."""

    sent: float
    mover: Conn
    due: int
    measured: bool


class Recorder:
    """The figures of one generator process."""

    def __init__(self) -> None:
        self.pending: dict[tuple[str, int], Pending] = {}
        self.window: tuple[float, float] | None = None
        self.opponent: list[float] = []
        self.spectator: list[float] = []
        self.update_bytes: list[int] = []
        self.bot_reply: list[float] = []
        self.bot_plies: list[tuple[str, int, float]] = []
        self.moves = 0
        self.measured_moves = 0
        self.late = 0
        self.errors: Counter[str] = Counter()

    def sent(self, game: str, version: int, at: float, mover: Conn, receivers: int) -> None:
        window = self.window
        measured = window is not None and window[0] <= at < window[1]
        self.pending[(game, version)] = Pending(at, mover, receivers, measured)
        if measured:
            self.measured_moves += 1

    def received(self, conn: Conn, game: str, version: int, at: float, size: int) -> None:
        pending = self.pending.get((game, version))
        if pending is None or conn is pending.mover:
            return
        if conn.role == "spectator":
            if pending.measured:
                self.spectator.append(at - pending.sent)
        else:
            self.moves += 1
            if pending.measured:
                self.opponent.append(at - pending.sent)
                self.update_bytes.append(size)
        pending.due -= 1
        if pending.due <= 0:
            del self.pending[(game, version)]

    def forget_before(self, at: float) -> int:
        """Drop the moves sent before ``at`` still waiting for receipts; how many were measured."""
        stale = [key for key, p in self.pending.items() if p.sent < at]
        lost = sum(1 for key in stale if self.pending[key].measured)
        for key in stale:
            del self.pending[key]
        return lost


# -- connections -----------------------------------------------------------------------------


def address_of(name: str) -> dict[str, str]:
    """The ``X-Forwarded-For`` header of a simulated person: an address of 10/8 of their own
    (the server trusts the bench's 127.0.0.1 as a proxy), so that the limits per address apply
    to the load as to people at home."""
    n = zlib.crc32(name.encode()) & 0xFFFFFF
    return {"X-Forwarded-For": f"10.{n >> 16}.{(n >> 8) & 255}.{n & 255}"}


class Conn:
    """One websocket client and what it has received. With a ``reconnect`` plan it outlives
    its connection: a lost one is replaced by one to the next server process (``reconnect``)."""

    def __init__(
        self, ws: ClientConnection, role: Role, generator: Generator, url: str, token: str = ""
    ) -> None:
        self.ws = ws
        self.role = role
        self.generator = generator
        self.url = url
        self.token = token
        self.latest: dict[str, int] = {}
        self.status: dict[str, str | None] = {}
        self.creating: asyncio.Future[str] | None = None
        self.reader: asyncio.Task[None] | None = None
        self.closing = False
        self.epoch = 0
        """Connections replaced so far (a frame sent on an older one may be lost)."""
        self.up = asyncio.Event()
        self.up.set()
        self.resyncing: set[str] = set()
        """Games watched again after a reconnect whose first update has not come yet."""
        self.lost_at = 0.0
        self.headers: dict[str, str] = {}
        """The headers of its connections: its simulated address (see ``address_of``)."""

    def start(self) -> None:
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        while True:
            with contextlib.suppress(ConnectionClosed):
                async for frame in self.ws:
                    assert isinstance(frame, bytes)
                    self.received(frame, time.perf_counter())
            if self.closing or not self.generator.plan.reconnect or not await self.reconnect():
                return

    def received(self, frame: bytes, at: float) -> None:
        generator = self.generator
        if generator.mode == "relay":
            game, version, _ = msgpack.unpackb(frame)
            self._update(game, version, None, at, frame)
            return
        kind, game, version, status, code = peek(frame)
        if generator.rng.random() < CHECKED:
            generator.check(frame, kind, game, version, status)
        if kind == "update" and game is not None:
            self._update(game, version, status, at, frame)
            if generator.mode == "bots":
                generator.bot_update(self, frame, at)
        elif kind == "error":
            generator.recorder.errors[str(code)] += 1
            slot = generator.by_game.get(game or "")
            if slot is not None:
                slot.fail(f"error {code}")

    def _update(self, game: str, version: int, status: str | None, at: float, frame: bytes) -> None:
        creating = self.creating
        if creating is not None and version == 1 and not creating.done():
            creating.set_result(game)  # a new game's first update (not a late one of an old game)
        generator = self.generator
        seen = self.latest.get(game, -1)
        if version > seen:
            self.latest[game] = version
            self.status[game] = status
            if 0 <= seen < version - 1:  # a catch-up (after a reconnect): the versions between
                for skipped in range(seen + 1, version):
                    generator.recorder.received(self, game, skipped, at, len(frame))
        generator.recorder.received(self, game, version, at, len(frame))
        if generator.plan.reconnect:
            generator.acknowledge(self, game, version, frame)
        slot = generator.by_game.get(game)
        if slot is not None:
            slot.woken(self, game)
        if self.resyncing and game in self.resyncing:
            self.resyncing.discard(game)
            if slot is not None:
                slot.resynced(self, game)
            if not self.resyncing:
                generator.reconnected(self, at)

    async def reconnect(self) -> bool:
        """Replace the lost connection: ``hello`` with the token to the next server process
        (each in turn until one answers), then watch every game again since the last version
        seen. False: no process answered in RECONNECT_SECONDS."""
        generator = self.generator
        self.up.clear()
        self.lost_at = time.perf_counter()
        generator.last_reconnect = self.lost_at
        urls = generator.plan.urls
        first = urls.index(self.url) + 1 if self.url in urls else 0
        give_up = self.lost_at + RECONNECT_SECONDS
        for attempt in itertools.count():
            if self.closing or time.perf_counter() > give_up:
                generator.recorder.errors["reconnect: gave up"] += 1
                return False
            url = urls[(first + attempt) % len(urls)]
            try:
                async with generator.reconnecting:
                    ws = await connect(
                        url,
                        max_size=None,
                        compression=None,
                        ping_interval=None,
                        open_timeout=10,
                        additional_headers=self.headers,
                    )
                    await ws.send(encode(Hello(token=self.token)))
                    answer = await ws.recv()
                    assert isinstance(answer, bytes)
                welcome = decode_server(answer)
                if isinstance(welcome, Welcome):
                    generator.welcomed.append(time.perf_counter() - self.lost_at)
                    break
                generator.recorder.errors[f"rehello: {getattr(welcome, 'code', '?')}"] += 1
                await ws.close()
            except (OSError, TimeoutError, WebSocketException):
                pass  # that process is gone (or not answering): the next one
            await asyncio.sleep(RECONNECT_PAUSE)
        self.ws, self.url = ws, url
        self.epoch += 1
        self.resyncing = set(self.latest)
        generator.last_reconnect = time.perf_counter()
        for game, version in list(self.latest.items()):
            await ws.send(encode(Watch(game, since=version)))
        self.up.set()
        if not self.resyncing:
            generator.reconnected(self, time.perf_counter())
        return True

    async def send(self, frame: bytes, *, droppable: bool = False) -> int | None:
        """Send ``frame``; the connection it went on (``epoch``). With a ``reconnect`` plan, a
        frame for a lost connection waits for the next one, unless ``droppable`` (then None:
        not sent; ``Slot.resynced`` sends it again once the game is known)."""
        if not self.generator.plan.reconnect:
            await self.ws.send(frame)
            return self.epoch
        while True:
            if not self.up.is_set():
                if droppable:
                    return None
                await self.up.wait()
            epoch = self.epoch
            try:
                await self.ws.send(frame)
                return epoch
            except ConnectionClosed:
                if droppable or self.closing:
                    return None
                while self.epoch == epoch and not self.closing:  # until the reader reconnects
                    await asyncio.sleep(0.05)

    async def close(self) -> None:
        self.closing = True
        await self.ws.close()
        if self.reader is not None:
            await self.reader


# -- the games -------------------------------------------------------------------------------


@dataclass
class InFlight:
    """A change a slot sent on ``version`` of its game and awaits (``reconnect`` plans):
    ``epoch`` is the connection it went on (None: not sent)."""

    conn: Conn
    version: int
    frame: bytes
    epoch: int | None = None


class Slot:
    """The games played one after another by two players, watched by the slot's spectators."""

    def __init__(
        self, number: int, white: Conn, black: Conn, spectators: list[Conn], gen: Generator
    ) -> None:
        self.number = number
        self.white = white
        self.black = black
        self.spectators = spectators
        self.generator = gen
        self.game = ""
        self.version = 0
        self.played = 0
        self.replay_index = number
        self.replay = gen.replays[number % len(gen.replays)]
        self.waiting: tuple[Conn, int, asyncio.Future[None]] | None = None
        self.in_flight: InFlight | None = None

    # waiting for updates

    def woken(self, conn: Conn, game: str) -> None:
        waiting = self.waiting
        if (
            waiting is not None
            and waiting[0] is conn
            and game == self.game
            and conn.latest.get(game, -1) >= waiting[1]
            and not waiting[2].done()
        ):
            waiting[2].set_result(None)

    def fail(self, why: str) -> None:
        if self.waiting is not None and not self.waiting[2].done():
            self.waiting[2].set_exception(GameFailed(why, refused=True))

    async def wait(self, conn: Conn, version: int) -> None:
        """Until ``conn`` has the update with ``version`` of the slot's game."""
        if conn.latest.get(self.game, -1) >= version:
            return
        future = asyncio.get_running_loop().create_future()
        self.waiting = (conn, version, future)
        try:
            if self.generator.plan.reconnect:
                await self._wait_reconnecting(future)
            else:
                async with asyncio.timeout(WAIT_TIMEOUT):
                    await future
        except TimeoutError:
            raise GameFailed(f"timeout: an update took over {WAIT_TIMEOUT:.0f} s") from None
        finally:
            self.waiting = None

    async def _wait_reconnecting(self, future: asyncio.Future[None]) -> None:
        """Await ``future`` for WAIT_TIMEOUT, and longer while clients reconnect (until
        WAIT_TIMEOUT after the last reconnect).

        Raises:
            TimeoutError: Nothing came in time.
        """
        generator = self.generator
        give_up = time.perf_counter() + WAIT_TIMEOUT
        while True:
            await asyncio.wait([future], timeout=max(0.0, give_up - time.perf_counter()))
            if future.done():
                return future.result()
            give_up = max(give_up, generator.last_reconnect + WAIT_TIMEOUT)
            if time.perf_counter() >= give_up:
                future.cancel()
                raise TimeoutError

    def resynced(self, conn: Conn, game: str) -> None:
        """``conn`` has the game's state again after a reconnect: a change it sent on an
        older connection that the game does not show is sent again (its version makes a
        second copy of a change that did get in meanwhile a refused ``stale``)."""
        flight = self.in_flight
        if flight is None or flight.conn is not conn or game != self.game:
            return
        if conn.latest.get(game, -1) > flight.version or flight.epoch == conn.epoch:
            return
        flight.epoch = conn.epoch
        self.generator.resent += 1
        self.generator.spawn(conn.send(flight.frame, droppable=True))

    async def _send_once(self, conn: Conn, version: int, frame: bytes) -> None:
        """Send a change made on ``version`` (``reconnect`` plans: sent again after a
        reconnect unless the game shows it, see ``resynced``)."""
        flight = self.in_flight = InFlight(conn, version, frame)
        sent = await conn.send(frame, droppable=True)
        if sent is not None and (flight.epoch is None or sent > flight.epoch):
            flight.epoch = sent

    # the game server

    async def start_game(self) -> None:
        """Create a game (white), join it (black), watch it (spectators)."""
        generator = self.generator
        if generator.mode == "relay":
            self.game = f"relay-{self.number}"
            self.version = 2
            generator.by_game[self.game] = self
            return
        replay = generator.replays[self.replay_index % len(generator.replays)]
        white = self.white
        white.creating = asyncio.get_running_loop().create_future()
        await white.send(encode(CreateGame(game_type=replay.game_type, color="white")))
        try:
            async with asyncio.timeout(WAIT_TIMEOUT):
                self.game = await white.creating
        except TimeoutError:
            raise GameFailed(f"timeout: create unanswered in {WAIT_TIMEOUT:.0f} s") from None
        finally:
            white.creating = None
        generator.by_game[self.game] = self
        self.replay = replay  # the next game replays another only once this one is created:
        self.replay_index += 1  # a late answer to a timed-out create has the same game type
        self.played = 0
        generator.started += 1
        await self.black.send(encode(JoinGame(self.game)))
        for spectator in self.spectators:
            await spectator.send(encode(Watch(self.game)))
        for conn in (self.white, self.black, *self.spectators):
            await self.wait(conn, 2)
        self.version = 2

    async def end_game(self) -> None:
        """Resign the game unless it is over; everyone stops watching it."""
        generator = self.generator
        game = self.game
        if generator.mode == "relay":
            return
        if self.status() == "live":
            mover, other = self._movers()
            resign = encode(Resign(game))
            try:
                if generator.plan.reconnect:
                    await self._send_once(mover, self.version, resign)
                else:
                    await mover.send(resign)
                with contextlib.suppress(GameFailed):
                    await self.wait(other, self.version + 1)
            finally:
                self.in_flight = None
        # Spectators watch to the end. With two processes, a spectator's process may pass the
        # last move on after the opponent's has: one that left once the players had it would
        # miss its last update, counted as lost.
        final = max(self.white.latest.get(game, -1), self.black.latest.get(game, -1))
        for spectator in self.spectators:
            await self.wait(spectator, final)
        await self._leave()

    async def _leave(self) -> None:
        game = self.game
        for conn in (self.white, self.black, *self.spectators):
            with contextlib.suppress(ConnectionClosed):
                await conn.send(encode(Unwatch(game)))
            conn.latest.pop(game, None)
            conn.status.pop(game, None)
        self.generator.by_game.pop(game, None)

    def status(self) -> str | None:
        """The game's status in the later of the players' updates (the players may be on
        different processes: one of them may not have the last update yet)."""
        game = self.game
        white, black = self.white, self.black
        later = white if white.latest.get(game, -1) >= black.latest.get(game, -1) else black
        return later.status.get(game)

    def _movers(self) -> tuple[Conn, Conn]:
        if self.version % 2 == 0:  # version 2: the game has started, white to move
            return self.white, self.black
        return self.black, self.white

    async def move(self) -> None:
        """Play the next move (or the next frame, through the relay)."""
        generator = self.generator
        mover, other = self._movers()
        version = self.version
        if generator.mode == "relay":
            frame = msgpack.packb([self.game, version + 1, generator.padding])
        else:
            text = self.replay.moves[self.played]
            frame = encode(Play(self.game, version, text))
        at = time.perf_counter()
        generator.recorder.sent(self.game, version + 1, at, mover, 1 + len(self.spectators))
        try:
            if generator.plan.reconnect:
                generator.expect_ack(self.game, mover, version + 1, self.played, self.replay)
                await self._send_once(mover, version, frame)
            else:
                await mover.send(frame)
            await self.wait(other, version + 1)
        finally:
            self.in_flight = None
        self.version = version + 1
        self.played += 1

    def game_done(self) -> bool:
        if self.generator.mode == "relay":
            return False
        return self.played >= len(self.replay.moves) or (
            self.white.status.get(self.game) == "over" or self.black.status.get(self.game) == "over"
        )

    async def run(self, pace: Pace, t0: float) -> None:
        """Moves on the schedule, game after game, until cancelled."""
        due = t0 + pace.phase(self.number)
        recorder = self.generator.recorder
        while True:
            try:
                while not self.game_done():
                    now = time.perf_counter()
                    if due > now:
                        await asyncio.sleep(due - now)
                    elif now - due > LATE:
                        recorder.late += 1
                        due = now
                    await self.move()
                    due += pace.interval
                await self.end_game()
            except GameFailed as failure:
                if not failure.refused:
                    recorder.errors[str(failure)] += 1
                with contextlib.suppress(ConnectionClosed):
                    if self.status() == "live":
                        await self.white.send(encode(Resign(self.game)))  # leave nothing live
                    await self._leave()
            while True:
                try:
                    await self.start_game()
                    break
                except GameFailed as failure:
                    if not failure.refused:
                        recorder.errors[str(failure)] += 1
                    await asyncio.sleep(1)  # the server is struggling: let it breathe


class Pace:
    """The schedule: every game plays a move each ``interval`` seconds, the games' moves
    spread evenly over it."""

    def __init__(self, interval: float, games: int) -> None:
        self.interval = interval
        self.games = games

    def phase(self, slot: int) -> float:
        return self.interval * slot / self.games


# -- games against bots ------------------------------------------------------------------------


class BotSlot:
    """A person playing games against a bot level, thinking between moves."""

    def __init__(self, number: int, conn: Conn, gen: Generator) -> None:
        self.number = number
        self.conn = conn
        self.generator = gen
        self.rng = random.Random(number)
        self.color: Color = "white" if number % 2 == 0 else "black"
        self.game: str | None = None
        """The game played; None while one is being created."""
        self.state: Update | None = None
        self.changed = asyncio.Event()
        self.sent: tuple[int, float] | None = None
        """The plies after the person's last move, and when it was sent."""
        self.old_games: set[str] = set()
        """Games played before (their late updates are not the new game's)."""

    def update(self, update: Update, at: float) -> None:
        if self.game is None and update.game not in self.old_games:
            self.game = update.game
        if update.game != self.game or (
            self.state is not None and update.version <= self.state.version
        ):
            return
        self.state = update
        state = update.state
        sent = self.sent
        if sent is not None and (state.status != "live" or len(state.moves) > sent[0]):
            if len(state.moves) > sent[0]:  # the bot has answered
                recorder = self.generator.recorder
                recorder.bot_reply.append(at - sent[1])
                recorder.bot_plies.append((self.game, len(state.moves), at - sent[1]))
            self.sent = None
        self.changed.set()

    async def run(self, level: str, think: float) -> None:
        conn = self.conn
        while True:
            self._forget()
            await conn.send(encode(CreateGame(color=self.color, opponent="bot", level=level)))
            await self._play(think)
            assert self.state is not None
            await conn.send(encode(Unwatch(self.state.game)))

    def _forget(self) -> None:
        """Forget the game played (a new one is being created)."""
        if self.game is not None:
            self.old_games.add(self.game)
        self.game, self.state, self.sent = None, None, None

    async def _play(self, think: float) -> None:
        conn = self.conn
        while True:
            self.changed.clear()
            update = self.state
            if update is None or update.state.status == "open":
                await self.changed.wait()
                continue
            state = update.state
            if state.status != "live":
                return
            if state.turn != self.color:
                await self.changed.wait()
                continue
            if len(state.moves) >= BOT_MAX_PLIES:
                await conn.send(encode(Resign(update.game)))
                await self.changed.wait()
                continue
            await asyncio.sleep(think * self.rng.uniform(0.5, 1.5))
            legal = state.legal
            move = self.rng.choice(legal).move if legal else "pass"
            self.sent = (len(state.moves) + 1, time.perf_counter())
            await conn.send(encode(Play(update.game, update.version, move)))
            await self.changed.wait()


def fetch_trace(http_url: str, game: str, ply: int) -> tuple[str, float, str] | None:
    """The ``source``, ``seconds`` and position of a bot move's search trace (None: not
    kept)."""
    try:
        with urllib.request.urlopen(f"{http_url}/games/{game}/trace/{ply}.json", timeout=10) as r:
            trace = json.loads(r.read())
    except (OSError, ValueError):
        return None
    run = trace.get("run") or {}
    return str(run.get("source", "search")), float(run.get("seconds", 0.0)), trace["position"]


# -- the generator ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What one generator process drives."""

    mode: Mode
    urls: tuple[str, ...]
    """The server processes' websocket URLs (or the relay's)."""
    slots: list[int]
    spectators: dict[int, int]
    """Spectators per slot (slots left out have none)."""
    games: int
    """Slots across all processes (for the phases of the schedule)."""
    padding: int = 0
    """Relay mode: bytes of payload per move frame."""
    at_once: int = CONNECT_AT_ONCE
    """Connections opened (and games started) at the same time by this process."""
    level: str = "medium"
    think: float = 5.0
    http_url: str = ""
    reconnect: bool = False
    """Reconnect lost connections to another process, and keep the moves acknowledged."""
    together: bool = False
    """Every connection of a game on one process (as a proxy routing by game places them)."""

    def url_for(self, role: Role, slot: int, index: int = 0) -> str:
        """The URL a client connects to: white to its slot's process, black to the next
        (another one when there are two or more), spectators round-robin over all of them;
        ``together``: all of them to the slot's process."""
        urls = self.urls
        if self.together:
            return urls[slot % len(urls)]
        if role == "black":
            return urls[(slot + 1) % len(urls)]
        if role == "spectator":
            return urls[(index * self.games + slot) % len(urls)]
        return urls[slot % len(urls)]


@dataclass
class Acks:
    """The moves acknowledged to their movers (``reconnect`` plans), and the reconnects."""

    games: dict[str, tuple[tuple[str, ...], list[int]]] = field(default_factory=dict)
    """Each game moved in: the moves sent (the replay's first plies), the plies acknowledged."""
    reconnects: list[float] = field(default_factory=list)
    """Seconds from a lost connection to the answers of its watches on the next process."""
    welcomed: list[float] = field(default_factory=list)
    """Seconds from a lost connection to the ``welcome`` of the next process."""
    resent: int = 0
    """Changes sent again after a reconnect (the game did not show them)."""
    unconfirmed: int = 0
    """Updates at a move's version that did not hold the move (the version went elsewhere)."""
    resyncing: int = 0
    """Connections still waiting for the answer to a watch after their reconnect."""


@dataclass
class Window:
    """What a generator measured over a window."""

    opponent: list[float] = field(default_factory=list)
    spectator: list[float] = field(default_factory=list)
    update_bytes: list[int] = field(default_factory=list)
    moves: int = 0
    """Moves sent in the window whose update reached the opponent."""
    sent: int = 0
    lost: int = 0
    late: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    lag: list[float] = field(default_factory=list)
    """The event loop's lateness at 10 ms ticks (how busy the generator was)."""
    bot_reply: list[float] = field(default_factory=list)
    bot_search: list[tuple[str, float, str]] = field(default_factory=list)
    """Each bot move's trace: its source (search, book, forced), search seconds, position."""


class Generator:
    """One process's clients, driven by the coordinator's commands."""

    def __init__(self, plan: Plan, pipe: Connection) -> None:
        self.plan = plan
        self.mode: Mode = plan.mode
        self.pipe = pipe
        self.recorder = Recorder()
        self.replays = real_games()
        self.padding = b"\0" * plan.padding
        self.slots: list[Slot] = []
        self.bot_slots: list[BotSlot] = []
        self.conns: list[Conn] = []
        self.by_game: dict[str, Slot] = {}
        self.bot_by_conn: dict[Conn, BotSlot] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.lags: list[float] = []
        self.started = 0
        """Games started so far."""
        self.rng = random.Random(0)
        # reconnect plans
        self.reconnecting = asyncio.Semaphore(plan.at_once)
        self.last_reconnect = float("-inf")
        self.reconnects: list[float] = []
        self.welcomed: list[float] = []
        self.resent = 0
        self.background: set[asyncio.Task[Any]] = set()
        self.unacked: dict[str, list[tuple[int, int, Conn]]] = {}
        """Moves awaiting their mover's update, by game: (version, ply, mover)."""
        self.acked: dict[str, list[int]] = {}
        self.moved: dict[str, tuple[tuple[str, ...], int]] = {}
        """The games moved in: their replay's moves, and how many were sent."""
        self.unconfirmed = 0

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def expect_ack(self, game: str, mover: Conn, version: int, ply: int, replay: Replay) -> None:
        """The move of ``ply`` is sent: acknowledged once ``mover`` has the update of
        ``version`` holding it."""
        self.unacked.setdefault(game, []).append((version, ply, mover))
        self.moved[game] = (replay.moves, ply + 1)

    def acknowledge(self, conn: Conn, game: str, version: int, frame: bytes) -> None:
        """An update of ``version`` reached ``conn``: the moves it acknowledges (decoded in
        full, so that the move is seen in the state, not only its version)."""
        waiting = self.unacked.get(game)
        if not waiting:
            return
        due = [entry for entry in waiting if entry[2] is conn and version >= entry[0]]
        if not due:
            return
        update = decode_server(frame)
        moves = update.state.moves if isinstance(update, Update) else []
        replay = self.moved[game][0]
        for entry in due:
            waiting.remove(entry)
            ply = entry[1]
            if ply < len(moves) and moves[ply] == replay[ply]:
                self.acked.setdefault(game, []).append(ply)
            else:
                self.unconfirmed += 1
        if not waiting:
            del self.unacked[game]

    def reconnected(self, conn: Conn, at: float) -> None:
        self.reconnects.append(at - conn.lost_at)
        self.last_reconnect = max(self.last_reconnect, at)

    def acks(self) -> Acks:
        return Acks(
            games={
                game: (moves[:sent], list(self.acked.get(game, [])))
                for game, (moves, sent) in self.moved.items()
            },
            reconnects=list(self.reconnects),
            welcomed=list(self.welcomed),
            resent=self.resent,
            unconfirmed=self.unconfirmed,
            resyncing=sum(1 for conn in self.conns if conn.resyncing),
        )

    def check(
        self, frame: bytes, kind: str | None, game: str | None, version: int, status: str | None
    ) -> None:
        """Decode a frame in full: ``peek`` must agree, and an update of a replayed game must
        hold the replay's moves (its version is 2 + the moves: created, joined, moves)."""
        message = decode_server(frame)
        if kind != message.TYPE:
            self.recorder.errors["peek: wrong type"] += 1
        if not isinstance(message, Update):
            return
        if (message.game, message.version, message.state.status) != (game, version, status):
            self.recorder.errors["peek: wrong fields"] += 1
        slot = self.by_game.get(message.game)
        state = message.state
        if slot is not None and state.status == "live" and message.game == slot.game:
            plies = message.version - 2
            if list(slot.replay.moves[:plies]) != state.moves:
                self.recorder.errors["state: not the replayed moves"] += 1

    def bot_update(self, conn: Conn, frame: bytes, at: float) -> None:
        update = decode_server(frame)
        assert isinstance(update, Update)
        slot = self.bot_by_conn.get(conn)
        if slot is not None:
            slot.update(update, at)

    async def _connect(self, role: Role, name: str, url: str, limit: asyncio.Semaphore) -> Conn:
        async with limit:
            headers = address_of(name)
            ws = await connect(
                url,
                max_size=None,
                compression=None,
                ping_interval=None,
                open_timeout=60,
                additional_headers=headers,
            )
            conn = Conn(ws, role, self, url)
            conn.headers = headers
            if self.mode == "relay":
                await ws.send(name.encode())
                await ws.recv()
            else:
                for _ in range(HELLO_TRIES):
                    await ws.send(encode(Hello(nickname=name)))
                    answer = await ws.recv()
                    assert isinstance(answer, bytes)
                    welcome = decode_server(answer)
                    if isinstance(welcome, Welcome):
                        conn.token = welcome.token
                        break
                    self.recorder.errors[f"hello: {getattr(welcome, 'code', welcome.TYPE)}"] += 1
                    await asyncio.sleep(0.5)  # the server is busy: ask again shortly
                else:
                    raise RuntimeError(f"the server refused hello {HELLO_TRIES} times: {welcome}")
            conn.start()
            self.conns.append(conn)
            return conn

    async def connect(self) -> None:
        limit = asyncio.Semaphore(self.plan.at_once)
        plan = self.plan
        if self.mode == "bots":
            conns = await asyncio.gather(
                *(
                    self._connect("human", f"h{n}", plan.url_for("white", n), limit)
                    for n in plan.slots
                )
            )
            self.bot_slots = [BotSlot(n, c, self) for n, c in zip(plan.slots, conns, strict=True)]
            self.bot_by_conn = {slot.conn: slot for slot in self.bot_slots}
            return

        async def slot(number: int) -> Slot:
            group = f"relay-{number}"
            relay = self.mode == "relay"
            white, black, *spectators = await asyncio.gather(
                self._connect(
                    "white",
                    group if relay else f"w{number}",
                    plan.url_for("white", number),
                    limit,
                ),
                self._connect(
                    "black",
                    group if relay else f"b{number}",
                    plan.url_for("black", number),
                    limit,
                ),
                *(
                    self._connect(
                        "spectator",
                        group if relay else f"s{number}.{i}",
                        plan.url_for("spectator", number, i),
                        limit,
                    )
                    for i in range(plan.spectators.get(number, 0))
                ),
            )
            return Slot(number, white, black, spectators, self)

        self.slots = list(await asyncio.gather(*(slot(n) for n in plan.slots)))

    async def setup(self) -> int:
        limit = asyncio.Semaphore(self.plan.at_once)

        async def start(slot: Slot) -> None:
            async with limit:
                await slot.start_game()

        failed = await asyncio.gather(*(start(s) for s in self.slots), return_exceptions=True)
        for slot, error in zip(self.slots, failed, strict=True):
            if isinstance(error, GameFailed):
                self.recorder.errors["setup"] += 1
                await slot.start_game()  # a second try; a failure now stops the bench
            elif isinstance(error, BaseException):
                raise error
        return len(self.slots)

    async def ticker(self) -> None:
        """The loop's lateness at 10 ms ticks."""
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lags.append(time.perf_counter() - before - 0.01)

    async def progress(self) -> None:
        while True:
            await asyncio.sleep(1)
            errors = sum(self.recorder.errors.values())
            done = self.recorder.moves + len(self.recorder.bot_reply)
            self.pipe.send(("progress", done, errors))

    async def window(self, start: float, end: float) -> Window:
        recorder = self.recorder
        recorder.window = (start, end)
        # The generator is the instrument: its own collector's pauses (up to 30 ms with 3,000
        # connections) would count as the server's latency. It is off over the window (and
        # what it holds is collected before).
        gc.collect()
        gc.freeze()
        gc.disable()
        now = time.perf_counter()
        await asyncio.sleep(max(0.0, start - now))
        recorder.opponent, recorder.spectator, recorder.update_bytes = [], [], []
        recorder.bot_reply, recorder.bot_plies = [], []
        recorder.measured_moves = 0
        recorder.late = 0
        errors_before = Counter(recorder.errors)
        self.lags = []
        await asyncio.sleep(max(0.0, end - time.perf_counter()))
        lags = self.lags
        late = recorder.late
        bot_reply, bot_plies = recorder.bot_reply, recorder.bot_plies
        recorder.bot_reply, recorder.bot_plies = [], []
        # moves sent in the window: give their updates time to arrive
        give_up = time.perf_counter() + WAIT_TIMEOUT
        while time.perf_counter() < give_up and any(p.measured for p in recorder.pending.values()):
            await asyncio.sleep(0.05)
        lost = sum(1 for p in recorder.pending.values() if p.measured)
        recorder.window = None
        gc.enable()
        gc.unfreeze()
        recorder.forget_before(time.perf_counter() - 3 * WAIT_TIMEOUT)
        errors = recorder.errors - errors_before
        bot_search: list[tuple[str, float, str]] = []
        if self.mode == "bots":
            http_url = self.plan.http_url
            for game, ply, _ in bot_plies:
                found = await asyncio.to_thread(fetch_trace, http_url, game, ply)
                if found is not None:
                    bot_search.append(found)
        return Window(
            opponent=recorder.opponent,
            spectator=recorder.spectator,
            update_bytes=recorder.update_bytes,
            moves=len(recorder.opponent),
            sent=recorder.measured_moves,
            lost=lost,
            late=late,
            errors=dict(errors),
            lag=lags,
            bot_reply=bot_reply,
            bot_search=bot_search,
        )

    async def serve(self) -> None:
        """Obey the coordinator until ``stop``."""
        loop = asyncio.get_running_loop()
        pace = Pace(1.0, self.plan.games)
        background = [asyncio.create_task(self.ticker()), asyncio.create_task(self.progress())]
        try:
            await self.connect()
            self.pipe.send(("connected", len(self.conns)))
            while True:
                command = await loop.run_in_executor(None, self.pipe.recv)
                match command:
                    case ("setup",):
                        self.pipe.send(("live", await self.setup()))
                    case ("go", t0, interval):
                        pace.interval = interval
                        if self.mode == "bots":
                            self.tasks = [
                                asyncio.create_task(s.run(self.plan.level, self.plan.think))
                                for s in self.bot_slots
                            ]
                        else:
                            self.tasks = [asyncio.create_task(s.run(pace, t0)) for s in self.slots]
                    case ("pace", interval):
                        pace.interval = interval
                    case ("count",):
                        self.pipe.send(("count", self.started))
                    case ("acks",):
                        for task in self.tasks:  # no move sent after the answer
                            task.cancel()
                        await asyncio.gather(*self.tasks, return_exceptions=True)
                        self.pipe.send(("acks", self.acks()))
                    case ("window", start, end):
                        self.pipe.send(("result", await self.window(start, end)))
                    case ("stop",):
                        break
                    case _:
                        raise ValueError(f"unknown command {command!r}")
        finally:
            background += self.background
            for task in [*self.tasks, *background]:
                task.cancel()
            await asyncio.gather(*self.tasks, *background, return_exceptions=True)
            await asyncio.gather(*(c.close() for c in self.conns), return_exceptions=True)
        self.pipe.send(("stopped",))


def generator_process(plan: Plan, pipe: Connection) -> None:
    """The body of a generator process."""
    try:
        asyncio.run(Generator(plan, pipe).serve())
    except BaseException as error:
        pipe.send(("failed", f"{type(error).__name__}: {error}"))
        raise
