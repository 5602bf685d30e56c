"""Games made and joined: ``create`` (against anyone, a server bot or a bot account),
``join``, ``cancel`` and ``rematch``, with the limits on open games and bot games."""

from __future__ import annotations

import random
import secrets
from typing import TYPE_CHECKING, Final

from server import match, rematches
from server.cache import CachedGame
from server.clock import now_ms
from server.limits import per_player
from server.protocol import (
    CancelGame,
    CreateGame,
    ErrorCode,
    Event,
    JoinGame,
    ProtocolError,
    Rematch,
    Seat,
)
from server.record import Record
from server.session import Session

DAY: Final = 24 * 3600.0

if TYPE_CHECKING:
    from server.runtime import Hub


class Seating:
    """Who plays which game."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def create(self, session: Session, message: CreateGame) -> None:
        hub = self.hub
        player = session.player
        assert player is not None
        self._may_create(session, message)
        await per_player(hub.store, player, "create", hub.settings.games_per_minute, 60.0)
        if message.opponent == "bot" and (
            message.level is None or not hub.pool.knows(message.level)
        ):
            raise ProtocolError(ErrorCode.UNKNOWN_LEVEL, f"unknown bot level {message.level!r}")
        challenge = None
        if message.challenge is not None:
            if message.opponent != "bots":
                raise ProtocolError(
                    ErrorCode.BAD_MESSAGE, "a challenge names a bot: it goes with opponent 'bots'"
                )
            challenge = await self._challenge(message)
        pair = self._bot_pair(session, message, challenge)
        now = now_ms()
        if pair is not None:
            played = await hub.store.count_so_far(pair, "pair", DAY, now)
            if played >= hub.settings.bot_pair_games:
                raise ProtocolError(
                    ErrorCode.NOT_ALLOWED,
                    f"{played} games in a day against that opponent (the most allowed): "
                    "try again tomorrow",
                )
        record = match.create(
            secrets.token_hex(4),
            session.seat(),
            game_type=message.game_type,
            time=message.time,
            color=message.color,
            now=now,
            ttl_ms=int(hub.settings.open_game_ttl * 1000),
            seed=random.getrandbits(31),
            wants="bots" if message.opponent == "bots" else "anyone",
            challenge=challenge,
            origin=session.origin,
        )
        event = Event(1, "created", now, by=session.name)
        if message.opponent == "bot":
            assert message.level is not None
            bot = Seat(
                f"bot:{message.level}", f"{message.level} bot", bot=message.level, account="bot"
            )
            record, event = match.join(record, bot, now)
        hub.cache.watch(session, record.id, 0)  # before the commit: its update comes here
        try:
            await hub.changes.create(record, event)
        except BaseException:
            hub.cache.unwatch(session, record.id)  # a game not made leaves nothing behind
            raise
        if pair is not None:
            await hub.store.count_in_window(pair, "pair", DAY, now)

    @staticmethod
    def _bot_pair(session: Session, message: CreateGame, challenge: Seat | None) -> str | None:
        """The key of the daily cap when a bot account challenges a server level or another
        bot account (None otherwise): the two players, in either order."""
        if not session.bot or session.player is None:
            return None
        if message.opponent == "bot" and message.level is not None:
            other = f"bot:{message.level}"
        elif challenge is not None:
            other = challenge.player
        else:
            return None
        return "pair:" + ":".join(sorted((session.player, other)))

    def _may_create(self, session: Session, message: CreateGame) -> None:
        """Refuse a game past the limits on open games (the player's, the address's, the
        whole lobby's) or on games against the server's bots (the player's, the address's).

        Raises:
            ProtocolError: NOT_ALLOWED.
        """
        board, settings, player = self.hub.lobby, self.hub.settings, session.player
        assert player is not None
        if message.opponent == "bot":
            checks = [
                (board.bot_games_of[player], settings.bot_games, "you play"),
                (
                    board.bot_games_from[session.origin],
                    settings.bot_games_per_address,
                    "your address plays",
                ),
            ]
            for count, limit, who in checks:
                if count >= limit:
                    raise ProtocolError(
                        ErrorCode.NOT_ALLOWED,
                        f"{who} {count} games against the server's bots (the most allowed): "
                        "finish one first",
                    )
            return
        mine = sum(1 for r in board.open.values() if r.creator == player)
        if mine >= settings.open_games:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"you have {mine} open games (the most allowed): cancel one first",
            )
        if board.open_from[session.origin] >= settings.open_games_per_address:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"your address has {settings.open_games_per_address} open games (the most "
                "allowed): cancel one first",
            )
        if len(board.open) >= settings.open_games_total:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                "the lobby is full: join one of its open games, or try again shortly",
            )

    async def _challenge(self, message: CreateGame) -> Seat:
        """The seat of the bot account ``message`` challenges, if it is connected, plays that
        game and has room for it.

        Raises:
            ProtocolError: UNKNOWN_BOT, NOT_ALLOWED.
        """
        name = message.challenge
        assert name is not None
        player = await self.hub.store.bot_named(name)
        if player is None:
            raise ProtocolError(ErrorCode.UNKNOWN_BOT, f"no bot account named {name[:40]!r}")
        presence = self.hub.presence
        offer = presence.bot_offers.get(player)
        if offer is None or not presence.connected(player):
            raise ProtocolError(ErrorCode.NOT_ALLOWED, f"the bot {name} is not connected")
        game_type = match.canonical_type(message.game_type)
        if game_type not in offer.game_types:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"the bot {name} plays {', '.join(offer.game_types)}, not {game_type}",
            )
        if message.time.kind not in offer.times:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"the bot {name} plays time controls {', '.join(offer.times)}, "
                f"not {message.time.kind}",
            )
        if self.hub.lobby.playing[player] >= offer.max_games:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED, f"the bot {name} is busy ({offer.max_games} games)"
            )
        return Seat(player, name, account="bot")

    async def join(self, session: Session, message: JoinGame) -> None:
        cache = self.hub.cache
        seat = session.seat()
        watched = message.game in session.watching
        if not watched:
            cache.watch(session, message.game, 0)  # before the commit: its update comes here
        try:
            await self.hub.changes.change(
                message.game, lambda cached, now: match.join(cached.record, seat, now)
            )
        except BaseException:
            if not watched:  # a refused join leaves nothing behind
                cache.unwatch(session, message.game)
            raise

    async def cancel(self, session: Session, message: CancelGame) -> None:
        player = session.player
        assert player is not None
        await self.hub.changes.change(
            message.game, lambda cached, now: match.cancel(cached.record, player, now)
        )

    async def rematch(self, session: Session, message: Rematch) -> None:
        """Offer a rematch, or start it when the opponent has offered one: decided on the game
        as it is when the change is committed, so two offers crossing are an agreement."""
        hub = self.hub
        player = session.player
        assert player is not None
        new_id, seed = secrets.token_hex(4), random.getrandbits(31)
        started: list[Record] = []

        def decide(cached: CachedGame, now: int) -> tuple[Record, Event]:
            old, event, new = rematches.rematch(cached.record, player, now, new_id, seed)
            started[:] = [] if new is None else [new]
            return old, event

        old = await hub.changes.change(message.game, decide)
        if old is None or not started:
            return
        new = started[0]  # followed by the players here as the listener hears of ``old``
        start = Event(new.version, "joined", new.created, text=message.game)
        await hub.changes.create(new, start)

    def follow_rematch(self, old: Record, new_id: str) -> None:
        """The players' connections here that follow the old game follow its rematch: their
        clients go to the new game on the old one's ``rematch`` event, without a ``watch``."""
        cache = self.hub.cache
        for player in old.players():
            for other in self.hub.presence.by_player.get(player, ()):
                if old.id in other.watching and new_id not in other.watching:
                    cache.watch(other, new_id, 0, checked=False)
