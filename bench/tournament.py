"""An arena of 200 players on one server process: the pairing delay, and the server's CPU a
move in a tournament against the same games outside one.

    python -m bench.tournament [--players 200] [--seconds 20] [--plies 4] [--runs 3]

Each run starts a Redis (no persistence) and one server process (``bench.load``'s), makes
``--players`` bot accounts (in Redis, as ``hive-server create-bot`` does) and connects each
through the real protocol, from an address of its own. Then:

1. **In a tournament**: an account makes an arena (Base, 1+0, casual) and every player joins
   it. Each game the arena pairs a player in (``tournament_game``) is watched and played
   quickly: ``--plies`` random legal moves, then, by the game's id, White resigns, Black
   resigns, or both offer a draw (a third each). Over ``--seconds`` it measures the **pairing
   delay**: from a player's client receiving the end of its game (the update ``over``) to it
   receiving its next ``tournament_game`` (0 when the pairing came first); then the arena's
   end is brought forward (``TournamentStore.end_at``) and the run waits for it to be over.
2. **Outside one**: the same players, in fixed pairs, play the same number of games with the
   same script in the lobby (one creates a game open to anyone, the other joins it at once).

Both phases measure the server's CPU (and Redis's) over the plies played: **CPU a move**.
Prints each run and the medians of the runs; docs/load.md ("Tournaments") has the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed

from bench.load import ServerProcess, cpu_seconds, free_port, percentile
from bench.loadgen import address_of
from protocol import (
    Account,
    CreateGame,
    CreateTournament,
    Draw,
    JoinGame,
    JoinTournament,
    Play,
    Resign,
    SignUp,
    TimeControl,
    Tournament,
    Unwatch,
    Watch,
    encode,
)
from protocol.client import Client
from server.embedded import RedisProcess
from server.storage.store import Store
from server.storage.tournaments import TournamentStore

CLOCK = TimeControl("clock", 60, 0)
CONNECT_AT_ONCE = 20
SERVER_ARGS = ("--games-per-minute", "100000")
"""The lobby phase makes a game a second or more a pair: past a person's limit."""


def ending(game: str) -> str:
    """How the script ends ``game``: ``white`` or ``black`` resigns, or a ``draw``."""
    return ("white", "black", "draw")[zlib.crc32(game.encode()) % 3]


@dataclass
class Player:
    """A simulated player: its connection, the game it plays, and what it measured."""

    client: Client
    name: str
    plies: int
    think: float = 0.0  # seconds before each move, resignation or draw offer
    game: str | None = None
    acted: set[str] = field(default_factory=set)
    ended_at: float | None = None  # when it saw its last game's end (None: in a game)
    early: bool = False  # told of its next game before it saw the end of the last
    delays: list[float] = field(default_factory=list)
    games: int = 0
    moves: int = 0
    done: asyncio.Event = field(default_factory=asyncio.Event)
    over: bool = False  # the tournament is over
    listed: int = 0  # the most players it was told the tournament has
    making: asyncio.Future[str] | None = None  # (lobby) the id of the game it makes
    thinking: set[asyncio.Task[None]] = field(default_factory=set)

    async def send(self, message: Any) -> None:
        await self.client.ws.send(encode(message))

    async def act(self, message: Any) -> None:
        """Send ``message`` after thinking (``think``), without holding up the reading."""
        if not self.think:
            await self.send(message)
            return

        async def later() -> None:
            await asyncio.sleep(self.think)
            with contextlib.suppress(ConnectionClosed):
                await self.send(message)

        task = asyncio.create_task(later())
        self.thinking.add(task)
        task.add_done_callback(self.thinking.discard)

    async def start(self, game: str) -> None:
        """A game to play (its first update follows the ``watch``)."""
        if self.ended_at is not None:
            self.delays.append(time.perf_counter() - self.ended_at)
            self.ended_at = None
        elif self.game is not None:
            self.early = True  # (the end of the last one is on its way)
        self.game = game
        await self.send(Watch(game))

    async def run(self) -> None:
        """Read and answer its messages until the connection ends."""
        me = self.client.player
        while True:
            raw = await self.client.ws.recv()
            found = msgpack.unpackb(raw)
            kind = found["type"]
            if kind == "tournament_game":
                if found["game"] != self.game:
                    await self.start(found["game"])
            elif kind == "tournament":
                self.listed = max(self.listed, found["summary"]["players"])
                if found["summary"]["status"] == "over":
                    self.over = True
                    self.done.set()
            elif kind == "update":
                await self.update(found, me)
            elif kind == "error":
                print(f"{self.name}: {found['code']} {found['message']}", file=sys.stderr)

    async def update(self, update: dict[str, Any], me: str) -> None:
        state = update["state"]
        game = update["game"]
        if self.making is not None and not self.making.done() and state["status"] == "open":
            self.making.set_result(game)
            return
        if state["status"] == "over":
            if game == self.game or self.early:
                self.games += 1
                await self.send(Unwatch(game))
                if self.early and game != self.game:
                    self.early = False
                    return
                self.game = None
                self.ended_at = time.perf_counter()
                self.done.set()
            return
        if game != self.game or state["status"] != "live":
            return
        mine = "white" if state["white"]["player"] == me else "black"
        plies = len(state["moves"])
        if plies < self.plies:
            if state["turn"] == mine:
                legal = [m["move"] for m in state["legal"]] or ["pass"]
                move = legal[zlib.crc32(f"{game}{plies}".encode()) % len(legal)]
                self.moves += 1
                await self.act(Play(game, update["version"], move))
            return
        how = ending(game)
        if how == mine and game not in self.acted:
            self.acted.add(game)
            await self.act(Resign(game))
        elif (
            how == "draw"
            and game not in self.acted
            and (state["turn"] == mine or state.get("draw_offer") not in (None, mine))
        ):
            self.acted.add(game)
            await self.act(Draw(game, "offer"))  # (both offering: agreed)


