"""Puzzles in SQL: loaded from the generator's file (``load``), chosen near a player's
rating (``choose``), the puzzle of the day (``daily``), and each try rated once (``rate``).

A puzzle and a player are rated as the two sides of a game (``server.game.rating``'s
Glicko-2): solved, the player won. Only a player's first try of a puzzle is rated: the
``puzzle_tries`` row keyed by (player, puzzle) is inserted first in the try's transaction,
and only the transaction that inserted it changes the ratings, so a try sent twice, or by
two processes at once, counts once. The player's and the puzzle's rows are then read for
update (PostgreSQL locks them; SQLite's writer already holds the database), so two tries of
one player at once are rated one after the other.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any, Final

from sqlalchemy import Row, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ai.puzzles import Puzzle
from hive import Game, HiveError
from server.archive.db import tables
from server.archive.db.database import Database
from server.game.rating import START, Rating, rated

PUZZLES: Final = tables.puzzles
RATINGS: Final = tables.puzzle_ratings
TRIES: Final = tables.puzzle_tries
THEMES: Final = ("win1", "win2", "win3", "defend")
FIRST_RATING: Final = {"win1": 1200.0, "win2": 1500.0, "win3": 1800.0, "defend": 1600.0}
"""A puzzle's rating before its first try, by theme (its deviation is Glicko's new one)."""
SPREAD: Final = 100.0
"""A puzzle is chosen nearest a point drawn this far either side of the player's rating."""
WINDOW: Final = 200
"""The puzzles looked at on each side of that point for one the player never tried."""
FARTHER: Final = (300.0, 600.0, 1200.0)
"""The spreads of the points drawn next, when the player tried every puzzle looked at."""
HISTORY: Final = 20
"""The tries a profile and the puzzle page list."""


@dataclass(frozen=True)
class Stored:
    """A puzzle as stored."""

    id: int
    game_type: str
    game_string: str
    solution: tuple[str, ...]
    theme: str
    bugs: tuple[str, ...]
    source: str
    rating: float


@dataclass(frozen=True)
class PlayerRating:
    """A player's puzzle rating, rated tries, those solved, and the streak of solved ones."""

    rating: Rating
    tries: int
    solved: int
    streak: int


NEW_PLAYER: Final = PlayerRating(START, 0, 0, 0)


@dataclass(frozen=True)
class Tried:
    """A try: the puzzle, its theme, solved or not, the player's rating after, its change,
    when."""

    puzzle: int
    theme: str
    solved: bool
    rating: float
    change: float
    at: int


@dataclass(frozen=True)
class Rated:
    """What a try did: ``rated`` (False: not the player's first try of it, nothing changed),
    the player's rating after, and the puzzle's; the player's rating's change."""

    rated: bool
    player: PlayerRating
    puzzle: float
    change: float = 0.0


def key(puzzle: Puzzle) -> str:
    """What keeps a puzzle loaded once: a hash of its position and its line."""
    text = "\n".join([puzzle.game_string, *puzzle.solution])
    return hashlib.sha256(text.encode()).hexdigest()


def read_lines(lines: Iterable[str]) -> list[Puzzle]:
    """The puzzles of a file of ``hive-ai puzzles`` (a JSON object a line).

    Raises:
        ValueError: A line is not such an object (its number said).
    """
    found = []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            item = json.loads(text)
            found.append(
                checked(
                    Puzzle(
                        str(item["game_string"]),
                        tuple(map(str, item["solution"])),
                        str(item["theme"]),
                        tuple(map(str, item.get("bugs", ()))),
                        str(item.get("source", "")),
                    )
                )
            )
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"line {number}: not a puzzle ({error})") from None
    return found


def checked(puzzle: Puzzle) -> Puzzle:
    """``puzzle`` when its position reads and its line is legal there (as the generator reads
    it: no draw by repetition), its theme known.

    Raises:
        ValueError: Which of them is wrong.
    """
    if puzzle.theme not in FIRST_RATING or not puzzle.solution:
        raise ValueError(f"not a puzzle's theme or line: {puzzle.theme!r}")
    try:
        game = Game.from_game_string(puzzle.game_string)
        for move in puzzle.solution:
            game.play(move)
    except HiveError as error:
        raise ValueError(f"not a puzzle: {error}") from None
    return puzzle


def _row(puzzle: Puzzle) -> dict[str, Any]:
    return {
        "key": key(puzzle),
        "game_type": puzzle.game_type,
        "game_string": puzzle.game_string,
        "solution": ";".join(puzzle.solution),
        "theme": puzzle.theme,
        "bugs": ",".join(puzzle.bugs)[:200],
        "source": puzzle.source[:200],
        "rating": FIRST_RATING[puzzle.theme],
        "rd": START.rd,
        "volatility": START.volatility,
        "tries": 0,
    }


