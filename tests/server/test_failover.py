"""Redis fails over, for real: a primary, a replica and three sentinels (Debian's
``redis-server``, ``tests.server.sentinels``), two ``hive-server`` processes on them through
``redis+sentinel://``, and games played across both processes while the primary is killed
(SIGKILL), the replica is stopped (SIGSTOP: the waits for it time out), or the primary is
paused past the sentinels' down-after (it comes back as a replica). Every update any client
saw is how its game went in the end, on the primary then named; every game goes on to its
end; no server process restarted. And a game a failover took back a version (one Redis, the
game set back by hand) is sent to its watchers as a snapshot of the earlier version."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator

import redis.asyncio as aioredis

from server.storage.codec import pack
from server.storage.connect import connect
from server.storage.keys import game_key
from tests.server.conftest import StartServer, free_port
from tests.server.sentinels import (
    Games,
    Topology,
    event_versions,
    lost,
    poll,
    stored_games,
)
from tests.server.support import (
    ServerProcess,
    http_get,
    play,
    running_all,
    start_game,
    updated,
    watch,
)
from tests.support import until

GAMES = 50
SHOWN = (
    "hive_redis_",
    "hive_refused",
    "hive_messages_received",
    "hive_moves",
    "hive_event_loop_lag_seconds_count",
    "hive_event_loop_lag_seconds_sum",
    "hive_changes_heard",
)
"""The figures a failed wait shows, of each server."""


@contextlib.asynccontextmanager
async def two_servers(
    topology: Topology, tmp_path_data: str, *extra: str
) -> AsyncIterator[list[ServerProcess]]:
    """Two ``hive-server`` processes on the topology's sentinels (metrics on ports of their
    own), with limits per address for a hundred clients of one machine."""
    servers = [
        ServerProcess(
            *("--port", str(free_port()), "--metrics-port", str(free_port())),
            *("--redis-url", topology.url, "--data", tmp_path_data, "--bot-workers", "1"),
            *("--connections-per-address", "500", "--guests-per-address", "500"),
            *extra,
        )
        for _ in range(2)
    ]
    try:
        async with running_all(servers):
            yield servers
            for server in servers:  # none restarted, none died, no traceback
                assert server.process is not None and server.process.returncode is None
                assert not any("Traceback" in line for line in server.log), "".join(server.log)
    except BaseException:
        for n, server in enumerate(servers, 1):
            print(f"server {n}'s log:", "".join(server.log[-60:]), sep="\n")
        raise


async def metrics(server: ServerProcess) -> list[tuple[str, float]]:
    """The samples on the server's /metrics, as (name with labels, value)."""
    port = next(
        arg
        for prev, arg in zip(server.args, server.args[1:], strict=False)
        if prev == "--metrics-port"
    )
    status, _, body = await http_get(f"http://127.0.0.1:{port}/metrics")
    assert status == 200
    return [
        (name, float(value))
        for line in body.decode().splitlines()
        if not line.startswith("#")
        for name, value in [line.rsplit(" ", 1)]
    ]


async def metric(server: ServerProcess, name: str) -> float:
    """The sum of a counter's samples on the server's /metrics (0: none yet)."""
    return sum(value for sample, value in await metrics(server) if sample.startswith(name))


async def until_metric(
    servers: list[ServerProcess],
    name: str,
    least: float,
    games: Games,
    topology: Topology,
    *,
    timeout: float = 30,
) -> None:
    """Wait until the servers' figure ``name``, summed, is at least ``least``, while ``games``
    are played (a player that failed ends the wait with its cause); on a timeout, say what the
    servers counted, what the players were doing, and what the Redis nodes logged."""

    async def reached() -> bool:
        return games.going() and sum([await metric(s, name) for s in servers]) >= least

    async def seen() -> str:
        shown = []
        for k, server in enumerate(servers, 1):
            samples = await metrics(server)
            shown += [
                f"  server {k}: {sample} {value:g}"
                for sample, value in samples
                if value and sample.startswith(SHOWN)
            ]
        return "\n".join(shown)

    try:
        await until(reached, f"{name} at {least}", timeout=timeout, every=0.1)
    except AssertionError as failure:
        raise AssertionError(
            f"{failure}\nthe servers counted:\n{await seen()}\nthe players:\n"
            f"{games.describe()}\nthe Redis nodes logged:\n{topology.logs()}"
        ) from None


async def until_moves(games: Games, count: int, timeout: float = 60) -> None:
    """Wait until ``count`` moves have been acknowledged (the players run on this loop)."""
    await until(
        lambda: games.going() and len(games.played.acknowledged) >= count,
        f"{count} moves acknowledged",
        timeout=timeout,
    )


