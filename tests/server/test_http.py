"""The HTTP side of a real server: the headers every answer carries, requests that are not
ours refused cleanly, positions computed off the event loop with bounded input and work,
and search traces sent gzipped."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import os
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from server.bots import trace_json
from server.http import CONTENT_SECURITY_POLICY
from server.protocol import Ping, Pong
from server.review import MAX_MOVES, Positions, Query, _query_answer, position_query
from tests.server.conftest import Running
from tests.server.support import http_get, play, start_game, updated

REPETITION = ["wQ \\wS1", "bQ bS1/", "wQ -wS1", "bQ bS1-"]
"""Four moves that bring the queens back where they were (without the repetition draw)."""


async def raw_http(srv: Running, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as it is; the answer's status, headers (lower-case names) and body."""
    host, port = srv.http_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {
            name.lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        return int(status_line.split()[1]), headers, body
    finally:
        writer.close()


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: hive\r\n\r\n".encode()


@pytest.mark.parametrize(
    "path",
    ["/", "/visualizer", "/js/app.js", "/healthz", "/metrics", "/games/00000000.txt", "/nope"],
)
async def test_every_answer_says_what_the_browser_may_do_and_no_version(
    srv: Running, path: str
) -> None:
    _, headers, _ = await raw_http(srv, get(path))
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    policy = dict(part.split(" ", 1) for part in CONTENT_SECURITY_POLICY.split("; "))
    assert policy["script-src"] == "'self'" and policy["object-src"] == "'none'"
    assert policy["frame-ancestors"] == "'none'" and "unsafe" not in CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["server"] == "Hive Arena"  # no software, no version


@pytest.mark.parametrize(
    ("request_", "status"),
    [
        (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", 405),
        (b"HEAD / HTTP/1.1\r\nHost: h\r\n\r\n", 405),
        (b"DELETE /games/00000000.txt HTTP/1.1\r\nHost: h\r\n\r\n", 405),
        (b"PUT /ws HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", 405),
        (get("/" + "a" * 7000), 414),
        (get("/js/" + "a" * 2000 + ".js"), 414),
        (get("/js/app.js\x00.png"), 400),
        (get("/games/%00.txt\x01"), 400),
    ],
)
async def test_requests_that_are_not_ours_get_their_status_and_no_traceback(
    srv: Running, request_: bytes, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        answer, headers, body = await raw_http(srv, request_)
    assert answer == status
    if status == 405:
        assert headers["allow"] == "GET"
    assert len(body) < 200
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    # and the server goes on
    assert (await http_get(f"{srv.http_url}/healthz"))[0] == 200


def positions_url(srv: Running, moves: list[str]) -> str:
    game = f"Base;InProgress;White[1];{';'.join(moves)}"
    return f"{srv.http_url}/positions.json?{urllib.parse.urlencode({'game': game})}"


def test_positions_take_a_bounded_game_string() -> None:
    moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"] + REPETITION * 250  # 1,004 moves
    asked = position_query(
        urllib.parse.urlencode({"game": f"Base;InProgress;White[1];{';'.join(moves)}"})
    )
    assert not isinstance(asked, Query)
    assert asked[0] == 400 and f"at most {MAX_MOVES} moves" in json.loads(asked[1])["error"]


async def test_positions_are_computed_off_the_event_loop(srv: Running) -> None:
    """Playing hundreds of moves takes a while: meanwhile the server answers a websocket
    ping at once (on the event loop, the pong would wait for the positions)."""
    moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"] + REPETITION * 150
    async with srv.connect("ada") as ada:
        positions = asyncio.ensure_future(http_get(positions_url(srv, moves)))
        await srv.hub.positions.submitted.wait()  # the request reached the worker
        await ada.send(Ping(1.0))
        assert (await ada.expect(Pong)).t == 1.0
        assert srv.hub.positions.busy == 1  # the pong came while the positions were computed
        status, _, body = await positions
    assert status == 200 and len(json.loads(body)["frames"]) == len(moves) + 1
    assert srv.hub.positions.pids() and os.getpid() not in srv.hub.positions.pids()


async def test_position_requests_past_the_limit_are_refused_at_once() -> None:
    positions = Positions(waiting=1)
    moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"] + REPETITION * 100
    query = position_query(f"game=Base;InProgress;White[1];{';'.join(moves)}")
    assert isinstance(query, Query)
    try:
        first, second = await asyncio.gather(
            positions.run(_query_answer, query), positions.run(_query_answer, query)
        )
    finally:
        positions.close()
    assert first[0] == 200
    assert second[0] == 503 and "busy" in json.loads(second[1])["error"]


def _get_with(url: str, headers: dict[str, str]) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(response.headers), response.read()


async def test_a_bot_moves_trace_is_kept_small_and_sent_gzipped(srv: Running) -> None:
    document: dict[str, Any] = {"format": "hive-arena-search-trace", "version": 1, "big": "x" * 10}
    trace = gzip.compress(json.dumps(document).encode())
    async with srv.connect("ada") as ada, srv.connect("bob") as bob:
        game_id, _, _ = await start_game(ada, bob)
    await srv.hub.store.put_trace(game_id, 1, trace, 60)
    url = f"{srv.http_url}/games/{game_id}/trace/1.json"
    headers, body = await asyncio.to_thread(_get_with, url, {"Accept-Encoding": "gzip"})
    assert headers["Content-Encoding"] == "gzip" and json.loads(gzip.decompress(body)) == document
    headers, body = await asyncio.to_thread(_get_with, url, {})
    assert "Content-Encoding" not in headers and json.loads(body) == document


def test_a_trace_too_large_is_kept_shallower() -> None:
    from ai.bots import Bot
    from ai.trace import TraceRecorder
    from hive import Game
    from tests.server.support import decisive_game

    game = Game("Base")
    for move in decisive_game("Base")[:12]:
        game.play(move)
    recorder = TraceRecorder(max_depth=2)
    Bot("medium", seed=3).choose(game, trace=recorder)
    whole = json.dumps(recorder.to_dict()).encode()
    assert len(whole) > 20_000
    kept = json.loads(trace_json(recorder, 30_000))
    assert kept["max_depth"] == 1 and len(json.dumps(kept)) <= 30_000
    assert kept == json.loads(json.dumps(recorder.to_dict(1)))
    assert trace_json(recorder, 10**6) == whole  # a trace that fits is kept whole


async def test_a_records_header_gives_the_result_and_the_reason_uhp_cannot_say(
    srv: Running,
) -> None:
    """A threefold repetition is the server's rule, not UHP's: the GameString reads ``Draw``,
    and the answer says why beside it (``Hive-Result``, ``Hive-Reason``); ``hive-engine`` loads
    the record as that draw, its RepetitionDraw option left off (issue 33). A game in progress
    has neither header."""
    moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"] + REPETITION * 2
    async with srv.connect("ada") as white, srv.connect("bob") as black:
        game_id, w, b = await start_game(white, black)
        status, headers, _ = await raw_http(srv, get(f"/games/{game_id}.txt"))
        assert status == 200 and "hive-result" not in headers and "hive-reason" not in headers
        for n, move in enumerate(moves):
            await play(white if n % 2 == 0 else black, w if n % 2 == 0 else b, move)
            w, b = await updated(white, game_id), await updated(black, game_id)
    assert (w.state.result, w.state.reason) == ("Draw", "repetition")
    status, headers, body = await raw_http(srv, get(f"/games/{game_id}.txt"))
    assert status == 200 and body.decode().startswith("Base;Draw;")
    assert (headers["hive-result"], headers["hive-reason"]) == ("Draw", "repetition")
    record = body.decode().strip()
    answers = await hive_engine(f"newgame {record}", "validmoves", "options get RepetitionDraw")
    assert answers == [
        [record],
        ["err the game is over (Draw); start a new one with newgame"],
        ["RepetitionDraw;bool;False;False"],
    ]


async def hive_engine(*commands: str) -> list[list[str]]:
    """The answers of a ``hive-engine`` process (the console script) to ``commands``, each
    without its ``ok``, after the greeting."""
    script = Path(sys.executable).with_name("hive-engine")
    process = await asyncio.create_subprocess_exec(
        script, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    text = "".join(f"{command}\n" for command in commands).encode()
    async with asyncio.timeout(30):
        out, _ = await process.communicate(text)
    assert process.returncode == 0
    answers: list[list[str]] = [[]]
    for line in out.decode().splitlines():
        if line == "ok":
            answers.append([])
        else:
            answers[-1].append(line)
    assert answers[-1] == [] and answers[0][0].startswith("id HiveArena")
    return answers[1:-1]
