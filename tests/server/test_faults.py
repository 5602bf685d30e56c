"""Faults injected for real: Redis stopped and started, frozen and killed under a live
server, and a server's listener cut off Redis while another server goes on."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from dataclasses import replace
from pathlib import Path

from redis import Redis
from websockets.asyncio.client import connect

from protocol import (
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
from protocol.client import ServerError
from server.embedded import RedisProcess
from server.runtime import running
from server.storage.keys import game_key
from tests.server.conftest import BASE_SETTINGS, Running, StartServer
from tests.server.support import (
    ListenerCut,
    http_get,
    play,
    published,
    refused,
    start_game,
    updated,
    watch,
)
from tests.support import until


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


async def test_a_listener_back_from_losing_redis_brings_its_watchers_up_to_date(
    redis_server: RedisProcess, start_server: StartServer
) -> None:
    """A process does not hear what is published while its listener is away from Redis:
    once the listener is back, it reloads every game watched there. Here the listener of
    the spectator's process is kept away while a move is made on the players' process."""
    async with (
        ListenerCut(redis_server.url) as cut,
        start_server(redis_url=cut.url) as far,
        start_server() as near,
        near.connect("ada") as white,
        near.connect("bob") as black,
        far.connect("cy") as fan,
    ):
        game_id, w, _ = await start_game(white, black)
        assert (await watch(fan, game_id)).version == w.version
        await cut.cut(far)
        await play(white, w, "wS1")
        w = await updated(white, game_id)  # published; the far process did not hear it
        assert far.hub.cache.games[game_id].record.version == w.version - 1
        await cut.restore()
        seen = await updated(fan, game_id)
    assert (seen.version, seen.state.moves) == (w.version, ["wS1"])
    assert [e.kind for e in seen.events] == ["move"]


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
            del srv.hub.cache.games[broken]  # as if this process had never cached it
        # The sweep meets the broken game first, and still flags the other one.
        over = await wait(game_id, "over")
    assert (over.by, over.text) == ("BlackWins", "timeout")


async def test_a_full_redis_is_answered_unavailable_and_nothing_is_lost(
    start_server: StartServer,
) -> None:
    """Redis at its ``maxmemory`` (with ``noeviction``, as docker compose sets it) refuses
    writes: a move is answered ``unavailable``, not an internal error, and is played once
    Redis has room again."""
    async with (
        start_server() as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, w, _ = await start_game(white, black)
        redis = Redis.from_url(srv.redis_url)
        redis.config_set("maxmemory-policy", "noeviction")
        redis.config_set("maxmemory", 1)  # full
        try:
            await play(white, w, "wS1")
            assert await refused(white, game_id) == ErrorCode.UNAVAILABLE
        finally:
            redis.config_set("maxmemory", 0)
            redis.close()
        await play(white, w, "wS1")  # sent again: played once
        assert (await updated(black, game_id)).state.moves == ["wS1"]


async def test_a_frozen_redis_is_answered_unavailable_in_seconds_and_healthz_says_so(
    redis_server: RedisProcess, start_server: StartServer
) -> None:
    """Redis stopped dead (SIGSTOP): a move is answered ``unavailable`` within a few seconds
    instead of hanging, /healthz answers 503, and after SIGCONT the game goes on with every
    acknowledged move."""
    assert redis_server.process is not None
    async with (
        start_server(redis_timeout=2.0) as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
    ):
        game_id, w, b = await start_game(white, black)
        await play(white, w, "wS1")
        w, b = await updated(white, game_id), await updated(black, game_id)
        # The update comes from the listener, which may hear the move before its request's
        # index update returns: Redis frozen then, that update times out and White is told
        # ``unavailable`` about a move played. Frozen once the server is done with it.
        await until(lambda: not srv.hub.store.committing, "the server is done with wS1")
        redis_server.process.send_signal(signal.SIGSTOP)
        try:
            # 2 s to answer (one command, not retried), with room for a loaded machine; a
            # command retried after its timeout would take 8 s or more
            async with asyncio.timeout(6):
                await play(black, b, "bS1 wS1-")
                assert await refused(black, game_id) == ErrorCode.UNAVAILABLE
            await until_health(srv, 503)
        finally:
            redis_server.process.send_signal(signal.SIGCONT)
        await until_health(srv, 200)
        await play(black, b, "bS1 wS1-")  # sent again: played once
        w = await updated(white, game_id)
    assert w.state.moves == ["wS1", "bS1 wS1-"]


async def until_health(srv: Running, status: int) -> dict[str, object]:
    """Ask /healthz until it answers ``status`` (the heartbeat notices within a second); its
    body."""

    async def answered() -> dict[str, object] | None:
        answer, _, body = await http_get(f"{srv.http_url}/healthz")
        if answer != status:
            return None
        found: dict[str, object] = json.loads(body)
        return found

    return await until(answered, f"/healthz answers {status}", every=0.05)


async def test_the_embedded_redis_is_started_again_when_it_dies(tmp_path: Path) -> None:
    """No --redis-url: the server's own Redis, killed, is started again on its append-only
    file; the game played before goes on, and nothing acknowledged is lost (Redis killed
    once it has written what it acknowledged: with ``appendfsync everysec`` a busy disk may
    hold writes back up to 2 s, docs/operating.md)."""
    settings = replace(BASE_SETTINGS, redis_url=None, data=tmp_path)
    async with running(settings) as (server, hub):
        port = server.sockets[0].getsockname()[1]
        srv = Running(f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}", hub, settings)
        async with srv.connect("ada") as white, srv.connect("bob") as black:
            game_id, w, b = await start_game(white, black)
            await play(white, w, "wS1")
            w, b = await updated(white, game_id), await updated(black, game_id)
            pid = int((tmp_path / "redis" / "redis.pid").read_text())
            written = Redis(unix_socket_path=str(tmp_path / "redis" / "redis.sock"))
            await until(  # a sync is slow: Redis holds the write back
                lambda: not int(written.info("persistence")["aof_buffer_length"]),
                "Redis has written what it acknowledged",
                timeout=10,
                every=0.05,
            )
            written.close()
            os.kill(pid, signal.SIGKILL)
            pidfile = tmp_path / "redis" / "redis.pid"
            await until(
                lambda: pidfile.exists() and int(pidfile.read_text() or 0) not in (0, pid),
                "the supervisor starts a new redis-server",
                every=0.05,
            )
            await until_health(srv, 200)
            for _ in range(3):  # a client told ``unavailable`` sends its move again
                await play(black, b, "bS1 wS1-")
                try:
                    await updated(black, game_id)
                    break
                except ServerError as error:
                    assert error.error.code == "unavailable", error
            w = await updated(white, game_id)
        assert w.state.moves == ["wS1", "bS1 wS1-"]


async def test_a_hello_while_redis_is_frozen_is_answered_unavailable_not_timed_out(
    redis_server: RedisProcess, start_server: StartServer
) -> None:
    """A new guest's ``hello`` and a session's, sent while Redis is stopped dead (SIGSTOP),
    are answered ``unavailable`` (each Redis command gives up after ``redis_timeout``), not
    closed for want of a hello: the time to say hello is the time to send it, not the
    server's time to answer it. Once Redis is back the same connection is welcomed."""
    assert redis_server.process is not None
    async with start_server(redis_timeout=1.0, hello_timeout=2.0) as srv:
        async with srv.connect("ada") as ada:
            token = ada.welcome.token
        redis_server.process.send_signal(signal.SIGSTOP)
        try:
            async with (
                connect(srv.ws_url) as guest,
                connect(srv.ws_url) as again,
            ):
                for ws, hello in ((guest, Hello("bob")), (again, Hello(token=token))):
                    await ws.send(encode(hello))
                    answer = decode_server(await ws.recv(decode=False))
                    assert isinstance(answer, Error), answer
                    assert answer.code == ErrorCode.UNAVAILABLE, answer
        finally:
            redis_server.process.send_signal(signal.SIGCONT)
        async with connect(srv.ws_url) as ws:
            await ws.send(encode(Hello("bob")))
            assert isinstance(decode_server(await ws.recv(decode=False)), Welcome)
