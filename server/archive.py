"""The archive: every finished game written to the database exactly once, then let go from
Redis; and finished games read back from there once Redis has let them go.

Every process sweeps, every ``Settings.archive_interval``: the games of ``hive:over``
(finished, not yet archived) are written to the database, then marked archived in Redis,
whose keys then expire after ``Settings.archive_grace``. A game's row is inserted with
``ON CONFLICT DO NOTHING`` on its id, so two processes sweeping the same game, or a process
killed between the write and the mark (the next sweep writes it again), still leave one row.
Nothing on the path of a move touches the database: while it is down, games go on in Redis,
``hive:over`` grows, and the sweep catches up once it answers.

Games that never had two players (an open game cancelled or expired) are not archived: their
keys just expire.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from server.clock import now_ms
from server.db import tables
from server.db.database import Database
from server.protocol import Seat, TimeControl
from server.record import Record
from server.store import STORAGE_ERRORS, Store

if TYPE_CHECKING:
    from server.runtime import Hub

log = logging.getLogger(__name__)

DATABASE_ERRORS: Final = (SQLAlchemyError, OSError, TimeoutError)
"""What a database that is down, or gone away, raises."""
ARCHIVE_ERRORS: Final = (*STORAGE_ERRORS, *DATABASE_ERRORS)
"""What reading a game may raise when Redis or the database does not answer."""
SWEEP_BATCH: Final = 100
"""Games archived at most per round of the sweep (the next round goes on at once)."""


def _kind(seat: Seat) -> str:
    if seat.bot is not None:
        return "level"
    return "bot" if seat.account == "bot" else "guest"


class Archive:
    """Finished games: in Redis while there, else in the database.

    Args:
        store: The Redis store.
        database: The database (migrated).
    """

    def __init__(self, store: Store, database: Database) -> None:
        self.store = store
        self.database = database
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
            for seat in (white, black)
        ]
        time = record.time
        game = {
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
            "ended": record.ended if record.ended is not None else now,
            "rated": False,
            "rematch_of": record.rematch_of,
            "archived": now,
        }
        async with db.engine.begin() as connection:
            await connection.execute(db.insert(tables.players).on_conflict_do_nothing(), people)
            done = await connection.execute(
                db.insert(tables.games).values(game).on_conflict_do_nothing()
            )
            if done.rowcount != 1:
                return False
            kept = [
                {"game": record.id, "ply": ply, "body": body, "expires": now + left}
                for ply, (body, left) in (traces or {}).items()
                if ply <= len(record.moves)  # not a move the game's end overtook
            ]
            if kept:
                await connection.execute(db.insert(tables.traces), kept)
        self.written += 1
        return True

    async def archive(self, game_id: str, grace: int) -> None:
        """Archive one finished game from Redis and let its keys expire in ``grace`` s."""
        store = self.store
        record = await store.get(game_id)
        if record is None:  # gone already
            await store.drop_finished(game_id)
            return
        plies = len(record.moves)
        white, black = record.white, record.black
        if white is not None and black is not None:
            has_traces = white.bot is not None or black.bot is not None  # the server's bots
            await self.write(record, await store.traces(game_id, plies) if has_traces else {})
        await store.archived(game_id, plies, grace)

    async def sweep_once(self, grace: int) -> int:
        """Archive the finished games waiting; how many there were."""
        count = 0
        while True:
            waiting = await self.store.finished(SWEEP_BATCH)
            failed = False
            for game_id in waiting:
                try:
                    await self.archive(game_id, grace)
                except ARCHIVE_ERRORS:
                    raise
                except Exception:  # one game's failure must not stop the others' archive
                    log.exception("game %s: not archived", game_id)
                    failed = True  # it is still first in line: no other batch this round
            count += len(waiting)
            if failed or len(waiting) < SWEEP_BATCH:
                self.rounds += 1
                return count

    async def sweep(self, hub: Hub) -> None:
        """Forever: archive what has finished, every ``Settings.archive_interval``. While Redis
        or the database is away, say so once and try again at the next round."""
        settings = hub.settings
        away = False
        while True:
            try:
                self.waiting = await self.store.finished_count()
                await self.sweep_once(int(settings.archive_grace))
                if away:
                    log.info("archive: caught up")
                away = False
            except ARCHIVE_ERRORS as error:
                if not away:
                    log.warning("archive: storage unavailable, will catch up (%s)", error)
                away = True
            self.up = not away
            await asyncio.sleep(settings.archive_interval)

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
    return Seat(
        row[color],
        row[f"{color}_name"],
        bot=row[f"{color}_level"],
        account="guest" if kind == "guest" else "bot",
    )


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
    )
