"""Accounts, on SQLite and on a real PostgreSQL server (``database_url`` is each in turn):
signup (a guest keeps its player id and its games), names unique ignoring case and never a
bot's, login (one answer for a wrong password and an unknown name; limited per account and
per address), change_password (every other session ends), and a password that is never
logged nor stored."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from sqlalchemy import select
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import (
    SIGNED_OUT,
    Account,
    ChangePassword,
    Error,
    ErrorCode,
    LogIn,
    Ping,
    Pong,
    SignUp,
    TimeControl,
    decode_server,
    encode,
)
from protocol.client import Client, ServerError
from server.archive.db import tables
from server.archive.db.database import Database
from server.requests.accounts import (
    LOGINS_PER_ACCOUNT,
    LOGINS_PER_ADDRESS,
    LOGINS_PER_ADDRESS_ACCOUNT,
)
from tests.server.conftest import Running, StartServer
from tests.server.support import create_bot, start_game
from tests.support import until

PASSWORD = "correct horse battery"


async def accounts(url: str) -> list[dict[str, Any]]:
    database = Database(url)
    try:
        async with database.engine.connect() as connection:
            found = await connection.execute(select(tables.accounts))
            return [dict(row) for row in found.mappings()]
    finally:
        await database.close()


async def refusal(client: Client, message: Any) -> Error:
    await client.send(message)
    return await client.expect(Error)


async def sign_up(client: Client, name: str, password: str = PASSWORD) -> Account:
    await client.send(SignUp(name, password))
    return await client.expect(Account)


def logged_in(srv: Running, name: str, password: str, address: str | None = None) -> Any:
    """A connection logged in to ``name``, from ``address`` (said in ``X-Forwarded-For``, to
    a server that trusts 127.0.0.1 as its proxy) if given."""
    headers = None if address is None else {"X-Forwarded-For": address}
    return Client.connect(srv.ws_url, nickname=name, password=password, headers=headers)


async def login_refused(
    srv: Running, name: str, password: str, address: str | None = None
) -> Error:
    with pytest.raises(ServerError) as refused:
        async with logged_in(srv, name, password, address):
            pass
    return refused.value.error


async def test_a_guest_signs_up_keeps_its_id_and_games_and_logs_in(
    start_server: StartServer, database_url: str
) -> None:
    async with start_server(database_url=database_url) as srv:
        async with (
            Client.connect(srv.ws_url, nickname="ann") as ann,
            Client.connect(srv.ws_url, nickname="bob") as bob,
        ):
            game, _, _ = await start_game(ann, bob, time=TimeControl("clock", 300, 5))
            assert ann.welcome.account is False
            account = await sign_up(ann, "Ann_1")
            assert account == Account(ann.player, "Ann_1")
        async with Client.connect(srv.ws_url, nickname="ANN_1", password=PASSWORD) as again:
            assert again.player == ann.player
            assert again.welcome.nickname == "Ann_1" and again.welcome.account is True
            assert game in again.welcome.games
            assert again.welcome.token != ann.welcome.token
        # The guest's session goes on as the account's.
        async with Client.connect(srv.ws_url, token=ann.welcome.token) as resumed:
            assert (resumed.player, resumed.welcome.nickname) == (ann.player, "Ann_1")
            assert resumed.welcome.account is True
    rows = await accounts(database_url)
    assert [(r["player"], r["name"], r["name_key"], r["bot"]) for r in rows] == [
        (ann.player, "Ann_1", "ann_1", False)
    ]


async def test_an_account_name_is_not_renamed_by_hello(srv: Running) -> None:
    async with Client.connect(srv.ws_url, nickname="cat") as cat:
        await sign_up(cat, "cat")
    with pytest.raises(ServerError) as refused:
        async with Client.connect(srv.ws_url, nickname="kitty", token=cat.welcome.token):
            pass
    assert refused.value.error.code == ErrorCode.NOT_ALLOWED


@pytest.fixture
async def srv_proxied(start_server: StartServer) -> AsyncIterator[Running]:
    """A server that trusts 127.0.0.1 as its proxy: a client says its address."""
    async with start_server(trusted_proxies="127.0.0.1") as running_server:
        yield running_server


async def hello_refused(srv: Running, nickname: str, token: str | None = None) -> Error:
    with pytest.raises(ServerError) as refused:
        async with Client.connect(srv.ws_url, nickname=nickname, token=token):
            pass
    return refused.value.error


async def test_a_guest_never_takes_an_accounts_name_on_any_process(
    start_server: StartServer,
) -> None:
    """Not as it is, nor in another case, with other separators or in full-width letters;
    neither as a new guest nor by a rename, on the process that made the account or another
    (one Redis, one database); and once more after a restart that finds the name in the
    database alone (an account made before names were kept in Redis)."""
    taken = [
        "magnus_c",
        "Magnus_C",
        "\uff4d\uff41\uff47\uff4e\uff55\uff53_c",
        "MAGNUS C",
        "magnus.c",
    ]
    async with start_server() as one, start_server() as two:
        async with one.connect("mc") as mc:
            await sign_up(mc, "magnus_c")
        async with two.connect("kim") as kim:
            pass
        for srv in (one, two):
            for nickname in taken:
                refused = await hello_refused(srv, nickname)
                assert refused.code == ErrorCode.NAME_TAKEN, nickname
                assert "an account's name" in refused.message, refused.message
                renamed = await hello_refused(srv, nickname, kim.welcome.token)
                assert renamed.code == ErrorCode.NAME_TAKEN, nickname
        async with two.connect(token=kim.welcome.token) as again:
            assert again.welcome.nickname == "kim"
        async with two.connect("magnus") as other:  # another name is free
            assert other.welcome.nickname == "magnus"
        await one.hub.store.redis.delete("hive:account-names")
    async with start_server() as three:
        for nickname in taken:
            assert (await hello_refused(three, nickname)).code == ErrorCode.NAME_TAKEN


async def test_a_guest_whose_name_an_account_took_since_gives_it_up(srv: Running) -> None:
    """A guest named ``Magnus C`` before anyone signed up as ``magnus_c`` is renamed at its
    next hello with its token (``Magnus C guest``): an old guest's session does not keep an
    account's name."""
    async with srv.connect("Magnus C") as early:
        pass
    async with srv.connect("mc") as mc:
        await sign_up(mc, "magnus_c")
    async with srv.connect(token=early.welcome.token) as again:
        assert again.player == early.player
        assert again.welcome.nickname == "Magnus C guest"
    async with srv.connect("a-b-c-d-e-f-g-h-i-j-k-l") as long:  # 23 characters
        pass
    async with srv.connect("ab") as ab:
        await sign_up(ab, "ABCDEFGHIJKL")
    async with srv.connect(token=long.welcome.token) as again:
        assert again.welcome.nickname == "a-b-c-d-e-f-g-h-i- guest"  # cut to 24


