"""Ended tournaments in SQL: each one's settings and final standings, written once when it
ends, read back for its page and the list once Redis has let it go, and a player's for their
profile.

Once: the tournament's director (``server.live.director``, the one process that holds its
lease) writes the final standings to the database *before* it marks the tournament over in
Redis, in one transaction whose ``tournaments`` row is inserted with ``ON CONFLICT DO
NOTHING`` on the tournament's id, and its ``tournament_results`` rows only when that insert
made the row. A director killed after the commit and before the mark leaves the tournament
running in Redis: the next holder of its lease finds its last game over, finishes it again,
and the insert does nothing (its standings, read from Redis that no longer changes, are the
same); two finishes at once (a lease lapsed meanwhile) are one row by the same key. A database
that does not answer leaves it running too, finished at a later step once it does. It is
finished only once its games have all ended (an arena lets those in progress finish; a Swiss
after its last round's), so its results are final when written.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, bindparam, select

from protocol import (
    PROFILE_TOURNAMENTS,
    PlayerTournament,
    Standing,
    TimeControl,
    Tournament,
    TournamentSummary,
)
from server.archive.db import tables

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncConnection

    from server.archive.db.database import Database


def _played(line: Standing) -> int:
    """The games ``line``'s player played (a Swiss's byes are among its scores)."""
    return len(line.scores) - line.byes


class TournamentArchive:
    """The ended tournaments in the database (``database``, migrated)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def write(self, final: Tournament, creator: str, ended: int) -> bool:
        """Write the ended tournament ``final`` (its summary and final standings, best
        first), made by the player ``creator``, over at ``ended``. False: it was there
        already; nothing changed."""
        shown, time = final.summary, final.summary.time
        row = {
            "id": shown.id,
            "name": shown.name,
            "kind": shown.kind,
            "creator": creator,
            "creator_name": shown.creator,
            "game_type": shown.game_type,
            "time_kind": time.kind,
            "time_base": time.base,
            "time_increment": time.increment,
            "time_days": time.days,
            "rated": shown.rated,
            "rating_min": shown.rating_min,
            "rating_max": shown.rating_max,
            "max_players": shown.max_players,
            "starts": shown.starts,
            "ends": shown.ends,
            "ended": ended,
            "winner": final.winner,
            "players": len(final.standings),
            "rounds": shown.rounds,
            "played": shown.round,
        }
        lines = [
            {
                "tournament": shown.id,
                "player": line.player,
                "rank": rank,
                "name": line.name,
                "rating": line.rating,
                "points": line.points,
                "scores": json.dumps(line.scores),
                "games": _played(line),
                "byes": line.byes,
                "buchholz": line.buchholz,
                "sonneborn_berger": line.sonneborn_berger,
                "streak": line.streak,
                "status": line.status,
                "ended": ended,
            }
            for rank, line in enumerate(final.standings, start=1)
        ]
        db = self.database
        async with db.engine.begin() as connection:
            done = await connection.execute(
                db.insert(tables.tournaments).values(row).on_conflict_do_nothing()
            )
            if done.rowcount != 1:
                return False
            if lines:
                await connection.execute(tables.tournament_results.insert(), lines)
        return True

    async def read(self, tournament_id: str) -> Tournament | None:
        """The ended tournament ``tournament_id`` as its page shows it, over (None: no such
        tournament here)."""
        found, results = tables.tournaments, tables.tournament_results
        async with self.database.engine.connect() as connection:
            row = (
                await connection.execute(select(found).where(found.c.id == tournament_id))
            ).first()
            if row is None:
                return None
            lines = await connection.execute(
                select(results)
                .where(results.c.tournament == tournament_id)
                .order_by(results.c.rank)
            )
            standings = [_standing(line) for line in lines]
        return Tournament(_summary(row), standings, row.winner)

    async def newest(self, limit: int) -> list[TournamentSummary]:
        """The ``limit`` tournaments that ended last, newest first."""
        found = tables.tournaments
        async with self.database.engine.connect() as connection:
            rows = await connection.execute(
                select(found).order_by(found.c.ended.desc()).limit(limit)
            )
            return [_summary(row) for row in rows]


def _summary(row: Any) -> TournamentSummary:
    return TournamentSummary(
        row.id,
        row.name,
        row.creator_name,
        row.game_type,
        TimeControl(row.time_kind, row.time_base, row.time_increment, row.time_days),
        row.rated,
        row.starts,
        row.ends,
        "over",
        row.players,
        row.max_players,
        row.rating_min,
        row.rating_max,
        row.kind,
        row.rounds,
        row.played,
    )


def _standing(row: Any) -> Standing:
    return Standing(
        row.player,
        row.name,
        row.rating,
        row.points,
        [float(score) for score in json.loads(row.scores)],
        row.streak,
        row.status,
        None,
        row.byes,
        row.buchholz,
        row.sonneborn_berger,
    )


@functools.cache
def played_query() -> Select[Any]:
    """The ended tournaments of the player ``player``, newest first (the newest
    ``PROFILE_TOURNAMENTS``; through the index tournament_results(player, ended)); built
    once, as ``server.archive.queries``'s."""
    found, results = tables.tournaments, tables.tournament_results
    return (
        select(
            found.c.id,
            found.c.name,
            found.c.kind,
            results.c.rank,
            found.c.players,
            results.c.points,
            results.c.ended,
        )
        .join_from(results, found, results.c.tournament == found.c.id)
        .where(results.c.player == bindparam("player"))
        .order_by(results.c.ended.desc(), found.c.id.desc())
        .limit(PROFILE_TOURNAMENTS)
    )


async def of_player(connection: AsyncConnection, player: str) -> list[PlayerTournament]:
    """The ended tournaments ``player`` played in, newest first (``played_query``)."""
    rows = await connection.execute(played_query(), {"player": player})
    return [PlayerTournament(*row) for row in rows]
