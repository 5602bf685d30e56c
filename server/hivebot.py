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
import time
from collections import Counter
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ai.bots import LEVELS
from hive import GameType, HiveError
from server.client import Client, ServerError
from server.engines import (
    ALL_TYPES,
    Budget,
    Engine,
    EngineError,
    LevelEngine,
    UhpEngine,
    supported_types,
)
from server.protocol import (
    BotReady,
    ClaimWin,
    Color,
    CreateGame,
    Draw,
    Error,
    ErrorCode,
    GameState,
    GameSummary,
    JoinGame,
    Lobby,
    LobbyChange,
    Message,
    Play,
    Presence,
    Rematch,
    Resign,
    TimeControl,
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
REMATCH_SECONDS: Final = 60.0
"""How long a finished game is followed for a rematch offer (it holds no slot meanwhile)."""
CLAIM_MARGIN: Final = 0.5
"""Seconds past the opponent's allowed absence before claiming (the clocks may differ)."""
CHALLENGE_RETRY_SECONDS: Final = 10.0
"""Wait before challenging again after a refusal (the bot challenged was busy...)."""
CHALLENGE_REFUSALS: Final = 6
"""Refusals in a row after which ``--challenge`` gives up."""
MOVES_AHEAD: Final = 20
"""A move's share of the clock: what is left over this many moves, plus the increment's."""
INCREMENT_SHARE: Final = 0.8
SAFETY_SECONDS: Final = 1.0
"""Clock time never planned for (the network, an engine's start)."""
DEADLINE_MARGIN: Final = 0.5
"""A move is sent this long before the clock would fall, whatever the engine is doing."""


@dataclass
class Challenger:
    """``--challenge NAME --games N``: play ``games`` games against ``name`` (a server level,
    or a bot account), one at a time, colours alternating, then stop and say the score.

    A bot that challenges plays only its challenges (it joins nothing from the lobby and
    accepts no rematch)."""

    name: str
    games: int
    game_type: str = "Base+MLP"
    time: TimeControl = field(default_factory=TimeControl)
    created: int = 0
    pending: bool = False  # a create sent, its game not seen yet
    refusals: int = 0
    score: Counter[str] = field(default_factory=Counter)  # win, draw, loss, none
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def request(self, levels: list[str]) -> CreateGame:
        color: Color = "white" if self.created % 2 == 0 else "black"
        if self.name in levels:
            return CreateGame(self.game_type, self.time, color, opponent="bot", level=self.name)
        return CreateGame(self.game_type, self.time, color, opponent="bots", challenge=self.name)

    def ended(self, state: GameState, color: Color) -> None:
        if state.result is None:
            outcome = "none"
        elif state.result == "Draw":
            outcome = "draw"
        else:
            outcome = "win" if state.result == f"{color.title()}Wins" else "loss"
        self.score[outcome] += 1
        if sum(self.score.values()) >= self.games:
            self.done.set()

    def refused(self, error: Error) -> None:
        self.pending = False
        self.refusals += 1
        log.warning("challenge to %s refused: %s", self.name, error.message)

    def summary(self) -> str:
        s = self.score
        return (
            f"challenge of {self.name} over: {s['win']} won, {s['draw']} drawn, {s['loss']} "
            f"lost, {s['none']} without a result"
        )


@dataclass
class Runner:
    """The bot's connection to the server and its games.

    Args:
        url: The server's websocket URL.
        token: The bot account's token.
        engine: Where moves come from.
        game_types, times: What it plays (declared in ``bot_ready``).
        max_games: Most games in play at once (a finished game holds no slot).
        anyone: Also join open games for anyone (not only those asking for a bot).
        challenge: Challenge this server level or bot account (``Challenger``).
    """

    url: str
    token: str
    engine: Engine
    game_types: list[str]
    times: list[TimeKind]
    max_games: int = 10
    anyone: bool = False
    challenge: Challenger | None = None
    games: dict[str, int] = field(default_factory=dict)  # game id -> last version seen
    playing: dict[str, Color] = field(default_factory=dict)  # games in play -> our colour
    joining: set[str] = field(default_factory=set)  # joins and rematches not yet started
    after: dict[str, asyncio.TimerHandle] = field(default_factory=dict)  # finished, followed
    # game id -> the ply its last move was chosen for, and the tasks choosing one now
    answered: dict[str, int] = field(default_factory=dict)
    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    claims: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    background: set[asyncio.Task[None]] = field(default_factory=set)
    client: Client | None = None
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    finished: int = 0  # games played to their end
    clock_offset: float = 0.0  # server ms minus local ms

    def free(self) -> int:
        """Slots for more games."""
        return self.max_games - len(self.playing) - len(self.joining)

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
        self.clock_offset = client.welcome.server_time - time.time() * 1000
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
        if self.challenge is not None:
            self.challenge.pending = False  # a create lost with the connection is sent again
            self._spawn(self._challenge_next(client, at_once=True))
        while True:
            message = await client.recv(timeout=3600)
            if isinstance(message, Update):
                await self._update(client, message)
            elif isinstance(message, Presence):
                self._presence(message)
            elif isinstance(message, Lobby | LobbyChange) and client.lobby is not None:
                await self._lobby(client, client.lobby.open)
            elif isinstance(message, Error):
                await self._refused(client, message)

    async def _challenge_next(self, client: Client, *, at_once: bool = False) -> None:
        """Create the next game of the challenge, if one is due and none is in play."""
        challenge = self.challenge
        assert challenge is not None
        if not at_once:
            await asyncio.sleep(CHALLENGE_RETRY_SECONDS)  # a backoff after a refusal
        if (
            challenge.pending
            or self.playing
            or self.joining
            or challenge.created >= challenge.games
            or challenge.done.is_set()
        ):
            return
        challenge.pending = True
        await self._send(client, challenge.request(client.welcome.levels))

    async def _lobby(self, client: Client, games: list[GameSummary]) -> None:
        if self.challenge is not None:
            return  # it plays its challenges only
        me = client.player
        for game in games:
            if self.free() <= 0:
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
            if state.status == "over":
                return  # a game let go of: its last updates may still come
            if self.challenge is not None and self.challenge.pending:
                self.challenge.pending = False
                self.challenge.created += 1
        self.games[state.id] = update.version
        color: Color = "white" if state.white and state.white.player == client.player else "black"
        if state.status == "over":
            await self._over(client, state, color)
            return
        if state.id not in self.playing:
            log.info("playing game %s (%s)", state.id, state.game_type)
            self.playing[state.id] = color
        if state.status == "live":
            if state.draw_offer is not None and state.draw_offer != color:
                await client.send(Draw(state.id, "decline"))
            ply = len(state.moves)
            if state.turn == color and self.answered.get(state.id) != ply:
                self.answered[state.id] = ply  # chat changes the version, not the ply
                game_id = state.id
                budget = move_budget(state, color, time.monotonic())
                task = self.tasks[game_id] = asyncio.create_task(self._move(state, budget))

                def done(_: asyncio.Task[None]) -> None:
                    if self.tasks.get(game_id) is task:  # not a move started after it
                        del self.tasks[game_id]

                task.add_done_callback(done)

    async def _over(self, client: Client, state: GameState, color: Color) -> None:
        game_id = state.id
        if self.playing.pop(game_id, None) is not None:
            # No engine searches on for a game that has ended, and none is started after.
            task = self.tasks.pop(game_id, None)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            claim = self.claims.pop(game_id, None)
            if claim is not None:
                claim.cancel()
            await self.engine.forget(game_id)
            log.info("game %s over: %s (%s)", game_id, state.result, state.reason)
            self.finished += 1
            if self.challenge is not None:
                self.challenge.ended(state, color)
                self._spawn(self._challenge_next(client, at_once=True))
            loop = asyncio.get_running_loop()
            self.after[game_id] = loop.call_later(REMATCH_SECONDS, self._let_go, game_id)
            if self.client is not None and client.lobby is not None:
                await self._lobby(client, client.lobby.open)  # a slot is free again
        if state.rematch is not None:  # both agreed: follow the new game, let go of this one
            self.joining.discard(game_id)
            if state.rematch not in self.games:
                self.games[state.rematch] = -1
                self.joining.add(state.rematch)
                await client.send(Watch(state.rematch))
            self._let_go(game_id)
        elif (
            state.rematch_offer is not None
            and state.rematch_offer != color
            and game_id not in self.joining
        ):
            if self.free() > 0 and self.challenge is None:
                log.info("game %s: accepting the rematch", game_id)
                self.joining.add(game_id)  # its slot, until the new game comes
                await client.send(Rematch(game_id))
            else:
                log.info("game %s: declining the rematch", game_id)
                self._let_go(game_id)
        elif game_id not in self.after and game_id not in self.joining:
            self._let_go(game_id)  # seen only finished (after a reconnect): nothing to wait for

    def _let_go(self, game_id: str) -> None:
        """Stop following a finished game (its rematch was started, declined or not asked
        for in time)."""
        handle = self.after.pop(game_id, None)
        if handle is not None:
            handle.cancel()
        if game_id in self.playing:
            return
        self._drop(game_id)
        client = self.client
        if client is not None:
            self._spawn(self._send(client, Unwatch(game_id)))

    def _presence(self, presence: Presence) -> None:
        """Claim the win once the opponent has been gone ``claim_after``: an abandoned game
        would hold its slot forever."""
        game_id = presence.game
        color = self.playing.get(game_id)
        if color is None:
            return
        gone = presence.black_gone if color == "white" else presence.white_gone
        waiting = self.claims.pop(game_id, None)
        if waiting is not None:
            waiting.cancel()
        if gone is None:
            return
        due = gone + presence.claim_after - (time.time() * 1000 + self.clock_offset)
        self.claims[game_id] = asyncio.create_task(
            self._claim(game_id, max(0.0, due / 1000) + CLAIM_MARGIN)
        )

    async def _claim(self, game_id: str, delay: float) -> None:
        await asyncio.sleep(delay)  # the time the rules give the opponent to come back
        await self.connected.wait()
        assert self.client is not None
        log.info("game %s: the opponent left; claiming the win", game_id)
        await self._send(self.client, ClaimWin(game_id))

    async def _watch_again(self, client: Client, game_id: str) -> None:
        """After a refusal for going too fast: wait, then ask for the game's state again (its
        update starts the move again)."""
        await asyncio.sleep(RETRY_SECONDS)  # a backoff, not a synchronisation
        await self._send(client, Watch(game_id, self.games.get(game_id)))

    @staticmethod
    async def _send(client: Client, message: Message) -> None:
        with contextlib.suppress(ConnectionClosed):  # the next session starts again
            await client.send(message)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def _drop(self, game_id: str) -> None:
        self.games.pop(game_id, None)
        self.answered.pop(game_id, None)
        self.playing.pop(game_id, None)

    async def _move(self, state: GameState, budget: Budget | None) -> None:
        """Think, then play on whatever connection is up by then."""
        try:
            move = await self.engine.choose(state, budget)
        except EngineError as error:
            log.error("game %s: %s; resigning", state.id, error)
            move = ""
        except Exception:
            log.exception("game %s: the engine failed", state.id)
            move = ""
        if state.id not in self.playing:
            return  # the game ended meanwhile
        await self.connected.wait()
        assert self.client is not None
        if move:
            await self._send(self.client, Play(state.id, state.version, move))
        else:
            await self._send(self.client, Resign(state.id))

    async def _refused(self, client: Client, error: Error) -> None:
        game_id = error.game
        if error.request == "join" and game_id is not None:
            self.joining.discard(game_id)  # someone was quicker, or it was cancelled
        elif error.request == "rematch" and game_id is not None:
            log.info("game %s: the rematch was refused: %s", game_id, error.message)
            self.joining.discard(game_id)
            self._let_go(game_id)
        elif error.request == "create" and self.challenge is not None:
            self.challenge.refused(error)
            if error.code in (ErrorCode.UNKNOWN_BOT, ErrorCode.UNKNOWN_LEVEL) or (
                self.challenge.refusals >= CHALLENGE_REFUSALS
            ):
                log.error("giving up the challenge of %s", self.challenge.name)
                self.challenge.done.set()
            else:
                self._spawn(self._challenge_next(client))
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
            self.joining.discard(game_id)
            self._drop(game_id)  # a game we no longer have
        else:
            log.warning("refused: %s %s", error.code, error.message)


def move_budget(state: GameState, color: Color, received: float) -> Budget | None:
    """The time for the bot's move in ``state`` (received at ``received``, a
    ``time.monotonic()`` reading), from its clock: a share of what is left
    (``MOVES_AHEAD``) and most of the increment, keeping ``SAFETY_SECONDS`` for the network;
    None without a clock (or with days per move, which no search needs)."""
    if state.time.kind != "clock":
        return None
    left_ms = state.clocks.white if color == "white" else state.clocks.black
    if left_ms is None:
        return None
    left = left_ms / 1000
    usable = max(0.0, left - SAFETY_SECONDS)
    seconds = min(usable / MOVES_AHEAD + state.time.increment * INCREMENT_SHARE, usable)
    return Budget(seconds, received + max(0.0, left - DEADLINE_MARGIN))


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
    p.add_argument(
        "--challenge",
        metavar="NAME",
        help="play --games games against this server level or bot account, one at a time, "
        "then stop (it then plays nothing else)",
    )
    p.add_argument("--games", type=int, default=1, help="games of --challenge (default 1)")
    p.add_argument(
        "--challenge-type",
        default="Base+MLP",
        help="game type of --challenge (default %(default)s)",
    )
    p.add_argument(
        "--challenge-time",
        default="none",
        help="time control of --challenge: 'none', or BASE+INCREMENT in minutes and seconds "
        "(e.g. 5+3; default %(default)s)",
    )
    return p


def time_control(text: str) -> TimeControl:
    """``none`` or ``MINUTES+SECONDS`` (``5+3``) as a ``TimeControl``.

    Raises:
        ValueError: Neither.
    """
    if text == "none":
        return TimeControl()
    minutes, _, increment = text.partition("+")
    try:
        return TimeControl("clock", round(float(minutes) * 60), int(increment or 0))
    except ValueError:
        raise ValueError(f"a time control is 'none' or MINUTES+SECONDS, not {text!r}") from None


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
    challenge = None
    if args.challenge is not None:
        try:
            challenge = Challenger(
                args.challenge,
                args.games,
                str(GameType.parse(args.challenge_type)),
                time_control(args.challenge_time),
            )
        except (HiveError, ValueError) as error:
            print(f"hive-bot: {error}", file=sys.stderr)
            return 2
    runner = Runner(
        args.server,
        args.token,
        engine,
        game_types,
        times,
        1 if challenge is not None else args.max_games,
        args.anyone,
        challenge,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    running = asyncio.create_task(runner.run())
    stopping = asyncio.create_task(stop.wait())
    waits = {running, stopping}
    if challenge is not None:
        waits.add(asyncio.create_task(challenge.done.wait()))
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        if running.done():
            running.result()  # it ends only on a refused token
        if challenge is not None and challenge.done.is_set():
            log.info("%s", challenge.summary())
        log.info("stopping (%d games played to their end)", runner.finished)
    except ServerError as error:
        print(f"hive-bot: {error}", file=sys.stderr)
        return 1
    finally:
        for task in (*waits, *runner.tasks.values(), *runner.claims.values(), *runner.background):
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
