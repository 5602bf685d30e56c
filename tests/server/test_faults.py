"""Faults injected for real: Redis stopped and started under a live server."""

from __future__ import annotations

from redis import Redis
from websockets.asyncio.client import connect

from server.embedded import RedisProcess
from server.protocol import (
    Error,
    ErrorCode,
    Hello,
    Ping,
    Pong,
    TimeControl,
    Welcome,
    decode_server,
    encode,
)
from server.store import game_key
from tests.server.conftest import Running, StartServer
from tests.server.support import http_get, play, published, start_game, updated
from tests.server.test_actions import refused


async def test_redis_going_away_is_answered_with_unavailable_and_the_server_recovers(
    redis_server: RedisProcess, start_server: StartServer
) -> None:
    async with (
        start_server() as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, w, b = await start_game(white, black)
        await play(white, w, "wS1")
        w, b = await updated(white, game_id), await updated(black, game_id)
        redis_server.stop()
        await play(black, b, "bS1 wS1-")
        assert await refused(black, game_id) == ErrorCode.UNAVAILABLE
        await black.send(Ping(2.0))  # the connection lives on
        assert (await black.expect(Pong)).t == 2.0
        status, _, _ = await http_get(f"{srv.http_url}/games/{game_id}.txt")
        assert status == 503
        async with connect(srv.ws_url) as newcomer:  # a hello is refused, and may come again
            await newcomer.send(encode(Hello(nickname="cy")))
            refusal = decode_server(await newcomer.recv(decode=False))
            assert isinstance(refusal, Error), refusal
            assert (refusal.code, refusal.request) == (ErrorCode.UNAVAILABLE, "hello")
            redis_server.start()  # the same port and append-only file
            await newcomer.send(encode(Hello(nickname="cy")))
            welcome = decode_server(await newcomer.recv(decode=False))
            assert isinstance(welcome, Welcome) and welcome.nickname == "cy", welcome
        await play(black, b, "bS1 wS1-")
        w, b = await updated(white, game_id), await updated(black, game_id)
    assert w.state.moves == b.state.moves == ["wS1", "bS1 wS1-"]


async def test_one_broken_game_does_not_touch_another(
    redis_server: RedisProcess, srv: Running
) -> None:
    async with published(srv.redis_url) as wait:
        async with srv.connect("ada") as white, srv.connect("bob") as black:
            clock = TimeControl("clock", 1, 0)
            broken, w, b = await start_game(white, black, time=clock)
            game_id, w, b = await start_game(white, black, time=clock)
            for mover, move in ((white, "wS1"), (black, "bS1 wS1-")):
                await play(mover, w if mover is white else b, move)
                w, b = await updated(white, game_id), await updated(black, game_id)
            # The broken game's record turns to garbage, and its deadline is due at once.
            redis = Redis.from_url(srv.redis_url)
            redis.hset(game_key(broken), mapping={"v": "x", "r": b"\xc1garbage"})
            redis.zadd("hive:deadlines", {broken: 0})
            redis.close()
            del srv.hub.games[broken]  # as if this process had never cached it
        # The sweep meets the broken game first, and still flags the other one.
        over = await wait(game_id, "over")
    assert (over.by, over.text) == ("BlackWins", "timeout")
