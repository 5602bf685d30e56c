"""The HTTP side of the server: the routes beside ``/ws``.

Routes (``GET``, and ``HEAD`` wherever ``GET`` is answered: the same status and headers, no
body; any other method is answered 405):

- ``/ws``: the websocket (``None`` here lets websockets go on with the handshake);
- ``/healthz``: 200 while the server accepts games and reaches its storage, else 503;
- ``/games/ID.txt``: a game's record as a UHP GameString (a finished game's result and reason
  in the headers ``Hive-Result`` and ``Hive-Reason``);
- ``/games/ID/trace/N.json``: the search trace of a bot's move;
- ``/@/NAME/games.txt``: an account's games as UHP GameStrings, one a line, newest first, as
  a download (``server.requests.profiles``: at most ``DOWNLOAD_GAMES`` a file; ``?before=ID``
  goes on from the game ID, which the ``Link`` header names when older games remain);
- ``/games/ID/positions.json``, ``/positions.json?...``: positions (``server.edge.review``);
- anything else: a file the web client's pages load (``server.edge.static``).

Every answer carries the headers of ``server.edge.answers`` (what the browser may do with it).
``/metrics``, the process's figures for Prometheus, is served on a port of its own
(``server.edge.metrics.metrics_endpoint``): a proxy in front of the public port shows it to
nobody, and each process is scraped on its own.
"""

from __future__ import annotations

import functools
import gzip
import json
import logging
import re
import urllib.parse
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Final

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from protocol import schema
from server.archive.games import ARCHIVE_ERRORS
from server.edge import review
from server.edge.addresses import address_block, client_address
from server.edge.answers import ALLOW, METHODS, headless, response, text
from server.edge.static import client_file
from server.game.clock import now_ms
from server.game.record import GAME_ID, Record

if TYPE_CHECKING:
    from server.archive.games import Archive
    from server.edge.addresses import Network
    from server.edge.connection import Connections
    from server.edge.health import Health
    from server.edge.review import Positions
    from server.requests.profiles import Profiles
    from server.storage.store import Store

log = logging.getLogger(__name__)

MAX_PATH: Final = 1024
"""Longest path answered (the query, a GameString for /positions.json, may be longer, up to
websockets' 8 KiB request line); a longer one gets 414."""
_CONTROL: Final = re.compile(r"[\x00-\x20\x7f]")
_GAME_TXT: Final = re.compile(rf"/games/({GAME_ID.pattern})\.txt")
_TRACE: Final = re.compile(rf"/games/({GAME_ID.pattern})/trace/(\d{{1,4}})\.json")
_PLAYER_GAMES: Final = re.compile(r"/@/([^/]{1,200})/games\.txt")
_FILE_NAME: Final = re.compile(r"[^A-Za-z0-9_-]")
DOWNLOADS_PER_ADDRESS: Final = 30
"""Downloads of a player's games an address may make in ``DOWNLOAD_WINDOW`` seconds."""
DOWNLOAD_WINDOW: Final = 3600.0


@dataclass(frozen=True)
class Routes:
    """What the routes read: ``connections`` admits a websocket (and hashes an address, the
    key of the download limit counted in ``store``), ``health`` answers ``/healthz``,
    ``archive`` the games and traces (``positions`` their positions), ``profiles`` a player's
    games; a request's address is believed from the trusted ``proxies``."""

    connections: Connections
    health: Health
    archive: Archive
    positions: Positions
    profiles: Profiles
    store: Store
    proxies: tuple[Network, ...]


async def http(routes: Routes, connection: ServerConnection, request: Request) -> Response | None:
    """The answer to an HTTP request; None lets ``/ws`` go on to the websocket handshake."""
    path, _, query = request.path.partition("?")
    if len(path) > MAX_PATH:
        return text(HTTPStatus.REQUEST_URI_TOO_LONG, f"paths are at most {MAX_PATH} bytes\n")
    if _CONTROL.search(request.path):
        return text(HTTPStatus.BAD_REQUEST, "control characters in the request\n")
    if request.method not in METHODS:
        return text(HTTPStatus.METHOD_NOT_ALLOWED, "only GET is answered here\n", ALLOW)
    if request.method == "HEAD":
        if path == "/ws":  # no websocket opens on a HEAD: what a GET without an upgrade gets
            upgrade = (("Upgrade", "websocket"),)
            return headless(text(HTTPStatus.UPGRADE_REQUIRED, "open it with a GET\n", upgrade))
        return headless(await _get(routes, path, query, connection, request))
    if path == "/ws":
        return routes.connections.admit(connection, request)
    return await _get(routes, path, query, connection, request)


async def _get(
    routes: Routes, path: str, query: str, connection: ServerConnection, request: Request
) -> Response:
    try:
        return await _route(routes, path, query, connection, request)
    except ARCHIVE_ERRORS as error:
        log.warning("storage unavailable for %s: %s", path[:100], error)
        return text(HTTPStatus.SERVICE_UNAVAILABLE, "storage unavailable; try again\n")


