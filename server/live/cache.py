"""The games cached in one server process, and who follows each.

A game is cached while somebody here watches it, or a change of it is decided or delivered
here; then it is dropped, so memory is bounded by the games watched here, not by every id a
client names. While cached, a game is followed: its changes made elsewhere are heard here
(``server.live.listener``), and only then.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from hive import Game
from protocol import MAX_WATCHING, ErrorCode, Event, ProtocolError
from server.game.record import GAME_ID, Record
from server.live.locks import Locks
from server.live.session import Session
from server.storage.store import Store

RECENT_EVENTS: Final = 64
"""Events each cached game keeps in memory to fill a watcher's gap without asking Redis."""


def unknown(game_id: str) -> ProtocolError:
    return ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")


@dataclass
class CachedGame:
    """A game cached here: its record, a ``hive.Game`` of its moves (``game``), its recent
    events."""

    record: Record
    _game: Game
    recent: deque[Event] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))

    @property
    def game(self) -> Game:
        """The ``hive.Game`` of the record's moves, its board holding the lists the cached
        games share (``server.game.record.SCRATCH``): use it before the next ``await``, and
        ask for it again after."""
        self._game.board.hold()
        return self._game

    @classmethod
    def of(
        cls, record: Record, keep: int = RECENT_EVENTS, event: Event | None = None
    ) -> CachedGame:
        """The cache of ``record`` (``event``: the one that made it), keeping at most ``keep``
        recent events."""
        recent = deque([] if event is None else [event], maxlen=min(keep, RECENT_EVENTS))
        return cls(record, record.new_game(), recent)

    def apply(self, record: Record, event: Event | None = None) -> bool:
        """Bring the cache to ``record``, keeping ``event`` (None: the record was read from
        Redis, the events since the last one kept are not known); whether it moved forward
        (False: ``record`` is not newer, and nothing changed)."""
        if record.version <= self.record.version:
            return False
        played = self.record.moves
        if record.moves[: len(played)] == played:
            for move in record.moves[len(played) :]:
                self.game.play_unchecked(move)  # committed: checked when played
        else:
            self._game = record.new_game()
        if event is None or (self.recent and self.recent[-1].version != event.version - 1):
            self.recent.clear()
        if event is not None:
            self.recent.append(event)
        self.record = record
        return True

    def events_after(self, version: int) -> list[Event] | None:
        """The events after ``version`` if this cache still has them all."""
        if version >= self.record.version:
            return []
        if not self.recent or self.recent[0].version > version + 1:
            return None
        return [e for e in self.recent if e.version > version]


class GameCache:
    """The games cached here, their watchers, and the locks of the games being changed
    (``changing``) or delivered (``sending``) here.

    Args:
        store: Where a game not cached is loaded from.
        keep: Events each cached game keeps.
        touched: Called with a game id whenever the game's watchers change.
        follow: Called with a game id when the game comes into the cache (its changes are
            to be heard here).
        unfollow: Called with a game id when the game leaves the cache.
    """

    def __init__(
        self,
        store: Store,
        keep: int,
        touched: Callable[[str], None],
        follow: Callable[[str], None],
        unfollow: Callable[[str], None],
    ) -> None:
        self.store = store
        self.keep = keep
        self.touched = touched
        self.follow = follow
        self.unfollow = unfollow
        self.games: dict[str, CachedGame] = {}
        self.watchers: dict[str, dict[Session, None]] = {}
        self.changing = Locks()
        self.sending = Locks()

    def get(self, game_id: str) -> CachedGame | None:
        return self.games.get(game_id)

    async def load(self, game_id: str) -> CachedGame:
        """The cached game, loaded from Redis if needed.

        Raises:
            ProtocolError: UNKNOWN_GAME.
        """
        cached = self.games.get(game_id)
        if cached is not None:
            return cached
        record = await self.store.get(game_id) if GAME_ID.fullmatch(game_id) else None
        if record is None:
            raise unknown(game_id)
        cached = self.games.get(game_id)  # loaded by someone else meanwhile?
        return self._add(record) if cached is None else cached

    def advance(self, record: Record, event: Event | None = None) -> bool:
        """Bring the cache to a committed change of its game (``event``: the change's; None:
        ``record`` was read from Redis), caching the game if it is not; whether the cache moved
        forward, which it does once a version (False: it holds this version or a later one,
        and nothing changed). ``load`` caches a game nobody here follows yet, and never moves
        a cached one on: a later version comes into the cache here only, where
        ``Fanout.pass_on`` passes it on."""
        cached = self.games.get(record.id)
        if cached is None:
            self._add(record, event)
            return True
        return cached.apply(record, event)

    def take_back(self, record: Record) -> bool:
        """Bring a cached game back to ``record``, an earlier version than the cache's (a
        change heard here was lost with a Redis primary: a failover took it back), its
        watchers owed a snapshot; whether it was so (False: not cached, or not earlier)."""
        cached = self.games.get(record.id)
        if cached is None or record.version >= cached.record.version:
            return False
        self.games[record.id] = CachedGame.of(record, self.keep)
        for session in self.watchers.get(record.id, {}):
            if record.id in session.watching:
                session.watching[record.id] = None  # sent a snapshot next
        return True

    def _add(self, record: Record, event: Event | None = None) -> CachedGame:
        self.follow(record.id)
        cached = self.games[record.id] = CachedGame.of(record, self.keep, event)
        return cached

    def watch(
        self, session: Session, game_id: str, seen: int | None, *, checked: bool = True
    ) -> None:
        """``session`` follows the game, having been sent version ``seen`` (None: nothing).

        Raises:
            ProtocolError: NOT_ALLOWED when it follows ``MAX_WATCHING`` games already (unless
                ``checked`` is off: a rematch followed for the client).
        """
        if checked and game_id not in session.watching and len(session.watching) >= MAX_WATCHING:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"a connection watches at most {MAX_WATCHING} games: unwatch one first",
            )
        session.watching[game_id] = seen
        self.watchers.setdefault(game_id, {})[session] = None
        self.touched(game_id)

    def unwatch(self, session: Session, game_id: str) -> None:
        session.watching.pop(game_id, None)
        session.owed.discard(game_id)
        watchers = self.watchers.get(game_id)
        if watchers is not None:
            watchers.pop(session, None)
            if not watchers:
                del self.watchers[game_id]
            self.touched(game_id)
        self.forget_if_idle(game_id)

    def forget_if_idle(self, game_id: str) -> None:
        """Drop a game once nobody here watches it (and stop hearing of its changes: a game in
        progress is loaded again by whatever changes it here, its clock's flag or a bot's
        move)."""
        if game_id not in self.games or game_id in self.watchers:
            return
        if self.changing.busy(game_id) or self.sending.busy(game_id):
            return
        del self.games[game_id]
        self.unfollow(game_id)
