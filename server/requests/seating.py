"""Games made and joined: ``create`` (against anyone, a server bot or a bot account),
``join``, ``cancel`` and ``rematch`` (the limits on what may be created are in
``server.requests.creation``).

A seat taken by an account (a person's or a bot's) in a game with a clock shows the player's
rating in the game's speed then: read from the database when the game is made or joined
(never on the path of a move). A rated game or one with a rating range needs it: while the
database does not answer they are refused (UNAVAILABLE); a casual game goes on without it."""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from protocol import (
    CancelGame,
    CreateGame,
    ErrorCode,
    Event,
    JoinGame,
    ProtocolError,
    Rematch,
    Seat,
    Speed,
)
from server.archive import ratings
from server.archive.games import DATABASE_ERRORS
from server.game import match, rating, rematches
from server.game.clock import now_ms
from server.game.rating import START
from server.game.record import new_game_id
from server.live.session import Session
from server.requests.creation import bot_pair, may_create, may_rate
from server.storage.limits import per_player

DAY: Final = 24 * 3600.0

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from ai.pool import BotPool
    from server.archive.db.database import Database
    from server.live.cache import GameCache
    from server.live.changes import Changes
    from server.live.lobby import LobbyBoard
    from server.live.presence import Presence
    from server.settings import Settings
    from server.storage.store import Store


