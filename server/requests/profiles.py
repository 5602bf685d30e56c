"""Profiles and leaderboards: ``profile`` and ``leaderboard`` answered from the database.

A profile is an account's (a person's or a bot account's; a guest or one of the server's bot
levels has none): its rating per speed, its wins, draws and losses over every archived game,
its record against each of the server's bot levels, its rating history, its average accuracy
per speed over its games with a computer analysis, its newest ended tournaments (its rank
and points in each) and one page of its games, newest first.
Aborted games (no result) are not counted nor listed. A leaderboard lists the players of one
speed whose rating is not provisional, who played a rated game of that speed within
``LEADERBOARD_WEEKS`` and whose rated games of it were against ``LEADERBOARD_OPPONENTS``
distinct opponents, highest first; beside them, in a section of their own, those of that
speed whose rating is still provisional and who played within the same weeks (a new
server's players are listed from their first rated game).

Both cost database work, so both are bounded: a profile is a handful of indexed queries, each
with a limit (a page past the end costs nothing: it is empty), and at most
``READS_AT_ONCE`` run at once in a process (the others wait, at most ``READ_WAIT`` seconds,
else ``unavailable``), so that they never take every connection of the pool from the archive;
a connection may ask ``LOOKUP_BURST`` at once, then ``LOOKUP_RATE`` a second, and an address
``Settings.lookups_per_address`` in ``LOOKUP_WINDOW`` over all its connections and every
process (``rate_limited``: many connections of one client at their own rates took every read
from the others). A leaderboard is the same for everyone: it is kept ``LEADERBOARD_SECONDS``
per speed, and asked of the database by one request at a time. A database that is down
answers ``unavailable``.

``download`` gives ``server.edge.http``'s ``/@/NAME/games.txt``: a player's games as GameStrings,
newest first, read ``DOWNLOAD_BATCH`` at a time (keyset paging on (ended, id)), at most
``DOWNLOAD_GAMES`` a file and ``DOWNLOADS_AT_ONCE`` files made at once.

The queries themselves are ``server.archive.queries``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from sqlalchemy import (
    select,
)

from protocol import (
    PROFILE_PAGE,
    ArchivedGame,
    ErrorCode,
    GetLeaderboard,
    GetProfile,
    Leaderboard,
    LeaderboardEntry,
    Profile,
    ProtocolError,
)
from server.archive import analyses, puzzles, queries, tournaments
from server.archive.db.database import Database
from server.archive.games import DATABASE_ERRORS
from server.game.rating import LEADERBOARD_OPPONENTS, LEADERBOARD_WEEKS
from server.game.record import game_string
from server.live.session import LOOKUP_RATE, Session
from server.requests.puzzles import wire_rating, wire_tries
from server.storage.limits import per_origin

if TYPE_CHECKING:
    from server.storage.store import Store

MAX_NAME: Final = 24
"""The longest account name (a bot account's); a longer one is no account's."""
LOOKUP_WINDOW: Final = 10.0
"""The window, in seconds, of an address's profiles and leaderboards
(``Settings.lookups_per_address``): short, so that an address's allowance comes a little at
a time, never as one burst of a minute's requests."""
LOOKUPS_PER_ADDRESS: Final = 10
"""What ``Profiles`` allows an address in ``LOOKUP_WINDOW`` by default."""
READS_AT_ONCE: Final = 4
"""Profiles and leaderboards a process asks of the database at once."""
READ_WAIT: Final = 3.0
"""Longest wait, in seconds, for one of those; then the request is answered ``unavailable``."""
LEADERBOARD_SECONDS: Final = 5.0
"""How long a process keeps a leaderboard before asking the database again."""
DOWNLOAD_GAMES: Final = 10_000
"""Games in one download of a player's games (``more`` names where the next one starts):
about 5 MB, made in about a second (websockets gives an HTTP answer 10 s, its
``open_timeout``)."""
DOWNLOAD_BATCH: Final = 500
"""Games read from the database at once for a download."""
DOWNLOADS_AT_ONCE: Final = 2
"""Downloads a process builds at once (each holds at most ``DOWNLOAD_GAMES`` GameStrings)."""


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
        store: Where each address's requests are counted (None: they are not; the queries
            alone need no store).
        per_address: The requests an address may make in ``LOOKUP_WINDOW``.
    """

    def __init__(
        self,
        database: Database,
        leaderboard_seconds: float = LEADERBOARD_SECONDS,
        *,
        store: Store | None = None,
        per_address: int = LOOKUPS_PER_ADDRESS,
    ):
        self.database = database
        self.leaderboard_seconds = leaderboard_seconds
        self.store = store
        self.per_address = per_address
        self.reads = asyncio.Semaphore(READS_AT_ONCE)
        """Held by each profile and leaderboard read from the database."""
        self._boards: dict[str, tuple[float, Leaderboard]] = {}
        self._board_locks: dict[str, asyncio.Lock] = {}
        self.downloading = asyncio.Semaphore(DOWNLOADS_AT_ONCE)
        """Held by each download being built (``server.edge.http`` refuses one more)."""

    # -- the handlers --------------------------------------------------------------------------

    async def profile(self, session: Session, message: GetProfile) -> None:
        await self._take(session)
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
        await self._take(session)
        await session.send(await self.cached_leaderboard(message.speed))

    async def _take(self, session: Session) -> None:
        """Count a request against its connection, then its address.

        Raises:
            ProtocolError: RATE_LIMITED.
        """
        _take(session)
        if self.store is not None:
            words = "profiles or leaderboards"
            await per_origin(
                self.store, session.origin, "lookup", self.per_address, LOOKUP_WINDOW, words
            )

    # -- the queries ---------------------------------------------------------------------------

    async def read_profile(self, name: str, page: int = 0) -> Profile | None:
        """The profile of the account ``name`` (any case) with its ``page`` of games (0 the
        newest); None: no account has that name."""
        if len(name) > MAX_NAME:
            return None
        async with self.database.engine.connect() as connection:
            account = await queries.account(connection, name)
            if account is None:
                return None
            player = account.player
            ratings = await queries.ratings(connection, player)
            records = await queries.records(connection, player)
            history = await queries.history(connection, player)
            accuracy = await analyses.accuracies(connection, player)
            puzzle_rating = await puzzles.rating_in(connection, player)
            puzzle_tries = await puzzles.history_in(connection, player)
            played_in = await tournaments.of_player(connection, player)
            total = sum(sum(counts.values()) for counts in records.values())
            games: list[ArchivedGame] = []
            if page * PROFILE_PAGE < total:
                games = await queries.page(connection, player, page)
        overall = {
            outcome: sum(c.get(outcome, 0) for c in records.values()) for outcome in queries.WDL
        }
        return Profile(
            name=account.name,
            player=player,
            bot=account.bot,
            created=account.created,
            ratings=ratings,
            wins=overall["win"],
            draws=overall["draw"],
            losses=overall["loss"],
            levels=queries.levels(records),
            history=history,
            games=games,
            page=page,
            total_games=total,
            accuracy=accuracy,
            puzzles=wire_rating(puzzle_rating) if puzzle_rating.tries else None,
            puzzle_tries=wire_tries(puzzle_tries),
            tournaments=played_in,
        )

    async def download(self, name: str, before: str | None = None) -> Download | None:
        """The newest ``DOWNLOAD_GAMES`` games of the account ``name`` (any case) with a
        result (older than the game ``before``), read ``DOWNLOAD_BATCH`` at a time, each's
        GameString as ``/games/ID.txt`` gives it (``server.game.record.game_string``); None: no
        account has that name.

        Raises:
            LookupError: There is no game ``before``.
        """
        if len(name) > MAX_NAME:
            return None
        games = queries.GAMES
        async with self.database.engine.connect() as connection:
            account = await queries.account(connection, name)
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
            query = queries.newest(cursor is not None, queries.DOWNLOADED)
            values = queries.page_values(account.player, max(want, 1), 0, cursor)
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
        values = queries.board_values(speed)
        async with self.database.engine.connect() as connection:
            rows = (await connection.execute(queries.leaderboard(), values)).all()
            newcomers = (await connection.execute(queries.provisional_board(), values)).all()
        players, provisional = (
            [
                LeaderboardEntry(row.name, round(row.rating), round(row.rd), row.games, row.bot)
                for row in found
            ]
            for found in (rows, newcomers)
        )
        return Leaderboard(
            queries.as_speed(speed), LEADERBOARD_WEEKS, players, LEADERBOARD_OPPONENTS, provisional
        )

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
