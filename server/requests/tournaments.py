"""Arena tournaments: ``tournament_create``, ``tournaments`` (the list), ``tournament_join``,
``tournament_leave`` and ``tournament_watch``; ``arenas`` builds them and their director
(``server.live.director``, which pairs and scores), the wiring of the whole feature.

Everything a client sends is data: a name is trimmed and capped (``TOURNAMENT_NAME``; the
client escapes it), numbers are checked against the limits the server states
(``welcome.limits``: ``TOURNAMENTS_PER_DAY`` a day an account, ``TOURNAMENT_PLAYERS`` at
most a tournament), and a refusal says which.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Final

from protocol import (
    SWISS_ROUNDS,
    TOURNAMENT_MINUTES,
    TOURNAMENT_NAME,
    TOURNAMENT_PLAYERS,
    TOURNAMENT_START,
    TOURNAMENTS_PER_DAY,
    TOURNAMENTS_SHOWN,
    CreateTournament,
    ErrorCode,
    GetTournaments,
    JoinTournament,
    LeaveTournament,
    ProtocolError,
    TournamentList,
    WatchTournament,
)
from server.game import match, rating
from server.game.clock import now_ms
from server.live.director import Director, publish, summary, tournament
from server.storage.tournaments import Arena, Entrant, TournamentStore

if TYPE_CHECKING:
    from server.live.changes import Changes
    from server.live.session import Session
    from server.requests.seating import Seating
    from server.settings import Settings
    from server.storage.store import Store

DAY: Final = 24 * 3600.0
LATE_MS: Final = 60_000
"""How far in the past a start may be given (a clock a little behind): it starts now."""


def arenas(
    settings: Settings, store: Store, seating: Seating, changes: Changes
) -> tuple[Tournaments, Director]:
    """The tournaments' handlers and their director, on ``store`` (its games' records last
    ``settings.open_game_ttl``, as any game's)."""
    tournaments = TournamentStore(store)
    ttl_ms = int(settings.open_game_ttl * 1000)
    director = Director(tournaments, store, changes, seating.seat_again, ttl_ms=ttl_ms)
    return Tournaments(store, tournaments, seating, director), director


