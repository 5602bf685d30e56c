"""The puzzle miner's walk over the archived games (``server.live.miner`` drives it).

The games are read in the order of (``archived``, ``id``), on the index of those two columns;
``puzzle_mining``'s one row holds the last game read. A pass reads the next games after it
(``after``), archived at least ``SETTLE_MS`` before (a game is stamped just before its
transaction commits: one stamped earlier but committed later is not passed by), and stores
their puzzles and moves the cursor in one transaction (``advance``), only if the cursor is
still where the pass found it: a second miner that read the same games (its lease lost) writes
nothing, so no game is mined twice, and a restart goes on from the row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from sqlalchemy import and_, or_, select, update

from ai.puzzles import Puzzle
from server.archive import puzzles
from server.archive.db import tables
from server.archive.db.database import Database

GAMES: Final = tables.games
MINING: Final = tables.puzzle_mining
SETTLE_MS: Final = 2_000
"""How long ago a game must have been archived to be read (see the module's docstring)."""


@dataclass(frozen=True)
class Cursor:
    """Where the miner is: the last game read (``archived``, ``game``: 0 and "" before the
    first), and the games read in all."""

    archived: int
    game: str
    games: int = 0


@dataclass(frozen=True)
class Archived:
    """A game to mine: its id, type and moves, and when it was archived."""

    id: str
    game_type: str
    moves: tuple[str, ...]
    archived: int


async def cursor(database: Database) -> Cursor:
    """The cursor as stored."""
    async with database.engine.connect() as connection:
        row = (await connection.execute(select(MINING).where(MINING.c.id == 1))).one()
    return Cursor(row.archived, row.game, row.games)


async def after(database: Database, where: Cursor, *, now: int, limit: int) -> list[Archived]:
    """Up to ``limit`` games after ``where``, archived ``SETTLE_MS`` before ``now`` or
    earlier, in the cursor's order."""
    later = or_(
        GAMES.c.archived > where.archived,
        and_(GAMES.c.archived == where.archived, GAMES.c.id > where.game),
    )
    query = (
        select(GAMES.c.id, GAMES.c.game_type, GAMES.c.moves, GAMES.c.archived)
        .where(later, GAMES.c.archived <= now - SETTLE_MS)
        .order_by(GAMES.c.archived, GAMES.c.id)
        .limit(limit)
    )
    async with database.engine.connect() as connection:
        rows = (await connection.execute(query)).all()
    return [
        Archived(
            row.id, row.game_type, tuple(row.moves.split(";")) if row.moves else (), row.archived
        )
        for row in rows
    ]


async def advance(
    database: Database, was: Cursor, read: list[Archived], found: Iterable[Puzzle]
) -> int | None:
    """Store the puzzles ``found`` in the games ``read`` (each once, as ``hive-server puzzles
    load`` does) and move the cursor past them, in one transaction; the count of puzzles added,
    or None when the cursor was no longer at ``was`` (nothing stored)."""
    if not read:
        return 0
    last = read[-1]
    async with database.engine.begin() as connection:
        moved = await connection.execute(
            update(MINING)
            .where(MINING.c.id == 1, MINING.c.archived == was.archived, MINING.c.game == was.game)
            .values(archived=last.archived, game=last.id, games=MINING.c.games + len(read))
        )
        if moved.rowcount != 1:
            await connection.rollback()
            return None
        return await puzzles.insert(database, connection, found)