async def test_names_are_unique_ignoring_case(start_server: StartServer, database_url: str) -> None:
    async with (
        start_server(database_url=database_url) as srv,
        Client.connect(srv.ws_url, nickname="ann") as ann,
        Client.connect(srv.ws_url, nickname="bob") as bob,
    ):
        await sign_up(ann, "Queen")
        for name in ["queen", "QUEEN", "Queen"]:
            refused = await refusal(bob, SignUp(name, PASSWORD))
            assert refused.code == ErrorCode.NAME_TAKEN, name
        # One account a player.
        assert (await refusal(ann, SignUp("Queen2", PASSWORD))).code == ErrorCode.NOT_ALLOWED
        await sign_up(bob, "Queen-2")
    assert sorted(r["name"] for r in await accounts(database_url)) == ["Queen", "Queen-2"]


async def test_bad_and_reserved_names_and_bad_passwords_are_refused_clearly(
    start_server: StartServer, database_url: str
) -> None:
    async with start_server(database_url=database_url) as srv:
        _, bot_token = await srv.hub.store.new_bot("Robo", 0)
        async with Client.connect(srv.ws_url, nickname="ann") as ann:
            for name, why in [
                ("a", "2 to 20"),
                ("x" * 21, "2 to 20"),
                ("has space", "2 to 20"),
                ("ädå", "2 to 20"),
                ("bob!", "2 to 20"),
                ("beginner", "bot's name"),
                ("EXPERT", "bot's name"),
                ("hard_bot", "bot's name"),
                ("robo", "bot's name"),
                ("ROBO", "bot's name"),
            ]:
                refused = await refusal(ann, SignUp(name, PASSWORD))
                assert refused.code == ErrorCode.BAD_NAME, name
                assert why in refused.message, (name, refused.message)
            for password in ["short", "x" * 7, "x" * 129]:
                refused = await refusal(ann, SignUp("ann", password))
                assert refused.code == ErrorCode.BAD_PASSWORD
                assert "8 to 128 characters" in refused.message
            # A name at each end of its length, and passwords at each end of theirs.
            await sign_up(ann, "A" * 20, "x" * 128)
        async with Client.connect(srv.ws_url, nickname="bo") as bo:
            await sign_up(bo, "bo", "y" * 8)
        async with Client.connect(srv.ws_url, token=bot_token) as robo:
            refused = await refusal(robo, SignUp("robo2", PASSWORD))
            assert refused.code == ErrorCode.NOT_ALLOWED
        # A bot account has no password to log in with.
        assert (await login_refused(srv, "Robo", "")).code == ErrorCode.BAD_LOGIN
    assert sorted(r["name"] for r in await accounts(database_url)) == ["A" * 20, "bo"]


