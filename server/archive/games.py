"""The archive: every finished game written to the database exactly once, then let go from
Redis; and finished games read back from there once Redis has let them go.

Every process sweeps, every ``Settings.archive_interval``: the games of ``hive:over``
(finished, not yet archived) are written to the database, then marked archived in Redis,
whose keys then expire after ``Settings.archive_grace``. A game's row is inserted with
``ON CONFLICT DO NOTHING`` on its id, so two processes sweeping the same game, or a process
killed between the write and the mark (the next sweep writes it again), still leave one row.
To spare the work twice, a process claims a game before archiving it (for ``CLAIM_SECONDS``,
in Redis) and the others pass it by meanwhile; the claim only saves work, the row's
uniqueness is what makes the archive right. Nothing on the path of a move touches the
database: while it is down, games go on in Redis, ``hive:over`` grows, and the sweep catches
up once it answers.

Games that never had two players (an open game cancelled or expired) are not archived: their
keys just expire.

A rated game is rated in the same transaction as its row is inserted (``server.archive.ratings``):
so it is rated once too. Then, before it is marked archived, its ``rated`` event (the rating
changes) is committed to the game in Redis through ``Changes`` like any change, from the
figures stored: a process killed between the database's commit and the event's leaves the
game in ``hive:over``, and the next sweep, finding the row there, commits the event (once:
the rule adds it only to a game that has none). A game chosen rated that the ratings' rules
leave unrated (not fought, or one too many of its pair's in a day) gets an ``unrated`` event
instead, saying why, the same way. A rated game's end wakes the sweep of the
process that ended it (``wake``), so the change shows at once rather than at the next round.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from sqlalchemy import bindparam, select, update
from sqlalchemy.exc import SQLAlchemyError

from protocol import AccountKind, RatingChange, Seat, TimeControl
from server.archive import ratings
from server.archive.db import tables
from server.archive.db.database import Database
from server.game import rating
from server.game.clock import now_ms
from server.game.record import Record
from server.storage.store import STORAGE_ERRORS, Store

log = logging.getLogger(__name__)

DATABASE_ERRORS: Final = (SQLAlchemyError, OSError, TimeoutError)
"""What a database that is down, or gone away, raises."""
ARCHIVE_ERRORS: Final = (*STORAGE_ERRORS, *DATABASE_ERRORS)
"""What reading a game may raise when Redis or the database does not answer."""
SWEEP_BATCH: Final = 100
"""Games archived at most per round of the sweep (the next round goes on at once)."""
CLAIM_SECONDS: Final = 10
"""How long a process's claim on archiving a game holds (``Store.claim_archive``): a
process killed while archiving leaves the game to the others after this."""


Announce = Callable[[str, list[RatingChange], str | None], Awaitable[None]]
"""Commits a finished game's ``rated`` event, with its rating changes, to Redis; or, with no
changes, its ``unrated`` event with why."""
PAIR_GAMES: Final = 10
"""Rated games of one pair of accounts that count in 24 hours (``Settings.rated_pair_games``)."""


def _kind(seat: Seat) -> str:
    if seat.bot is not None:
        return "level"
    return seat.account  # "guest", "account" or "bot"


def _signed_up() -> Any:
    """The UPDATE that makes the ``players`` rows of ``ids`` (its parameter) that say
    ``guest`` say ``account`` when the player has one: a guest who signed up during the game
    (their seat still says guest; ``Accounts.signup`` updates only the rows already there)."""
    players, accounts = tables.players, tables.accounts
    ids: Any = bindparam("ids", expanding=True)
    people = select(accounts.c.player).where(accounts.c.player.in_(ids), accounts.c.bot.is_(False))
    return (
        update(players)
        .where(players.c.id.in_(people), players.c.kind == "guest")
        .values(kind="account")
    )


SIGNED_UP: Final = _signed_up()


def _rateable(record: Record) -> bool:
    """Whether the finished ``record`` changes its players' ratings: chosen rated, between
    accounts, with a clock, and it had a result (not aborted)."""
    seats = (record.white, record.black)
    return (
        record.rated
        and record.result is not None
        and record.reason != "aborted"
        and rating.speed(record.time) is not None
        and all(s is not None and s.account != "guest" and s.bot is None for s in seats)
    )


def _row(record: Record, white: Seat, black: Seat, *, ended: int, archived: int) -> dict[str, Any]:
    """The ``games`` row of the finished ``record`` (not rated yet: ``rate`` does that)."""
    time = record.time
    return {
        "id": record.id,
        "game_type": record.game_type,
        "white": white.player,
        "black": black.player,
        "white_name": white.name,
        "black_name": black.name,
        "white_level": white.bot,
        "black_level": black.bot,
        "result": record.result,
        "reason": record.reason,
        "time_kind": time.kind,
        "time_base": time.base,
        "time_increment": time.increment,
        "time_days": time.days,
        "moves": ";".join(record.moves),
        "plies": len(record.moves),
        "created": record.created,
        "ended": ended,
        "rated": False,
        "rematch_of": record.rematch_of,
        "archived": archived,
        "speed": rating.speed(time),
        "tournament": record.tournament,
    }


class Archive:
    """Finished games: in Redis while there, else in the database.

    Args:
        store: The Redis store.
        database: The database (migrated).
        announce: Commits a rated game's ``rated`` or ``unrated`` event (None: it is not, as
            in a tool that only writes the archive). The server's wiring gives it once
            ``Changes`` is made (as ``announce``): the changes wake the archive when a rated
            game ends, so each needs the other.
        pair_games: Rated games of one pair of accounts that count in 24 hours.
    """

    def __init__(
        self,
        store: Store,
        database: Database,
        announce: Announce | None = None,
        *,
        pair_games: int = PAIR_GAMES,
    ) -> None:
        self.store = store
        self.database = database
        # The statements of every write, made once: their values are parameters, so that each
        # write neither builds them again nor works out their cache keys (a third of a write's
        # CPU when the game's row went in as the statement's values).
        self._insert_players = database.insert(tables.players).on_conflict_do_nothing()
        self._insert_game = database.insert(tables.games).on_conflict_do_nothing()
        self.announce = announce
        self.pair_games = pair_games
        self.woken = asyncio.Event()
        """Set when a rated game ended here: the sweep goes round at once."""
        self.written = 0
        """Games this process wrote to the database (not counting those written already)."""
        self.rounds = 0
        """Rounds of the sweep done."""
        self.waiting = 0
        """Finished games not yet archived, at the sweep's last look."""
        self.up = True
        """Whether the sweep's last round reached Redis and the database."""

    async def write(
        self, record: Record, traces: dict[int, tuple[bytes, int]] | None = None, now: int = 0
    ) -> bool:
        """Write the finished ``record`` (and its bots' search traces: ply -> (gzipped JSON,
        milliseconds left)) to the database. False: it was there already; nothing changed.

        Raises:
            ValueError: ``record`` is not a finished game with both its players.
        """
        white, black = record.white, record.black
        if record.status != "over" or white is None or black is None or record.reason is None:
            raise ValueError(f"game {record.id} is not a finished game between two players")
        now = now or now_ms()
        db = self.database
        people = [
            {"id": seat.player, "name": seat.name, "kind": _kind(seat), "created": now}
            for seat in sorted((white, black), key=lambda seat: seat.player)
        ]  # in the order of their ids, as any other transaction writing them: no deadlock
        pool = rating.speed(record.time)
        ended = record.ended if record.ended is not None else now
        game = _row(record, white, black, ended=ended, archived=now)
        async with db.engine.begin() as connection:
            await connection.execute(self._insert_players, people)
            await connection.execute(SIGNED_UP, {"ids": [white.player, black.player]})
            done = await connection.execute(self._insert_game, game)
            if done.rowcount != 1:
                return False
            if pool is not None and record.result is not None and _rateable(record):
                await ratings.rate(
                    connection,
                    db.insert,
                    game_id=record.id,
                    players=(white.player, black.player),
                    pool=pool,
                    result=record.result,
                    ended=ended,
                    plies=len(record.moves),
                    pair_games=self.pair_games,
                )
            kept = [
                {"game": record.id, "ply": ply, "body": body, "expires": now + left}
                for ply, (body, left) in (traces or {}).items()
                if ply <= len(record.moves)  # not a move the game's end overtook
            ]
            if kept:
                await connection.execute(db.insert(tables.traces), kept)
        self.written += 1
        return True

    async def archive(self, game_id: str, grace: int) -> bool:
        """Archive one finished game from Redis and let its keys expire in ``grace`` s.
        False: another process is archiving it (its claim); nothing done."""
        store = self.store
        if not await store.claim_archive(game_id, CLAIM_SECONDS):
            return False
        try:
            await self._archive(game_id, grace)
        except BaseException:
            with contextlib.suppress(*STORAGE_ERRORS):  # else the claim lapses
                await store.release_archive(game_id)
            raise
        return True

    async def archive_finished(self, game_id: str, grace: int) -> Record | None:
        """Archive ``game_id`` now if it has finished and waits for the sweep (a review asked
        for the moment it ended): its record, archived here or, when another process holds
        the claim, there. None: no finished game of that id waits (unknown, or not over)."""
        store = self.store
        if not await store.is_finished(game_id):
            return None
        record = await store.get(game_id)
        if record is None or record.status != "over":
            return None
        await self.archive(game_id, grace)
        return record

    async def _archive(self, game_id: str, grace: int) -> None:
        store = self.store
        record = await store.get(game_id)
        if record is None:  # gone already
            await store.drop_finished(game_id)
            return
        plies = len(record.moves)
        white, black = record.white, record.black
        # Search traces: only of the server's bots' moves.
        traced = any(seat is not None and seat.bot is not None for seat in (white, black))
        if white is not None and black is not None:
            await self.write(record, await store.traces(game_id, plies) if traced else {})
            told = record.rating_changes or record.unrated is not None
            if _rateable(record) and not told and self.announce is not None:
                async with self.database.engine.connect() as connection:
                    made = await ratings.changes(connection, game_id)
                    why = None if made else await self._why_unrated(connection, record)
                await self.announce(game_id, made, why)
        await store.archived(game_id, plies, grace, traced=traced)

    async def _why_unrated(self, connection: Any, record: Record) -> str:
        """Why the archived ``record``, chosen rated, changed no rating."""
        assert record.white is not None and record.black is not None
        why = await ratings.why_unrated(
            connection,
            game_id=record.id,
            players=(record.white.player, record.black.player),
            plies=len(record.moves),
            ended=record.ended if record.ended is not None else now_ms(),
            pair_games=self.pair_games,
        )
        return why or "the rating's rules did not count it"

    async def sweep_once(self, grace: int) -> int:
        """Archive the finished games waiting; how many there were."""
        count = 0
        while True:
            waiting = await self.store.finished(SWEEP_BATCH)
            failed = elsewhere = False
            for game_id in waiting:
                try:
                    elsewhere |= not await self.archive(game_id, grace)
                except ARCHIVE_ERRORS:
                    raise
                except Exception:  # one game's failure must not stop the others' archive
                    log.exception("game %s: not archived", game_id)
                    failed = True  # it is still first in line: no other batch this round
            count += len(waiting)
            # A game claimed by another process stays in line while it works: the same
            # batch again would find it again.
            if failed or elsewhere or len(waiting) < SWEEP_BATCH:
                self.rounds += 1
                return count

    async def sweep(self, *, interval: float, grace: int) -> None:
        """Forever: archive what has finished, every ``interval`` seconds
        (``Settings.archive_interval``), letting Redis keep each game ``grace`` seconds more
        (``Settings.archive_grace``). While Redis or the database is away, say so once and try
        again at the next round."""
        away = False
        while True:
            try:
                self.waiting = await self.store.finished_count()
                await self.sweep_once(grace)
                if away:
                    log.info("archive: caught up")
                away = False
            except ARCHIVE_ERRORS as error:
                if not away:
                    log.warning("archive: storage unavailable, will catch up (%s)", error)
                away = True
            self.up = not away
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(interval):
                    await self.woken.wait()
            self.woken.clear()

    def wake(self) -> None:
        """A rated game ended here: archive it now (rather than at the sweep's next round)."""
        self.woken.set()

    # -- reading -------------------------------------------------------------------------------

    async def get(self, game_id: str) -> Record | None:
        """The game: from Redis, else from the archive (None: neither has it)."""
        record = await self.store.get(game_id)
        if record is not None:
            return record
        games = tables.games
        async with self.database.engine.connect() as connection:
            found = await connection.execute(
                select(games, *_kinds())
                .join_from(games, _WHITE, games.c.white == _WHITE.c.id)
                .join(_BLACK, games.c.black == _BLACK.c.id)
                .where(games.c.id == game_id)
            )
            row = found.mappings().first()
        return None if row is None else _record(row)

    async def trace(self, game_id: str, ply: int) -> bytes | None:
        """A bot move's search trace: from Redis, else from the archive while kept."""
        trace = await self.store.get_trace(game_id, ply)
        if trace is not None:
            return trace
        traces = tables.traces
        async with self.database.engine.connect() as connection:
            found = await connection.execute(
                select(traces.c.body).where(
                    traces.c.game == game_id, traces.c.ply == ply, traces.c.expires > now_ms()
                )
            )
            body: bytes | None = found.scalar()
        return body


_WHITE: Final = tables.players.alias("white_player")
_BLACK: Final = tables.players.alias("black_player")


def _kinds() -> list[Any]:
    return [_WHITE.c.kind.label("white_kind"), _BLACK.c.kind.label("black_kind")]


def _seat(row: Any, color: str) -> Seat:
    kind = row[f"{color}_kind"]
    account: AccountKind = "bot" if kind in ("bot", "level") else kind
    return Seat(row[color], row[f"{color}_name"], bot=row[f"{color}_level"], account=account)


def _record(row: Any) -> Record:
    """An archived game as a ``Record`` (what the routes need: no chat, no clocks)."""
    return Record(
        id=row["id"],
        game_type=row["game_type"],
        time=TimeControl(
            row["time_kind"], row["time_base"], row["time_increment"], row["time_days"]
        ),
        status="over",
        created=row["created"],
        creator=row["white"],
        creator_color="white",
        seed=0,
        white=_seat(row, "white"),
        black=_seat(row, "black"),
        moves=row["moves"].split(";") if row["moves"] else [],
        result=row["result"],
        reason=row["reason"],
        ended=row["ended"],
        rematch_of=row["rematch_of"],
        tournament=row["tournament"],
    )
