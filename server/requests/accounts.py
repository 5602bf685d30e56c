"""Accounts: ``signup`` (a guest takes a name and a password that last), ``login`` and
``change_password``; ``logout`` is ``signin``'s, as for guests.

An account is a row of the database's ``accounts`` table, keyed by player id: a guest who signs
up keeps their id, so their games stay theirs. Its sessions are tokens in Redis, as a guest's
(hashed, expiring after ``Settings.session_ttl`` without use). A password is hashed with
argon2id on the bounded pool of ``server.requests.passwords`` (a login or signup past its queue is
refused at once); it is never logged nor stored. Changing it ends every other session of the
account (a stolen session does not outlive the change); the one that changed it goes on.

Login attempts are counted per address, per address and account name, and per account name
(``LOGINS_PER_ADDRESS``, ``LOGINS_PER_ADDRESS_ACCOUNT``, ``LOGINS_PER_ACCOUNT`` in
``LOGIN_WINDOW``): past the first two they are refused, past the third only slowed, so that
nobody can lock an account's owner out by guessing at it from elsewhere. A wrong password and
an unknown name get the same answer, after the same work (an unknown name is checked against a
hash of nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from ai.bots import LEVELS
from protocol import (
    Account,
    ChangePassword,
    ErrorCode,
    LogIn,
    ProtocolError,
    SignUp,
)
from server.archive.db import tables
from server.archive.games import DATABASE_ERRORS
from server.game import names
from server.game.clock import now_ms
from server.live.session import Session
from server.requests.passwords import hash_password, verify
from server.storage.limits import per_origin

if TYPE_CHECKING:
    from server.archive.db.database import Database
    from server.live.presence import Presence
    from server.requests.passwords import Hashing
    from server.requests.signin import SignIn
    from server.storage.store import Store

_T = TypeVar("_T")

NAME_RE: Final = re.compile(r"[A-Za-z0-9_-]{2,20}")
MAX_NAME_KEY: Final = 24
"""What of a name sent to ``login`` keys its count (no account has a longer one)."""
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 128
LOGIN_WINDOW: Final = 600.0
"""The window of the login limits, in seconds."""
LOGINS_PER_ADDRESS: Final = 30
"""Login attempts (and ``change_password``'s) from one address in ``LOGIN_WINDOW``, on any
names: the next are refused."""
LOGINS_PER_ADDRESS_ACCOUNT: Final = 10
"""Login attempts from one address on one account name in ``LOGIN_WINDOW``: the next are
refused."""
LOGINS_PER_ACCOUNT: Final = 10
"""Login attempts on one account name from every address in ``LOGIN_WINDOW``: the next are
slowed (``SLOW_LOGIN``), never refused, so that no stranger's guesses lock its owner out."""
SLOW_LOGIN: Final = 2.0
"""Seconds an attempt on an account past ``LOGINS_PER_ACCOUNT`` waits before it is checked."""


def account_name(text: str, reserved: frozenset[str]) -> str:
    """``text`` as an account's name: 2-20 letters, digits, ``_`` or ``-``, and no bot's
    (``reserved``: see ``names.reserved``).

    Raises:
        ProtocolError: BAD_NAME saying why not.
    """
    if not NAME_RE.fullmatch(text):
        raise ProtocolError(
            ErrorCode.BAD_NAME, "an account's name has 2 to 20 letters, digits, '_' or '-'"
        )
    words = re.split(r"[_-]+", text.strip("_-"))
    if names.skeleton(text) in reserved or names.skeleton(words[-1]) == "bot":
        raise ProtocolError(ErrorCode.BAD_NAME, f"{text!r} is a bot's name: choose another")
    return text


def check_password(password: str) -> None:
    """Raises: ProtocolError: BAD_PASSWORD when ``password`` is too short or too long, or
    blank (whitespace alone: eight spaces are no password)."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ProtocolError(
            ErrorCode.BAD_PASSWORD,
            f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters",
        )
    if not password.strip():
        raise ProtocolError(
            ErrorCode.BAD_PASSWORD, "a password may not be only spaces or other blanks"
        )


class AccountBook:
    """The ``accounts`` table."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def add(self, player: str, name: str, hashed: str, now: int) -> None:
        """The account of ``player`` (a guest who signs up), and, if the archive has games of
        theirs, their ``players`` row says ``account`` from now on.

        Raises:
            ProtocolError: NAME_TAKEN.
        """
        row = {
            "player": player,
            "name": name,
            "name_key": name.lower(),
            "password": hashed,
            "bot": False,
            "created": now,
            "password_changed": now,
        }
        try:
            async with self.database.engine.begin() as connection:
                await connection.execute(tables.accounts.insert().values(row))
                await connection.execute(
                    update(tables.players)
                    .where(tables.players.c.id == player)
                    .values(kind="account")
                )
        except IntegrityError:
            raise ProtocolError(ErrorCode.NAME_TAKEN, f"the name {name!r} is taken") from None

    async def add_bot(self, player: str, name: str, now: int) -> None:
        """The bot account ``name`` (made by ``hive-server create-bot``), if not there yet.

        Raises:
            ValueError: A person's account has that name (ignoring case).
        """
        found = await self.named(name)
        if found is not None and found.player != player:
            raise ValueError(f"an account is named {found.name!r}")
        if found is not None:
            return
        row = {
            "player": player,
            "name": name,
            "name_key": name.lower(),
            "password": None,
            "bot": True,
            "created": now,
            "password_changed": now,
        }
        async with self.database.engine.begin() as connection:
            await connection.execute(tables.accounts.insert().values(row))

    async def named(self, name: str) -> Any:
        """The account ``name`` (any case), or None."""
        query = select(tables.accounts).where(tables.accounts.c.name_key == name.lower())
        async with self.database.engine.connect() as connection:
            return (await connection.execute(query)).first()

    async def names(self, size: int = 1000) -> AsyncIterator[list[str]]:
        """The names of every person's account, ``size`` at a time."""
        query = select(tables.accounts.c.name).where(tables.accounts.c.bot.is_(False))
        async with self.database.engine.connect() as connection:
            found = await connection.stream(query)
            async for rows in found.partitions(size):
                yield [row.name for row in rows]

    async def of(self, player: str) -> Any:
        query = select(tables.accounts).where(tables.accounts.c.player == player)
        async with self.database.engine.connect() as connection:
            return (await connection.execute(query)).first()

    async def set_password(self, player: str, hashed: str, now: int) -> None:
        change = (
            update(tables.accounts)
            .where(tables.accounts.c.player == player)
            .values(password=hashed, password_changed=now)
        )
        async with self.database.engine.begin() as connection:
            await connection.execute(change)


class Accounts:
    """The account messages' handlers: the accounts in ``database``, their names and sessions
    in ``store``, their passwords hashed on ``hashing``; a login signs in by ``signin``, and a
    signup makes the player's connections here (``presence``) an account's. A session lasts
    ``session_ttl`` seconds without use."""

    def __init__(
        self,
        database: Database,
        store: Store,
        hashing: Hashing,
        signin: SignIn,
        presence: Presence,
        *,
        session_ttl: float,
    ) -> None:
        self.book = AccountBook(database)
        self.store = store
        self.hashing = hashing
        self.signin = signin
        self.presence = presence
        self.session_ttl = session_ttl

    async def recover(self) -> None:
        """On start: every account's name in Redis, folded, so that no guest takes one on
        any process (accounts made before it was kept there, or a Redis that lost it)."""
        async for found in self.book.names():
            await self.store.add_account_names([names.folded(name) for name in found])

    async def signup(self, session: Session, message: SignUp) -> None:
        player = session.player
        assert player is not None
        if session.bot:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "a bot account has no password")
        reserved = names.reserved(LEVELS, await self.store.bot_names())
        name = account_name(message.name, reserved)
        check_password(message.password)
        async with _database():
            if await self.book.of(player) is not None:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "this player has an account")
            if await self.book.named(name) is not None:
                raise ProtocolError(ErrorCode.NAME_TAKEN, f"the name {name!r} is taken")
            hashed = await self._hashed(session, hash_password, message.password)
            # No guest takes the name from now on (before the account is made, lest one
            # take it meanwhile; a name kept for an account that failed is kept for nothing).
            await self.store.add_account_names([names.folded(name)])
            await self.book.add(player, name, hashed, now_ms())
        await self.store.make_account(player, name)
        session.name = name
        for other in self.presence.by_player.get(player, {session}):
            other.account = True  # seated as an account from now on (rated games)
        await session.send(Account(player, name))

    async def login(self, session: Session, message: LogIn) -> None:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_AUTHENTICATED, "already signed in")
        await self._count(session, message.name)
        async with _database():
            found = await self.book.named(message.name)
        hashed = None if found is None or found.bot else found.password
        if not await self._hashed(session, verify, hashed, message.password):
            raise ProtocolError(ErrorCode.BAD_LOGIN, "wrong name or password")
        ttl = int(self.session_ttl)
        token = await self.store.new_session(found.player, found.name, now_ms(), ttl)
        await self.signin.enter(session, found.player, found.name, False, token, account=True)

    async def change_password(self, session: Session, message: ChangePassword) -> None:
        player = session.player
        assert player is not None
        async with _database():
            found = await self.book.of(player)
        if found is None or found.bot:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "only an account has a password")
        await self._count(session, found.name)
        if not await self._hashed(session, verify, found.password, message.old):
            raise ProtocolError(ErrorCode.BAD_PASSWORD, "the old password is wrong")
        check_password(message.new)
        hashed = await self._hashed(session, hash_password, message.new)
        async with _database():
            await self.book.set_password(player, hashed, now_ms())
        await self.store.end_other_sessions(player, session.token)
        await session.send(Account(player, found.name))

    async def _hashed(self, session: Session, work: Callable[..., _T], *args: object) -> _T:
        """``work(*args)`` (a hash or a check) on the password pool (``server.requests.passwords``),
        unless the connection is gone before its turn."""
        return await self.hashing.run(session.is_open, work, *args)

    async def _count(self, session: Session, name: str) -> None:
        """One more attempt at ``name``'s password from this address: refused past the
        limits of the address and of the address on that account, slowed past the account's
        own (a stranger's guesses from elsewhere never refuse its owner's password).

        Raises:
            ProtocolError: RATE_LIMITED.
        """
        store = self.store
        await per_origin(
            store, session.origin, "login", LOGINS_PER_ADDRESS, LOGIN_WINDOW, "login attempts"
        )
        account = "account:" + name.lower()[:MAX_NAME_KEY]
        here = f"{session.origin}:{account}"
        if await store.count_in_window(here, "login", LOGIN_WINDOW, now_ms()) > (
            LOGINS_PER_ADDRESS_ACCOUNT
        ):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {LOGINS_PER_ADDRESS_ACCOUNT} login attempts on one account from one "
                f"address in {LOGIN_WINDOW / 60:.0f} min; wait a little",
            )
        if await store.count_in_window(account, "login", LOGIN_WINDOW, now_ms()) > (
            LOGINS_PER_ACCOUNT
        ):
            await asyncio.sleep(SLOW_LOGIN)  # guessed at from everywhere: slowed, not refused


@contextlib.asynccontextmanager
async def _database() -> AsyncIterator[None]:
    """Turns a database that does not answer into UNAVAILABLE (nothing was changed)."""
    try:
        yield
    except IntegrityError:
        raise
    except DATABASE_ERRORS as error:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
