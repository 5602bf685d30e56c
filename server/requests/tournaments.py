"""Arena tournaments: ``tournament_create``, ``tournaments`` (the list), ``tournament_join``,
``tournament_leave`` and ``tournament_watch``; ``arenas`` builds them and their director
(``server.live.director``, which pairs and scores), the wiring of the whole feature.

Everything a client sends is data: a name is trimmed and capped (``TOURNAMENT_NAME``; the
client escapes it), numbers are checked against the limits the server states
(``welcome.limits``: ``TOURNAMENTS_PER_DAY`` a day an account, ``TOURNAMENT_PLAYERS`` at
most a tournament), and a refusal says which.

A tournament whose keys Redis let go (``KEPT_MS`` after its end) is read from the database
(``server.archive.tournaments``): ``tournament_watch`` answers its final standings, over,
and a join or leave of it is refused as for any ended one; an id neither knows is
``unknown_tournament``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
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
    Tournament,
    TournamentList,
    TournamentSummary,
    WatchTournament,
)
from server.archive.games import DATABASE_ERRORS
from server.archive.tournaments import TournamentArchive
from server.game import match, rating
from server.game.clock import now_ms
from server.live.director import Director, publish, summary, tournament
from server.storage.tournaments import Arena, Entrant, TournamentStore

if TYPE_CHECKING:
    from server.archive.db.database import Database
    from server.live.changes import Changes
    from server.live.session import Session
    from server.requests.seating import Seating
    from server.settings import Settings
    from server.storage.store import Store

log = logging.getLogger(__name__)

DAY: Final = 24 * 3600.0
LATE_MS: Final = 60_000
"""How far in the past a start may be given (a clock a little behind): it starts now."""


def arenas(
    settings: Settings, store: Store, database: Database, seating: Seating, changes: Changes
) -> tuple[Tournaments, Director]:
    """The tournaments' handlers and their director, on ``store`` (its games' records last
    ``settings.open_game_ttl``, as any game's), the ended ones kept in ``database``."""
    tournaments = TournamentStore(store)
    archived = TournamentArchive(database)
    ttl_ms = int(settings.open_game_ttl * 1000)
    director = Director(
        tournaments, store, changes, seating.seats_again, ttl_ms=ttl_ms, keep=archived.write
    )
    return Tournaments(store, tournaments, seating, director, archived), director


class Tournaments:
    """The tournament requests.

    Args:
        store: The limits and notices.
        tournaments: The tournaments in Redis.
        seating: A player's rating (the rating range, the standings' order).
        director: Woken when a player joins here (paired without waiting for its tick).
        archived: The ended tournaments in the database (None: none is read from there).
    """

    def __init__(
        self,
        store: Store,
        tournaments: TournamentStore,
        seating: Seating,
        director: Director,
        archived: TournamentArchive | None = None,
    ) -> None:
        self.store = store
        self.tournaments = tournaments
        self.seating = seating
        self.director = director
        self.archived = archived

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
        await session.send(TournamentList([*shown, *await self._kept(shown)]))

    async def _kept(self, shown: Sequence[TournamentSummary]) -> Sequence[TournamentSummary]:
        """The newest ended tournaments from the database that ``shown`` (those Redis still
        has) leaves room for and lacks: the list goes on past Redis's day (none when the
        database does not answer: the list is still worth sending)."""
        room = TOURNAMENTS_SHOWN - len(shown)
        if self.archived is None or room <= 0:
            return []
        try:
            newest = await self.archived.newest(TOURNAMENTS_SHOWN)
        except DATABASE_ERRORS as error:
            log.warning("ended tournaments not listed (%s)", error)
            return []
        listed = {s.id for s in shown}
        return [s for s in newest if s.id not in listed][:room]

    async def _arena(self, tournament_id: str) -> Arena:
        """The tournament in Redis.

        Raises:
            ProtocolError: NOT_OPEN when only the database has it (over), else
                UNKNOWN_TOURNAMENT.
        """
        found = await self.tournaments.arena(tournament_id)
        if found is None:
            if await self._archived(tournament_id) is not None:
                raise ProtocolError(ErrorCode.NOT_OPEN, "this tournament is over")
            raise ProtocolError(
                ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id!r:.40}"
            )
        return found[0]

    async def _archived(self, tournament_id: str) -> Tournament | None:
        """The ended tournament from the database (None: not there).

        Raises:
            ProtocolError: UNAVAILABLE when the database does not answer.
        """
        if self.archived is None or len(tournament_id) > 16:
            return None
        try:
            return await self.archived.read(tournament_id)
        except DATABASE_ERRORS as error:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error

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
        found = await self.tournaments.arena(message.tournament)
        if found is None:  # its keys lapsed: its final standings, from the database
            kept = await self._archived(message.tournament)
            if kept is None:
                raise ProtocolError(
                    ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {message.tournament!r:.40}"
                )
            if message.subscribe:
                await session.send(kept)
            return
        arena = found[0]
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
