"""GET /metrics: the process's figures in Prometheus's text format, as they change."""

from __future__ import annotations

from server.protocol import CreateGame, Error, ErrorCode, Play, Update
from tests.server.conftest import Running
from tests.server.support import play, scrape, start_game, updated


async def test_metrics_count_connections_games_moves_and_refusals(srv: Running) -> None:
    before = await scrape(srv)
    assert before["hive_connections"] == 0 and before["hive_live_games"] == 0
    assert before["hive_moves_total"] == 0 and before["hive_bot_queue"] == 0
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
    assert during["hive_moves_total"] == 2
    assert during["hive_move_seconds_count"] == 2
    assert during["hive_move_seconds_bucket{le=+Inf}"] == 2
    assert during["hive_refused_total{code=illegal_move}"] == 1
    after = await scrape(srv)
    assert after["hive_connections"] == 0


async def test_metrics_time_the_bots_moves(srv: Running) -> None:
    async with srv.connect("ada") as client:
        await client.send(CreateGame(opponent="bot", level="beginner", color="black"))
        start = await client.expect(Update)
        update = start
        while not update.state.moves:
            update = await updated(client, start.game)
    samples = await scrape(srv)
    assert samples["hive_bot_move_seconds_count"] == 1
    assert samples["hive_moves_total"] == 1