class Seating:
    """Who plays which game: a game is made or changed through ``changes``, and followed in
    ``cache``; ``lobby`` and ``store`` count what a player and an address may create, the
    ratings are read from ``database``, the bot accounts connected from ``presence``, the
    server's bots' levels from ``pool``."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        database: Database,
        cache: GameCache,
        changes: Changes,
        lobby: LobbyBoard,
        presence: Presence,
        pool: BotPool,
    ) -> None:
        self.settings = settings
        self.store = store
        self.database = database
        self.cache = cache
        self.changes = changes
        self.lobby = lobby
        self.presence = presence
        self.pool = pool

    async def create(self, session: Session, message: CreateGame) -> None:
        settings, store = self.settings, self.store
        player = session.player
        assert player is not None
        may_create(self.lobby, settings, session, message)
        may_rate(session, message)
        await per_player(store, player, "create", settings.games_per_minute, 60.0)
        if message.opponent == "bot" and (
            message.level is None or not self.pool.knows(message.level)
        ):
            raise ProtocolError(ErrorCode.UNKNOWN_LEVEL, f"unknown bot level {message.level!r}")
        challenge = None
        if message.challenge is not None:
            if message.opponent != "bots":
                raise ProtocolError(
                    ErrorCode.BAD_MESSAGE, "a challenge names a bot: it goes with opponent 'bots'"
                )
            challenge = await self._challenge(message)
        pair = bot_pair(session, message, challenge)
        ranged = message.rating_min is not None or message.rating_max is not None
        pool = rating.speed(message.time)
        seat = await self.seat(session, pool, needed=message.rated or ranged)
        now = now_ms()
        if pair is not None:
            played = await store.count_so_far(pair, "pair", DAY, now)
            if played >= settings.bot_pair_games:
                raise ProtocolError(
                    ErrorCode.NOT_ALLOWED,
                    f"{played} games in a day against that opponent (the most allowed): "
                    "try again tomorrow",
                )
        record = match.create(
            new_game_id(),
            seat,
            game_type=message.game_type,
            time=message.time,
            color=message.color,
            now=now,
            ttl_ms=int(settings.open_game_ttl * 1000),
            seed=random.getrandbits(31),
            wants="bots" if message.opponent == "bots" else "anyone",
            challenge=challenge,
            origin=session.origin,
            rated=message.rated,
            rating_min=message.rating_min,
            rating_max=message.rating_max,
        )
        event = Event(1, "created", now, by=session.name)
        if message.opponent == "bot":
            assert message.level is not None
            bot = Seat(
                f"bot:{message.level}", f"{message.level} bot", bot=message.level, account="bot"
            )
            record, event = match.join(record, bot, now)
        self.cache.watch(session, record.id, 0)  # before the commit: its update comes here
        try:
            await self.changes.create(record, event)
        except BaseException:
            self.cache.unwatch(session, record.id)  # a game not made leaves nothing behind
            raise
        if pair is not None:
            await store.count_in_window(pair, "pair", DAY, now)

    async def seat(self, session: Session, pool: Speed | None, *, needed: bool) -> Seat:
        """``session``'s seat in a game of speed ``pool``: with the player's rating in it for
        an account (``needed``: the game cannot do without it).

        Raises:
            ProtocolError: UNAVAILABLE (the database did not answer and ``needed``).
        """
        seat = session.seat()
        if pool is None or seat.account == "guest":
            return seat
        try:
            rated = await self.rating(seat, pool)
        except DATABASE_ERRORS as error:
            if needed:
                raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
            log.warning("%s seated without a rating (%s)", seat.player, error)
            return seat
        return rated

    async def rating(self, seat: Seat, pool: Speed) -> Seat:
        """``seat`` with its player's rating in ``pool`` now.

        Raises:
            DATABASE_ERRORS: The database did not answer.
        """
        return (await self.with_ratings([seat], pool))[0]

    async def with_ratings(self, seats: Sequence[Seat], pool: Speed) -> list[Seat]:
        """``seats`` with their players' ratings in ``pool`` now, read at once.

        Raises:
            DATABASE_ERRORS: The database did not answer.
        """
        async with self.database.engine.connect() as connection:
            found = await ratings.of_many(connection, [seat.player for seat in seats], pool)
        seated = []
        for seat in seats:
            now = found.get(seat.player, START)
            seated.append(replace(seat, rating=now.shown, provisional=now.provisional))
        return seated

    async def _challenge(self, message: CreateGame) -> Seat:
        """The seat of the bot account ``message`` challenges, if it is connected, plays that
        game and has room for it.

        Raises:
            ProtocolError: UNKNOWN_BOT, NOT_ALLOWED.
        """
        name = message.challenge
        assert name is not None
        player = await self.store.bot_named(name)
        if player is None:
            raise ProtocolError(ErrorCode.UNKNOWN_BOT, f"no bot account named {name[:40]!r}")
        presence = self.presence
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
        if self.lobby.playing[player] >= offer.max_games:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED, f"the bot {name} is busy ({offer.max_games} games)"
            )
        return Seat(player, name, account="bot")

    async def join(self, session: Session, message: JoinGame) -> None:
        cache = self.cache
        seat = session.seat()
        known = await cache.load(message.game)  # its time control and range never change
        if known.record.status == "open":
            record = known.record
            ranged = record.rating_min is not None or record.rating_max is not None
            seat = await self.seat(
                session, rating.speed(record.time), needed=record.rated or ranged
            )
        watched = message.game in session.watching
        if not watched:
            cache.watch(session, message.game, 0)  # before the commit: its update comes here
        try:
            await self.changes.change(
                message.game, lambda cached, now: match.join(cached.record, seat, now)
            )
        except BaseException:
            if not watched:  # a refused join leaves nothing behind
                cache.unwatch(session, message.game)
            raise

    async def cancel(self, session: Session, message: CancelGame) -> None:
        player = session.player
        assert player is not None
        await self.changes.change(
            message.game, lambda cached, now: match.cancel(cached.record, player, now)
        )

    async def rematch(self, session: Session, message: Rematch) -> None:
        """Offer a rematch, or start it when the opponent has offered one: decided on the game
        as it is when the change is committed, so two offers crossing are an agreement."""
        player = session.player
        assert player is not None
        new_id, seed = new_game_id(), random.getrandbits(31)
        done = await self.changes.change_with(
            message.game,
            lambda cached, now: rematches.rematch(cached.record, player, now, new_id, seed),
        )
        if done is None or done[1] is None:
            return  # an offer (or nothing)
        new = done[1]  # followed by the players here as the old game's change is passed on
        pool = rating.speed(new.time)
        if pool is not None and new.white and new.black:  # their ratings now (the last game's)
            white, black = await self.seats_again([new.white, new.black], pool)
            new = replace(new, white=white, black=black)
        start = Event(new.version, "joined", new.created, text=message.game)
        await self.changes.create(new, start)

    async def seat_again(self, seat: Seat, pool: Speed) -> Seat:
        """A seat of a new game with its player's rating now (``seats_again``)."""
        return (await self.seats_again([seat], pool))[0]

    async def seats_again(self, seats: Sequence[Seat], pool: Speed) -> list[Seat]:
        """Seats of new games (rematches, a tournament's pairings) with their players'
        ratings now, read at once (guests' and bots' as they are; all as they were while the
        database does not answer)."""
        renewed = [seat for seat in seats if seat.account != "guest" and seat.bot is None]
        if not renewed:
            return list(seats)
        try:
            now = {seat.player: seat for seat in await self.with_ratings(renewed, pool)}
        except DATABASE_ERRORS as error:
            log.warning("ratings not renewed for %d new seats (%s)", len(renewed), error)
            return list(seats)
        return [now.get(seat.player, seat) for seat in seats]
