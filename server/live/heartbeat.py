"""What keeps this process's marks alive in Redis: the heartbeat (this server alive, the online
marks of its players, the view shared with the other processes) and the guests who play a game
in progress (kept from expiring)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Final

import prometheus_client

from server.game.clock import now_ms
from server.live.lobby import LobbyBoard
from server.live.presence import VIEW_SECONDS, Presence
from server.storage.store import STORAGE_ERRORS, Store

log = logging.getLogger(__name__)

KEEP_SECONDS: Final = 3600.0
"""How often (at most) the guests of the games in progress are kept from expiring."""


class Heartbeat:
    """This process's beat.

    Args:
        store: Where the beat is marked.
        presence: Renews its players' online marks, and shares the view, on the beat.
        storage_answers: Told at each beat whether Redis answered (and its error if not):
            ``Health.storage``.
        redis_seconds: Observes how long Redis took to answer the beat.
    """

    def __init__(
        self,
        store: Store,
        presence: Presence,
        *,
        storage_answers: Callable[[bool, BaseException | None], None],
        redis_seconds: prometheus_client.Histogram,
    ) -> None:
        self.store = store
        self.presence = presence
        self.storage_answers = storage_answers
        self.redis_seconds = redis_seconds

    async def beat(self) -> None:
        """Every second, mark this server alive (and note whether Redis answers, for
        ``/healthz``) and renew the online marks of a tenth of its players; every
        VIEW_SECONDS, share the view with the other processes."""
        beats = 0
        while True:
            try:
                started = time.perf_counter()
                await self.store.heartbeat(now_ms())
                self.redis_seconds.observe(time.perf_counter() - started)
                self.storage_answers(True, None)
                await self.presence.renew_online(beats)
                if beats % VIEW_SECONDS == 0:
                    await self.presence.share_view()
            except STORAGE_ERRORS as error:
                self.storage_answers(False, error)
            beats += 1
            await asyncio.sleep(1)


class Guests:
    """The guests who play a game in progress, kept from expiring.

    Args:
        store: Where their keys are.
        board: The games in progress.
        session_ttl: Seconds a session lasts from its last use (``Settings.session_ttl``).
    """

    def __init__(self, store: Store, board: LobbyBoard, *, session_ttl: float) -> None:
        self.store = store
        self.board = board
        self.session_ttl = session_ttl

    async def keep(self) -> None:
        """Keep the guests who play a game in progress from expiring (their keys last
        ``Settings.session_ttl`` from their last use, which a long game may outlast): every
        ``KEEP_SECONDS``, or a quarter of the session's life if that is shorter, their keys
        are given ``session_ttl`` again. A guest with no game in progress is left to expire."""
        ttl = max(1, int(self.session_ttl))
        every = min(KEEP_SECONDS, max(0.05, self.session_ttl / 4))
        while True:
            await asyncio.sleep(every)
            guests = {
                seat.player
                for record in self.board.in_progress.values()
                for seat in (record.white, record.black)
                if seat is not None and seat.account == "guest"
            }
            try:
                await self.store.keep(sorted(guests), ttl)
            except STORAGE_ERRORS as error:
                log.warning("guests in games: storage unavailable (%s)", error)
