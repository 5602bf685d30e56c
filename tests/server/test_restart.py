"""The server as a process: killed outright and started again on the same data, stopped with
SIGTERM, and its embedded Redis."""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

from websockets.exceptions import ConnectionClosed

from protocol import Ping, Pong, TimeControl, Update, Watch
from protocol.client import Client
from server.live.recovery import OUTAGE_MS
from tests.server.conftest import free_port
from tests.server.support import ServerProcess, decisive_game, http_get, play, start_game, updated
from tests.support import until


async def killed_mid_game(
    args: tuple[str, ...], plies: int
) -> tuple[str, Update, Update, tuple[str, str]]:
    """ada (White) and bob play ``plies`` moves of ``decisive_game`` with a clock on a server
    started with ``args``, which is then SIGKILLed and stays down longer than ``OUTAGE_MS``
    (that outage is given back; a shorter gap is charged): the game's id, each player's last
    update, and their sessions' tokens."""
    moves = decisive_game()
    first = ServerProcess(*args)
    await first.start()
    async with (
        Client.connect(first.ws_url, nickname="ada") as white,
        Client.connect(first.ws_url, nickname="bob") as black,
    ):
        game_id, w, b = await start_game(white, black, time=TimeControl("clock", 300, 5))
        for move in moves[:plies]:
            mover, last = (white, w) if len(w.state.moves) % 2 == 0 else (black, b)
            await play(mover, last, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
        assert await first.stop(signal.SIGKILL) == -signal.SIGKILL
    await asyncio.sleep(OUTAGE_MS / 1000 + 0.5)  # (an outage made, not a wait for a state)
    return game_id, w, b, (white.welcome.token, black.welcome.token)


async def test_a_game_survives_sigkill_of_the_server_clocks_included(tmp_path: Path) -> None:
    moves = decisive_game()
    args = ("--port", str(free_port()), "--data", str(tmp_path / "data"), "--bot-workers", "1")
    game_id, w, b, tokens = await killed_mid_game(args, 6)
    before = w.state
    assert before.clocks.running == "white" and before.clocks.black is not None
    second = ServerProcess(*args)
    await second.start()
    try:
        async with (
            Client.connect(second.ws_url, token=tokens[0]) as white,
            Client.connect(second.ws_url, token=tokens[1]) as black,
        ):
            assert white.welcome.games == [game_id]
            await white.send(Watch(game_id, since=w.version))
            await black.send(Watch(game_id, since=b.version))
            w = await updated(white, game_id)
            assert w.events == [] and not w.snapshot and w.version == before.version
            after = w.state
            # White's clock waited for her client (held: not running); it runs again from
            # her watch (event resumed), which Black hears of too
            assert after.clocks.running is None
            w = await updated(white, game_id)
            assert [e.kind for e in w.events] == ["resumed"]
            assert w.state.clocks.running == "white"
            b = await updated(black, game_id)
            while b.version < w.version:
                b = await updated(black, game_id)
            assert after.moves == before.moves
            assert after.pieces == before.pieces
            # Time while no server ran is not charged: the outage counts from the last
            # heartbeat (one a second), so the clock is off by at most about a second,
            # either way, however long the restart took (here over OUTAGE_MS).
            assert after.clocks.black == before.clocks.black
            assert before.clocks.white is not None and after.clocks.white is not None
            assert abs(before.clocks.white - after.clocks.white) < 2500
            for move in moves[6:10]:
                mover, last = (white, w) if len(w.state.moves) % 2 == 0 else (black, b)
                await play(mover, last, move)
                w, b = await updated(white, game_id), await updated(black, game_id)
            assert w.state.moves == list(moves[:10])
            status, _, body = await http_get(f"{second.url}/games/{game_id}.txt")
            assert status == 200 and body.decode().count(";") == 2 + 10
    finally:
        await second.stop()


async def test_a_held_clock_whose_player_stays_away_runs_again_for_every_watcher(
    tmp_path: Path,
) -> None:
    """After a restart, the clock of the player to move waits for her client, up to the grace;
    when she stays away, it runs again at the grace's end and the watchers are told then (an
    event ``resumed``), with nothing else happening in the game."""
    args = ("--port", str(free_port()), "--data", str(tmp_path / "data"), "--reconnect-grace", "1")
    game_id, _, b, tokens = await killed_mid_game(args, 4)
    assert b.state.clocks.running == "white"
    second = ServerProcess(*args)
    await second.start()
    try:
        async with Client.connect(second.ws_url, token=tokens[1]) as black:
            await black.send(Watch(game_id, since=b.version))
            b = await updated(black, game_id)
            assert b.state.clocks.running is None  # held for ada, who is not back
            b = await updated(black, game_id)
            assert [(e.kind, e.by) for e in b.events] == [("resumed", "white")]
            assert b.state.clocks.running == "white" and len(b.state.moves) == 4
    finally:
        await second.stop()


async def test_sigterm_closes_connections_with_1001_and_stops_redis(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = ServerProcess("--port", str(free_port()), "--data", str(data), "--bot-workers", "1")
    await server.start()
    status, kind, body = await http_get(f"{server.url}/healthz")
    assert (status, kind) == (200, "application/json") and b'"ok"' in body
    async with Client.connect(server.ws_url, nickname="ada") as client:
        await client.send(Ping(1.5))
        assert (await client.expect(Pong)).t == 1.5
        pid = int((data / "redis" / "redis.pid").read_text())
        assert await server.stop(signal.SIGTERM) == 0
        try:
            await client.recv(timeout=10)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1001
        else:
            raise AssertionError("the connection stayed open")
    assert not Path(f"/proc/{pid}").exists()
    assert (data / "redis" / "appendonly.aof").exists() or (
        data / "redis" / "appendonlydir"
    ).exists()
    # the log has the server's own lines, not one per connection or health check
    assert any("INFO server: stopping" in line for line in server.log), server.log
    assert not any(" websockets." in line for line in server.log), server.log


async def test_sigusr1_prints_every_threads_stack_and_the_server_goes_on(tmp_path: Path) -> None:
    """Where a busy or stuck server is: SIGUSR1 prints its threads' stacks (``faulthandler``),
    the main thread's in its event loop, and it serves on."""
    server = ServerProcess(
        "--port", str(free_port()), "--data", str(tmp_path), "--bot-workers", "1"
    )
    await server.start()
    try:
        assert server.process is not None
        server.process.send_signal(signal.SIGUSR1)
        # Both lines anywhere in the log, whichever thread took the signal; when they are not
        # there, the failure shows the log (it failed once in a clean run, the log unseen).
        dumped = re.compile(r"^Current thread 0x[0-9a-f]+ \(most recent call first\):")
        in_main = re.compile(r'File ".*server/__main__.py", line \d+ in main')
        await until(
            lambda: all(any(p.search(line) for line in server.log) for p in (dumped, in_main)),
            lambda: "its threads' stacks, the main thread's in main:\n" + "".join(server.log),
            timeout=60,
        )
        status, _, _ = await http_get(f"{server.url}/healthz")
        assert status == 200
    finally:
        assert await server.stop() == 0