class Tournaments:
    """The tournament requests.

    Args:
        store: The limits and notices.
        tournaments: The tournaments in Redis.
        seating: A player's rating (the rating range, the standings' order).
        director: Woken when a player joins here (paired without waiting for its tick).
    """

    def __init__(
        self, store: Store, tournaments: TournamentStore, seating: Seating, director: Director
    ) -> None:
        self.store = store
        self.tournaments = tournaments
        self.seating = seating
        self.director = director

    async def create(self, session: Session, message: CreateTournament) -> None:
        player = session.player
        assert player is not None
        if not session.account:
            raise ProtocolError(
                ErrorCode.ACCOUNT_REQUIRED, "sign up or log in to create a tournament"
            )
        now = now_ms()
        arena = _arena(message, session.name, player, now)
        # (Counted and read in one step: two creations at once on two processes cannot both
        # pass as the last one allowed.)
        if await self.store.count_in_window(player, "tournament", DAY, now) > TOURNAMENTS_PER_DAY:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"you created {TOURNAMENTS_PER_DAY} tournaments in a day (the most allowed): "
                "try again tomorrow",
            )
        await self.tournaments.create(arena)
        await session.send(await tournament(self.tournaments, arena))

    async def list(self, session: Session, message: GetTournaments) -> None:
        current, over = await self.tournaments.listed(TOURNAMENTS_SHOWN)
        ids = (current + over)[:TOURNAMENTS_SHOWN]
        counts = await self.tournaments.count_players(ids)
        shown = []
        for tournament_id, players in zip(ids, counts, strict=True):
            found = await self.tournaments.arena(tournament_id)
            if found is None:
                continue
            arena, status = found
            played = await self.tournaments.rounds(arena.id) if arena.kind == "swiss" else []
            shown.append(summary(arena, status, players, len(played)))
        await session.send(TournamentList(shown))

    async def _arena(self, tournament_id: str) -> Arena:
        found = await self.tournaments.arena(tournament_id)
        if found is None:
            raise ProtocolError(
                ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id!r:.40}"
            )
        return found[0]

    async def join(self, session: Session, message: JoinTournament) -> None:
        player = session.player
        assert player is not None
        arena = await self._arena(message.tournament)
        if not (session.account or session.bot):
            raise ProtocolError(
                ErrorCode.ACCOUNT_REQUIRED, "sign up or log in to play in a tournament"
            )
        seat = session.seat()
        pool = rating.speed(arena.time)
        ranged = arena.rating_min is not None or arena.rating_max is not None
        if pool is not None:
            seat = await self.seating.seat(session, pool, needed=ranged)
        low, high = arena.rating_min, arena.rating_max
        shown = seat.rating
        if ranged and (
            shown is None
            or (low is not None and shown < low)
            or (high is not None and shown > high)
        ):
            bounds = f"{'' if low is None else low}-{'' if high is None else high}"
            raise ProtocolError(
                ErrorCode.OUT_OF_RANGE, f"this tournament is for ratings {bounds}; yours is {shown}"
            )
        entrant = Entrant(session.name, seat.account, shown)
        joined = await self.tournaments.join(arena, player, entrant, now_ms())
        if joined == 0:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"this tournament is full ({arena.max_players} players, the most it allows)",
            )
        if joined < 0:
            raise ProtocolError(ErrorCode.NOT_OPEN, "this tournament is over")
        self.director.joined(arena.id)  # (the news, with others' joins, on its next drive)

    async def leave(self, session: Session, message: LeaveTournament) -> None:
        player = session.player
        assert player is not None
        arena = await self._arena(message.tournament)
        if not await self.tournaments.leave(arena.id, player):
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you are not in this tournament")
        await session.send(await tournament(self.tournaments, arena))
        await publish(self.tournaments, self.store, arena)

    async def watch(self, session: Session, message: WatchTournament) -> None:
        player = session.player
        assert player is not None
        arena = await self._arena(message.tournament)
        await self.tournaments.watch(arena.id, player, now_ms(), message.subscribe)
        if message.subscribe:
            await session.send(await tournament(self.tournaments, arena))


def _arena(message: CreateTournament, creator_name: str, creator: str, now: int) -> Arena:
    """The arena ``message`` asks for, checked.

    Raises:
        ProtocolError: BAD_MESSAGE, saying what is wrong.
    """
    name = " ".join(message.name.split())
    if not name or len(name) > TOURNAMENT_NAME:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"a tournament's name has 1 to {TOURNAMENT_NAME} characters"
        )
    game_type = match.canonical_type(message.game_type)
    if message.time.kind != "clock":
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "an arena's games have a clock (kind 'clock')")
    shortest, longest = SWISS_ROUNDS if message.kind == "swiss" else TOURNAMENT_MINUTES
    if message.kind == "swiss" and not shortest <= message.rounds <= longest:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"a Swiss has {shortest} to {longest} rounds")
    if message.kind == "arena" and not shortest <= message.minutes <= longest:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"an arena lasts {shortest} to {longest} minutes"
        )
    starts = message.starts or now
    if starts < now - LATE_MS or starts > now + TOURNAMENT_START:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, "a tournament starts between now and 7 days from now"
        )
    starts = max(starts, now)
    if not 2 <= message.max_players <= TOURNAMENT_PLAYERS:
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"a tournament has a cap of 2 to {TOURNAMENT_PLAYERS} players"
        )
    low, high = message.rating_min, message.rating_max
    if low is not None and high is not None and low > high:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"rating_min {low} is above rating_max {high}")
    return Arena(
        id=secrets.token_hex(4),
        name=name,
        creator=creator,
        creator_name=creator_name,
        game_type=game_type,
        time=message.time,
        rated=message.rated,
        starts=starts,
        ends=starts + message.minutes * 60_000 if message.kind == "arena" else starts,
        max_players=message.max_players,
        rating_min=low,
        rating_max=high,
        kind=message.kind,
        rounds=message.rounds if message.kind == "swiss" else 0,
    )