async def test_the_primary_killed_while_50_games_are_played_loses_no_acknowledged_move(
    sentinel_topology: Topology,
) -> None:
    """With one replica, the new primary has none: the games go on with their changes
    acknowledged on it alone (``--on-no-replica acknowledge``; ``refuse`` would refuse them
    until a replica is back); before the kill every change waited for the replica."""
    topology = sentinel_topology
    data = str(topology.primary.folder.parent / "data")
    async with (
        two_servers(topology, data, "--on-no-replica", "acknowledge") as servers,
        Games([s.ws_url for s in servers], GAMES, seed=40) as games,
    ):
        playing = asyncio.create_task(games.play())
        await until_moves(games, 300)
        killed_at = time.monotonic()
        topology.primary.kill()
        new = await asyncio.to_thread(topology.promoted)
        async with asyncio.timeout(120):
            played = await playing
        for server in servers:
            assert await metric(server, "hive_redis_primary_changes_total") == 1
    assert len(played.ended) == GAMES  # every game went on to its end
    assert all(update.state.status == "over" for update in played.ended.values())
    assert played.acknowledged_after(killed_at) is not None
    stored = await stored_games(new.address, list(played.seen))
    assert lost(played, stored) == []
    for game_id in list(played.seen)[:5]:  # once each: one event a version
        versions = await event_versions(new.address, game_id)
        assert versions == list(range(1, stored[game_id].version + 1))


async def test_with_the_replica_stopped_moves_are_refused_then_played_once(
    sentinel_topology: Topology,
) -> None:
    """The replica stopped (SIGSTOP): each change waits ``--redis-wait`` for it, and is
    refused ``unavailable`` (``refuse``, the default), counted; no other client hears of it.
    The clients send their moves again; once the replica is back each is played, once."""
    topology = sentinel_topology
    data = str(topology.primary.folder.parent / "data")
    async with (
        two_servers(topology, data, "--redis-wait", "0.3") as servers,
        Games([s.ws_url for s in servers], GAMES, seed=41, max_plies=30) as games,
    ):
        playing = asyncio.create_task(games.play())
        await until_moves(games, 150)
        topology.replica.signal(signal.SIGSTOP)
        try:
            # (Summed: the games drift into phases where one process's players are to move
            # in nearly all of them, and the other's, waiting, send nothing to be refused.)
            await until_metric(servers, "hive_redis_wait_timeouts_total", 6, games, topology)
            during = len(games.played.acknowledged)
            # moves keep being sent, and refused: none of them is acknowledged meanwhile
            await until_metric(servers, "hive_redis_wait_timeouts_total", 12, games, topology)
            assert len(games.played.acknowledged) == during
        finally:
            topology.replica.signal(signal.SIGCONT)
        async with asyncio.timeout(120):
            played = await playing
        refused = [
            await metric(s, 'hive_redis_wait_timeouts_total{outcome="refused"}') for s in servers
        ]
    assert sum(refused) >= 6 and played.unavailable >= 2 and played.refused_then_played >= 2
    assert len(played.ended) == GAMES
    stored = await stored_games(topology.primary.address, list(played.seen))
    assert lost(played, stored) == []
    for game_id in played.seen:  # played once: one event a version, each move once
        versions = await event_versions(topology.primary.address, game_id)
        assert versions == list(range(1, stored[game_id].version + 1))


async def test_with_the_replica_stopped_acknowledge_plays_on_the_primary_alone(
    sentinel_topology: Topology,
) -> None:
    """``--on-no-replica acknowledge``: with the replica stopped the games go on, each change
    acknowledged on the primary alone after its wait, and counted."""
    topology = sentinel_topology
    data = str(topology.primary.folder.parent / "data")
    async with (
        two_servers(
            topology, data, "--redis-wait", "0.2", "--on-no-replica", "acknowledge"
        ) as servers,
        Games([s.ws_url for s in servers], 4, seed=42, max_plies=16) as games,
    ):
        playing = asyncio.create_task(games.play())
        await until_moves(games, 8)
        topology.replica.signal(signal.SIGSTOP)
        try:
            name = 'hive_redis_wait_timeouts_total{outcome="acknowledged"}'
            await until_metric(servers, name, 6, games, topology, timeout=60)
            before = len(games.played.acknowledged)
            await until_moves(games, before + 4)  # acknowledged all the same
        finally:
            topology.replica.signal(signal.SIGCONT)
        async with asyncio.timeout(120):
            played = await playing
        acknowledged = [
            await metric(s, 'hive_redis_wait_timeouts_total{outcome="acknowledged"}')
            for s in servers
        ]
    assert sum(acknowledged) >= 6 and played.unavailable == 0
    stored = await stored_games(topology.primary.address, list(played.seen))
    assert lost(played, stored) == []


