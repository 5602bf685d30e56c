"""The clocks, whoever is connected: deadlines (open games expire, first moves abort, flags
fall), games against the server's bots that their person left, games without a clock that both
players left. (The heartbeat is in ``heartbeat``; the recovery of the games in play on start, in
``recovery``.)"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Final, TypeVar

from protocol import Event, ProtocolError
from server.game import match
from server.game.clock import now_ms
from server.game.record import Record
from server.live.cache import CachedGame, GameCache
from server.live.changes import Changes
from server.live.lobby import LobbyBoard
from server.storage.store import STORAGE_ERRORS, Store

log = logging.getLogger(__name__)
T = TypeVar("T")

ABANDON_SECONDS: Final = 5.0
"""How often (at most) games against the server's bots are looked at for a person who left."""
TURN_GAMES: Final = 100
"""Games looked at in one turn of the event loop by the looks over every game in progress:
a look over a thousand games in one turn held the loop for 3 to 13 ms every five seconds, a
pause for every game's moves (bench/load.py's p99; bench/probe.py's ``stalls`` found it)."""


async def in_turns(items: Iterable[T]) -> AsyncIterator[list[T]]:
    """``items`` (taken at once: the games may change meanwhile), ``TURN_GAMES`` at a time,
    each after a turn of the event loop but the first."""
    taken = list(items)
    for start in range(0, len(taken), TURN_GAMES):
        if start:
            await asyncio.sleep(0)
        yield taken[start : start + TURN_GAMES]