async def load(database: Database, puzzles: Iterable[Puzzle], *, batch: int = 1000) -> int:
    """Store ``puzzles``, each once (one already stored is left as it is); the count added."""
    async with database.engine.begin() as connection:
        return await insert(database, connection, puzzles, batch=batch)


async def insert(
    database: Database,
    connection: AsyncConnection,
    puzzles: Iterable[Puzzle],
    *,
    batch: int = 1000,
) -> int:
    """``load`` in the caller's transaction (the miner's, with its cursor): each puzzle
    checked, and stored once by its ``key``; the count added."""
    added = 0
    rows = [_row(checked(puzzle)) for puzzle in puzzles]
    for start in range(0, len(rows), batch):
        done = await connection.execute(
            database.insert(PUZZLES)
            .values(rows[start : start + batch])
            .on_conflict_do_nothing(index_elements=["key"])
        )
        added += max(done.rowcount, 0)
    return added


def _stored(row: Row[Any]) -> Stored:
    return Stored(
        row.id,
        row.game_type,
        row.game_string,
        tuple(row.solution.split(";")),
        row.theme,
        tuple(row.bugs.split(",")) if row.bugs else (),
        row.source,
        row.rating,
    )


async def get(database: Database, puzzle_id: int) -> Stored | None:
    async with database.engine.connect() as connection:
        row = (await connection.execute(select(PUZZLES).where(PUZZLES.c.id == puzzle_id))).first()
    return None if row is None else _stored(row)


async def rating_of(database: Database, player: str) -> PlayerRating:
    async with database.engine.connect() as connection:
        return await rating_in(connection, player)


async def rating_in(
    connection: AsyncConnection, player: str, *, lock: bool = False
) -> PlayerRating:
    """``player``'s puzzle rating (``lock``: read for update, in a write transaction)."""
    query = select(RATINGS).where(RATINGS.c.player == player)
    row = (await connection.execute(query.with_for_update() if lock else query)).first()
    if row is None:
        return NEW_PLAYER
    return PlayerRating(
        Rating(row.rating, row.rd, row.volatility, row.tries), row.tries, row.solved, row.streak
    )


async def choose(
    database: Database,
    player: str,
    rating: float,
    *,
    theme: str | None = None,
    game_type: str | None = None,
    avoid: int | None = None,
    rng: random.Random | None = None,
) -> Stored | None:
    """A puzzle near ``rating`` (of ``theme`` and ``game_type`` when given; not ``avoid``, the
    one just played, while another is left): of those ``player`` never tried, the nearest to
    a point drawn within ``SPREAD`` of it among the ``WINDOW`` nearest that point on each side;
    when they tried all of those, the same from points drawn farther (``FARTHER``); then the
    nearest untried anywhere; then the nearest of all. None: no puzzle matches.

    Each look is bounded (``WINDOW`` rows of an index, each checked by the key of
    ``puzzle_tries``), so a player who tried thousands of puzzles around their rating costs
    no more than a new one, but in the rare last looks."""
    draw = (rng or random).uniform
    where = []
    if theme is not None:
        where.append(PUZZLES.c.theme == theme)
    if game_type is not None:
        where.append(PUZZLES.c.game_type == game_type)
    if avoid is not None:
        where.append(PUZZLES.c.id != avoid)
    async with database.engine.connect() as connection:
        for spread in (SPREAD, *FARTHER):
            target = rating + draw(-spread, spread)
            found = await _nearest(connection, where, target, player, WINDOW)
            if found is not None:
                return found
        target = rating + draw(-SPREAD, SPREAD)
        for tried_too in (False, True):
            found = await _nearest(connection, where, target, None if tried_too else player)
            if found is not None:
                return found
        if avoid is not None:  # (the one just played, alone left)
            return await _nearest(connection, where[:-1], target, None)
    return None


async def _nearest(
    connection: AsyncConnection,
    where: list[Any],
    target: float,
    untried_by: str | None,
    window: int | None = None,
) -> Stored | None:
    """The puzzle nearest ``target`` (of ``where``; never tried by ``untried_by`` when given),
    looking at the ``window`` nearest on each side only (None: at all)."""
    rows = []
    for above in (True, False):
        side = PUZZLES.c.rating >= target if above else PUZZLES.c.rating < target
        order = PUZZLES.c.rating if above else PUZZLES.c.rating.desc()
        if window is None:
            query = select(PUZZLES).where(*where, side)
            if untried_by is not None:
                query = query.where(_untried(untried_by, PUZZLES.c.id))
            query = query.order_by(order).limit(1)
        else:
            near = select(PUZZLES.c.id, PUZZLES.c.rating).where(*where, side)
            nearest = near.order_by(order).limit(window).subquery()
            query = select(PUZZLES).join(nearest, PUZZLES.c.id == nearest.c.id)
            if untried_by is not None:
                query = query.where(_untried(untried_by, nearest.c.id))
            by = nearest.c.rating if above else nearest.c.rating.desc()
            query = query.order_by(by).limit(1)
        rows.append((await connection.execute(query)).first())
    found = [row for row in rows if row is not None]
    if not found:
        return None
    return _stored(min(found, key=lambda row: abs(row.rating - target)))


