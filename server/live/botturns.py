"""The moves of the server's bots: one task per game whose turn is a bot's, its search run in
the bot pool's worker processes (never on the event loop), its move played like a person's."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

import redis.exceptions

from protocol import ProtocolError
from server.game import match
from server.game.movers import SERVER_BOT
from server.game.record import Record

if TYPE_CHECKING:
    from server.runtime import Hub

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0
"""Wait before a bot move lost to storage is tried again."""


class BotTurns:
    """The bot turns running here, by game id."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
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
        hub = self.hub
        try:
            record = (await hub.cache.load(game_id)).record
            seat = record.seat(record.turn)
            if record.status != "live" or seat is None or seat.bot is None:
                return
            started = time.perf_counter()
            answer = await hub.pool.move(
                game_id, record.game_type, list(record.moves), seat.bot, record.seed
            )
            hub.metrics.bot_move_seconds.observe(time.perf_counter() - started)
            await hub.store.put_trace(
                game_id, len(record.moves) + 1, answer.trace, int(hub.settings.trace_ttl)
            )
            version, bot = record.version, seat.player
            played = await hub.changes.change(
                game_id,
                lambda cached, now: match.play(
                    cached.record, cached.game, bot, answer.move, version, now, hub.first_move_ms
                ),
            )
            if played is not None:
                hub.metrics.moves.labels(SERVER_BOT).inc()
        except ProtocolError as error:  # the game changed meanwhile (resigned, flagged...)
            log.info("bot move in game %s not played: %s", game_id, error.message)
        except redis.exceptions.RedisError as error:
            log.warning("bot move in game %s lost to storage: %s; retrying", game_id, error)
            await asyncio.sleep(RETRY_SECONDS)  # back off before the retry below
            self.tasks.pop(game_id, None)  # this task: the turn starts again in a new one
            cached = hub.cache.get(game_id)
            if cached is not None:
                self.start_if_due(cached.record)
        except Exception:
            log.exception("bot move in game %s failed", game_id)
            raise
