"""GET /metrics: the process's figures in Prometheus's text format, as they change, on a port of
its own (``--metrics-port``), never on the public one."""

from __future__ import annotations

import os
import signal
import time

from protocol import CreateGame, Error, ErrorCode, Play, Resign, Update
from server.edge.metrics import version
from server.embedded import RedisProcess
from tests.server.conftest import Running, StartServer
from tests.server.support import http_get, play, scrape, start_game, updated, watch
from tests.support import until


async def test_metrics_count_connections_games_moves_and_refusals(srv: Running) -> None:
    before = await scrape(srv)
    assert before["hive_connections"] == 0 and before["hive_live_games"] == 0
    assert "hive_moves_total{player=person}" not in before and before["hive_bot_queue"] == 0
    assert "hive_redis_round_trip_seconds_count" in before
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, b = await start_game(white, black)
        await play(white, w, "wA1")
        b = await updated(black, game_id)
        await play(black, b, "bG1 -wA1")
        while len(w.state.moves) < 2:
            w = await updated(white, game_id)
        await white.send(Play(game_id, w.version, "wQ wA1"))  # on top of a piece: illegal
        error = await white.expect(Error)
        assert error.code == ErrorCode.ILLEGAL_MOVE
        during = await scrape(srv)
    assert during["hive_connections"] == 2 and during["hive_live_games"] == 1
    assert during["hive_moves_total{player=person}"] == 2
    assert during["hive_move_seconds_count"] == 2
    assert during["hive_move_seconds_bucket{le=+Inf}"] == 2
    assert during["hive_refused_total{code=illegal_move}"] == 1
    assert during["hive_messages_received_total{type=play}"] == 3
    assert during["hive_messages_received_total{type=hello}"] == 2
    after = await scrape(srv)
    assert after["hive_connections"] == 0


async def test_metrics_tell_the_bots_moves_from_the_peoples(srv: Running) -> None:
    async with srv.connect("ada") as client:
        await client.send(CreateGame(opponent="bot", level="beginner", color="black"))
        start = await client.expect(Update)
        update = start
        while not update.state.moves:
            update = await updated(client, start.game)
    samples = await scrape(srv)
    assert samples["hive_bot_move_seconds_count"] == 1
    assert samples["hive_moves_total{player=server_bot}"] == 1
    assert "hive_moves_total{player=person}" not in samples


async def test_metrics_are_on_their_own_port_and_only_there(srv: Running) -> None:
    """The public port (what a proxy publishes) does not serve /metrics; the metrics port
    serves nothing else."""
    status, _, _ = await http_get(f"{srv.http_url}/metrics")
    assert status == 404
    assert srv.hub.metrics.port not in (None, int(srv.http_url.rsplit(":", 1)[1]))
    status, _, _ = await http_get(srv.metrics_url.replace("/metrics", "/healthz"))
    assert status == 404
    status, _, body = await http_get(srv.metrics_url)
    assert status == 200 and b"hive_connections" in body


async def test_no_metrics_port_serves_no_metrics(start_server: StartServer) -> None:
    async with start_server(metrics_port=None) as srv:
        assert srv.hub.metrics.port is None
        status, _, _ = await http_get(f"{srv.http_url}/metrics")
        assert status == 404


async def test_metrics_have_the_process_the_build_and_no_created_series(srv: Running) -> None:
    samples = await scrape(srv)
    assert not [name for name in samples if "_created" in name]
    for name in (
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_open_fds",
        "process_max_fds",
    ):
        assert samples[name] > 0, name
    assert samples[f"hive_build_info{{version={version()}}}"] == 1
    assert version() != "unknown"  # installed: make test's editable install


async def test_metrics_count_who_is_here_and_how_games_and_connections_end(
    srv: Running,
) -> None:
    before = await scrape(srv)
    assert before["hive_open_games"] == 0 and before["hive_spectators"] == 0
    assert before["hive_players_online"] == 0 and before["hive_bots_online"] == 0
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, _, _ = await start_game(white, black)
        async with srv.connect("cy") as spectator:
            await spectator.send(CreateGame(color="white"))
            await spectator.expect(Update)
            await watch(spectator, game_id)
            await until(
                lambda: sum(srv.hub.presence.spectating.values()) == 1, "the spectator counted"
            )
            during = await scrape(srv)
            assert during["hive_spectators"] == 1 and during["hive_players_online"] == 3
            assert during["hive_open_games"] == 1 and during["hive_live_games"] == 1
            await white.send(Resign(game_id))
            await updated(spectator, game_id)
        await until(lambda: len(srv.hub.connections.sessions) == 2, "the spectator gone")
        after = await scrape(srv)
    assert after["hive_games_ended_total{reason=resign}"] == 1
    assert after["hive_connections_closed_total{code=1000}"] == 1  # the spectator's close
    assert after["hive_frames_sent_total"] > before.get("hive_frames_sent_total", 0)


async def test_metrics_measure_the_event_loops_lag(srv: Running) -> None:
    """The process's event loop held up for 0.8 s (here, the test's own blocking call on the
    loop the server runs on) shows as a lag over 0.25 s: the measuring timer, due within
    half a second of the hold-up's start, runs at least 0.3 s late."""
    total = "hive_event_loop_lag_seconds_count"
    late = "hive_event_loop_lag_seconds_bucket{le=0.25}"
    before = await scrape(srv)
    assert before[total] - before[late] == 0
    time.sleep(0.8)  # the fault: the loop held up (not a wait for anything)

    async def measured() -> dict[str, float] | None:
        figures = await scrape(srv)
        return figures if figures[total] != figures[late] else None

    after = await until(measured, "the next measurement, within half a second", timeout=10)
    assert after[total] - after[late] == 1  # one timer over 0.25 s late


async def test_metrics_say_whether_redis_answers_and_count_its_errors(
    redis_server: RedisProcess, start_server: StartServer
) -> None:
    assert redis_server.process is not None
    async with start_server(redis_timeout=0.5) as srv:
        before = await scrape(srv)
        assert not [n for n in before if n.startswith("hive_redis_errors_total")]
        assert before["hive_redis_up"] == 1
        redis_server.process.send_signal(signal.SIGSTOP)
        try:
            await until(lambda: not srv.hub.health.storage_ok, "the heartbeat fails")
            away = await scrape(srv)
        finally:
            redis_server.process.send_signal(signal.SIGCONT)
        await until(lambda: srv.hub.health.storage_ok, "the heartbeat answered again")
        back = await scrape(srv)
    assert away["hive_redis_errors_total{error=TimeoutError}"] >= 1
    assert (away["hive_redis_up"], back["hive_redis_up"]) == (0, 1)


async def test_metrics_count_bot_workers_replaced(srv: Running) -> None:
    async with srv.connect("ada") as client:
        await client.send(CreateGame(opponent="bot", level="beginner", color="black"))
        start = await client.expect(Update)
        update = start
        while not update.state.moves:
            update = await updated(client, start.game)
        assert (await scrape(srv))["hive_bot_workers_replaced_total"] == 0
        for pid in srv.hub.pool.pids():
            os.kill(pid, signal.SIGKILL)
        await play(client, update, "bS1 " + update.state.moves[0].split()[0] + "-")
        while len(update.state.moves) < 3:
            update = await updated(client, start.game)
    assert (await scrape(srv))["hive_bot_workers_replaced_total"] == 1
