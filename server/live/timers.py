"""What happens with time, whoever is connected: deadlines (open games expire, first moves
abort, flags fall), games against the server's bots that their person left, games without a
clock that both players left, the heartbeat, and, on start, the recovery of the games in
play."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from protocol import Event, ProtocolError
from server.game import match
from server.game.clock import now_ms
from server.game.record import Record
from server.live.cache import CachedGame
from server.live.presence import VIEW_SECONDS
from server.storage.store import STORAGE_ERRORS

if TYPE_CHECKING:
    from server.runtime import Hub

log = logging.getLogger(__name__)

OUTAGE_MS: Final = 3000
"""A heartbeat older than this on start means no server ran: the outage is not charged."""
ABANDON_SECONDS: Final = 5.0
"""How often (at most) games against the server's bots are looked at for a person who left."""
KEEP_SECONDS: Final = 3600.0
"""How often (at most) the guests of the games in progress are kept from expiring."""


class Timers:
    """The background loops of time (each runs until cancelled)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.started = now_ms()  # a person gone longer than this process runs: gone since then
        self.deserted_looks = 0  # rounds of ``end_deserted`` done

    async def sweep(self) -> None:
        """Apply passed deadlines (expiries, aborts, flags)."""
        hub = self.hub
        while True:
            try:
                for game_id in await hub.store.due(now_ms()):
                    try:
                        await self._expire(game_id)
                    except STORAGE_ERRORS:
                        raise
                    except Exception:  # one game's failure must not stop the others' clocks
                        log.exception("game %s: deadline not applied", game_id)
            except STORAGE_ERRORS as error:
                log.warning("deadline sweep: storage unavailable (%s)", error)
            await asyncio.sleep(hub.settings.sweep_interval)

    async def _expire(self, game_id: str) -> None:
        hub = self.hub
        first_move_ms = hub.first_move_ms
        try:
            done = await hub.changes.change(
                game_id, lambda cached, now: match.expire(cached.record, now, first_move_ms)
            )
        except ProtocolError:  # the game is gone
            await hub.store.drop_deadline(game_id)
            return
        if done is not None:
            log.info("game %s: %s", game_id, done.reason)
            return
        cached = hub.cache.get(game_id)  # not due after all: a move moved the deadline
        if cached is not None:
            await hub.store.index(cached.record, hub.changes.deadline(cached.record))

    async def end_abandoned(self) -> None:
        """End the games against the server's bots whose person has been gone past
        ``Settings.disconnect_claim`` (nobody is there to claim the win): aborted before
        both sides have moved, else lost by the person (``abandoned``). Looked at every
        ``ABANDON_SECONDS``, or a quarter of the limit if that is shorter."""
        hub = self.hub
        limit = int(hub.settings.disconnect_claim * 1000)
        while True:
            await asyncio.sleep(_every(hub.settings.disconnect_claim))
            games = [
                (record.id, person)
                for record in hub.lobby.in_progress.values()
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
        hub = self.hub
        limit = int(hub.settings.untimed_timeout * 1000)
        while True:
            await asyncio.sleep(_every(hub.settings.untimed_timeout))
            games = [
                record
                for record in hub.lobby.in_progress.values()
                if record.time.kind == "none" and record.bot_opponent() is None
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
        to reconnect while no server ran."""
        gone = await self.hub.store.gone_since_many(players, now)
        return [None if since is None else max(since, self.started) for since in gone]

    async def _desert(self, game_id: str) -> None:
        def decide(cached: CachedGame, now: int) -> tuple[Record, Event] | None:
            record = cached.record
            if record.status != "live" or record.time.kind != "none":
                return None
            return match.desert(record, now)

        try:
            done = await self.hub.changes.change(game_id, decide)
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
            done = await self.hub.changes.change(game_id, decide)
        except ProtocolError:  # over meanwhile
            return
        if done is not None:
            log.info("game %s: %s (its person left)", game_id, done.reason)

    async def keep_guests(self) -> None:
        """Keep the guests who play a game in progress from expiring (their keys last
        ``Settings.session_ttl`` from their last use, which a long game may outlast): every
        ``KEEP_SECONDS``, or a quarter of the session's life if that is shorter, their keys
        are given ``session_ttl`` again. A guest with no game in progress is left to expire."""
        hub = self.hub
        ttl = max(1, int(hub.settings.session_ttl))
        every = min(KEEP_SECONDS, max(0.05, hub.settings.session_ttl / 4))
        while True:
            await asyncio.sleep(every)
            guests = {
                seat.player
                for record in hub.lobby.in_progress.values()
                for seat in (record.white, record.black)
                if seat is not None and seat.account == "guest"
            }
            try:
                await hub.store.keep(sorted(guests), ttl)
            except STORAGE_ERRORS as error:
                log.warning("guests in games: storage unavailable (%s)", error)

    async def heartbeat(self) -> None:
        """Every second, mark this server alive (and note whether Redis answers, for
        ``/healthz``) and renew the online marks of a tenth of its players; every
        VIEW_SECONDS, share the view with the other processes."""
        hub = self.hub
        beats = 0
        while True:
            try:
                started = time.perf_counter()
                await hub.store.heartbeat(now_ms())
                hub.metrics.redis_seconds.observe(time.perf_counter() - started)
                hub.health.storage(True)
                await hub.presence.renew_online(beats)
                if beats % VIEW_SECONDS == 0:
                    await hub.presence.share_view()
            except STORAGE_ERRORS as error:
                hub.health.storage(False, error)
            beats += 1
            await asyncio.sleep(1)

    async def recover(self) -> None:
        """On start: rebuild the indexes, give back the time no server ran, restart bots."""
        hub = self.hub
        store = hub.store
        hub.connections.secret = await store.secret()
        now = now_ms()
        previous = await store.heartbeat(now)
        active = await store.repair(hub.first_move_ms)
        outage = 0 if previous is None else now - previous
        if outage > OUTAGE_MS:
            log.info(
                "no server ran for %.1f s: clocks and expiries resume where they were",
                outage / 1000,
            )
        for record in active:
            if outage > OUTAGE_MS:
                assert previous is not None
                record = given_back(record, previous, now)
                if await store.rewrite(record):
                    await store.index(record, hub.changes.deadline(record))
            hub.lobby_feed.update(record)
            hub.bot_turns.start_if_due(record)  # loads its game into the cache


def given_back(record: Record, last_seen: int, now: int) -> Record:
    """``record`` with the time no server ran (from ``last_seen``, the last heartbeat, to
    ``now``) given back: to the side on move, the part of it its clock ran (never more: a
    move made after the last heartbeat ran it for less); to an open game, its expiry."""
    if record.status == "live":
        lost = now - max(record.turn_started, last_seen)
        return replace(record, turn_started=record.turn_started + max(0, lost))
    if record.expires is not None:
        return replace(record, expires=record.expires + (now - last_seen))
    return record


def _every(limit: float) -> float:
    """How often the games gone past ``limit`` seconds are looked for: every
    ``ABANDON_SECONDS``, or a quarter of the limit if that is shorter."""
    return min(ABANDON_SECONDS, max(0.05, limit / 4))
