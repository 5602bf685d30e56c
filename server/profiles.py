"""Profiles and leaderboards: ``profile`` and ``leaderboard`` answered from the database.

A profile is an account's (a person's or a bot account's; a guest or one of the server's bot
levels has none): its rating per speed, its wins, draws and losses over every archived game,
its record against each of the server's bot levels, its rating history, and one page of its
games, newest first. Aborted games (no result) are not counted nor listed. A leaderboard lists
the players of one speed whose rating is not provisional and who played a rated game of that
speed within ``LEADERBOARD_WEEKS``, highest first.

Both cost database work, so both are bounded: a profile is a handful of indexed queries, each
with a limit (a page past the end costs nothing: it is empty), and at most
``READS_AT_ONCE`` run at once in a process (the others wait, at most ``READ_WAIT`` seconds,
else ``unavailable``), so that they never take every connection of the pool from the archive;
a connection may ask ``LOOKUP_BURST`` at once, then ``LOOKUP_RATE`` a second
(``rate_limited``). A leaderboard is the same for everyone: it is kept ``LEADERBOARD_SECONDS``
per speed, and asked of the database by one request at a time. A database that is down
answers ``unavailable``.

``download`` gives ``server.http``'s ``/@/NAME/games.txt``: a player's games as GameStrings,
newest first, read ``DOWNLOAD_BATCH`` at a time (keyset paging on (ended, id)), at most
``DOWNLOAD_GAMES`` a file and ``DOWNLOADS_AT_ONCE`` files made at once.

The queries use the indexes games(white, ended) and games(black, ended) (a page: each side's
newest, merged), games(white, result, black_level) and games(black, result, white_level) (the
record, from the index alone), ratings(speed, rating) (the leaderboard, from the top) and
rating_history(player, at).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator
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
from server.archive import DATABASE_ERRORS
from server.clock import now_ms
from server.db import tables
from server.db.database import Database
from server.protocol import (
    LEADERBOARD_SHOWN,
    PROFILE_PAGE,
    ArchivedGame,
    Color,
    ErrorCode,
    GetLeaderboard,
    GetProfile,
    Leaderboard,
    LeaderboardEntry,
    LevelRecord,
    Profile,
    ProtocolError,
    RatingPoint,
    Speed,
    SpeedRating,
    TimeControl,
)
from server.ratings import LEADERBOARD_WEEKS, PROVISIONAL_RD, SPEEDS
from server.record import game_string
from server.session import LOOKUP_RATE, Session

MAX_NAME: Final = 24
"""The longest account name (a bot account's); a longer one is no account's."""
HISTORY_SHOWN: Final = 500
"""Points of rating history in a profile: the newest ones (a point a rated game)."""
READS_AT_ONCE: Final = 4
"""Profiles and leaderboards a process asks of the database at once."""
READ_WAIT: Final = 3.0
"""Longest wait, in seconds, for one of those; then the request is answered ``unavailable``."""
LEADERBOARD_SECONDS: Final = 5.0
"""How long a process keeps a leaderboard before asking the database again."""
WEEK_MS: Final = 7 * 24 * 3600 * 1000
DOWNLOAD_GAMES: Final = 10_000
"""Games in one download of a player's games (``more`` names where the next one starts):
about 5 MB, made in about a second (websockets gives an HTTP answer 10 s, its
``open_timeout``)."""
DOWNLOAD_BATCH: Final = 500
"""Games read from the database at once for a download."""
DOWNLOADS_AT_ONCE: Final = 2
"""Downloads a process builds at once (each holds at most ``DOWNLOAD_GAMES`` GameStrings)."""

_GAMES: Final = tables.games
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


@dataclass(frozen=True)
class Download:
    """A player's games as UHP GameStrings, one a line, newest first: ``name`` as the account
    spells it; ``more``: the id of the last game given when older ones remain (None: none)."""

    name: str
    body: bytes
    games: int
    more: str | None


class Profiles:
    """The ``profile`` and ``leaderboard`` handlers, and the queries behind them.

    Args:
        database: The database (migrated).
        leaderboard_seconds: How long a leaderboard is kept.
    """

    def __init__(self, database: Database, leaderboard_seconds: float = LEADERBOARD_SECONDS):
        self.database = database
        self.leaderboard_seconds = leaderboard_seconds
        self.reads = asyncio.Semaphore(READS_AT_ONCE)
        """Held by each profile and leaderboard read from the database."""
        self._boards: dict[str, tuple[float, Leaderboard]] = {}
        self._board_locks: dict[str, asyncio.Lock] = {}
        self.downloading = asyncio.Semaphore(DOWNLOADS_AT_ONCE)
        """Held by each download being built (``server.http`` refuses one more)."""

    # -- the handlers --------------------------------------------------------------------------

    async def profile(self, session: Session, message: GetProfile) -> None:
        _take(session)
        if message.page < 0:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "profile.page: pages count from 0")
        async with self._read():
            found = await self.read_profile(message.name, message.page)
        if found is None:
            raise ProtocolError(
                ErrorCode.UNKNOWN_PLAYER, f"no account is named {message.name!r:.40}"
            )
        await session.send(found)

    async def leaderboard(self, session: Session, message: GetLeaderboard) -> None:
        _take(session)
        await session.send(await self.cached_leaderboard(message.speed))

    # -- the queries ---------------------------------------------------------------------------

    async def read_profile(self, name: str, page: int = 0) -> Profile | None:
        """The profile of the account ``name`` (any case) with its ``page`` of games (0 the
        newest); None: no account has that name."""
        if len(name) > MAX_NAME:
            return None
        async with self.database.engine.connect() as connection:
            account = await _account(connection, name)
            if account is None:
                return None
            player = account.player
            ratings = await _ratings(connection, player)
            records = await _records(connection, player)
            history = await _history(connection, player)
            total = sum(sum(counts.values()) for counts in records.values())
            games: list[ArchivedGame] = []
            if page * PROFILE_PAGE < total:
                games = await _page(connection, player, page)
        overall = {outcome: sum(c.get(outcome, 0) for c in records.values()) for outcome in _WDL}
        return Profile(
            name=account.name,
            player=player,
            bot=account.bot,
            created=account.created,
            ratings=ratings,
            wins=overall["win"],
            draws=overall["draw"],
            losses=overall["loss"],
            levels=_levels(records),
            history=history,
            games=games,
            page=page,
            total_games=total,
        )

    async def download(self, name: str, before: str | None = None) -> Download | None:
        """The newest ``DOWNLOAD_GAMES`` games of the account ``name`` (any case) with a
        result (older than the game ``before``), read ``DOWNLOAD_BATCH`` at a time, each's
        GameString as ``/games/ID.txt`` gives it (``server.record.game_string``); None: no
        account has that name.

        Raises:
            LookupError: There is no game ``before``.
        """
        if len(name) > MAX_NAME:
            return None
        games = _GAMES
        async with self.database.engine.connect() as connection:
            account = await _account(connection, name)
            cursor: tuple[int, str] | None = None
            if before is not None:
                found = await connection.execute(
                    select(games.c.ended, games.c.id).where(games.c.id == before)
                )
                row = found.first()
                if row is None:
                    raise LookupError(f"no game {before}")
                cursor = (row.ended, row.id)
        if account is None:
            return None
        body = bytearray()
        count = 0
        more = None
        while True:
            want = min(DOWNLOAD_BATCH, DOWNLOAD_GAMES - count)
            query = _newest(cursor is not None, _DOWNLOADED)
            values = _page_values(account.player, max(want, 1), 0, cursor)
            async with self.database.engine.connect() as connection:
                rows = (await connection.execute(query, values)).all()
            if not want:  # full: say whether older games remain
                more = cursor[1] if rows and cursor is not None else None
                break
            for row in rows:
                moves = row.moves.split(";") if row.moves else []
                line = game_string(row.game_type, moves, row.result, row.reason)
                body += line.encode() + b"\n"
            count += len(rows)
            if len(rows) < want:
                break
            cursor = (rows[-1].ended, rows[-1].id)
        return Download(account.name, bytes(body), count, more)

    async def read_leaderboard(self, speed: str) -> Leaderboard:
        """The leaderboard of ``speed``, from the database."""
        async with self.database.engine.connect() as connection:
            rows = (await connection.execute(_leaderboard(), _board_values(speed))).all()
        players = [
            LeaderboardEntry(row.name, round(row.rating), round(row.rd), row.games, row.bot)
            for row in rows
        ]
        return Leaderboard(_speed(speed), LEADERBOARD_WEEKS, players)

    async def cached_leaderboard(self, speed: str) -> Leaderboard:
        """The leaderboard of ``speed``, as read at most ``leaderboard_seconds`` ago; one
        request at a time reads it again."""
        kept = self._boards.get(speed)
        if kept is not None and time.monotonic() - kept[0] < self.leaderboard_seconds:
            return kept[1]
        lock = self._board_locks.setdefault(speed, asyncio.Lock())
        try:
            async with asyncio.timeout(READ_WAIT):
                await lock.acquire()
        except TimeoutError:
            raise _busy() from None
        try:
            kept = self._boards.get(speed)  # (read meanwhile by the request it waited for)
            if kept is not None and time.monotonic() - kept[0] < self.leaderboard_seconds:
                return kept[1]
            async with self._read():
                board = await self.read_leaderboard(speed)
            self._boards[speed] = (time.monotonic(), board)
            return board
        finally:
            lock.release()

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[None]:
        """One of the ``READS_AT_ONCE`` reads; a database that is down, or reads that wait
        too long, answer ``unavailable``."""
        try:
            async with asyncio.timeout(READ_WAIT):
                await self.reads.acquire()
        except TimeoutError:
            raise _busy() from None
        try:
            yield
        except DATABASE_ERRORS as error:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
        finally:
            self.reads.release()


def _busy() -> ProtocolError:
    return ProtocolError(ErrorCode.UNAVAILABLE, "the server is busy with profiles; try again")


def _take(session: Session) -> None:
    """Raises: ProtocolError: RATE_LIMITED when the connection asks too often."""
    if not session.lookups.take(time.monotonic()):
        raise ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"at most {LOOKUP_RATE:g} profiles or leaderboards a second; wait a little",
        )


_WDL: Final = ("win", "draw", "loss")


def _speed(speed: str) -> Speed:
    """``speed`` as the protocol's ``Speed`` (one of ``SPEEDS``: checked by the caller)."""
    return cast(Speed, speed)


# Each query is built once (SQLAlchemy's construction costs more than the query itself), with
# its values as parameters.


@functools.cache
def _leaderboard() -> Select[Any]:
    """The established players of ``speed`` who played since ``since``, best first (through
    the index ratings(speed, rating), read from the top)."""
    ratings, accounts = tables.ratings, tables.accounts
    return (
        select(accounts.c.name, accounts.c.bot, ratings.c.rating, ratings.c.rd, ratings.c.games)
        .join_from(ratings, accounts, ratings.c.player == accounts.c.player)
        .where(
            ratings.c.speed == bindparam("speed"),
            ratings.c.rd <= PROVISIONAL_RD,
            ratings.c.updated >= bindparam("since"),
        )
        .order_by(ratings.c.rating.desc(), accounts.c.name_key)
        .limit(LEADERBOARD_SHOWN)
    )


def _board_values(speed: str) -> dict[str, Any]:
    return {"speed": speed, "since": now_ms() - LEADERBOARD_WEEKS * WEEK_MS}


def explained(name: str, player: str, speed: str) -> dict[str, Any]:
    """Every query the profile of ``name`` (``player``; its first page) and the leaderboard
    of ``speed`` make, by name, with their values (``bench.profiles --explain`` shows their
    plans)."""
    white, black = _record_queries()
    mine = {"player": player}
    return {
        "account": _account_query().params(name_key=name.lower()),
        "ratings": _ratings_query().params(mine),
        "record as white": white.params(mine),
        "record as black": black.params(mine),
        "history": _history_query().params(mine),
        "first page": _newest().params(_page_values(player, PROFILE_PAGE, 0)),
        "leaderboard": _leaderboard().params(_board_values(speed)),
    }


@functools.cache
def _account_query() -> Select[Any]:
    accounts = tables.accounts
    return select(accounts.c.player, accounts.c.name, accounts.c.bot, accounts.c.created).where(
        accounts.c.name_key == bindparam("name_key")
    )


async def _account(connection: AsyncConnection, name: str) -> Account | None:
    found = await connection.execute(_account_query(), {"name_key": name.lower()})
    row = found.first()
    return None if row is None else Account(row.player, row.name, row.bot, row.created)


@functools.cache
def _ratings_query() -> Select[Any]:
    return select(tables.ratings).where(tables.ratings.c.player == bindparam("player"))


async def _ratings(connection: AsyncConnection, player: str) -> list[SpeedRating]:
    """The player's rating in each speed it played rated games in, fastest first."""
    found = await connection.execute(_ratings_query(), {"player": player})
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
def _record_queries() -> tuple[Select[Any], Select[Any]]:
    """The player's games with a result, counted by result and the opponent's bot level, as
    White and as Black."""
    games = _GAMES
    return tuple(  # type: ignore[return-value]
        select(across.label("level"), games.c.result, func.count().label("games"))
        .where(seat == bindparam("player"), games.c.result.is_not(None))
        .group_by(across, games.c.result)
        for seat, across in (
            (games.c.white, games.c.black_level),
            (games.c.black, games.c.white_level),
        )
    )


async def _records(connection: AsyncConnection, player: str) -> dict[str | None, dict[str, int]]:
    """The player's wins, draws and losses (by outcome) against each bot level (None: against
    anyone else), over every archived game with a result."""
    records: dict[str | None, dict[str, int]] = {}
    colors: tuple[Color, Color] = ("white", "black")
    for color, query in zip(colors, _record_queries(), strict=True):
        for row in await connection.execute(query, {"player": player}):
            outcome = _OUTCOMES[(color, row.result)]
            counts = records.setdefault(row.level, {})
            counts[outcome] = counts.get(outcome, 0) + row.games
    return records


def _levels(records: dict[str | None, dict[str, int]]) -> list[LevelRecord]:
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
def _history_query() -> Select[Any]:
    history = tables.rating_history
    return (
        select(history.c.speed, history.c.at, history.c.rating)
        .where(history.c.player == bindparam("player"))
        .order_by(history.c.at.desc())
        .limit(HISTORY_SHOWN)
    )


async def _history(connection: AsyncConnection, player: str) -> list[RatingPoint]:
    """The newest ``HISTORY_SHOWN`` points of the player's rating history, oldest first."""
    rows = (await connection.execute(_history_query(), {"player": player})).all()
    return [
        RatingPoint(_speed(row.speed), row.at, round(row.rating))
        for row in reversed(rows)
        if row.speed in SPEEDS
    ]


_DOWNLOADED: Final = ("id", "ended", "game_type", "moves", "result", "reason")
"""What a download reads of each game: its GameString's parts, and where the next batch starts."""


def _side(color: Color, keyset: bool, columns: tuple[str, ...] | None) -> Select[Any]:
    """The games of the player (parameter ``player``) as ``color`` with a result, newest first
    (with ``keyset``: older than (``before_ended``, ``before_id``)), at most ``end`` of them,
    with ``columns`` (None: those a profile's line needs)."""
    games = _GAMES
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
        ]
    )
    query = select(*chosen).where(games.c[mine] == bindparam("player"), games.c.result.is_not(None))
    if keyset:
        ended = bindparam("before_ended", type_=BigInteger)
        game = bindparam("before_id", type_=String)
        query = query.where(
            or_(games.c.ended < ended, and_(games.c.ended == ended, games.c.id < game))
        )
    end = bindparam("end", type_=Integer)
    return query.order_by(games.c.ended.desc(), games.c.id.desc()).limit(end)


@functools.cache
def _newest(keyset: bool = False, columns: tuple[str, ...] | None = None) -> Select[Any]:
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


def _page_values(
    player: str, limit: int, offset: int, before: tuple[int, str] | None = None
) -> dict[str, Any]:
    """The values of ``_newest``'s query: ``limit`` games after ``offset``, older than the
    (ended, id) ``before``."""
    values = {"player": player, "limit": limit, "offset": offset, "end": offset + limit}
    if before is not None:
        values.update(before_ended=before[0], before_id=before[1])
    return values


async def _page(connection: AsyncConnection, player: str, page: int) -> list[ArchivedGame]:
    """The ``page`` of the player's games, newest first."""
    values = _page_values(player, PROFILE_PAGE, page * PROFILE_PAGE)
    return [_line(row) for row in await connection.execute(_newest(), values)]


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
    )


__all__ = ["Download", "Profiles", "explained"]