async def _route(
    routes: Routes, path: str, query: str, connection: ServerConnection, request: Request
) -> Response:
    if path == "/protocol.schema.json":
        return response(HTTPStatus.OK, _schema(), "application/schema+json")
    if path == "/healthz":
        health = routes.health.report()
        ok = health["status"] == "ok"
        status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
        return response(status, json.dumps(health).encode(), "application/json")
    found = _GAME_TXT.fullmatch(path)
    if found:
        record = await routes.archive.get(found[1])
        if record is None:
            return text(HTTPStatus.NOT_FOUND, f"no game {found[1]}\n")
        return text(HTTPStatus.OK, record.game_string() + "\n", _ending(record))
    found = _TRACE.fullmatch(path)
    if found:
        trace = await routes.archive.trace(found[1], int(found[2]))
        if trace is None:
            return text(HTTPStatus.NOT_FOUND, "no trace kept for that move\n")
        return _gzipped(trace, "application/json", request)
    found = _PLAYER_GAMES.fullmatch(path)
    if found:
        address = address_block(client_address(connection, request, routes.proxies))
        origin = routes.connections.origin_of(address)
        return await _player_games(routes.profiles, routes.store, found[1], query, origin)
    answer = await review.route(routes.archive, routes.positions, path, query)
    if answer is not None:
        return response(*answer)
    return client_file(path, request)


async def _player_games(
    profiles: Profiles, store: Store, quoted: str, query: str, origin: str
) -> Response:
    """``/@/NAME/games.txt[?before=ID]``: the account's games (``Profiles.download``), as a
    file to save; at most ``DOWNLOADS_AT_ONCE`` are built at once (503 past them), and
    ``DOWNLOADS_PER_ADDRESS`` an hour for an address (its ``origin`` hash; 429 past them)."""
    try:
        name = urllib.parse.unquote(quoted, errors="strict")
        fields = urllib.parse.parse_qs(query, strict_parsing=bool(query), max_num_fields=1)
    except ValueError:  # undecodable, or a malformed or long query
        return text(HTTPStatus.BAD_REQUEST, "the only parameter is before=GAME_ID\n")
    before = fields.pop("before", [None])[0]
    if fields or (before is not None and not GAME_ID.fullmatch(before)):
        return text(HTTPStatus.BAD_REQUEST, "the only parameter is before=GAME_ID\n")
    window = DOWNLOAD_WINDOW
    if await store.count_in_window(origin, "download", window, now_ms()) > (DOWNLOADS_PER_ADDRESS):
        return text(
            HTTPStatus.TOO_MANY_REQUESTS,
            f"at most {DOWNLOADS_PER_ADDRESS} downloads an hour from one address\n",
            (("Retry-After", str(int(window))),),
        )
    if profiles.downloading.locked():
        return text(
            HTTPStatus.SERVICE_UNAVAILABLE,
            "too many downloads at once; try again shortly\n",
            (("Retry-After", "5"),),
        )
    async with profiles.downloading:
        try:
            download = await profiles.download(name, before)
        except LookupError:
            return text(HTTPStatus.NOT_FOUND, f"no game {before}\n")
    if download is None:
        return text(HTTPStatus.NOT_FOUND, "no account of that name\n")
    shown = urllib.parse.quote(download.name, safe="")
    plain = _FILE_NAME.sub("_", download.name)
    extra = [
        (
            "Content-Disposition",
            f"attachment; filename=\"{plain}-games.txt\"; filename*=UTF-8''{shown}-games.txt",
        ),
        ("Hive-Games", str(download.games)),
    ]
    if download.more is not None:
        extra.append(("Link", f'</@/{shown}/games.txt?before={download.more}>; rel="next"'))
    return response(HTTPStatus.OK, download.body, "text/plain; charset=utf-8", tuple(extra))


def _ending(record: Record) -> tuple[tuple[str, str], ...]:
    """A finished game's result and reason, beside its GameString: UHP has no word for a
    resignation, a flag or a threefold repetition (the server's rule, not UHP's: an engine
    without it finds a repetition's ``Draw`` record's moves give a game in progress;
    ``hive-engine`` loads it as the draw)."""
    if record.status != "over" or record.reason is None:
        return ()
    return ("Hive-Result", record.result or "None"), ("Hive-Reason", record.reason)


@functools.cache
def _schema() -> bytes:
    """The JSON Schema of every message (``protocol.schema``), made once."""
    return schema.dumps().encode()


def _gzipped(body: bytes, content_type: str, request: Request) -> Response:
    """A body kept gzipped, sent as it is to a client that takes gzip, else unpacked (a body
    stored before traces were gzipped goes as it is)."""
    if not body.startswith(b"\x1f\x8b"):
        return response(HTTPStatus.OK, body, content_type)
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        return response(HTTPStatus.OK, body, content_type, (("Content-Encoding", "gzip"),))
    return response(HTTPStatus.OK, gzip.decompress(body), content_type)
