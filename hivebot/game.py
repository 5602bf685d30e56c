"""``hive-bot``'s games, one update at a time: which it plays and the last version seen of
each, a draw offer declined, the move started (``move``), the end of a game and its rematch,
letting go of a finished game, and the win claimed from an opponent who left.

What they use of the bot's session is named by ``Session`` (``session.Runner`` is one), so this
module never imports the session that holds them."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Coroutine
from typing import Any, Final, Protocol

from hivebot.challenger import Challenger
from hivebot.engines import Engine
from hivebot.move import Moves
from hivebot.tournament import Tournaments
from protocol import (
    ClaimWin,
    Color,
    Draw,
    Error,
    GameState,
    GameSummary,
    Message,
    Presence,
    Rematch,
    Unwatch,
    Update,
    Watch,
)
from protocol.client import Client

log = logging.getLogger("hive-bot")

REMATCH_SECONDS: Final = 60.0
"""How long a finished game is followed for a rematch offer (it holds no slot meanwhile)."""
CLAIM_MARGIN: Final = 0.5
"""Seconds past the opponent's allowed absence before claiming (the clocks may differ)."""
ENDED_KEPT: Final = 256
"""Games played to their end that are remembered, never to be joined again."""


class Session(Protocol):
    """What the games and the claims use of the bot's session (``session.Runner``)."""

    @property
    def max_games(self) -> int: ...
    @property
    def challenge(self) -> Challenger | None: ...
    @property
    def client(self) -> Client | None:
        """The connection up now, if any."""

    @property
    def clock_offset(self) -> float:
        """Server ms minus local ms."""

    @property
    def engine(self) -> Engine: ...
    @property
    def games(self) -> Games: ...
    @property
    def moves(self) -> Moves: ...
    @property
    def claims(self) -> Claims: ...
    @property
    def tournaments(self) -> Tournaments: ...

    async def current(self) -> Client:
        """The connection up now, once there is one."""

    async def send(self, client: Client, message: Message) -> None:
        """Send, or nothing if the connection is gone (the next session starts again)."""

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (cancelled when the bot stops)."""

    async def challenge_next(self, client: Client, *, at_once: bool = False) -> None:
        """Create the next game of the challenge, if one is due."""

    async def join_open(self, client: Client, games: list[GameSummary]) -> None:
        """Join those of the lobby's open ``games`` it wants, while it has slots."""


