"""``hive-bot``: a bot that plays on a Hive Arena server from outside, as people do.

    hive-bot --server ws://localhost:8080/ws --token TOKEN --level medium
    hive-bot --server ws://localhost:8080/ws --token TOKEN --uhp "hive-engine" \\
        --uhp-search "time 00:00:01"

It signs in with a bot account's token (``hive-server create-bot NAME``), says what it plays
(``bot_ready``), watches the lobby and joins the open games that ask for a bot (``opponent
bots``) or challenge it by name, as many at once as ``--max-games``. Its moves come from our
bots (``--level``, in worker processes) or from any engine speaking the Universal Hive Protocol
(``--uhp``: one engine process per game, given the GameString and asked ``bestmove``). When the
connection drops it reconnects, watches its games again from the last version it saw, and goes
on; a move being thought about meanwhile is sent on the new connection.

docs/protocol.md ("Bots") describes what it does on the wire.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import signal
import sys
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ai.bots import LEVELS
from hive import GameType, HiveError
from server.client import Client, ServerError
from server.engines import ALL_TYPES, Engine, EngineError, LevelEngine, UhpEngine, supported_types
from server.protocol import (
    BotReady,
    Draw,
    Error,
    ErrorCode,
    GameState,
    GameSummary,
    JoinGame,
    Lobby,
    LobbyChange,
    Play,
    Rematch,
    Resign,
    TimeKind,
    Unwatch,
    Update,
    Watch,
    WatchLobby,
)

log = logging.getLogger("hive-bot")

TIME_KINDS: Final[list[TimeKind]] = ["none", "clock", "days"]
RECONNECT_SECONDS: Final = (0.5, 10.0)
"""The first and the longest wait before reconnecting (doubled after each failure)."""
RETRY_SECONDS: Final = 1.0
"""Wait before asking again for a game whose move was refused for going too fast."""


@dataclass
class Runner:
    """The bot's connection to the server and its games.

    Args:
        url: The server's websocket URL.
        token: The bot account's token.
        engine: Where moves come from.
        game_types, times: What it plays (declared in ``bot_ready``).
        max_games: Most games at once.
        anyone: Also join open games for anyone (not only those asking for a bot).
    """

    url: str
    token: str
    engine: Engine
    game_types: list[str]
    times: list[TimeKind]
    max_games: int = 10
    anyone: bool = False
    games: dict[str, int] = field(default_factory=dict)  # game id -> last version seen
    joining: set[str] = field(default_factory=set)
    # game id -> the ply its last move was chosen for, and the tasks choosing one now
    answered: dict[str, int] = field(default_factory=dict)
    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    ended: set[str] = field(default_factory=set)
    background: set[asyncio.Task[None]] = field(default_factory=set)
    client: Client | None = None
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    finished: int = 0  # games played to their end

    async def run(self) -> None:
        """Play forever, reconnecting after a drop (a refused token ends it)."""
        wait = RECONNECT_SECONDS[0]
        while True:
            try:
                async with Client.connect(self.url, token=self.token) as client:
                    wait = RECONNECT_SECONDS[0]
                    await self._session(client)
            except ServerError as error:
                if error.error.code == ErrorCode.BAD_TOKEN:
                    raise
                log.warning("the server refused: %s", error)
            except (ConnectionClosed, InvalidHandshake, OSError, TimeoutError) as error:
                log.warning("connection lost (%s); reconnecting in %.1f s", error, wait)
            finally:
                self.client = None
                self.connected.clear()
            await asyncio.sleep(wait * random.uniform(0.5, 1.0))  # backoff with jitter
            wait = min(wait * 2, RECONNECT_SECONDS[1])

    async def _session(self, client: Client) -> None:
        if not client.welcome.bot:
            raise ServerError(Error(ErrorCode.NOT_ALLOWED, "this token is not a bot account's"))
        log.info("connected to %s as %s", self.url, client.welcome.nickname)
        await client.send(BotReady(self.game_types, self.times, self.max_games))
        self.joining.clear()
        # A move sent on the lost connection may never have arrived: the snapshots coming
        # (a state still at that ply) ask for it again, unless it is still being chosen.
        self.answered = {g: ply for g, ply in self.answered.items() if g in self.tasks}
        for game_id in {*client.welcome.games, *self.games}:  # watch ours again, from where we were
            self.games.setdefault(game_id, -1)
            since = self.games[game_id]
            await client.send(Watch(game_id, since if since >= 0 else None))
        await client.send(WatchLobby())
        self.client = client
        self.connected.set()
        while True:
            message = await client.recv(timeout=3600)
            if isinstance(message, Update):
                await self._update(client, message)
            elif isinstance(message, Lobby | LobbyChange) and client.lobby is not None:
                await self._lobby(client, client.lobby.open)
            elif isinstance(message, Error):
                await self._refused(client, message)

    async def _lobby(self, client: Client, games: list[GameSummary]) -> None:
        me = client.player
        for game in games:
            if len(self.games) + len(self.joining) >= self.max_games:
                return
            if game.id in self.games or game.id in self.joining:
                continue
            if game.challenge is not None:
                wanted = game.challenge.player == me
            else:
                wanted = game.wants == "bots" or (self.anyone and game.wants == "anyone")
            if wanted and game.game_type in self.game_types and game.time.kind in self.times:
                self.joining.add(game.id)
                await client.send(JoinGame(game.id))

    async def _update(self, client: Client, update: Update) -> None:
        state = update.state
        self.joining.discard(state.id)
        if state.id not in self.games:
            log.info("playing game %s (%s)", state.id, state.game_type)
        self.games[state.id] = update.version
        color = "white" if state.white and state.white.player == client.player else "black"
        if state.status == "over":
            await self._over(client, state, color)
        elif state.status == "live":
            if state.draw_offer is not None and state.draw_offer != color:
                await client.send(Draw(state.id, "decline"))
            ply = len(state.moves)
            if state.turn == color and self.answered.get(state.id) != ply:
                self.answered[state.id] = ply  # chat changes the version, not the ply
                game_id = state.id
                task = self.tasks[game_id] = asyncio.create_task(self._move(state))

                def done(_: asyncio.Task[None]) -> None:
                    if self.tasks.get(game_id) is task:  # not a move started after it
                        del self.tasks[game_id]

                task.add_done_callback(done)

    async def _over(self, client: Client, state: GameState, color: str) -> None:
        if state.id not in self.ended:
            log.info("game %s over: %s (%s)", state.id, state.result, state.reason)
            self.finished += 1
            self.ended.add(state.id)
            await self.engine.forget(state.id)
        if state.rematch is not None:  # the rematch was accepted: the new game is followed
            self._drop(state.id)
            await client.send(Unwatch(state.id))
        elif state.rematch_offer is not None and state.rematch_offer != color:
            await client.send(Rematch(state.id))  # accept: the rematch event brings the new game
        elif state.rematch_offer is None:
            self._drop(state.id)
            await client.send(Unwatch(state.id))

    async def _watch_again(self, client: Client, game_id: str) -> None:
        """After a refusal for going too fast: wait, then ask for the game's state again (its
        update starts the move again)."""
        await asyncio.sleep(RETRY_SECONDS)  # a backoff, not a synchronisation
        with contextlib.suppress(ConnectionClosed):
            await client.send(Watch(game_id, self.games.get(game_id)))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def _drop(self, game_id: str) -> None:
        self.games.pop(game_id, None)
        self.answered.pop(game_id, None)
        self.ended.discard(game_id)

    async def _move(self, state: GameState) -> None:
        """Think, then play on whatever connection is up by then."""
        try:
            move = await self.engine.choose(state)
        except EngineError as error:
            log.error("game %s: %s; resigning", state.id, error)
            move = ""
        except Exception:
            log.exception("game %s: the engine failed", state.id)
            move = ""
        if state.id in self.ended or state.id not in self.games:
            return  # the game ended meanwhile
        await self.connected.wait()
        assert self.client is not None
        with contextlib.suppress(ConnectionClosed):  # the next snapshot starts it again
            if move:
                await self.client.send(Play(state.id, state.version, move))
            else:
                await self.client.send(Resign(state.id))

    async def _refused(self, client: Client, error: Error) -> None:
        game_id = error.game
        if error.request == "join" and game_id is not None:
            self.joining.discard(game_id)  # someone was quicker, or it was cancelled
        elif error.request == "play" and game_id is not None:
            # stale (the game moved on: an update follows), too fast, or illegal (the engine's)
            log.warning("game %s: move refused: %s", game_id, error.message)
            if error.code == ErrorCode.RATE_LIMITED:  # ask for the state again, a little later
                self.answered.pop(game_id, None)
                self._spawn(self._watch_again(client, game_id))
            if error.code == ErrorCode.ILLEGAL_MOVE:
                log.error("game %s: the engine played an illegal move; resigning", game_id)
                await client.send(Resign(game_id))
        elif error.request == "watch" and game_id is not None:
            self._drop(game_id)  # a game we no longer have
        else:
            log.warning("refused: %s %s", error.code, error.message)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hive-bot",
        description="Play on a Hive Arena server as a bot account, with our bots or any UHP "
        "engine.",
    )
    p.add_argument("--server", required=True, help="websocket URL, e.g. ws://localhost:8080/ws")
    p.add_argument(
        "--token",
        default=os.environ.get("HIVE_BOT_TOKEN") or None,
        help="the bot account's token from 'hive-server create-bot' (env HIVE_BOT_TOKEN)",
    )
    engine = p.add_mutually_exclusive_group(required=True)
    engine.add_argument("--level", choices=list(LEVELS), help="play with our bot of this level")
    engine.add_argument("--uhp", metavar="COMMAND", help="play with this UHP engine command")
    p.add_argument(
        "--uhp-search",
        default="time 00:00:01",
        help="what follows 'bestmove' for the UHP engine (default %(default)r)",
    )
    p.add_argument(
        "--game-types",
        help="comma-separated game types it plays (default: all that the engine supports)",
    )
    p.add_argument(
        "--times",
        default=",".join(TIME_KINDS),
        help="comma-separated time control kinds it plays (default %(default)s)",
    )
    p.add_argument("--max-games", type=int, default=10, help="games at once (default 10)")
    p.add_argument("--anyone", action="store_true", help="also join open games meant for anyone")
    p.add_argument(
        "--workers", type=int, default=1, help="processes computing --level moves (default 1)"
    )
    return p


async def _main(args: argparse.Namespace) -> int:
    engine: Engine
    if args.level is not None:
        engine = LevelEngine(args.level, args.workers)
        supported = ALL_TYPES
    else:
        uhp = UhpEngine(args.uhp, args.uhp_search)
        supported = supported_types(await uhp.expansions())
        engine = uhp
    try:
        game_types = (
            [str(GameType.parse(t.strip())) for t in args.game_types.split(",")]
            if args.game_types
            else supported
        )
    except HiveError as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 2
    times = [kind.strip() for kind in args.times.split(",")]
    if unknown := [kind for kind in times if kind not in TIME_KINDS]:
        print(f"hive-bot: unknown time control kind {unknown[0]!r}", file=sys.stderr)
        return 2
    runner = Runner(args.server, args.token, engine, game_types, times, args.max_games, args.anyone)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    running = asyncio.create_task(runner.run())
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if running.done():
            running.result()  # it ends only on a refused token
        log.info("stopping (%d games played to their end)", runner.finished)
    except ServerError as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 1
    finally:
        for task in (running, stopping, *runner.tasks.values(), *runner.background):
            task.cancel()
        await engine.close()  # its worker processes or engine processes go with it
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.token:
        parser().error("a bot account's token is needed: --token or HIVE_BOT_TOKEN")
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        return asyncio.run(_main(args))
    except EngineError as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 2
    except InvalidURI as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
