"""The queries behind profiles, leaderboards and downloads (``server.requests.profiles``): each
built once (SQLAlchemy's construction of a query costs more than running it), with its values as
parameters, and each bounded by a limit.

They use the indexes games(white, ended) and games(black, ended) (a page: each side's newest,
merged), games(white, result, black_level) and games(black, result, white_level) (the record,
from the index alone), ratings(speed, rating) (the leaderboard, from the top) and
rating_history(player, at); a profile's tournaments (``server.archive.tournaments``)
tournament_results(player, ended).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final, cast

from sqlalchemy import (
    BigInteger,
    Integer,
    Select,
    String,
    and_,
    bindparam,
    func,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from ai.bots import LEVELS
from protocol import (
    LEADERBOARD_SHOWN,
    PROFILE_PAGE,
    ArchivedGame,
    Color,
    LevelRecord,
    RatingPoint,
    Speed,
    SpeedRating,
    TimeControl,
)
from server.archive import tournaments
from server.archive.db import tables
from server.game.clock import now_ms
from server.game.rating import LEADERBOARD_OPPONENTS, LEADERBOARD_WEEKS, PROVISIONAL_RD, SPEEDS

HISTORY_SHOWN: Final = 500
"""Points of rating history in a profile: the newest ones (a point a rated game)."""
WEEK_MS: Final = 7 * 24 * 3600 * 1000

GAMES: Final = tables.games
_TOURNAMENTS: Final = tables.tournaments
_OUTCOMES: Final[dict[tuple[Color, str], str]] = {
    ("white", "WhiteWins"): "win",
    ("white", "BlackWins"): "loss",
    ("black", "WhiteWins"): "loss",
    ("black", "BlackWins"): "win",
    ("white", "Draw"): "draw",
    ("black", "Draw"): "draw",
}
"""A finished game's outcome for the side that played ``color``."""


@dataclass(frozen=True)
class Account:
    """The account a profile is of."""

    player: str
    name: str
    bot: bool
    created: int


WDL: Final = ("win", "draw", "loss")


def as_speed(speed: str) -> Speed:
    """``speed`` as the protocol's ``Speed`` (one of ``SPEEDS``: checked by the caller)."""
    return cast(Speed, speed)


# Each query is built once (SQLAlchemy's construction costs more than the query itself), with
# its values as parameters.


@functools.cache
def leaderboard() -> Select[Any]:
    """The established players of ``speed`` who played since ``since`` and against
    ``LEADERBOARD_OPPONENTS`` distinct opponents, best first (through the index
    ratings(speed, rating), read from the top)."""
    ratings, accounts = tables.ratings, tables.accounts
    return (
        select(accounts.c.name, accounts.c.bot, ratings.c.rating, ratings.c.rd, ratings.c.games)
        .join_from(ratings, accounts, ratings.c.player == accounts.c.player)
        .where(
            ratings.c.speed == bindparam("speed"),
            ratings.c.rd <= PROVISIONAL_RD,
            ratings.c.updated >= bindparam("since"),
            ratings.c.opponents >= LEADERBOARD_OPPONENTS,
        )
        .order_by(ratings.c.rating.desc(), accounts.c.name_key)
        .limit(LEADERBOARD_SHOWN)
    )


@functools.cache
def provisional_board() -> Select[Any]:
    """The players of ``speed`` whose rating is still provisional, who played since ``since``,
    best first (the leaderboard's section of its own; through the same index)."""
    ratings, accounts = tables.ratings, tables.accounts
    return (
        select(accounts.c.name, accounts.c.bot, ratings.c.rating, ratings.c.rd, ratings.c.games)
        .join_from(ratings, accounts, ratings.c.player == accounts.c.player)
        .where(
            ratings.c.speed == bindparam("speed"),
            ratings.c.rd > PROVISIONAL_RD,
            ratings.c.updated >= bindparam("since"),
        )
        .order_by(ratings.c.rating.desc(), accounts.c.name_key)
        .limit(LEADERBOARD_SHOWN)
    )


def board_values(speed: str) -> dict[str, Any]:
    return {"speed": speed, "since": now_ms() - LEADERBOARD_WEEKS * WEEK_MS}


