"""On start: the recovery of the games in play. Their indexes are rebuilt, the time no server
ran is given back and the clock of a person to move waits for them to come back
(``server.game.holds``), the lobby here learns them, and the server's bots whose turn it is
move again."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from server.game.clock import now_ms
from server.game.holds import given_back, held
from server.game.record import Record
from server.storage.store import Store

log = logging.getLogger(__name__)

OUTAGE_MS: Final = 3000
"""A heartbeat older than this on start means no server ran: the outage is not charged."""


class Recovery:
    """The games in play, recovered on start.

    Args:
        store: The games, their indexes and the last heartbeat.
        deadline: A game's deadline (``Changes.deadline``).
        update_lobby: Takes a game in play (``LobbyFeed.update``).
        start_bot_turn: Starts the bot's turn if it is one (``BotTurns.start_if_due``).
        first_move_ms: The time for a game's first moves (``Settings.first_move_timeout``).
        hold_ms: How long the clock of a person to move waits for their client after an
            outage (``Settings.reconnect_grace``).
    """

    def __init__(
        self,
        store: Store,
        *,
        deadline: Callable[[Record], int | None],
        update_lobby: Callable[[Record], None],
        start_bot_turn: Callable[[Record], None],
        first_move_ms: int,
        hold_ms: int = 0,
    ) -> None:
        self.store = store
        self.deadline = deadline
        self.update_lobby = update_lobby
        self.start_bot_turn = start_bot_turn
        self.first_move_ms = first_move_ms
        self.hold_ms = hold_ms

    async def recover(self) -> None:
        """On start: rebuild the indexes, give back the time no server ran, restart bots."""
        store = self.store
        now = now_ms()
        previous = await store.heartbeat(now)
        active = await store.repair(self.first_move_ms)
        outage = 0 if previous is None else now - previous
        if outage > OUTAGE_MS:
            log.info(
                "no server ran for %.1f s: clocks and expiries resume where they were",
                outage / 1000,
            )
        for record in active:
            if outage > OUTAGE_MS:
                assert previous is not None
                record = held(given_back(record, previous, now), now, self.hold_ms)
                if await store.rewrite(record):
                    await store.index(record, self.deadline(record))
            self.update_lobby(record)
            self.start_bot_turn(record)  # loads its game into the cache
