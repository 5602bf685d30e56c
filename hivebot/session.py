"""``hive-bot``'s connection to the server: connecting again after a drop, each session's
start (``bot_ready``, its games watched again), each message to the part it concerns, the
lobby's games joined, the next game of a challenge, and the refusals.

Its parts, each given the ``Runner`` to reach the others, as the ``Session`` its module names
(what it uses of it), so that no part imports this module: ``game`` (the games, one update at a
time, and the wins claimed), ``move`` (the moves and their time), ``challenger``
(``--challenge``), ``tournament`` (``--tournament``), and the engine (``engines``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Final

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from hivebot.challenger import CHALLENGE_RETRY_SECONDS, Challenger
from hivebot.engines import Engine
from hivebot.game import Claims, Games
from hivebot.move import Moves
from hivebot.tournament import Tournaments
from protocol import (
    BotReady,
    Error,
    ErrorCode,
    GameSummary,
    JoinGame,
    Lobby,
    LobbyChange,
    Message,
    Presence,
    TimeKind,
    Tournament,
    TournamentGame,
    Update,
    Watch,
    WatchLobby,
)
from protocol.client import Client, ServerError

log = logging.getLogger("hive-bot")

RECONNECT_SECONDS: Final = (0.5, 10.0)
"""The first and the longest wait before reconnecting (doubled after each failure)."""


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
        tournaments: Play in these tournaments (``hivebot.tournament``).
        tournament_only: Play nothing but them, and stop once they are over.
    """

    url: str
    token: str
    engine: Engine
    game_types: list[str]
    times: list[TimeKind]
    max_games: int = 10
    anyone: bool = False
    challenge: Challenger | None = None
    tournament_ids: list[str] = field(default_factory=list)
    tournament_only: bool = False
    client: Client | None = None
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    clock_offset: float = 0.0  # server ms minus local ms
    background: set[asyncio.Task[None]] = field(default_factory=set)
    games: Games = field(init=False)
    moves: Moves = field(init=False)
    claims: Claims = field(init=False)
    tournaments: Tournaments = field(init=False)

    def __post_init__(self) -> None:
        self.tournaments = Tournaments(self, self.tournament_ids, only=self.tournament_only)
        self.games = Games(self)
        self.moves = Moves(self)
        self.claims = Claims(self)

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
        games = self.games
        games.joining.clear()
        self.moves.forget_sent()
        for game_id in {*client.welcome.games, *games.versions}:  # ours again, from where we were
            games.versions.setdefault(game_id, -1)
            since = games.versions[game_id]
            await client.send(Watch(game_id, since if since >= 0 else None))
        await client.send(WatchLobby())
        await self.tournaments.join_all(client)
        self.client = client
        self.connected.set()
        if self.challenge is not None:
            self.challenge.pending = False  # a create lost with the connection is sent again
            self.spawn(self.challenge_next(client, at_once=True))
        while True:
            message = await client.recv(timeout=3600)
            if isinstance(message, Update):
                await games.update(client, message)
            elif isinstance(message, Presence):
                self.claims.presence(message)
            elif isinstance(message, Lobby | LobbyChange) and client.lobby is not None:
                await self.join_open(client, client.lobby.open)
            elif isinstance(message, TournamentGame):
                await self.tournaments.paired(client, message)
            elif isinstance(message, Tournament):
                await self.tournaments.standings(client, message)
            elif isinstance(message, Error):
                await self._refused(client, message)

    async def challenge_next(self, client: Client, *, at_once: bool = False) -> None:
        """Create the next game of the challenge, if one is due and none is in play."""
        challenge = self.challenge
        assert challenge is not None
        if not at_once:
            await asyncio.sleep(CHALLENGE_RETRY_SECONDS)  # a backoff after a refusal
        if not challenge.is_due(busy=bool(self.games.playing or self.games.joining)):
            return
        challenge.pending = True
        await self.send(client, challenge.request(client.welcome.levels))

    async def join_open(self, client: Client, games: list[GameSummary]) -> None:
        """Join those of the lobby's open ``games`` it wants, while it has slots."""
        if self.challenge is not None or self.tournament_only:
            return  # it plays its challenges (or its tournaments) only
        me, mine = client.player, self.games
        for game in games:
            if mine.free() <= 0:
                return
            if game.id in mine.versions or game.id in mine.joining or game.id in mine.ended:
                continue
            if game.id in mine.barred:
                continue
            if game.challenge is not None:
                wanted = game.challenge.player == me
            else:
                wanted = game.wants == "bots" or (self.anyone and game.wants == "anyone")
            if wanted and game.game_type in self.game_types and game.time.kind in self.times:
                self.games.joining.add(game.id)
                await client.send(JoinGame(game.id))

    async def _refused(self, client: Client, error: Error) -> None:
        game_id = error.game
        if error.request == "join" and game_id is not None:
            self.games.joining.discard(game_id)  # someone was quicker, or it was cancelled
            if error.code == ErrorCode.OUT_OF_RANGE:  # its rating will not do: not again
                self.games.barred.append(game_id)
                log.info("game %s: not for this bot (%s)", game_id, error.message)
        elif error.request == "rematch" and game_id is not None:
            self.games.rematch_refused(game_id, error)
        elif error.request == "create" and self.challenge is not None:
            if self.challenge.refused(error):
                self.spawn(self.challenge_next(client))
        elif error.request == "play" and game_id is not None:
            await self.moves.refused(client, game_id, error)
        elif error.request == "watch" and game_id is not None:
            self.games.watch_refused(game_id)
        elif error.request is not None and error.request.startswith("tournament"):
            await self.tournaments.refused(client, error)
        else:
            log.warning("refused: %s %s", error.code, error.message)

    async def current(self) -> Client:
        """The connection up now, once there is one."""
        await self.connected.wait()
        assert self.client is not None
        return self.client

    @staticmethod
    async def send(client: Client, message: Message) -> None:
        with contextlib.suppress(ConnectionClosed):  # the next session starts again
            await client.send(message)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def tasks(self) -> list[asyncio.Task[None]]:
        """Every task it started (moves, claims, and the rest), to cancel when it stops."""
        return [*self.moves.tasks.values(), *self.claims.tasks.values(), *self.background]