async def test_a_blank_password_is_refused(srv: Running) -> None:
    """Eight spaces (or any whitespace alone) are the right length, and no password."""
    async with srv.connect("gil") as gil:
        for password in [" " * 8, "\t \n" * 3, "\u3000" * 10]:
            refused = await refusal(gil, SignUp("gil", password))
            assert refused.code == ErrorCode.BAD_PASSWORD, repr(password)
            assert "only spaces" in refused.message
        await sign_up(gil, "gil", " spaced out ")
        refused = await refusal(gil, ChangePassword(" spaced out ", " " * 12))
        assert refused.code == ErrorCode.BAD_PASSWORD and "only spaces" in refused.message


async def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(
    start_server: StartServer, database_url: str
) -> None:
    async with start_server(database_url=database_url) as srv:
        async with Client.connect(srv.ws_url, nickname="dee") as dee:
            await sign_up(dee, "dee")
        wrong = await login_refused(srv, "dee", PASSWORD + "!")
        unknown = await login_refused(srv, "nobody", PASSWORD)
        assert wrong.code == unknown.code == ErrorCode.BAD_LOGIN
        assert wrong.message == unknown.message
        async with Client.connect(srv.ws_url, nickname="DEE", password=PASSWORD) as again:
            assert again.player == dee.player
            # Once signed in, a login is refused.
            refused = await refusal(again, LogIn("dee", PASSWORD))
            assert refused.code == ErrorCode.ALREADY_AUTHENTICATED


async def test_login_attempts_are_limited_per_account_and_address_then_per_address(
    start_server: StartServer, database_url: str
) -> None:
    async with start_server(database_url=database_url, trusted_proxies="127.0.0.1") as srv:
        for name in ["eve", "fay"]:
            async with Client.connect(srv.ws_url, nickname=name) as guest:
                await sign_up(guest, name)
        for _ in range(LOGINS_PER_ADDRESS_ACCOUNT):
            refused = await login_refused(srv, "EVE", "wrong password", "10.0.0.1")
            assert refused.code == ErrorCode.BAD_LOGIN
        # This address has guessed at the account too often...
        refused = await login_refused(srv, "eve", PASSWORD, "10.0.0.1")
        assert refused.code == ErrorCode.RATE_LIMITED
        assert "one account from one address" in refused.message
        # ... another account from the same address still logs in...
        async with logged_in(srv, "fay", PASSWORD, "10.0.0.1"):
            pass
        # ... until the address has tried too often, on any names.
        tried = LOGINS_PER_ADDRESS_ACCOUNT + 2
        for number in range(LOGINS_PER_ADDRESS - tried):
            refused = await login_refused(srv, f"name{number}", PASSWORD, "10.0.0.1")
            assert refused.code == ErrorCode.BAD_LOGIN
        refused = await login_refused(srv, "fay", PASSWORD, "10.0.0.1")
        assert refused.code == ErrorCode.RATE_LIMITED and "one address" in refused.message
        # The owner, elsewhere, is not locked out.
        async with logged_in(srv, "eve", PASSWORD, "10.0.0.2") as eve:
            assert eve.welcome.nickname == "eve"


