"""Computer analyses of finished games in SQL (the ``analyses`` table): written once by the
process that made one (``server.live.analyst``), read by every request after, and a player's
average accuracy per speed over them (their profile).
"""

from __future__ import annotations

import json
from dataclasses import astuple, dataclass
from typing import Any, Final

from sqlalchemy import Select, bindparam, func, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection

from ai.review import Mark, PlyReview
from protocol import SpeedAccuracy
from server.archive.db import tables
from server.archive.db.database import Database
from server.archive.queries import as_speed
from server.game.clock import now_ms

ANALYSES: Final = tables.analyses
GAMES: Final = tables.games


@dataclass(frozen=True)
class Stored:
    """A game's analysis as stored: the plies searched, and every move's review in order."""

    depth: int
    plies: tuple[PlyReview, ...]


def _dumps(plies: list[PlyReview]) -> str:
    return json.dumps([[*astuple(p)[:7], p.mark and p.mark.value, p.accuracy] for p in plies])


def _loads(text: str) -> tuple[PlyReview, ...]:
    return tuple(
        PlyReview(a, b, c, d, e, f, g, None if m is None else Mark(m), acc)
        for a, b, c, d, e, f, g, m, acc in json.loads(text)
    )


@dataclass(frozen=True)
class Played:
    """What an analysis needs of an archived game: its type and moves."""

    game_type: str
    moves: list[str]


async def archived(database: Database, game_id: str) -> Played | None:
    """The archived game ``game_id``'s type and moves (None: not archived)."""
    async with database.engine.connect() as connection:
        found = await connection.execute(
            select(GAMES.c.game_type, GAMES.c.moves).where(GAMES.c.id == game_id)
        )
        row = found.first()
    if row is None:
        return None
    return Played(row.game_type, row.moves.split(";") if row.moves else [])


async def read(database: Database, game_id: str) -> Stored | None:
    """The analysis of ``game_id`` (None: none stored)."""
    async with database.engine.connect() as connection:
        found = await connection.execute(
            select(ANALYSES.c.depth, ANALYSES.c.moves).where(ANALYSES.c.game == game_id)
        )
        row = found.first()
    return None if row is None else Stored(row.depth, _loads(row.moves))


async def write(
    database: Database,
    game_id: str,
    depth: int,
    plies: list[PlyReview],
    accuracies: tuple[float | None, float | None],
) -> bool:
    """Store the analysis of ``game_id`` (False: one was stored already, and is kept)."""
    row = {
        "game": game_id,
        "depth": depth,
        "moves": _dumps(plies),
        "white_accuracy": accuracies[0],
        "black_accuracy": accuracies[1],
        "created": now_ms(),
    }
    async with database.engine.begin() as connection:
        done = await connection.execute(
            database.insert(ANALYSES).values(row).on_conflict_do_nothing()
        )
    return bool(done.rowcount == 1)


def _accuracy_query() -> Select[Any]:
    """Per speed, the mean of a player's accuracies in their analysed games (by the indexes
    games(white, ended) and games(black, ended), then each game's analysis by its key)."""
    player: Any = bindparam("player")
    sides = [
        select(GAMES.c.speed.label("speed"), ANALYSES.c[f"{color}_accuracy"].label("accuracy"))
        .join_from(GAMES, ANALYSES, GAMES.c.id == ANALYSES.c.game)
        .where(GAMES.c[color] == player, ANALYSES.c[f"{color}_accuracy"].is_not(None))
        for color in ("white", "black")
    ]
    both = union_all(*sides).subquery()
    return (
        select(both.c.speed, func.avg(both.c.accuracy).label("accuracy"), func.count())
        .group_by(both.c.speed)
        .order_by(both.c.speed)
    )


ACCURACY: Final = _accuracy_query()


async def accuracies(connection: AsyncConnection, player: str) -> list[SpeedAccuracy]:
    """``player``'s average accuracy per speed over their analysed games (None: no clock)."""
    rows = (await connection.execute(ACCURACY, {"player": player})).all()
    return [
        SpeedAccuracy(None if speed is None else as_speed(speed), round(float(acc), 1), count)
        for speed, acc, count in rows
    ]