@dataclass
class Phase:
    """One phase's figures."""

    seconds: float
    games: int
    moves: int
    server_cpu: float
    redis_cpu: float
    bench_cpu: float
    delays: list[float] = field(default_factory=list)

    def per_move_ms(self, cpu: float) -> float:
        return 1000 * cpu / max(self.moves, 1)


async def connect(
    stack: contextlib.AsyncExitStack, url: str, names: list[str], tokens: list[str], **script: Any
) -> list[Player]:
    """The players connected (``CONNECT_AT_ONCE`` at a time), closed with ``stack``."""
    players: list[Player] = []
    for start in range(0, len(names), CONNECT_AT_ONCE):
        batch = list(zip(names, tokens, strict=True))[start : start + CONNECT_AT_ONCE]
        clients = await asyncio.gather(
            *(
                stack.enter_async_context(
                    Client.connect(url, token=token, headers=address_of(name))
                )
                for name, token in batch
            )
        )
        players += [Player(c, name, **script) for c, (name, _) in zip(clients, batch, strict=True)]
    return players


class Meter:
    """CPU seconds of the server, Redis and this process since ``start``."""

    def __init__(self, server: int, redis_pid: int) -> None:
        self.pids = (server, redis_pid)
        self.begun = self.now()

    def now(self) -> tuple[float, float, float, float]:
        server, redis_pid = self.pids
        return (
            time.perf_counter(),
            cpu_seconds(server),
            cpu_seconds(redis_pid),
            time.process_time(),
        )

    def phase(self, games: int, moves: int, delays: list[float]) -> Phase:
        end = self.now()
        wall, server, redis_cpu, bench = (b - a for a, b in zip(self.begun, end, strict=True))
        return Phase(wall, games, moves, server, redis_cpu, bench, delays)


async def in_tournament(
    url: str, players: list[Player], seconds: float, pids: tuple[int, int], store: Store
) -> Phase:
    async with Client.connect(url, nickname="director", headers=address_of("director")) as tc:
        await tc.send(SignUp("director", "correct horse battery"))
        await tc.expect(Account)
        later = int(time.time() * 1000) + 3_600_000
        request = CreateTournament(
            "Bench", "Base", CLOCK, False, later, minutes=60, max_players=len(players)
        )
        await tc.send(request)
        tournament = (await tc.expect(Tournament)).summary.id
    # Everyone joins before its start, and the run waits for the news of every join to
    # reach every player (each join sends the standings to all: the news of 200 joins
    # is 20,000 messages); then it starts, and the measure begins once everyone has
    # played a game.
    tournaments = TournamentStore(store)
    for player in players:
        await player.send(JoinTournament(tournament))
    async with asyncio.timeout(120):
        while min(p.listed for p in players) < len(players):
            await asyncio.sleep(0.1)
    await tournaments.start_at(tournament, int(time.time() * 1000))
    async with asyncio.timeout(60):
        while min(p.games for p in players) < 1:
            await asyncio.sleep(0.1)
    for player in players:
        player.delays.clear()
    games = sum(p.games for p in players)
    moves = sum(p.moves for p in players)
    meter = Meter(*pids)
    await asyncio.sleep(seconds)
    phase = meter.phase(
        (sum(p.games for p in players) - games) // 2,
        sum(p.moves for p in players) - moves,
        [d for p in players for d in p.delays],
    )
    await tournaments.end_at(tournament, int(time.time() * 1000))
    async with asyncio.timeout(60):
        for player in players:
            while not player.over:
                player.done.clear()
                await player.done.wait()
    return phase