async def test_a_strangers_guesses_never_lock_the_owner_out(srv_proxied: Running) -> None:
    """Guesses at an account from many addresses, more than it may take (each address under
    its own limits), slow its logins down but never refuse its owner's right password."""
    srv = srv_proxied
    async with srv.connect("gus") as gus:
        await sign_up(gus, "gus")
    guesses = LOGINS_PER_ACCOUNT + 5
    for number in range(guesses):
        address = f"10.0.1.{number % 3}"
        refused = await login_refused(srv, "gus", f"guess number {number}", address)
        assert refused.code == ErrorCode.BAD_LOGIN
    async with logged_in(srv, "GUS", PASSWORD, "10.0.2.1") as owner:
        assert owner.player == gus.player and owner.welcome.account is True


async def test_changing_the_password_ends_every_other_session(
    start_server: StartServer, database_url: str
) -> None:
    async with (
        start_server(database_url=database_url) as srv,
        Client.connect(srv.ws_url, nickname="gus") as gus,
    ):
        await sign_up(gus, "gus")
        async with Client.connect(srv.ws_url, nickname="gus", password=PASSWORD) as other:
            wrong = await refusal(gus, ChangePassword("not it", "a new password"))
            assert wrong.code == ErrorCode.BAD_PASSWORD and "old password" in wrong.message
            short = await refusal(gus, ChangePassword(PASSWORD, "short"))
            assert short.code == ErrorCode.BAD_PASSWORD and "8 to 128" in short.message
            await gus.send(ChangePassword(PASSWORD, "a new password"))
            assert await gus.expect(Account) == Account(gus.player, "gus")
            with pytest.raises(ConnectionClosed) as closed:
                await other.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == SIGNED_OUT
        with pytest.raises(ServerError) as ended:
            async with Client.connect(srv.ws_url, token=other.welcome.token):
                pass
        assert ended.value.error.code == ErrorCode.BAD_TOKEN
        # This session goes on, and its token still signs in.
        await gus.send(Ping(1.0))
        await gus.expect(Pong)
        async with Client.connect(srv.ws_url, token=gus.welcome.token) as same:
            assert same.player == gus.player
        assert (await login_refused(srv, "gus", PASSWORD)).code == ErrorCode.BAD_LOGIN
        async with Client.connect(srv.ws_url, nickname="gus", password="a new password") as new:
            assert new.player == gus.player
        # A guest has no password to change.
        async with Client.connect(srv.ws_url, nickname="hal") as hal:
            refused = await refusal(hal, ChangePassword(PASSWORD, "a new password"))
            assert refused.code == ErrorCode.NOT_ALLOWED


