"""The moves of the server's bots: one task per game whose turn is a bot's, its search run in
the bot pool's worker processes (never on the event loop), its move played like a person's."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import prometheus_client
import redis.exceptions

from ai.pool import BotPool
from protocol import ProtocolError
from server.game import match
from server.game.record import Record
from server.live.cache import GameCache
from server.live.changes import Changes
from server.storage.store import Store

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0
"""Wait before a bot move lost to storage is tried again."""


class BotTurns:
    """The bot turns running here, by game id.

    Args:
        changes: The door a bot's move goes through, like a person's.
        cache: The games here.
        store: Where each move's search trace is kept.
        pool: The bots' searches, in worker processes.
        first_move_ms: The time for a game's first moves (``Settings.first_move_timeout``).
        trace_ttl: How long a search trace is kept, in seconds (``Settings.trace_ttl``).
        move_seconds: Observes how long each bot move took.
        count_move: Counts a move of the server's bots.
    """

    def __init__(
        self,
        changes: Changes,
        cache: GameCache,
        store: Store,
        pool: BotPool,
        *,
        first_move_ms: int,
        trace_ttl: int,
        move_seconds: prometheus_client.Histogram,
        count_move: Callable[[], None],
    ) -> None:
        self.changes = changes
        self.cache = cache
        self.store = store
        self.pool = pool
        self.first_move_ms = first_move_ms
        self.trace_ttl = trace_ttl
        self.move_seconds = move_seconds
        self.count_move = count_move
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def start_if_due(self, record: Record) -> None:
        """Start the bot's turn if ``record`` is a game in progress on a server bot's turn
        (and none runs for it)."""
        if record.status != "live" or record.id in self.tasks:
            return
        seat = record.seat(record.turn)
        if seat is None or seat.bot is None:
            return
        game_id = record.id
        task = asyncio.create_task(self.turn(game_id))
        self.tasks[game_id] = task

        def done(_: asyncio.Task[None]) -> None:
            if self.tasks.get(game_id) is task:  # not a turn started after it
                del self.tasks[game_id]

        task.add_done_callback(done)

    async def turn(self, game_id: str) -> None:
        """Compute and play the bot's move (its thinking time runs on its clock)."""
        first_move_ms = self.first_move_ms
        try:
            record = (await self.cache.load(game_id)).record
            seat = record.seat(record.turn)
            if record.status != "live" or seat is None or seat.bot is None:
                return
            started = time.perf_counter()
            answer = await self.pool.move(
                game_id, record.game_type, list(record.moves), seat.bot, record.seed
            )
            self.move_seconds.observe(time.perf_counter() - started)
            await self.store.put_trace(game_id, len(record.moves) + 1, answer.trace, self.trace_ttl)
            version, bot = record.version, seat.player
            played = await self.changes.change(
                game_id,
                lambda cached, now: match.play(
                    cached.record, cached.game, bot, answer.move, version, now, first_move_ms
                ),
            )
            if played is not None:
                self.count_move()
        except ProtocolError as error:  # the game changed meanwhile (resigned, flagged...)
            log.info("bot move in game %s not played: %s", game_id, error.message)
        except redis.exceptions.RedisError as error:
            log.warning("bot move in game %s lost to storage: %s; retrying", game_id, error)
            await asyncio.sleep(RETRY_SECONDS)  # back off before the retry below
            self.tasks.pop(game_id, None)  # this task: the turn starts again in a new one
            cached = self.cache.get(game_id)
            if cached is not None:
                self.start_if_due(cached.record)
        except Exception:
            log.exception("bot move in game %s failed", game_id)
            raise
