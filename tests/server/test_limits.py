"""Abuse limits: messages per connection, games and chat lines per player (whichever of its
connections they come from), open games per player, and 1008 for a client that keeps going;
per address: new guests, open games, games against bots and connections; a lobby that fills
up; connections that never say hello; requests naming games that do not exist; the limit
of open files."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.frames import CloseCode, Frame, Opcode

from protocol import (
    CancelGame,
    Chat,
    ClaimWin,
    CreateGame,
    Error,
    ErrorCode,
    Hello,
    JoinGame,
    Message,
    Ping,
    Play,
    Pong,
    Resign,
    Unwatch,
    Update,
    encode,
)
from protocol.client import ServerError
from server.edge.addresses import address_block
from server.embedded import RedisProcess
from server.game.clock import now_ms
from server.storage.limits import Bucket
from tests.server.conftest import Running, StartServer
from tests.server.support import ServerProcess, http_get, start_game, updated
from tests.support import until


def test_a_bucket_gives_its_burst_then_its_rate() -> None:
    bucket = Bucket(rate=2.0, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.25) is False  # half a token back
    assert bucket.take(0.5) is True  # one token back
    assert bucket.take(0.5) is False
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]  # never above
    with pytest.raises(ValueError, match="rate"):
        Bucket(rate=0, burst=1, now=0)


async def test_a_flood_is_refused_then_closed_with_1008(start_server: StartServer) -> None:
    """The hello counts in the burst; each refusal names the request refused; the refusal that
    takes the last strike (the third of ``strikes=3``) closes the connection."""
    async with (
        start_server(message_rate=0.001, message_burst=4, strikes=3) as srv,
        srv.connect("ada") as client,  # hello is the first message
    ):
        for t in range(3):
            await client.send(Ping(t))
            assert (await client.expect(Pong)).t == t
        for t in range(2):
            await client.send(Ping(t))
            error = await client.expect(Error)
            assert (error.code, error.request, error.game) == (ErrorCode.RATE_LIMITED, "ping", None)
        await client.send(Unwatch("0123abcd"))
        error = await client.expect(Error)
        assert (error.code, error.request, error.game) == (
            ErrorCode.RATE_LIMITED,
            "unwatch",
            "0123abcd",
        )
        with pytest.raises(ConnectionClosed) as closed:
            await client.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == CloseCode.POLICY_VIOLATION


async def test_a_flood_of_frames_that_do_not_decode_is_limited_and_closed(
    start_server: StartServer,
) -> None:
    """Malformed frames count against the budget too: past it they are refused as
    ``rate_limited`` (request null: nothing decoded), and the strikes close the connection."""
    async with (
        start_server(message_rate=0.001, message_burst=3, strikes=2) as srv,
        srv.connect("ada") as client,  # the hello takes one
    ):
        for _ in range(2):
            await client.ws.send(b"\xc1")  # never valid msgpack
            assert (await client.expect(Error)).code == ErrorCode.BAD_MESSAGE
        await client.ws.send(b"\xc1")
        error = await client.expect(Error)
        assert (error.code, error.request) == (ErrorCode.RATE_LIMITED, None)
        await client.ws.send(b"\xc1")
        assert (await client.expect(Error)).code == ErrorCode.RATE_LIMITED
        with pytest.raises(ConnectionClosed) as closed:
            await client.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == CloseCode.POLICY_VIOLATION


async def test_a_flood_in_one_write_is_closed_at_once(srv: Running) -> None:
    """A hello and 80 pings in one write: the connection is closed with 1008, and the close
    completes (the server reads on to the client's close frame, answering nothing more),
    well before the server's close timeout of 10 s."""
    async with connect(srv.ws_url, close_timeout=30) as ws:
        frames = [encode(Hello(nickname="flood"))] + [encode(Ping(t)) for t in range(80)]
        ws.transport.write(
            b"".join(Frame(Opcode.BINARY, f).serialize(mask=True, extensions=[]) for f in frames)
        )
        replies = 0
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(5):  # the server's close_timeout is 10 s
                while True:
                    await ws.recv()
                    replies += 1
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == CloseCode.POLICY_VIOLATION
        assert replies < 81  # not every ping was answered
    await until(lambda: not srv.hub.connections.sessions, "the connection is still open", timeout=5)


async def test_games_created_are_limited_per_player_across_connections(
    start_server: StartServer,
) -> None:
    async with start_server(games_per_minute=2) as srv, srv.connect("ada") as first:
        await first.send(CreateGame())
        created = await first.expect(Update)
        async with srv.connect(token=first.welcome.token) as second:  # the same player
            await second.send(CreateGame(opponent="bot", level="beginner"))
            await second.expect(Update)
            await second.send(CreateGame())
            error = await second.expect(Error)
            assert error.code == ErrorCode.RATE_LIMITED and "2 create" in error.message
        await first.send(CreateGame())  # the first connection is over the limit too
        assert (await first.expect(Error)).code == ErrorCode.RATE_LIMITED
        async with srv.connect("bob") as other:  # another player is not
            await other.send(CreateGame())
            await other.expect(Update)
        assert [r.id for r in srv.hub.lobby.open.values() if r.creator == first.player] == [
            created.game
        ]


async def test_a_player_has_a_few_open_games_at_most(start_server: StartServer) -> None:
    async with start_server(open_games=2) as srv, srv.connect("ada") as client:
        games = []
        for _ in range(2):
            await client.send(CreateGame())
            games.append((await client.expect(Update)).game)
        await client.send(CreateGame())
        error = await client.expect(Error)
        assert error.code == ErrorCode.NOT_ALLOWED and "2 open games" in error.message
        await client.send(CreateGame(opponent="bot", level="beginner"))  # a bot game starts
        assert (await client.expect(Update)).state.status == "live"
        await client.send(CancelGame(games[0]))
        await updated(client, games[0])
        await client.send(CreateGame())
        assert (await client.expect(Update)).state.status == "open"


async def test_chat_is_limited_per_player_across_connections(start_server: StartServer) -> None:
    async with (
        start_server(chat_burst=2, chat_interval=60) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, _, _ = await start_game(white, black)
        await white.send(Chat(game_id, "one"))
        await updated(white, game_id)
        async with srv.connect(token=white.welcome.token) as again:
            await again.send(Chat(game_id, "two"))
            await updated(white, game_id)
            await again.send(Chat(game_id, "three"))  # its own connection's first line
            error = await again.expect(Error)
            assert error.code == ErrorCode.RATE_LIMITED
        record = await srv.hub.store.get(game_id)
        assert record is not None and [e.text for e in record.chat] == ["one", "two"]


async def test_a_connections_chat_flood_is_refused_by_the_connection_before_redis(
    start_server: StartServer,
) -> None:
    """A connection past its own chat limit is refused on the spot: its flood costs Redis
    nothing and is not counted against its player (where each line refused would keep the
    player's other connections quiet for a whole window longer)."""
    async with (
        start_server(chat_burst=2, chat_interval=60) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, _, _ = await start_game(white, black)
        for text in ("one", "two"):
            await white.send(Chat(game_id, text))
            await updated(white, game_id)
        for _ in range(3):
            await white.send(Chat(game_id, "flood"))
            assert (await white.expect(Error)).code == ErrorCode.RATE_LIMITED
        counted = await srv.hub.store.count_so_far(white.player, "chat", 120, now_ms())
        assert counted == 2  # the lines let through, not the flood


# -- per address -----------------------------------------------------------------------------

PROXY = {"trusted_proxies": "127.0.0.1"}
"""The tests' clients say their address in X-Forwarded-For, as a trusted proxy would."""


async def refusal_of(connecting: object) -> Error:
    """The error a ``srv.connect(...)`` gets for its hello."""
    with pytest.raises(ServerError) as refused:
        async with connecting:  # type: ignore[attr-defined]
            pass
    return refused.value.error


async def test_new_guests_are_limited_per_address(start_server: StartServer) -> None:
    async with start_server(guests_per_address=2, **PROXY) as srv:
        for name in ("ada", "bob"):
            async with srv.connect(name, address="10.0.0.1"):
                pass
        error = await refusal_of(srv.connect("cy", address="10.0.0.1"))
        assert error.code == ErrorCode.RATE_LIMITED and "new guests" in error.message
        async with srv.connect("cy", address="10.0.0.2") as cy:  # another address may
            token = cy.welcome.token
        async with srv.connect(token=token, address="10.0.0.1"):
            pass  # and a session, not a new guest, is not counted
    async with start_server(guests_per_address=1) as srv:  # nothing trusted: the peer counts
        async with srv.connect("ada", address="10.0.0.1"):
            pass
        error = await refusal_of(srv.connect("bob", address="10.0.0.9"))  # a forged header
        assert error.code == ErrorCode.RATE_LIMITED


@pytest.mark.parametrize(
    ("address", "block"),
    [
        ("10.0.0.1", "10.0.0.1"),
        ("::ffff:10.0.0.1", "10.0.0.1"),  # IPv4-mapped: the IPv4 address
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2:0:0:0:7", "2001:db8:1:2::/64"),  # however it is spelt
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),  # the next /64
        ("::1", "::/64"),
        ("unknown", "unknown"),
    ],
)
def test_an_ipv6_address_counts_as_its_64(address: str, block: str) -> None:
    assert address_block(address) == block


async def test_a_64_of_ipv6_addresses_is_one_address_for_the_limits(
    start_server: StartServer,
) -> None:
    """100 guests from 100 addresses of one /64 (as a trusted proxy names them): the first
    ``guests_per_address`` are welcomed, the others refused; another /64 is another address,
    and an IPv4-mapped address is its IPv4 address."""
    async with start_server(guests_per_address=20, **PROXY) as srv:
        welcomed = 0
        for n in range(100):
            try:
                async with srv.connect(f"g{n}", address=f"2001:db8:1:2::{n + 1:x}"):
                    welcomed += 1
            except ServerError as refused:
                assert refused.error.code == ErrorCode.RATE_LIMITED
        assert welcomed == 20
        async with srv.connect("other", address="2001:db8:1:3::1"):
            pass
    async with start_server(guests_per_address=1, connections_per_address=2, **PROXY) as srv:
        async with srv.connect("v4", address="10.0.0.7"):
            pass
        error = await refusal_of(srv.connect("v6", address="::ffff:10.0.0.7"))
        assert error.code == ErrorCode.RATE_LIMITED and "new guests" in error.message
        async with (
            srv.connect("ada", address="2001:db8:9:9::a") as ada,
            srv.connect(token=ada.welcome.token, address="2001:db8:9:9::b"),
        ):
            with pytest.raises(InvalidStatus) as status:  # a third connection of the /64
                async with srv.connect(token=ada.welcome.token, address="2001:db8:9:9:abcd::c"):
                    pass
            assert status.value.response.status_code == 429


async def test_open_games_are_limited_per_address_and_in_all(start_server: StartServer) -> None:
    async with (
        start_server(open_games_per_address=2, open_games_total=3, **PROXY) as srv,
        srv.connect("ada", address="10.0.0.1") as ada,
        srv.connect("bob", address="10.0.0.1") as bob,
        srv.connect("cy", address="10.0.0.2") as cy,
        srv.connect("dee", address="10.0.0.3") as dee,
    ):
        for client in (ada, bob):
            await client.send(CreateGame())
            await client.expect(Update)
        await bob.send(CreateGame())  # bob's first, but the address's third
        error = await bob.expect(Error)
        assert error.code == ErrorCode.NOT_ALLOWED and "your address" in error.message
        await cy.send(CreateGame())
        await cy.expect(Update)
        await dee.send(CreateGame())  # the lobby holds three
        error = await dee.expect(Error)
        assert error.code == ErrorCode.NOT_ALLOWED and "lobby is full" in error.message
        await dee.send(CreateGame(opponent="bot", level="beginner"))  # a bot game is no open one
        assert (await dee.expect(Update)).state.status == "live"


async def test_games_against_bots_are_limited_per_player_and_address(
    start_server: StartServer,
) -> None:
    async with (
        start_server(bot_games=1, bot_games_per_address=2, **PROXY) as srv,
        srv.connect("ada", address="10.0.0.1") as ada,
        srv.connect("bob", address="10.0.0.1") as bob,
        srv.connect("cy", address="10.0.0.1") as cy,
    ):
        bot_game = CreateGame(opponent="bot", level="beginner", color="white")
        await ada.send(bot_game)
        first = await ada.expect(Update)
        await ada.send(bot_game)
        error = await ada.expect(Error)
        assert error.code == ErrorCode.NOT_ALLOWED and "you play 1 games" in error.message
        await bob.send(bot_game)
        await bob.expect(Update)
        await cy.send(bot_game)
        error = await cy.expect(Error)
        assert error.code == ErrorCode.NOT_ALLOWED and "your address plays 2" in error.message
        await ada.send(Resign(first.game))  # a game over frees its place
        await updated(ada, first.game)
        await ada.send(bot_game)
        assert (await ada.expect(Update)).state.status == "live"


async def test_connections_are_limited_per_address(start_server: StartServer) -> None:
    async with start_server(connections_per_address=2, **PROXY) as srv:
        async with srv.connect("ada", address="10.0.0.1"), srv.connect("bob", address="10.0.0.1"):
            with pytest.raises(InvalidStatus) as refused:
                async with srv.connect("cy", address="10.0.0.1"):
                    pass
            assert refused.value.response.status_code == 429
            async with srv.connect("cy", address="10.0.0.2"):
                pass
        async with srv.connect("cy", address="10.0.0.1"):  # the others closed: room again
            pass
        # many handshakes at once: however many pass the first check, two stay open
        headers = {"X-Forwarded-For": "10.0.0.3"}
        burst = await asyncio.gather(
            *(connect(srv.ws_url, additional_headers=headers) for _ in range(10)),
            return_exceptions=True,
        )
        opened = [ws for ws in burst if not isinstance(ws, BaseException)]
        for ws in opened:
            with contextlib.suppress(ConnectionClosed):
                await ws.send(encode(Hello(nickname="burst")))
                await ws.recv()
        await until(
            lambda: srv.hub.connections.by_address.get("10.0.0.3", 0) <= 2,
            "too many connections stayed",
        )
        still = [ws for ws in opened if ws.close_code is None]
        assert len(still) == 2
        for ws in opened:
            await ws.close()


async def test_a_connection_that_says_no_hello_is_closed(start_server: StartServer) -> None:
    async with start_server(hello_timeout=0.2) as srv, connect(srv.ws_url) as idle:
        with pytest.raises(ConnectionClosed) as closed:
            await idle.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == CloseCode.POLICY_VIOLATION
        await until(
            lambda: not srv.hub.connections.sessions, "the idle connection is still registered"
        )


async def test_requests_naming_unknown_games_leave_nothing_behind(
    start_server: StartServer,
) -> None:
    """Requests naming games that do not exist, or finished games the client does not
    watch, are refused and leave no lock and no cached game behind."""
    rng = random.Random(5)
    async with (
        start_server(
            message_rate=1000.0, message_burst=2000, chat_burst=1000, chat_interval=0.001
        ) as srv,
        srv.connect("ada") as ada,
        srv.connect("bob") as bob,
    ):
        await bob.send(CreateGame())
        cancelled = await bob.expect(Update)
        await bob.send(CancelGame(cancelled.game))
        await updated(bob, cancelled.game)
        await bob.send(Unwatch(cancelled.game))
        ids = [f"{rng.getrandbits(32):08x}" for _ in range(100)] + ["x" * 40, "../../etc"]
        requests: list[Message] = [
            message
            for game in ids
            for message in (Play(game, 1, "wS1"), ClaimWin(game), Chat(game, "hi"), JoinGame(game))
        ]
        requests += [ClaimWin(cancelled.game), Resign(cancelled.game)] * 50
        for request in requests:
            await ada.send(request)
        for _ in requests:
            assert (await ada.expect(Error)).code in (
                ErrorCode.UNKNOWN_GAME,
                ErrorCode.GAME_OVER,
                ErrorCode.NOT_YOUR_GAME,
            )
        assert len(srv.hub.cache.changing) == len(srv.hub.cache.sending) == 0
        assert srv.hub.cache.games == {}
        assert srv.hub.cache.watchers == {}


async def test_a_server_near_its_file_limit_refuses_connections_and_says_so(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    """A server process allowed 160 open files keeps 128 for itself: past 32 connections it
    answers 503, logs why, and its /healthz still answers."""
    server = ServerProcess(
        "--port",
        "0",
        "--redis-url",
        redis_server.url,
        "--bot-workers",
        "1",
        "--trusted-proxies",
        "127.0.0.1",
        "--data",
        str(tmp_path),
    )
    await server.spawn(files=160)
    url = (await server.wait_for(r"open (http://\S+)"))[1].rstrip("/")
    ws_url = url.replace("http://", "ws://") + "/ws"
    async with contextlib.AsyncExitStack() as stack:
        refused = 0
        for n in range(40):
            headers = {"X-Forwarded-For": f"10.1.0.{n}"}
            try:
                await stack.enter_async_context(connect(ws_url, additional_headers=headers))
            except InvalidStatus as error:
                assert error.response.status_code == 503
                refused += 1
        assert refused == 40 - 32
        await server.wait_for(r"connections open, near the limit")
        status, _, body = await http_get(f"{url}/healthz")
        assert status == 200 and json.loads(body)["connections"] == 32
    await server.stop()
