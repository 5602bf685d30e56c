"""What a client asks of a game it watches or plays: each message to its rule in
``server.game.match``, under the limits of its connection and its player."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Final

from protocol import (
    Chat,
    ClaimWin,
    Draw,
    ErrorCode,
    Event,
    Mute,
    Ping,
    Play,
    Pong,
    ProtocolError,
    Resign,
    SpectatorChat,
    Takeback,
    Unwatch,
    Watch,
    WatchLobby,
)
from server.game import holds, match, social, takebacks
from server.game.clock import now_ms
from server.game.movers import BOT_ACCOUNT, PERSON
from server.game.record import Record
from server.live.session import Session
from server.storage.limits import per_player

if TYPE_CHECKING:
    from prometheus_client import Counter, Histogram

    from server.live.cache import GameCache
    from server.live.changes import Changes
    from server.live.fanout import Fanout
    from server.live.lobby import LobbyFeed
    from server.settings import Settings
    from server.storage.store import Store

SOCIAL_PER_MINUTE: Final = 10
"""Mutes and openings or closings of a game's chat a player may make in a minute."""


class Commands:
    """The requests about one game (and ``ping`` and the lobby's subscription): a game is
    loaded from ``cache`` and changed through ``changes``; a watcher is brought up to date by
    ``fanout``, a lobby's subscriber by ``lobby_feed``; ``store`` counts a player's chat lines
    and mutes. Each move played is counted in ``moves`` (by who played it) and timed in
    ``move_seconds``. ``blocked_by_any`` says whether one of a game's players blocked a chat
    line's sender (``Friends.blocked_by_any``): their lines are refused there."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        cache: GameCache,
        changes: Changes,
        fanout: Fanout,
        lobby_feed: LobbyFeed,
        *,
        moves: Counter,
        move_seconds: Histogram,
        blocked_by_any: Callable[[str, Collection[str]], Awaitable[bool]] | None = None,
    ) -> None:
        self.settings = settings
        self.first_move_ms = int(settings.first_move_timeout * 1000)
        self.store = store
        self.cache = cache
        self.changes = changes
        self.fanout = fanout
        self.lobby_feed = lobby_feed
        self._moves = functools.cache(moves.labels)  # each mover's count looked up once
        self.move_seconds = move_seconds
        self.blocked_by_any = blocked_by_any

    async def ping(self, session: Session, message: Ping) -> None:
        await session.send(Pong(message.t, now_ms()))

    async def watch_lobby(self, session: Session, message: WatchLobby) -> None:
        session.lobby = message.subscribe
        session.lobby_stale = False
        if message.subscribe:
            self.lobby_feed.offer(session)

    async def watch(self, session: Session, message: Watch) -> None:
        cached = await self.cache.load(message.game)
        since, version = message.since, cached.record.version
        if since is not None and not 0 <= since <= version:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"since {since} is not in 0..{version}")
        self.cache.watch(session, message.game, since)
        await self.fanout.deliver(message.game, also=session)
        player = session.player
        if player is not None and holds.is_held(cached.record, now_ms()):  # back after a restart
            await self.changes.change(
                message.game, lambda cached, now: holds.resume(cached.record, player, now)
            )

    async def unwatch(self, session: Session, message: Unwatch) -> None:
        self.cache.unwatch(session, message.game)

    async def play(self, session: Session, message: Play) -> None:
        first_move_ms = self.first_move_ms
        player = session.player
        assert player is not None
        started = time.perf_counter()
        played = await self.changes.change(
            message.game,
            lambda cached, now: match.play(
                cached.record,
                cached.game,
                player,
                message.move,
                message.version,
                now,
                first_move_ms,
            ),
        )
        if played is not None:
            self._moves(BOT_ACCOUNT if session.bot else PERSON).inc()
            self.move_seconds.observe(time.perf_counter() - started)

    async def resign(self, session: Session, message: Resign) -> None:
        player = session.player
        assert player is not None
        await self.changes.change(
            message.game, lambda cached, now: match.resign(cached.record, player, now)
        )

    async def draw(self, session: Session, message: Draw) -> None:
        player = session.player
        assert player is not None
        await self.changes.change(
            message.game,
            lambda cached, now: match.draw(cached.record, player, message.action, now),
        )

    async def takeback(self, session: Session, message: Takeback) -> None:
        player = session.player
        assert player is not None
        await self.changes.change(
            message.game,
            lambda cached, now: takebacks.takeback(cached.record, player, message.action, now),
        )

    async def claim(self, session: Session, message: ClaimWin) -> None:
        player = session.player
        assert player is not None
        record = (await self.cache.load(message.game)).record
        opponent = record.opponent_of(player)
        gone: int | None = None
        if opponent is not None and opponent.bot is None:
            gone = await self.store.gone_since(opponent.player, now_ms())
        limit = int(self.settings.disconnect_claim * 1000)
        await self.changes.change(
            message.game, lambda cached, now: match.claim(cached.record, player, now, gone, limit)
        )

    async def chat(self, session: Session, message: Chat) -> None:
        player, name = session.player, session.name
        assert player is not None
        settings = self.settings
        line = social.chat_line(message.text, settings.chat_length)
        if not session.chats.take(time.monotonic()):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many chat lines; slow down")
        window = settings.chat_burst * settings.chat_interval
        await per_player(self.store, player, "chat", settings.chat_burst, window)
        cached = await self.cache.load(message.game)  # UNKNOWN_GAME before anything else
        others = [p for p in cached.record.players() if p != player]
        blocked = self.blocked_by_any
        if session.account and blocked is not None and others and await blocked(player, others):
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "a player of this game has blocked you")
        await self.changes.change(
            message.game,
            lambda cached, now: social.chat(cached.record, player, name, line, now),
        )

    async def mute(self, session: Session, message: Mute) -> None:
        target, on = message.player, message.mute
        await self._social(
            session,
            message.game,
            lambda record, player, now: social.mute(record, player, target, on, now),
        )

    async def spectator_chat(self, session: Session, message: SpectatorChat) -> None:
        on = message.open
        await self._social(
            session,
            message.game,
            lambda record, player, now: social.spectator_chat(record, player, on, now),
        )

    async def _social(
        self,
        session: Session,
        game_id: str,
        rule: Callable[[Record, str, int], tuple[Record, Event]],
    ) -> None:
        """A mute or a change of the spectators' chat: ``SOCIAL_PER_MINUTE`` a player."""
        player = session.player
        assert player is not None
        await self.cache.load(game_id)  # UNKNOWN_GAME before anything else
        await per_player(self.store, player, "social", SOCIAL_PER_MINUTE, 60.0)
        await self.changes.change(game_id, lambda cached, now: rule(cached.record, player, now))
