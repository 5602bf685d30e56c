"""Sessions and names on a real server: a session lasts a while after its last use, ends on
`logout` (here or everywhere, on every process), and a nickname can neither hide nor pass for
a bot's."""

from __future__ import annotations

import pytest

from protocol import (
    SIGNED_OUT,
    ErrorCode,
    Logout,
    Ping,
    Pong,
    ProtocolError,
)
from protocol.client import ServerError
from server.game import names
from server.storage.players import token_hash
from tests.server.conftest import StartServer
from tests.server.support import closed_with
from tests.support import until


async def test_a_session_lasts_its_ttl_from_its_last_use(start_server: StartServer) -> None:
    async with start_server(session_ttl=500) as srv:
        async with srv.connect("ada") as ada:
            token = ada.welcome.token
            key = f"hive:token:{token_hash(token)}"
            assert 490 < await srv.hub.store.redis.ttl(key) <= 500
            await srv.hub.store.redis.expire(key, 5)  # time passes...
        # ...and the connection closing is a use: the session has its whole period again
        await until_ttl(srv, key, 490)
    async with start_server(session_ttl=500) as srv:
        await srv.hub.store.redis.expire(key, 5)
        async with srv.connect(token=token) as again:  # a hello with the token is a use too
            assert again.player == ada.player
            assert 490 < await srv.hub.store.redis.ttl(key) <= 500
        await srv.hub.store.redis.delete(key)  # as Redis does once it expires
        with pytest.raises(ServerError) as refused:
            async with srv.connect(token=token):
                pass
        assert refused.value.error.code == ErrorCode.BAD_TOKEN


async def until_ttl(srv: object, key: str, above: int) -> None:
    """Wait until ``key`` lives more than ``above`` seconds (the server renews it when it
    notices the close)."""
    redis = srv.hub.store.redis  # type: ignore[attr-defined]

    async def renewed() -> bool:
        return bool(await redis.ttl(key) > above)

    await until(renewed, f"{key} is renewed beyond {above} s")


async def test_logout_ends_the_session_on_every_process(start_server: StartServer) -> None:
    async with (
        start_server() as one,
        start_server() as two,
        one.connect("ada") as here,
        two.connect(token=here.welcome.token) as there,
        one.connect("bob") as bob,
    ):
        await here.send(Logout())
        assert await closed_with(here) == SIGNED_OUT
        assert await closed_with(there) == SIGNED_OUT  # the same session, on the other process
        with pytest.raises(ServerError) as refused:
            async with two.connect(token=here.welcome.token):
                pass
        assert refused.value.error.code == ErrorCode.BAD_TOKEN
        await bob.send(Ping(1.0))  # others are not touched
        await bob.recv()


async def test_logout_everywhere_ends_every_session_of_the_player(
    start_server: StartServer,
) -> None:
    async with start_server() as srv, srv.connect("ada") as ada:
        # a second session of the same player, as a login on another device would make
        other = "another-session-token"
        redis = srv.hub.store.redis
        await redis.set(f"hive:token:{token_hash(other)}", ada.player)
        await redis.sadd(f"hive:p:{{{ada.player}}}:tokens", token_hash(other))
        async with srv.connect(token=other) as elsewhere:
            assert elsewhere.player == ada.player
            await ada.send(Logout(everywhere=True))
            assert await closed_with(elsewhere) == SIGNED_OUT
        assert await closed_with(ada) == SIGNED_OUT
        for token in (ada.welcome.token, other):
            assert await srv.hub.store.player_of(token) is None


async def test_a_bot_account_cannot_log_out(start_server: StartServer) -> None:
    async with start_server() as srv:
        _, token = await srv.hub.store.new_bot("robo", 0)
        async with srv.connect(token=token) as robo:
            await robo.send(Logout(everywhere=True))
            with pytest.raises(ServerError) as refused:
                await robo.expect(Pong)
            assert refused.value.error.code == ErrorCode.NOT_ALLOWED
        assert await srv.hub.store.player_of(token) is not None


@pytest.mark.parametrize(
    ("nickname", "why"),
    [
        ("аda", "one script"),  # a Cyrillic а among Latin letters
        ("\u3164", "blank"),  # HANGUL FILLER, invisible
        ("a\u3164b", "blank"),
        ("...", "letter or a digit"),
        ("expert", "bot's name"),
        ("Expert-Bot", "bot's name"),
        ("Ｅｘｐｅｒｔ bot", "bot's name"),  # full-width, read as NFKC
        ("ada bot", "bot's name"),
        ("robo", "bot's name"),  # a bot account's
        ("ROBO", "bot's name"),
    ],
)
async def test_a_nickname_may_neither_hide_nor_pass_for_a_bot(
    start_server: StartServer, nickname: str, why: str
) -> None:
    async with start_server() as srv:
        await srv.hub.store.new_bot("robo", 0)
        with pytest.raises(ServerError) as refused:
            async with srv.connect(nickname):
                pass
        assert refused.value.error.code == ErrorCode.BAD_MESSAGE
        assert why in refused.value.error.message


@pytest.mark.parametrize(
    ("nickname", "shown"),
    [
        ("Ｉｖａｎ", "Ivan"),
        ("Иван", "Иван"),
        ("talbot", "talbot"),
        ("Ada Lovelace 2", "Ada Lovelace 2"),
    ],
)
async def test_nicknames_of_any_script_are_taken_as_nfkc(
    start_server: StartServer, nickname: str, shown: str
) -> None:
    async with start_server() as srv, srv.connect(nickname) as client:
        assert client.welcome.nickname == shown


def test_a_bot_account_may_not_take_a_bot_levels_name() -> None:
    for name in ("medium", "Medium Bot", "ｈａｒｄ"):
        with pytest.raises(ProtocolError):
            names.bot_name(name, ["beginner", "easy", "medium", "hard", "expert"])
    assert names.bot_name("robo", ["easy"]) == "robo"
