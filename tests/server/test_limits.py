"""Abuse limits: messages per connection, games and chat lines per player (whichever of its
connections they come from), open games per player, and 1008 for a client that keeps going."""

from __future__ import annotations

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from server.limits import Bucket
from server.protocol import CancelGame, Chat, CreateGame, Error, ErrorCode, Ping, Pong, Update
from tests.server.conftest import StartServer
from tests.server.support import start_game, updated


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
    async with (
        start_server(message_rate=0.001, message_burst=4, strikes=3) as srv,
        srv.connect("ada") as client,  # hello is the first message
    ):
        for t in range(3):
            await client.send(Ping(t))
            assert (await client.expect(Pong)).t == t
        for t in range(3):  # three refusals: the strikes it may collect
            await client.send(Ping(t))
            error = await client.expect(Error)
            assert error.code == ErrorCode.RATE_LIMITED
        await client.send(Ping(9))
        assert (await client.expect(Error)).code == ErrorCode.RATE_LIMITED
        with pytest.raises(ConnectionClosed) as closed:
            await client.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == CloseCode.POLICY_VIOLATION


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
        assert [r.id for r in srv.hub.lobby_open.values() if r.creator == first.player] == [
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
