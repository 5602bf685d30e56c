"""Redis keeps what is live only: once their games are archived and the grace period is over,
and their connections closed, the guests who played them leave nothing in Redis that does not
expire (their keys last ``Settings.session_ttl`` from their last use), and nothing of the games
is left; a guest expires only with no game in progress."""

from __future__ import annotations

import redis.asyncio as aioredis

from protocol import Resign
from protocol.client import Client
from tests.server.conftest import StartServer
from tests.server.support import start_game, updated
from tests.support import until

GLOBAL_KEYS = {
    b"hive:heartbeat",
    b"hive:secret",
    b"hive:processes",
    b"hive:online",
}
"""The keys of the whole server, which never expire (each of a bounded size)."""


async def lasting(redis_url: str) -> dict[bytes, int]:
    """Every key with its time to live (-1: none)."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        return {key: await client.ttl(key) async for key in client.scan_iter()}
    finally:
        await client.aclose()


async def test_guests_and_finished_games_leave_nothing_that_lasts(
    start_server: StartServer,
) -> None:
    async with start_server(session_ttl=500, archive_grace=1.0, archive_interval=0.05) as srv:
        async with (
            Client.connect(srv.ws_url, nickname="eve") as white,
            Client.connect(srv.ws_url, nickname="fay") as black,
        ):
            game, _, _ = await start_game(white, black)
            await white.send(Resign(game))
            await updated(white, game)
            players = [white.player, black.player]

        async def settled() -> bool:
            keys = await lasting(srv.redis_url)
            return not any(game.encode() in key for key in keys) and b"hive:over" not in keys

        await until(settled, "the finished game is still in Redis")
        keys = await lasting(srv.redis_url)
        forever = {key for key, ttl in keys.items() if ttl == -1}
        assert forever <= GLOBAL_KEYS, forever - GLOBAL_KEYS
        for player in players:
            theirs = {key: ttl for key, ttl in keys.items() if player.encode() in key}
            assert theirs and all(0 < ttl <= 500 for ttl in theirs.values()), theirs


async def test_a_guest_expires_only_with_no_game_in_progress(start_server: StartServer) -> None:
    """Time passes (a key's time to live cut short, as Redis would see it after a while): a
    guest playing a game is given its time again, a guest with none expires."""
    async with (
        start_server(session_ttl=2.0) as srv,
        Client.connect(srv.ws_url, nickname="gil") as white,
        Client.connect(srv.ws_url, nickname="hal") as black,
        Client.connect(srv.ws_url, nickname="ida") as idle,
    ):
        await start_game(white, black)
        redis = srv.hub.store.redis
        playing = [f"hive:p:{{{white.player}}}", f"hive:p:{{{black.player}}}:tokens"]
        hashes = await redis.smembers(playing[1])
        playing += [f"hive:token:{h.decode()}" for h in hashes]
        idle_key = f"hive:p:{{{idle.player}}}"
        for key in [*playing, idle_key]:
            assert await redis.pexpire(key, 1000)

        async def renewed() -> bool:
            return all([await redis.pttl(key) > 1000 for key in playing])

        async def expired() -> bool:
            return not await redis.exists(idle_key)

        await until(renewed, "a guest in a game in progress was left to expire")
        await until(expired, "a guest with no game did not expire")