class Timers:
    """The background loops of the clocks (each runs until cancelled).

    Args:
        changes: The door each change goes through (an expiry, a flag, an abandon...).
        cache: The games here.
        store: The deadlines due, and when each player left.
        board: The games in progress (as the lobby here knows them: all of this Redis's).
        connected: Whether a player has a connection here, or had one on another process at
            the last view shared (``Presence.connected``): not gone, so not asked of Redis.
        first_move_ms: The time for a game's first moves (``Settings.first_move_timeout``).
        sweep_interval: Seconds between two looks at the deadlines due.
        disconnect_claim: Seconds a person must be gone before a game against a server bot
            ends (``Settings.disconnect_claim``).
        untimed_timeout: Seconds both players of a game without a clock must be gone before
            it ends (``Settings.untimed_timeout``).
    """

    def __init__(
        self,
        changes: Changes,
        cache: GameCache,
        store: Store,
        board: LobbyBoard,
        connected: Callable[[str], bool],
        *,
        first_move_ms: int,
        sweep_interval: float,
        disconnect_claim: float,
        untimed_timeout: float,
    ) -> None:
        self.changes = changes
        self.cache = cache
        self.store = store
        self.board = board
        self.connected = connected
        self.first_move_ms = first_move_ms
        self.sweep_interval = sweep_interval
        self.disconnect_claim = disconnect_claim
        self.untimed_timeout = untimed_timeout
        self.started = now_ms()  # a person gone longer than this process runs: gone since then
        self.deserted_looks = 0  # rounds of ``end_deserted`` done

    async def sweep(self) -> None:
        """Apply passed deadlines (expiries, aborts, flags)."""
        while True:
            try:
                for game_id in await self.store.due(now_ms()):
                    try:
                        await self._expire(game_id)
                    except STORAGE_ERRORS:
                        raise
                    except Exception:  # one game's failure must not stop the others' clocks
                        log.exception("game %s: deadline not applied", game_id)
            except STORAGE_ERRORS as error:
                log.warning("deadline sweep: storage unavailable (%s)", error)
            await asyncio.sleep(self.sweep_interval)

    async def _expire(self, game_id: str) -> None:
        first_move_ms = self.first_move_ms
        try:
            done = await self.changes.change(
                game_id, lambda cached, now: match.expire(cached.record, now, first_move_ms)
            )
        except ProtocolError:  # the game is gone
            await self.store.drop_deadline(game_id)
            return
        if done is not None:
            log.info("game %s: %s", game_id, done.reason)
            return
        # Not due after all: a move moved the deadline, or the game here is behind Redis's
        # (another process's change not heard yet): indexed as Redis holds it, not as here,
        # which would put back the deadline that change replaced (or take an ended game out
        # of ``hive:over``).
        await self.store.index_current(game_id, self.changes.deadline)

    async def end_abandoned(self) -> None:
        """End the games against the server's bots whose person has been gone past
        ``Settings.disconnect_claim`` (nobody is there to claim the win): aborted before
        both sides have moved, else lost by the person (``abandoned``). Looked at every
        ``ABANDON_SECONDS``, or a quarter of the limit if that is shorter."""
        limit = int(self.disconnect_claim * 1000)
        while True:
            await asyncio.sleep(_every(self.disconnect_claim))
            games = [
                (record.id, person)
                async for some in in_turns(self.board.in_progress.values())
                for record in some
                if (bot := record.bot_opponent()) is not None
                for person in record.players()
                if person != bot.player
            ]
            if not games:
                continue
            try:
                now = now_ms()
                gone = await self._gone_since([person for _, person in games], now)
                for (game_id, person), since in zip(games, gone, strict=True):
                    if since is not None and now - since >= limit:
                        await self._abandon(game_id, person)
            except STORAGE_ERRORS as error:
                log.warning("abandoned games: storage unavailable (%s)", error)

    async def end_deserted(self) -> None:
        """End the games without a clock whose players have both been gone past
        ``Settings.untimed_timeout`` (no clock will end them, and nobody is there to claim):
        without a result (``deserted``). Looked at every ``ABANDON_SECONDS``, or a quarter of
        the limit if that is shorter, by every process over the games in progress its lobby
        knows (all of this Redis's), with who is connected anywhere read from Redis; a game
        ends once, whichever process ends it (its change is committed on its version)."""
        limit = int(self.untimed_timeout * 1000)
        while True:
            await asyncio.sleep(_every(self.untimed_timeout))
            connected = self.connected
            games = [
                record
                async for some in in_turns(self.board.in_progress.values())
                for record in some
                if record.time.kind == "none"
                and record.bot_opponent() is None
                and not any(connected(player) for player in record.players())
            ]
            players = [player for record in games for player in record.players()]
            try:
                now = now_ms()
                gone = dict(zip(players, await self._gone_since(players, now), strict=True))
                for record in games:
                    since = [gone[player] for player in record.players()]
                    if len(since) != 2 or any(s is None for s in since):
                        continue  # someone is there (a connection, or a bot account)
                    if now - max(s for s in since if s is not None) >= limit:
                        await self._desert(record.id)
            except STORAGE_ERRORS as error:
                log.warning("deserted games: storage unavailable (%s)", error)
            self.deserted_looks += 1

    async def _gone_since(self, players: list[str], now: int) -> list[int | None]:
        """When each player's last connection closed (None: one is open), counted from this
        process's start at the earliest: a player gone since before it may not have been able
        to reconnect while no server ran. Only the players not connected (``connected``) are
        asked of Redis: asking for all of a thousand games' players took the event loop 20 ms
        every five seconds, a pause for every game's moves (bench/load.py's p99)."""
        connected = self.connected
        asked = [player for player in players if not connected(player)]
        found = dict(zip(asked, await self.store.gone_since_many(asked, now), strict=True))
        gone = [found.get(player) for player in players]
        return [None if since is None else max(since, self.started) for since in gone]

    async def _desert(self, game_id: str) -> None:
        def decide(cached: CachedGame, now: int) -> tuple[Record, Event] | None:
            record = cached.record
            if record.status != "live" or record.time.kind != "none":
                return None
            return match.desert(record, now)

        try:
            done = await self.changes.change(game_id, decide)
        except ProtocolError:  # gone meanwhile
            return
        if done is not None:
            log.info("game %s: %s (both players left)", game_id, done.reason)

    async def _abandon(self, game_id: str, person: str) -> None:
        def decide(cached: CachedGame, now: int) -> tuple[Record, Event] | None:
            if cached.record.status != "live":
                return None
            return match.abandon(cached.record, person, now)

        try:
            done = await self.changes.change(game_id, decide)
        except ProtocolError:  # over meanwhile
            return
        if done is not None:
            log.info("game %s: %s (its person left)", game_id, done.reason)


def _every(limit: float) -> float:
    """How often the games gone past ``limit`` seconds are looked for: every
    ``ABANDON_SECONDS``, or a quarter of the limit if that is shorter."""
    return min(ABANDON_SECONDS, max(0.05, limit / 4))
