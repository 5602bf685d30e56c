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
from websockets.exceptions import InvalidStatus

from ai.pool import trace_json
from protocol import Ping, Pong, Seat, TimeControl
from protocol.client import Client
from server.edge.answers import CONTENT_SECURITY_POLICY
from server.edge.review import MAX_MOVES, Positions, Query, _query_answer, position_query
from server.game.clock import now_ms
from server.settings import Settings, from_args
from tests.hive.support import ANTS, SWAP, SWAP_BACK
from tests.server.conftest import Running, StartServer
from tests.server.support import finished, http_get, play, raw_http, scrape, start_game, updated

REPETITION = ["wQ \\wS1", "bQ bS1/", "wQ -wS1", "bQ bS1-"]
"""Four moves that bring the queens back where they were (without the repetition draw)."""


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
        (b"OPTIONS / HTTP/1.1\r\nHost: h\r\n\r\n", 405),
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
        assert headers["allow"] == "GET, HEAD"
    assert len(body) < 200
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    # and the server goes on
    assert (await http_get(f"{srv.http_url}/healthz"))[0] == 200


def head(path: str, *more: str) -> bytes:
    return "\r\n".join([f"HEAD {path} HTTP/1.1", "Host: hive", *more, "", ""]).encode()


async def raw_head(srv: Running, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send a ``HEAD`` request; its status, headers and whatever came after them (the server
    closes the connection after its answer: anything it sent is read)."""
    host, port = srv.http_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        answer = await reader.read(-1)
    finally:
        writer.close()
    head, _, rest = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {
        name.lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines if line)
    }
    return int(status_line.split()[1]), headers, rest


@pytest.mark.parametrize(
    ("path", "more"),
    [
        ("/", ()),
        ("/", ("Accept-Encoding: gzip",)),
        ("/visualizer", ()),
        ("/js/app.js", ("Accept-Encoding: gzip",)),
        ("/favicon.svg", ()),
        ("/healthz", ()),
        ("/protocol.schema.json", ()),
        ("/games/00000000.txt", ()),
        ("/nope", ()),
        ("/package.json", ()),
    ],
)
async def test_head_is_answered_as_get_without_a_body(
    srv: Running, path: str, more: tuple[str, ...]
) -> None:
    """RFC 9110: the status and headers a ``GET`` would get (its ``Content-Length`` too),
    and no body."""
    status, headers, body = await raw_head(srv, head(path, *more))
    got, get_headers, get_body = await raw_http(
        srv, "\r\n".join([f"GET {path} HTTP/1.1", "Host: hive", *more, "", ""]).encode()
    )
    assert (status, body) == (got, b"")
    drop = {"date"}
    if path == "/healthz":  # its JSON counts what is open now: its length may change
        drop.add("content-length")
    assert {k: v for k, v in headers.items() if k not in drop} == {
        k: v for k, v in get_headers.items() if k not in drop
    }
    assert int(headers["content-length"]) == len(get_body) or path == "/healthz"


async def test_head_opens_no_websocket_and_metrics_answer_it_too(srv: Running) -> None:
    upgrade = (
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
    )
    status, headers, body = await raw_head(srv, head("/ws", *upgrade))
    assert (status, headers["upgrade"], body) == (426, "websocket", b"")
    assert not srv.hub.connections.sessions
    metrics = f"http://127.0.0.1:{srv.hub.metrics.port}"
    request = urllib.request.Request(f"{metrics}/metrics", method="HEAD")
    answer = await asyncio.to_thread(urllib.request.urlopen, request, timeout=5)
    assert answer.status == 200 and answer.read() == b""
    assert int(answer.headers["Content-Length"]) > 1000


def positions_url(srv: Running, moves: list[str]) -> str:
    game = f"Base;InProgress;White[1];{';'.join(moves)}"
    return f"{srv.http_url}/positions.json?{urllib.parse.urlencode({'game': game})}"


async def test_a_game_stored_before_repetitions_were_counted_by_kind_is_reviewed(
    srv: Running,
) -> None:
    """A game stored when a repetition was counted by piece numbers may play on past its
    third position by kind: its review replays it as stored, its stated result standing."""
    moves = [*ANTS.split(";")[3:], *SWAP, *SWAP_BACK, SWAP[0]]  # on past the third by kind
    ada, bob = Seat("p-ada", "ada"), Seat("p-bob", "bob")
    old = finished(
        "0ld0game", ada, bob, "BlackWins", "resign", now_ms(), time=TimeControl(), moves=moves
    )
    assert await srv.hub.archive.write(old)
    status, _, body = await http_get(f"{srv.http_url}/games/0ld0game/positions.json")
    document = json.loads(body)
    assert status == 200, document
    assert len(document["frames"]) == len(moves) + 1
    assert (document["result"], document["frames"][-1]["state"]) == ("BlackWins", "InProgress")


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


async def test_only_the_sites_own_pages_and_those_configured_may_open_the_websocket(
    start_server: StartServer,
) -> None:
    """A browser says which page opens a websocket (``Origin``): the server's own (the host
    and port it was asked for, whichever scheme a proxy in front takes) and the configured
    ones are welcomed, a page elsewhere is refused with 403 before any handshake; a client
    that says no origin (a bot) is welcomed."""
    async with start_server(origins="https://play.example, http://[2001:db8::1]:8000") as srv:
        port = srv.ws_url.split(":")[2].split("/")[0]
        welcomed = [
            None,
            f"http://127.0.0.1:{port}",
            f"https://127.0.0.1:{port}",
            "https://play.example",
            "https://PLAY.example:443",
            "http://[2001:db8::1]:8000",
        ]
        for origin in welcomed:
            headers = None if origin is None else {"Origin": origin}
            async with Client.connect(srv.ws_url, nickname="ada", headers=headers) as client:
                assert client.welcome.player
        refused = [
            "https://evil.example",
            f"http://127.0.0.1:{int(port) + 1}",  # another port of the same host
            f"http://localhost:{port}",  # another name of the same host
            "http://play.example",  # another scheme of a configured origin
            "null",  # a sandboxed page, a file
            f"http://127.0.0.1:{port}/ws",
        ]
        for origin in refused:
            with pytest.raises(InvalidStatus) as refusal:
                async with Client.connect(srv.ws_url, nickname="ada", headers={"Origin": origin}):
                    pass
            assert refusal.value.response.status_code == 403, origin
        assert (await scrape(srv))["hive_refused_total{code=origin}"] == len(refused)


def test_a_configured_origin_is_an_origin() -> None:
    with pytest.raises(ValueError, match="not an origin"):
        Settings(origins="https://play.example/lobby")
    with pytest.raises(SystemExit):
        from_args(["--origins", "play.example"])
    assert from_args(["--origins", "https://play.example"]).allowed_origins == {
        ("https", "play.example", 443)
    }


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