async def test_a_password_is_never_logged_nor_stored_plain(
    start_server: StartServer, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    first, second = "Sekrit-Passw0rd-first", "Sekrit-Passw0rd-second"
    with caplog.at_level(logging.DEBUG):
        async with start_server(database_url=database_url) as srv:
            async with Client.connect(srv.ws_url, nickname="ivy") as ivy:
                await sign_up(ivy, "ivy", first)
                await ivy.send(ChangePassword(first, second))
                await ivy.expect(Account)
                await ivy.send(ChangePassword(first, second))  # wrong old one
                await ivy.expect(Error)
                await ivy.ws.send(encode(SignUp("ivy", second))[:-3])  # damaged
                await ivy.expect(Error)
            await login_refused(srv, "ivy", first)
            await login_refused(srv, "nobody", second)
            async with Client.connect(srv.ws_url, nickname="ivy", password=second):
                pass
            redis = aioredis.Redis.from_url(srv.redis_url)
            try:
                stored = [await redis.dump(key) async for key in redis.scan_iter()]
            finally:
                await redis.aclose()
    # What any log would hold, at every level (websockets' DEBUG lines show a frame's first
    # bytes in hex: a password shows in no line, though a record's args hold the frame).
    logged = "\n".join(f"{r.getMessage()} {r.exc_text}" for r in caplog.records)
    (row,) = await accounts(database_url)
    assert row["password"].startswith("$argon2id$")
    for password in (first, second):
        assert password not in logged
        assert password not in repr(row)
        assert not any(password.encode() in (value or b"") for value in stored)


async def test_create_bot_makes_an_account_flagged_as_a_bot_whose_token_works(
    start_server: StartServer, database_url: str
) -> None:
    async with start_server(database_url=database_url) as srv:
        status, token, err = await create_bot(
            srv.redis_url, "Robo.2", "--database-url", database_url
        )
        assert status == 0, err
        async with Client.connect(srv.ws_url, token=token.strip()) as robo:
            assert robo.welcome.bot is True and robo.welcome.account is False
        status, new_token, err = await create_bot(
            srv.redis_url, "Robo.2", "--new-token", "--database-url", database_url
        )
        assert status == 0, err
        async with Client.connect(srv.ws_url, token=new_token.strip()) as robo_again:
            assert robo_again.player == robo.player
        # A person's account name is not a bot's, and a bot's not a person's.
        async with Client.connect(srv.ws_url, nickname="jo") as jo:
            await sign_up(jo, "jo")
            refused = await refusal(jo, SignUp("ROBO.2", PASSWORD))
            assert refused.code == ErrorCode.BAD_NAME
        status, _, err = await create_bot(srv.redis_url, "JO", "--database-url", database_url)
        assert status == 1 and "an account is named 'jo'" in err
        assert await srv.hub.store.bot_named("JO") is None  # nothing made in Redis either
        assert (await login_refused(srv, "Robo.2", "")).code == ErrorCode.BAD_LOGIN
    rows = {r["name"]: r for r in await accounts(database_url)}
    assert set(rows) == {"Robo.2", "jo"}
    assert rows["Robo.2"]["bot"] is True and rows["Robo.2"]["password"] is None
    assert rows["Robo.2"]["player"] == robo.player


# -- the password pool -----------------------------------------------------------------------


@contextlib.asynccontextmanager
async def pool_held(srv: Running) -> AsyncIterator[None]:
    """The password pool's one thread held busy (by a job of the test's through the pool
    itself) until the block ends."""
    hashing = srv.hub.hashing
    release = threading.Event()
    holder = asyncio.create_task(hashing.run(lambda: True, release.wait))
    try:
        await until(lambda: hashing.pending == 1, "the holder never reached the pool")
        yield
    finally:
        release.set()
        await holder


async def send_login(srv: Running, name: str) -> ClientConnection:
    ws = await connect(srv.ws_url, compression=None)
    await ws.send(encode(LogIn(name, PASSWORD)))
    return ws


async def answer(ws: ClientConnection) -> Error:
    found = decode_server(await ws.recv(decode=False))
    assert isinstance(found, Error), found
    return found


async def test_passwords_are_hashed_on_a_bounded_pool_and_the_rest_refused_at_once(
    start_server: StartServer,
) -> None:
    """One thread and two waiting (``hash_workers``, ``hash_queue``): with the thread busy,
    two logins wait their turn, the next is refused at once (``rate_limited``, saying the
    server is busy), and the two are answered once the thread is free; no hash ran on a
    thread of another pool."""
    async with start_server(hash_workers=1, hash_queue=2) as srv:
        hashing = srv.hub.hashing
        async with pool_held(srv):
            waiting = [await send_login(srv, f"nobody{n}") for n in range(2)]
            await until(lambda: hashing.pending == 3, "the logins did not queue")
            third = await send_login(srv, "nobody2")
            refused = await answer(third)
            assert refused.code == ErrorCode.RATE_LIMITED and "busy" in refused.message
            assert hashing.pending == 3
        for ws in waiting:
            assert (await answer(ws)).code == ErrorCode.BAD_LOGIN
        for ws in [*waiting, third]:
            await ws.close()
        threads = {t.name.split("_")[0] for t in threading.enumerate() if t.name != "MainThread"}
        assert "asyncio" not in threads, threads  # not the default executor's
        assert hashing.executor._max_workers == 1


async def test_a_hash_whose_connection_is_gone_before_its_turn_is_not_run(
    start_server: StartServer,
) -> None:
    async with start_server(hash_workers=1, hash_queue=2) as srv:
        hashing = srv.hub.hashing
        async with pool_held(srv):
            ws = await send_login(srv, "nobody")
            await until(lambda: hashing.pending == 2, "the login did not queue")
            await ws.close()
            sessions = srv.hub.connections.sessions
            await until(lambda: not any(s.is_open() for s in sessions), "still open there")
            assert hashing.skipped == 0
        await until(lambda: hashing.pending == 0, "the pool never emptied")
        assert hashing.skipped == 1
