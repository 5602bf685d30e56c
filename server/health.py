"""Whether this process takes games: ``/healthz`` says ``ok`` only once it has started and
while Redis answers (a load balancer takes a process that says otherwise out of rotation)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.runtime import Hub

log = logging.getLogger(__name__)


class Health:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.ready = False
        self.storage_ok = True

    def storage(self, ok: bool, error: BaseException | None = None) -> None:
        """Note whether Redis answers (logged when it changes)."""
        if ok != self.storage_ok:
            if ok:
                log.info("storage answers again")
            else:
                log.warning("storage unavailable: %s", error)
        self.storage_ok = ok

    def report(self) -> dict[str, Any]:
        """What ``/healthz`` says."""
        status = "starting" if not self.ready else "ok" if self.storage_ok else "storage away"
        lobby = self.hub.lobby
        return {
            "status": status,
            "connections": len(self.hub.connections.sessions),
            "games": len(lobby.in_progress),
            "open": len(lobby.open),
        }
