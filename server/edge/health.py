"""Whether this process takes games: ``/healthz`` says ``ok`` only once it has started and
while Redis answers (a load balancer takes a process that says otherwise out of rotation); and
how late its event loop runs (``hive_event_loop_lag_seconds``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from prometheus_client import Counter, Histogram

    from server.live.lobby import LobbyBoard

log = logging.getLogger(__name__)

LAG_SECONDS: Final = 0.5
"""How often the event loop's lag is measured."""


class Health:
    """Whether the process is ready and reaches Redis: each failure counted in
    ``redis_errors``, the event loop's lag in ``loop_lag``; ``/healthz`` also says how many
    connections are open (``connections``) and how many games ``lobby`` knows."""

    def __init__(
        self,
        redis_errors: Counter,
        loop_lag: Histogram,
        lobby: LobbyBoard,
        connections: Callable[[], int],
    ) -> None:
        self.redis_errors = redis_errors
        self.loop_lag = loop_lag
        self.lobby = lobby
        self.connections = connections
        self.ready = False
        self.storage_ok = True

    def storage(self, ok: bool, error: BaseException | None = None) -> None:
        """Note whether Redis answers (logged when it changes; each failure counted)."""
        if error is not None:
            self.redis_errors.labels(type(error).__name__).inc()
        if ok != self.storage_ok:
            if ok:
                log.info("storage answers again")
            else:
                log.warning("storage unavailable: %s", error)
        self.storage_ok = ok

    def report(self) -> dict[str, Any]:
        """What ``/healthz`` says."""
        status = "starting" if not self.ready else "ok" if self.storage_ok else "storage away"
        lobby = self.lobby
        return {
            "status": status,
            "connections": self.connections(),
            "games": len(lobby.in_progress),
            "open": len(lobby.open),
        }

    async def watch_loop(self) -> None:
        """Forever: how much later than asked the event loop wakes a sleeping task (what any
        request waits on top of its own work: a long step of some task, a garbage collection)."""
        loop = asyncio.get_running_loop()
        observe = self.loop_lag.observe
        while True:
            asked = loop.time() + LAG_SECONDS
            await asyncio.sleep(LAG_SECONDS)
            observe(max(0.0, loop.time() - asked))