def explained(name: str, player: str, speed: str) -> dict[str, Any]:
    """Every query the profile of ``name`` (``player``; its first page) and the leaderboard
    of ``speed`` make, by name, with their values (``bench.profiles --explain`` shows their
    plans)."""
    white, black = record_queries()
    mine = {"player": player}
    return {
        "account": account_query().params(name_key=name.lower()),
        "ratings": ratings_query().params(mine),
        "record as white": white.params(mine),
        "record as black": black.params(mine),
        "history": history_query().params(mine),
        "tournaments": tournaments.played_query().params(mine),
        "first page": newest().params(page_values(player, PROFILE_PAGE, 0)),
        "leaderboard": leaderboard().params(board_values(speed)),
        "provisional": provisional_board().params(board_values(speed)),
    }


@functools.cache
def account_query() -> Select[Any]:
    accounts = tables.accounts
    return select(accounts.c.player, accounts.c.name, accounts.c.bot, accounts.c.created).where(
        accounts.c.name_key == bindparam("name_key")
    )


async def account(connection: AsyncConnection, name: str) -> Account | None:
    found = await connection.execute(account_query(), {"name_key": name.lower()})
    row = found.first()
    return None if row is None else Account(row.player, row.name, row.bot, row.created)


@functools.cache
def ratings_query() -> Select[Any]:
    return select(tables.ratings).where(tables.ratings.c.player == bindparam("player"))


async def ratings(connection: AsyncConnection, player: str) -> list[SpeedRating]:
    """The player's rating in each speed it played rated games in, fastest first."""
    found = await connection.execute(ratings_query(), {"player": player})
    rows = {row.speed: row for row in found}
    return [
        SpeedRating(
            speed,
            round(row.rating),
            round(row.rd),
            row.rd > PROVISIONAL_RD,
            row.games,
        )
        for speed in SPEEDS
        if (row := rows.get(speed)) is not None
    ]


@functools.cache
def record_queries() -> tuple[Select[Any], Select[Any]]:
    """The player's games with a result, counted by result and the opponent's bot level, as
    White and as Black."""
    games = GAMES
    return tuple(  # type: ignore[return-value]
        select(across.label("level"), games.c.result, func.count().label("games"))
        .where(seat == bindparam("player"), games.c.result.is_not(None))
        .group_by(across, games.c.result)
        for seat, across in (
            (games.c.white, games.c.black_level),
            (games.c.black, games.c.white_level),
        )
    )


async def records(connection: AsyncConnection, player: str) -> dict[str | None, dict[str, int]]:
    """The player's wins, draws and losses (by outcome) against each bot level (None: against
    anyone else), over every archived game with a result."""
    records: dict[str | None, dict[str, int]] = {}
    colors: tuple[Color, Color] = ("white", "black")
    for color, query in zip(colors, record_queries(), strict=True):
        for row in await connection.execute(query, {"player": player}):
            outcome = _OUTCOMES[(color, row.result)]
            counts = records.setdefault(row.level, {})
            counts[outcome] = counts.get(outcome, 0) + row.games
    return records


def levels(records: dict[str | None, dict[str, int]]) -> list[LevelRecord]:
    """The record against each bot level played, in the order of the levels (any level the
    server no longer has after them, by name)."""
    order = {level: index for index, level in enumerate(LEVELS)}
    played = sorted(
        (level for level in records if level is not None),
        key=lambda level: (order.get(level, len(order)), level),
    )
    return [
        LevelRecord(
            level,
            records[level].get("win", 0),
            records[level].get("draw", 0),
            records[level].get("loss", 0),
        )
        for level in played
    ]


@functools.cache
def history_query() -> Select[Any]:
    history = tables.rating_history
    return (
        select(history.c.speed, history.c.at, history.c.rating)
        .where(history.c.player == bindparam("player"))
        .order_by(history.c.at.desc())
        .limit(HISTORY_SHOWN)
    )


async def history(connection: AsyncConnection, player: str) -> list[RatingPoint]:
    """The newest ``HISTORY_SHOWN`` points of the player's rating history, oldest first."""
    rows = (await connection.execute(history_query(), {"player": player})).all()
    return [
        RatingPoint(as_speed(row.speed), row.at, round(row.rating))
        for row in reversed(rows)
        if row.speed in SPEEDS
    ]