def _untried(player: str, puzzle: Any) -> Any:
    """``puzzle`` never tried by ``player``: one probe of ``puzzle_tries``' key for each puzzle
    looked at (a scalar subquery: as ``NOT EXISTS``, PostgreSQL would hash every try of the
    player first, thousands for some, for each look)."""
    tried = select(TRIES.c.puzzle).where(TRIES.c.player == player, TRIES.c.puzzle == puzzle)
    return tried.limit(1).scalar_subquery().is_(None)


async def daily(database: Database, day: date) -> Stored | None:
    """The puzzle of ``day``: the same for every process and player that day (drawn by a hash
    of the date among the puzzles' ids)."""
    drawn = int.from_bytes(hashlib.sha256(day.isoformat().encode()).digest()[:8], "big")
    async with database.engine.connect() as connection:
        most = (await connection.execute(select(func.max(PUZZLES.c.id)))).scalar()
        if most is None:
            return None
        query = select(PUZZLES).where(PUZZLES.c.id >= drawn % most + 1).order_by(PUZZLES.c.id)
        row = (await connection.execute(query.limit(1))).first()
    return None if row is None else _stored(row)


async def rate(database: Database, player: str, puzzle_id: int, solved: bool, now: int) -> Rated:
    """Rate ``player``'s try of ``puzzle_id`` when it is their first (see the module's
    docstring); else change nothing."""
    async with database.engine.begin() as connection:
        await connection.execute(
            database.insert(RATINGS)
            .values(
                player=player,
                rating=START.rating,
                rd=START.rd,
                volatility=START.volatility,
                tries=0,
                solved=0,
                streak=0,
                updated=now,
            )
            .on_conflict_do_nothing(index_elements=["player"])
        )
        first = await connection.execute(
            database.insert(TRIES)
            .values(
                player=player,
                puzzle=puzzle_id,
                solved=solved,
                rating_before=0.0,
                rating_after=0.0,
                at=now,
            )
            .on_conflict_do_nothing(index_elements=["player", "puzzle"])
        )
        before = await rating_in(connection, player, lock=True)
        row = (
            await connection.execute(
                select(PUZZLES.c.rating, PUZZLES.c.rd, PUZZLES.c.volatility, PUZZLES.c.tries)
                .where(PUZZLES.c.id == puzzle_id)
                .with_for_update()
            )
        ).one()
        puzzle = Rating(row.rating, row.rd, row.volatility, row.tries)
        if first.rowcount != 1:
            return Rated(False, before, puzzle.rating)
        score = 1.0 if solved else 0.0
        mine = rated(before.rating, [(puzzle, score)])
        theirs = rated(puzzle, [(before.rating, 1.0 - score)])
        after = PlayerRating(
            mine, before.tries + 1, before.solved + solved, before.streak + 1 if solved else 0
        )
        await connection.execute(
            update(RATINGS)
            .where(RATINGS.c.player == player)
            .values(
                rating=mine.rating,
                rd=mine.rd,
                volatility=mine.volatility,
                tries=after.tries,
                solved=after.solved,
                streak=after.streak,
                updated=now,
            )
        )
        await connection.execute(
            update(PUZZLES)
            .where(PUZZLES.c.id == puzzle_id)
            .values(
                rating=theirs.rating, rd=theirs.rd, volatility=theirs.volatility, tries=theirs.games
            )
        )
        await connection.execute(
            update(TRIES)
            .where(TRIES.c.player == player, TRIES.c.puzzle == puzzle_id)
            .values(rating_before=before.rating.rating, rating_after=mine.rating)
        )
    return Rated(True, after, theirs.rating, mine.rating - before.rating.rating)


async def history(database: Database, player: str) -> list[Tried]:
    async with database.engine.connect() as connection:
        return await history_in(connection, player)


async def history_in(connection: AsyncConnection, player: str, most: int = HISTORY) -> list[Tried]:
    """``player``'s newest rated tries, newest first."""
    query = (
        select(TRIES, PUZZLES.c.theme)
        .join_from(TRIES, PUZZLES, TRIES.c.puzzle == PUZZLES.c.id)
        .where(TRIES.c.player == player)
        .order_by(TRIES.c.at.desc(), TRIES.c.puzzle.desc())
        .limit(most)
    )
    rows = (await connection.execute(query)).all()
    return [
        Tried(
            row.puzzle,
            row.theme,
            row.solved,
            row.rating_after,
            row.rating_after - row.rating_before,
            row.at,
        )
        for row in rows
    ]