async def in_lobby(players: list[Player], games: int, pids: tuple[int, int]) -> Phase:
    """``games`` games (about) in fixed pairs, each game made in the lobby and joined."""
    pairs = [(players[n], players[n + 1]) for n in range(0, len(players) - 1, 2)]
    each = max(1, round(games / len(pairs)))
    moves = sum(p.moves for p in players)
    before = sum(p.games for p in players)

    async def play(first: Player, second: Player) -> None:
        for n in range(each):
            maker, joiner = (first, second) if n % 2 == 0 else (second, first)
            game = await made(maker)
            maker.game = game
            await joiner.start(game)
            await joiner.send(JoinGame(game))
            for side in (maker, joiner):
                while side.game is not None:
                    side.done.clear()
                    await side.done.wait()

    meter = Meter(*pids)
    await asyncio.gather(*(play(a, b) for a, b in pairs))
    played = (sum(p.games for p in players) - before) // 2
    return meter.phase(played, sum(p.moves for p in players) - moves, [])


async def made(maker: Player) -> str:
    """A game open to anyone, made by ``maker``: its id (the update of the new game)."""
    maker.making = asyncio.get_running_loop().create_future()
    await maker.send(CreateGame("Base", CLOCK, "white", opponent="anyone", rated=False))
    return await maker.making


async def session(args: argparse.Namespace, folder: Path) -> tuple[Phase, Phase]:
    redis_process = RedisProcess(folder / "redis", port=free_port(), persist=False)
    redis_process.start()
    server = ServerProcess(folder, redis_process.url, bot_workers=1, extra=SERVER_ARGS)
    try:
        server.launch()
        server.wait_ready()
        client = aioredis.from_url(redis_process.url)
        store = Store(client)
        names = [f"b{n:03d}" for n in range(args.players)]
        tokens = [(await store.new_bot(name, 0))[1] for name in names]
        assert redis_process.process is not None
        pids = (server.pid, redis_process.process.pid)
        async with contextlib.AsyncExitStack() as stack:
            players = await connect(
                stack, server.ws_url, names, tokens, plies=args.plies, think=args.think
            )
            readers = [asyncio.create_task(p.run()) for p in players]
            try:
                tour = await in_tournament(server.ws_url, players, args.seconds, pids, store)
                for player in players:
                    player.game, player.ended_at, player.early = None, None, False
                lobby = await in_lobby(players, tour.games, pids)
            finally:
                for task in readers:
                    task.cancel()
                await client.aclose()
        return tour, lobby
    finally:
        server.stop()
        redis_process.stop()


def report(number: int, tour: Phase, lobby: Phase) -> dict[str, float]:
    delays = tour.delays or [0.0]
    row = {
        "p50": 1000 * percentile(delays, 0.5),
        "p99": 1000 * percentile(delays, 0.99),
        "max": 1000 * max(delays),
        "t_server": tour.per_move_ms(tour.server_cpu),
        "l_server": lobby.per_move_ms(lobby.server_cpu),
        "t_redis": tour.per_move_ms(tour.redis_cpu),
        "l_redis": lobby.per_move_ms(lobby.redis_cpu),
    }
    print(
        f"run {number}: tournament {tour.games} games, {tour.moves} moves in {tour.seconds:.1f} s "
        f"({tour.moves / tour.seconds:.0f} moves/s), pairing delay p50 {row['p50']:.0f} ms, "
        f"p99 {row['p99']:.0f} ms, max {row['max']:.0f} ms over {len(tour.delays)} pairings; "
        f"server CPU {tour.server_cpu / tour.seconds:.0%} of a core, "
        f"{row['t_server']:.2f} ms a move (Redis {row['t_redis']:.2f}); bench "
        f"{tour.bench_cpu / tour.seconds:.0%}"
    )
    print(
        f"       lobby {lobby.games} games, {lobby.moves} moves in {lobby.seconds:.1f} s "
        f"({lobby.moves / lobby.seconds:.0f} moves/s); server CPU "
        f"{lobby.server_cpu / lobby.seconds:.0%} of a core, {row['l_server']:.2f} ms a move "
        f"(Redis {row['l_redis']:.2f}); bench {lobby.bench_cpu / lobby.seconds:.0%}"
    )
    sys.stdout.flush()
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tournament", description=__doc__)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0, help="the tournament's window")
    parser.add_argument("--plies", type=int, default=4, help="random moves before the end")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds before each move (0: at once)"
    )
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    rows = []
    for number in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="bench-tournament-") as folder:
            tour, lobby = asyncio.run(session(args, Path(folder)))
        rows.append(report(number, tour, lobby))
    if args.runs > 1:
        med = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
        print(
            f"median of {args.runs}: pairing delay p50 {med['p50']:.0f} ms, p99 "
            f"{med['p99']:.0f} ms (target < 1000 ms); server CPU a move in the tournament "
            f"{med['t_server']:.2f} ms, in the lobby {med['l_server']:.2f} ms "
            f"({med['t_server'] / med['l_server']:.2f}x; target at most 1x); Redis "
            f"{med['t_redis']:.2f} vs {med['l_redis']:.2f} ms"
        )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
