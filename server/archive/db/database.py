"""The database's engine and its migrations.

``--database-url`` names it (env ``HIVE_DATABASE_URL``): PostgreSQL as
``postgresql+asyncpg://USER:PASSWORD@HOST/NAME`` (a bare ``postgresql://`` is read as asyncpg),
or any SQLAlchemy URL of an async driver. Without it the database is a SQLite file under
``--data`` (``hive.sqlite3``, through aiosqlite), in WAL mode so that several processes on one
machine may share it. The schema is brought up to date by Alembic on start (``migrate``; the
scripts are ``server/archive/db/migrations``), or alone by ``hive-server migrate``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Final

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Table, event, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

log = logging.getLogger(__name__)

MIGRATIONS: Final = Path(__file__).resolve().parent / "migrations"
SQLITE_FILE: Final = "hive.sqlite3"
MIGRATION_LOCK: Final = 0x48495645  # "HIVE": PostgreSQL's advisory lock while migrating
CONNECT_SECONDS: Final = 5.0
"""Longest wait for a connection to PostgreSQL (the archive tries again later)."""


def default_url(data: Path) -> str:
    """The embedded database: a SQLite file under ``data``."""
    return f"sqlite+aiosqlite:///{(data / SQLITE_FILE).resolve()}"


DIALECTS: Final = ("postgresql", "sqlite")
"""The databases the archive runs on."""


def checked_url(url: str) -> str:
    """``url`` if it names a database the archive runs on.

    Raises:
        ValueError: It is no URL, or names another database.
    """
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError:
        raise ValueError(f"not a database URL: {_quoted(url)}") from None
    if backend not in DIALECTS:
        raise ValueError(f"the archive runs on PostgreSQL or SQLite, not {backend}")
    return url


def _quoted(url: str) -> str:
    """``url`` quoted, unless it may hold a password."""
    return "the one given" if "@" in url else repr(url)


def async_url(url: str) -> str:
    """``url`` with its async driver: ``postgresql://`` -> asyncpg, ``sqlite://`` ->
    aiosqlite; any other URL as it is."""
    parsed = make_url(url)
    driver = {"postgresql": "postgresql+asyncpg", "sqlite": "sqlite+aiosqlite"}
    if parsed.drivername in driver:
        parsed = parsed.set(drivername=driver[parsed.drivername])
    return parsed.render_as_string(hide_password=False)


def shown(url: str) -> str:
    """``url`` without its password, for logs."""
    return make_url(url).render_as_string(hide_password=True)


class Database:
    """The engine of one database (one pool of connections, per process).

    Args:
        url: A SQLAlchemy URL (``async_url`` picks the async driver).
    """

    def __init__(self, url: str) -> None:
        self.url = async_url(checked_url(url))
        parsed = make_url(self.url)
        self.dialect = parsed.get_backend_name()
        options: dict[str, Any] = {}
        if self.dialect == "sqlite":
            path = parsed.database
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
        elif self.dialect == "postgresql":
            options = {"pool_pre_ping": True, "connect_args": {"timeout": CONNECT_SECONDS}}
        self.engine: AsyncEngine = create_async_engine(self.url, **options)
        if self.dialect == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)

    def insert(self, table: Table) -> Any:
        """An INSERT of ``table`` in this database's dialect (for ``on_conflict_do_nothing``)."""
        if self.dialect == "postgresql":
            return postgresql.insert(table)
        if self.dialect == "sqlite":
            return sqlite.insert(table)
        raise ValueError(f"the archive needs PostgreSQL or SQLite, not {self.dialect}")

    async def migrate(self, revision: str = "head") -> None:
        """Bring the schema up to date (Alembic's ``upgrade head``; or up to ``revision``);
        on PostgreSQL under an advisory lock, so that processes starting together migrate one
        after the other."""
        async with self.engine.begin() as connection:
            if self.dialect == "postgresql":
                await connection.execute(select(func.pg_advisory_xact_lock(MIGRATION_LOCK)))
            await connection.run_sync(_upgrade, revision)

    async def close(self) -> None:
        await self.engine.dispose()


def _upgrade(connection: Connection, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def _sqlite_pragmas(connection: Any, _: Any) -> None:
    """Each new SQLite connection: write-ahead log (readers never wait for the writer), wait
    up to 10 s for another process's write, and check foreign keys."""
    cursor = connection.cursor()
    for pragma in ("journal_mode=WAL", "busy_timeout=10000", "foreign_keys=ON"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()
