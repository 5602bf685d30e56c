"""``hive-bot``'s moves: one task per game on its turn, the time it may think (from its
clock), the move sent on whatever connection is up by then, and a refused move.

What the moves use of the bot's session is named by ``Session`` (``session.Runner`` is one),
so this module never imports the session nor the games that hold them."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Mapping
from typing import Any, Final, Protocol

from hivebot.engines import Budget, Engine, EngineError, HeldDrawn
from protocol import Color, Draw, Error, ErrorCode, GameState, Message, Play, Resign, Watch
from protocol.client import Client

log = logging.getLogger("hive-bot")

RETRY_SECONDS: Final = 1.0
"""Wait before asking again for a game whose move was refused for going too fast."""
MOVES_AHEAD: Final = 20
"""A move's share of the clock: what is left over this many moves, plus the increment's."""
INCREMENT_SHARE: Final = 0.8
SAFETY_SECONDS: Final = 1.0
"""Clock time never planned for (the network, an engine's start)."""
DEADLINE_MARGIN: Final = 0.5
"""A move is sent this long before the clock would fall, whatever the engine is doing."""


class Followed(Protocol):
    """The games the bot follows, as the moves read them (``game.Games`` is one)."""

    @property
    def playing(self) -> Mapping[str, Color]:
        """The games it plays, by id, and its colour in each."""

    @property
    def versions(self) -> Mapping[str, int]:
        """The last version seen of each game it follows."""


class Session(Protocol):
    """What the moves use of the bot's session (``session.Runner``)."""

    @property
    def engine(self) -> Engine: ...
    @property
    def games(self) -> Followed: ...

    async def current(self) -> Client:
        """The connection up now, once there is one."""

    async def send(self, client: Client, message: Message) -> None:
        """Send, or nothing if the connection is gone (the next session starts again)."""

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (cancelled when the bot stops)."""


class Moves:
    """The moves being chosen, by game id, and the ply each game's last move was chosen for."""

    def __init__(self, bot: Session) -> None:
        self.bot = bot
        self.answered: dict[str, int] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        # The opponent's draw offers on the bot's turn, by game: the ply, answered with the
        # move (accepted where the engine holds the game drawn).
        self.offers: dict[str, int] = {}

    def start_if_due(self, state: GameState, color: Color) -> None:
        """Start choosing a move if ``state`` (live) is on ``color``'s turn at a ply not
        answered yet."""
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

    async def stop(self, game_id: str) -> None:
        """No engine searches on for a game that has ended, and none is started after."""
        task = self.tasks.pop(game_id, None)
        if task is not None:
            task.cancel()
            # (not ``await task`` under suppress(CancelledError): that would also swallow a
            # cancel of the caller, the session stopping, and its task would go on)
            await asyncio.wait({task})

    def forget(self, game_id: str) -> None:
        self.answered.pop(game_id, None)
        self.offers.pop(game_id, None)

    def offered(self, state: GameState) -> None:
        """The opponent offers a draw on the bot's turn in ``state``: the move answers it."""
        self.offers[state.id] = len(state.moves)

    def forget_sent(self) -> None:
        """On a new connection: a move sent on the lost one may never have arrived, so the
        snapshots coming (a state still at that ply) ask for it again, unless it is still
        being chosen."""
        self.answered = {g: ply for g, ply in self.answered.items() if g in self.tasks}

    async def _move(self, state: GameState, budget: Budget | None) -> None:
        """Think, then play on whatever connection is up by then."""
        offer = False
        try:
            move = await self.bot.engine.choose(state, budget)
        except HeldDrawn as held:
            log.warning("game %s: %s; our bot's move is %s", state.id, held, held.move)
            move, offer = held.move, True
        except EngineError as error:
            log.error("game %s: %s; resigning", state.id, error)
            move = ""
        except Exception:
            log.exception("game %s: the engine failed", state.id)
            move = ""
        if state.id not in self.bot.games.playing:
            return  # the game ended meanwhile
        client = await self.bot.current()
        if self.offers.pop(state.id, None) == len(state.moves):  # the opponent offers a draw
            if offer or not move:  # drawn for the engine, or it has no move: take the draw
                log.info("game %s: accepting the draw offered", state.id)
                await self.bot.send(client, Draw(state.id, "accept"))
                return
            await self.bot.send(client, Draw(state.id, "decline"))
        if move:
            await self.bot.send(client, Play(state.id, state.version, move))
            if offer:  # after the move, which would withdraw it
                await self.bot.send(client, Draw(state.id, "offer"))
        else:
            await self.bot.send(client, Resign(state.id))

    async def refused(self, client: Client, game_id: str, error: Error) -> None:
        """A move refused: stale (the game moved on: an update follows), too fast, or illegal
        (the engine's)."""
        log.warning("game %s: move refused: %s", game_id, error.message)
        if error.code == ErrorCode.RATE_LIMITED:  # ask for the state again, a little later
            self.answered.pop(game_id, None)
            self.bot.spawn(self._watch_again(client, game_id))
        if error.code == ErrorCode.ILLEGAL_MOVE:
            log.error("game %s: the engine played an illegal move; resigning", game_id)
            await client.send(Resign(game_id))

    async def _watch_again(self, client: Client, game_id: str) -> None:
        """After a refusal for going too fast: wait, then ask for the game's state again (its
        update starts the move again)."""
        await asyncio.sleep(RETRY_SECONDS)  # a backoff, not a synchronisation
        await self.bot.send(client, Watch(game_id, self.bot.games.versions.get(game_id)))


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