DOWNLOADED: Final = ("id", "ended", "game_type", "moves", "result", "reason")
"""What a download reads of each game: its GameString's parts, and where the next batch starts."""


def _side(color: Color, keyset: bool, columns: tuple[str, ...] | None) -> Select[Any]:
    """The games of the player (parameter ``player``) as ``color`` with a result, newest first
    (with ``keyset``: older than (``before_ended``, ``before_id``)), at most ``end`` of them,
    with ``columns`` (None: those a profile's line needs)."""
    games = GAMES
    mine, theirs = color, "black" if color == "white" else "white"
    chosen = (
        [games.c[name] for name in columns]
        if columns
        else [
            games.c.id,
            games.c.game_type,
            games.c.time_kind,
            games.c.time_base,
            games.c.time_increment,
            games.c.time_days,
            games.c.rated,
            games.c.result,
            games.c.reason,
            games.c.plies,
            games.c.ended,
            games.c[f"{theirs}_name"].label("opponent"),
            games.c[f"{theirs}_level"].label("opponent_level"),
            games.c[f"{theirs}_rating"].label("opponent_rating"),
            games.c[f"{mine}_change"].label("change"),
            literal(color).label("color"),
            games.c.tournament,
            _TOURNAMENTS.c.name.label("tournament_name"),
        ]
    )
    query = select(*chosen).where(games.c[mine] == bindparam("player"), games.c.result.is_not(None))
    if not columns:  # a tournament's name, once it ended (by its key)
        joined = games.outerjoin(_TOURNAMENTS, games.c.tournament == _TOURNAMENTS.c.id)
        query = query.select_from(joined)
    if keyset:
        ended = bindparam("before_ended", type_=BigInteger)
        game = bindparam("before_id", type_=String)
        query = query.where(
            or_(games.c.ended < ended, and_(games.c.ended == ended, games.c.id < game))
        )
    end = bindparam("end", type_=Integer)
    return query.order_by(games.c.ended.desc(), games.c.id.desc()).limit(end)


@functools.cache
def newest(keyset: bool = False, columns: tuple[str, ...] | None = None) -> Select[Any]:
    """The query of the player's games with a result, newest first (``keyset``: older than a
    game), ``limit`` of them after ``offset``: each side's newest up to the ``end`` (each
    through its index), merged; ``columns``: see ``_side``. Its values: ``_page_values``."""
    white = _side("white", keyset, columns).subquery()
    black = _side("black", keyset, columns).subquery()
    both = union_all(select(white), select(black)).subquery()
    return (
        select(both)
        .order_by(both.c.ended.desc(), both.c.id.desc())
        .limit(bindparam("limit", type_=Integer))
        .offset(bindparam("offset", type_=Integer))
    )


def page_values(
    player: str, limit: int, offset: int, before: tuple[int, str] | None = None
) -> dict[str, Any]:
    """The values of ``_newest``'s query: ``limit`` games after ``offset``, older than the
    (ended, id) ``before``."""
    values = {"player": player, "limit": limit, "offset": offset, "end": offset + limit}
    if before is not None:
        values.update(before_ended=before[0], before_id=before[1])
    return values


async def page(connection: AsyncConnection, player: str, page: int) -> list[ArchivedGame]:
    """The ``page`` of the player's games, newest first."""
    values = page_values(player, PROFILE_PAGE, page * PROFILE_PAGE)
    return [_line(row) for row in await connection.execute(newest(), values)]


def _line(row: Any) -> ArchivedGame:
    """A game of a profile, from the side of the player who played ``row.color``."""
    color: Color = row.color
    opponent_rating = row.opponent_rating
    change = row.change
    return ArchivedGame(
        id=row.id,
        game_type=row.game_type,
        time=TimeControl(row.time_kind, row.time_base, row.time_increment, row.time_days),
        rated=row.rated,
        color=color,
        opponent=row.opponent,
        opponent_level=row.opponent_level,
        opponent_rating=None if opponent_rating is None else round(opponent_rating),
        outcome=_OUTCOMES[(color, row.result)],  # type: ignore[arg-type]
        reason=row.reason,
        rating_change=None if change is None else round(change),
        plies=row.plies,
        ended=row.ended,
        tournament=row.tournament,
        tournament_name=row.tournament_name,
    )


__all__ = ["Account", "explained"]
