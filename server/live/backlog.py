"""The connections here that do not read what they are sent: a frame for one whose queue holds
``Settings.queue_limit`` bytes or more is not sent; the connection is skipped, owed the game (or
the lobby), and brought up to date once it reads again (``Fanout.catch_up``).

Every part that sends frames to many connections (the fan-out of a game's changes, the
lobby's feed, the presence of a game's players) asks it which are ready.
"""

from __future__ import annotations

import prometheus_client

from server.live.session import Session


class Backlog:
    """The sessions skipped, each owed an update of some games or the lobby.

    Args:
        queue_limit: Bytes waiting to be sent from which a connection is skipped.
        skipped: Counts each frame not sent.
    """

    def __init__(self, queue_limit: int, skipped: prometheus_client.Counter) -> None:
        self.queue_limit = queue_limit
        self.lagging: set[Session] = set()  # sessions owed an update or the lobby
        self._skipped = skipped

    def ready(self, sessions: list[Session], game_id: str | None) -> list[Session]:
        """The sessions that read what they are sent: the others are skipped, owed the game
        (``game_id``) or, for None, the lobby."""
        limit = self.queue_limit
        ready = [s for s in sessions if s.queued() < limit]
        if len(ready) < len(sessions):
            for session in sessions:
                if session.queued() >= limit:
                    self.skipped(session, game_id=game_id, lobby=game_id is None)
        return ready

    def skipped(self, session: Session, *, game_id: str | None = None, lobby: bool = False) -> None:
        """A frame for ``session`` was not sent: it is brought up to date once it reads."""
        if game_id is not None:
            session.owed.add(game_id)
        if lobby:
            session.lobby_stale = True
        self.lagging.add(session)
        self._skipped.inc()