class Games:
    """The bot's games: those it follows (with the last version seen), plays, is joining
    (joins and rematches not yet started), and has finished but follows for a rematch."""

    def __init__(self, bot: Session) -> None:
        self.bot = bot
        self.versions: dict[str, int] = {}  # game id -> last version seen
        self.playing: dict[str, Color] = {}  # games in play -> our colour
        self.joining: set[str] = set()
        self.after: dict[str, asyncio.TimerHandle] = {}  # finished, followed
        self.finished = 0  # games played to their end
        # The last games it played to their end: never joined again (a lobby message may
        # still list one as open, and a join would take the slot a rematch needs).
        self.ended: deque[str] = deque(maxlen=ENDED_KEPT)
        # Open games that refused it for its rating (their rating range): never asked again.
        self.barred: deque[str] = deque(maxlen=ENDED_KEPT)

    def free(self) -> int:
        """Slots for more games (less those kept for the tournaments it waits in)."""
        taken = len(self.playing) + len(self.joining) + self.bot.tournaments.reserved()
        return self.bot.max_games - taken

    async def update(self, client: Client, update: Update) -> None:
        state = update.state
        self.joining.discard(state.id)
        if state.id not in self.versions:
            if state.status == "over":
                return  # a game let go of: its last updates may still come
            if self.bot.challenge is not None:
                self.bot.challenge.seen()
        self.versions[state.id] = update.version
        color: Color = "white" if state.white and state.white.player == client.player else "black"
        if state.status == "over":
            await self._over(client, state, color)
            return
        if state.id not in self.playing:
            log.info("playing game %s (%s)", state.id, state.game_type)
            self.playing[state.id] = color
        if state.status == "live":
            if state.draw_offer is not None and state.draw_offer != color:
                if state.turn == color:  # the move answers it (``Moves.offered``)
                    self.bot.moves.offered(state)
                else:
                    await client.send(Draw(state.id, "decline"))
            self.bot.moves.start_if_due(state, color)

    async def _over(self, client: Client, state: GameState, color: Color) -> None:
        game_id = state.id
        bot = self.bot
        bot.tournaments.ended(game_id)  # (before the lobby: its slot is kept again)
        if self.playing.pop(game_id, None) is not None:
            await bot.moves.stop(game_id)
            bot.claims.cancel(game_id)
            await bot.engine.forget(game_id)
            log.info("game %s over: %s (%s)", game_id, state.result, state.reason)
            self.finished += 1
            self.ended.append(game_id)
            if bot.challenge is not None:
                bot.challenge.ended(state, color)
                bot.spawn(bot.challenge_next(client, at_once=True))
            loop = asyncio.get_running_loop()
            self.after[game_id] = loop.call_later(REMATCH_SECONDS, self.let_go, game_id)
            if bot.client is not None and client.lobby is not None:
                await bot.join_open(client, client.lobby.open)  # a slot is free again
        if state.rematch is not None:  # both agreed: follow the new game, let go of this one
            self.joining.discard(game_id)
            if state.rematch not in self.versions:
                self.versions[state.rematch] = -1
                self.joining.add(state.rematch)
                await client.send(Watch(state.rematch))
            self.let_go(game_id)
        elif (
            state.rematch_offer is not None
            and state.rematch_offer != color
            and game_id not in self.joining
        ):
            if self.free() > 0 and bot.challenge is None and not bot.tournaments.only:
                log.info("game %s: accepting the rematch", game_id)
                self.joining.add(game_id)  # its slot, until the new game comes
                await client.send(Rematch(game_id))
            else:
                log.info("game %s: declining the rematch", game_id)
                self.let_go(game_id)
        elif game_id not in self.after and game_id not in self.joining:
            self.let_go(game_id)  # seen only finished (after a reconnect): nothing to wait for

    def rematch_refused(self, game_id: str, error: Error) -> None:
        log.info("game %s: the rematch was refused: %s", game_id, error.message)
        self.joining.discard(game_id)
        self.let_go(game_id)

    def watch_refused(self, game_id: str) -> None:
        self.joining.discard(game_id)
        self.bot.tournaments.ended(game_id)
        self.drop(game_id)  # a game we no longer have

    def let_go(self, game_id: str) -> None:
        """Stop following a finished game (its rematch was started, declined or not asked
        for in time)."""
        handle = self.after.pop(game_id, None)
        if handle is not None:
            handle.cancel()
        if game_id in self.playing:
            return
        self.drop(game_id)
        client = self.bot.client
        if client is not None:
            self.bot.spawn(self.bot.send(client, Unwatch(game_id)))

    def drop(self, game_id: str) -> None:
        self.versions.pop(game_id, None)
        self.bot.moves.forget(game_id)
        self.playing.pop(game_id, None)


class Claims:
    """The wins to claim, by game id: each waits out the time the rules give an opponent who
    left to come back."""

    def __init__(self, bot: Session) -> None:
        self.bot = bot
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def presence(self, presence: Presence) -> None:
        """Claim the win once the opponent has been gone ``claim_after``: an abandoned game
        would hold its slot forever."""
        game_id = presence.game
        color = self.bot.games.playing.get(game_id)
        if color is None:
            return
        gone = presence.black_gone if color == "white" else presence.white_gone
        self.cancel(game_id)
        if gone is None:
            return
        due = gone + presence.claim_after - (time.time() * 1000 + self.bot.clock_offset)
        self.tasks[game_id] = asyncio.create_task(
            self._claim(game_id, max(0.0, due / 1000) + CLAIM_MARGIN)
        )

    def cancel(self, game_id: str) -> None:
        waiting = self.tasks.pop(game_id, None)
        if waiting is not None:
            waiting.cancel()

    async def _claim(self, game_id: str, delay: float) -> None:
        await asyncio.sleep(delay)  # the time the rules give the opponent to come back
        client = await self.bot.current()
        log.info("game %s: the opponent left; claiming the win", game_id)
        await self.bot.send(client, ClaimWin(game_id))