async def test_a_primary_paused_past_down_after_comes_back_a_replica_and_nothing_it_wrote_counts(
    sentinel_topology: Topology,
) -> None:
    """The primary paused (SIGSTOP) longer than the sentinels' down-after: they promote the
    replica, both processes follow it, and the old primary, let go on, runs what was waiting
    for it (commits the processes gave up on) until the sentinels make it a replica of the new
    one, which drops it all. No client saw any of it; the games go on to their end."""
    topology = sentinel_topology
    data = str(topology.primary.folder.parent / "data")
    old = topology.primary
    async with (
        two_servers(topology, data) as servers,
        Games([s.ws_url for s in servers], GAMES, seed=43, max_plies=40) as games,
    ):
        playing = asyncio.create_task(games.play())
        await until_moves(games, 200)
        old.signal(signal.SIGSTOP)
        try:
            new = await asyncio.to_thread(topology.promoted)
        finally:
            old.signal(signal.SIGCONT)

        def demoted() -> bool:
            with old.client() as client:
                info = client.info("replication")
            return bool(
                info.get("role") == "slave"
                and info.get("master_port") == new.port
                and info.get("master_link_status") == "up"
            )

        await asyncio.to_thread(poll, demoted, "the old primary never became a replica")
        async with asyncio.timeout(120):
            played = await playing
        for server in servers:
            assert await metric(server, "hive_redis_primary_changes_total") == 1
    assert len(played.ended) == GAMES
    stored = await stored_games(new.address, list(played.seen))
    assert lost(played, stored) == []
    with_old = await stored_games(old.address, list(played.seen))  # a replica now: the same
    assert {g: r.version for g, r in with_old.items()} == {g: r.version for g, r in stored.items()}


async def test_a_new_primary_closes_idle_connections_at_once_and_busy_ones_when_answered(
    sentinel_topology: Topology,
) -> None:
    """When the sentinels name another primary, the pool's idle connections close at once and
    one in use (a command on it, or connecting) stays open until it is given back: closed
    under it, a connection still connecting failed with redis-py's AttributeError, which
    reached the client as a 1011 close (seen in CI under load)."""
    clients = connect(sentinel_topology.url, timeout=2)
    try:
        assert await clients.primary() == sentinel_topology.primary.address
        pool = clients.client.connection_pool
        idle = await pool.get_connection()  # type: ignore[no-untyped-call]
        busy = await pool.get_connection()  # type: ignore[no-untyped-call]
        await pool.release(idle)
        assert idle.is_connected and busy.is_connected
        clients.seen = "127.0.0.1:1"  # the primary was elsewhere: it has changed since
        assert await clients.primary() == sentinel_topology.primary.address
        assert not idle.is_connected
        assert busy.is_connected  # its command goes on
        await pool.release(busy)
        assert not busy.is_connected  # and it goes once given back
        assert await clients.client.ping()  # on a fresh connection
    finally:
        await clients.aclose()


async def test_a_change_a_failover_took_back_is_taken_back_with_a_snapshot(
    start_server: StartServer,
) -> None:
    """The game as a new primary may hold it, a version behind what a process passed on (a
    primary lost between its reply and its replica's copy): the listener's resubscription
    reads every followed game again, and the watchers get the game as Redis holds it, a
    snapshot, at the earlier version."""
    async with (
        start_server() as srv,
        srv.connect("ada") as white,
        srv.connect("bob") as black,
        srv.connect("cy") as fan,
    ):
        game_id, w, _ = await start_game(white, black)
        await watch(fan, game_id)
        store = srv.hub.store
        before = await store.get(game_id)
        assert before is not None
        await play(white, w, "wS1")
        assert (await updated(fan, game_id)).state.moves == ["wS1"]
        client = aioredis.Redis.from_url(srv.redis_url)
        try:  # the move lost with its primary
            await client.hset(game_key(game_id), mapping={"v": before.version, "r": pack(before)})
        finally:
            await client.aclose()
        await srv.hub.listener.resync()
        back = await updated(fan, game_id)
        assert (back.version, back.snapshot, back.state.moves) == (before.version, True, [])
        assert srv.hub.cache.games[game_id].record == before
