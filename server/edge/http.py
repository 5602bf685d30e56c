"""The HTTP side of the server: the routes beside ``/ws``, and the headers every answer carries.

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
- anything else: a file the web client's pages load (``client/``'s ``PUBLIC`` files, and
  the packages of ``VENDOR``), gzipped for a browser that takes it,
  with an ``ETag`` and ``Last-Modified`` and ``Cache-Control: no-cache``: the browser keeps it
  and asks each visit whether it changed, and an unchanged file costs a bodiless 304.

Every answer says what the browser may do with it: a Content-Security-Policy that lets a page
run only the site's own scripts (no inline script, no plugins, no framing), ``nosniff``, and no
referrer sent elsewhere. The ``Server`` header names no version (see ``SERVER``).

``/metrics``, the process's figures for Prometheus, is served on a port of its own
(``Settings.metrics_port``, ``metrics_endpoint``): a proxy in front of the public port shows
it to nobody, and each process is scraped on its own.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import gzip
import hashlib
import ipaddress
import json
import logging
import mimetypes
import re
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Final

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol import schema
from server.archive.games import ARCHIVE_ERRORS
from server.edge import review
from server.game.clock import now_ms
from server.game.record import GAME_ID, Record
from server.settings import DEFAULT_PORTS, origin_of

if TYPE_CHECKING:
    from server.runtime import Hub

log = logging.getLogger(__name__)

SERVER: Final = "Hive Arena"
"""The ``Server`` header: no software version for a scanner to match."""
CLIENT_DIR: Final = Path(__file__).resolve().parents[2] / "client"
VENDOR: Final = {
    "/vendor/msgpack@": (CLIENT_DIR / "node_modules" / "@msgpack" / "msgpack", "dist.esm"),
    "/vendor/uplot@": (CLIENT_DIR / "node_modules" / "uplot", "dist"),
}
"""URL prefixes served from the client's npm packages, each followed by the installed version
and ``/``, and the package's folder served there (its ES module build):
``/vendor/msgpack@3.1.3/index.mjs`` is ``@msgpack/msgpack``'s ``dist.esm/index.mjs``,
``/vendor/uplot@1.6.32/uPlot.esm.js`` is ``uplot``'s ``dist/uPlot.esm.js`` (the profile's
rating chart). A name with its version never changes, so the browser keeps it without asking
again (``VENDOR_CACHE``); another version is not served (the client's imports name the one
locked)."""
_PAGES: Final = {"": "/index.html", "/": "/index.html", "/visualizer": "/visualizer.html"}
PUBLIC: Final = frozenset(["index.html", "visualizer.html", "favicon.svg", "js", "css"])
"""What of ``client/`` is served: the files the pages load, and the folders of their scripts
and styles (the vendored packages are ``VENDOR``'s). Nothing else there is: not its
``package.json`` nor its lock, its tests or their helpers, ``node_modules``."""
MAX_PATH: Final = 1024
"""Longest path answered (the query, a GameString for /positions.json, may be longer, up to
websockets' 8 KiB request line); a longer one gets 414."""
CONTENT_SECURITY_POLICY: Final = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS: Final = (
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
)
_CONTROL: Final = re.compile(r"[\x00-\x20\x7f]")
_GAME_TXT: Final = re.compile(rf"/games/({GAME_ID.pattern})\.txt")
_TRACE: Final = re.compile(rf"/games/({GAME_ID.pattern})/trace/(\d{{1,4}})\.json")
_PLAYER_GAMES: Final = re.compile(r"/@/([^/]{1,200})/games\.txt")
_FILE_NAME: Final = re.compile(r"[^A-Za-z0-9_-]")
DOWNLOADS_PER_ADDRESS: Final = 30
"""Downloads of a player's games an address may make in ``DOWNLOAD_WINDOW`` seconds."""
DOWNLOAD_WINDOW: Final = 3600.0

IPV6_BLOCK: Final = 64
"""The prefix length of the IPv6 block that the limits per address count as one address."""

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
METHODS: Final = ("GET", "HEAD")
"""The methods answered: ``HEAD`` wherever ``GET`` is, with the same status and headers and
no body; any other gets 405."""
ALLOW: Final = (("Allow", ", ".join(METHODS)),)
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def response(
    status: HTTPStatus,
    body: bytes,
    content_type: str,
    extra: tuple[tuple[str, str], ...] = (),
) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            *SECURITY_HEADERS,
            *extra,
        ]
    )
    return Response(status.value, status.phrase, headers, body)


def text(status: HTTPStatus, words: str, extra: tuple[tuple[str, str], ...] = ()) -> Response:
    return response(status, words.encode(), "text/plain; charset=utf-8", extra)


def client_address(
    connection: ServerConnection, request: Request, proxies: tuple[Network, ...]
) -> str:
    """Who sent ``request``: the peer's address, or, when the peer is a trusted proxy, the
    nearest address of its ``X-Forwarded-For`` that is not one (a client may send a forged
    header of its own: only what trusted proxies added is believed)."""
    peer = connection.remote_address[0] if connection.remote_address else "unknown"
    if not proxies or not _is_in(peer, proxies):
        return str(peer)
    forwarded = [
        part.strip()
        for value in request.headers.get_all("X-Forwarded-For")
        for part in value.split(",")
    ]
    address = str(peer)
    for hop in reversed(forwarded):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            break  # a garbled header: believe nothing further back
        address = hop
        if not _is_in(hop, proxies):
            break
    return address


def address_block(address: str) -> str:
    """What the limits per address count ``address`` as: an IPv4 address itself (an
    IPv4-mapped IPv6 address, ``::ffff:a.b.c.d``, as its IPv4 address), an IPv6 address as its
    /64 (``2001:db8:1:2::/64``: the least a site gets from its provider, and what one client
    takes its addresses from at will), anything else as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_BLOCK), strict=False))
    return str(ip)


def is_allowed_origin(request: Request, allowed: frozenset[tuple[str, str, int]]) -> bool:
    """Whether a websocket handshake may come from where it says: a client that sends no
    ``Origin`` (a bot, ``protocol.client``; a browser always sends one) may; a web page may when
    its origin is the server's own (the host and port it asked for, its ``Host`` header, which
    a page elsewhere cannot choose) or one of ``allowed`` (``Settings.origins``). The scheme is
    not compared with the server's own: a proxy in front may take https for it."""
    origins = request.headers.get_all("Origin")
    if not origins:
        return True
    if len(origins) > 1:
        return False
    try:
        scheme, host, port = origin_of(origins[0])
        if (scheme, host, port) in allowed:
            return True
        asked = urllib.parse.urlsplit("//" + request.headers.get("Host", ""))
        return (asked.hostname, asked.port or DEFAULT_PORTS[scheme]) == (host, port)
    except ValueError:  # "null" (a sandboxed page, a file), a malformed origin or host
        return False


def _is_in(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


async def http(hub: Hub, connection: ServerConnection, request: Request) -> Response | None:
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
        return headless(await _get(hub, path, query, connection, request))
    if path == "/ws":
        return hub.connections.admit(connection, request)
    return await _get(hub, path, query, connection, request)


async def _get(
    hub: Hub, path: str, query: str, connection: ServerConnection, request: Request
) -> Response:
    try:
        return await _route(hub, path, query, connection, request)
    except ARCHIVE_ERRORS as error:
        log.warning("storage unavailable for %s: %s", path[:100], error)
        return text(HTTPStatus.SERVICE_UNAVAILABLE, "storage unavailable; try again\n")


def headless(answer: Response) -> Response:
    """The answer to a ``HEAD``: the ``GET``'s status and headers (its ``Content-Length``
    too), without the body (RFC 9110, 9.3.2)."""
    return Response(answer.status_code, answer.reason_phrase, answer.headers, b"")


async def _route(
    hub: Hub, path: str, query: str, connection: ServerConnection, request: Request
) -> Response:
    if path == "/protocol.schema.json":
        return response(HTTPStatus.OK, _schema(), "application/schema+json")
    if path == "/healthz":
        health = hub.health.report()
        ok = health["status"] == "ok"
        status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
        return response(status, json.dumps(health).encode(), "application/json")
    found = _GAME_TXT.fullmatch(path)
    if found:
        record = await hub.archive.get(found[1])
        if record is None:
            return text(HTTPStatus.NOT_FOUND, f"no game {found[1]}\n")
        return text(HTTPStatus.OK, record.game_string() + "\n", _ending(record))
    found = _TRACE.fullmatch(path)
    if found:
        trace = await hub.archive.trace(found[1], int(found[2]))
        if trace is None:
            return text(HTTPStatus.NOT_FOUND, "no trace kept for that move\n")
        return _gzipped(trace, "application/json", request)
    found = _PLAYER_GAMES.fullmatch(path)
    if found:
        address = address_block(client_address(connection, request, hub.settings.proxies))
        return await _player_games(hub, found[1], query, hub.connections.origin_of(address))
    answer = await review.route(hub.archive, hub.positions, path, query)
    if answer is not None:
        return response(*answer)
    return _static(path, request)


async def _player_games(hub: Hub, quoted: str, query: str, origin: str) -> Response:
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
    profiles = hub.profiles
    window = DOWNLOAD_WINDOW
    if await hub.store.count_in_window(origin, "download", window, now_ms()) > (
        DOWNLOADS_PER_ADDRESS
    ):
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


@contextlib.asynccontextmanager
async def metrics_endpoint(hub: Hub) -> AsyncIterator[None]:
    """``GET /metrics`` on ``Settings.metrics_port`` (and ``--host``) while in the block; its
    port is then ``hub.metrics.port``. Nothing when no port is set."""
    settings = hub.settings
    if settings.metrics_port is None:
        yield
        return

    def answer(connection: ServerConnection, request: Request) -> Response:
        if request.method not in METHODS:
            return text(HTTPStatus.METHOD_NOT_ALLOWED, "only GET is answered here\n", ALLOW)
        if request.path.partition("?")[0] != "/metrics":
            found = text(HTTPStatus.NOT_FOUND, "only /metrics is served here\n")
        else:
            found = response(HTTPStatus.OK, hub.metrics.exposition(), hub.metrics.content_type)
        return headless(found) if request.method == "HEAD" else found

    async def refuse(connection: ServerConnection) -> None:
        raise AssertionError("unreachable: every request is answered over HTTP")

    async with serve(
        refuse,
        settings.host,
        settings.metrics_port,
        process_request=answer,
        server_header=SERVER,
    ) as server:
        hub.metrics.port = server.sockets[0].getsockname()[1]
        try:
            yield
        finally:
            hub.metrics.port = None


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


STATIC_CACHE: Final = "no-cache"
"""How a browser keeps the client's files: stored, and asked again with their validators on
each use (the files have no hashed names: a new deployment shows at once)."""
VENDOR_CACHE: Final = "public, max-age=31536000, immutable"
"""How a browser keeps a vendored package's file, whose name carries the package's version."""
_COMPRESSIBLE: Final = ("text/", "application/json", "image/svg+xml")


@dataclass(frozen=True)
class _File:
    """A client file as served: its bytes, gzipped (None when that saves nothing), its ETag
    (from the content, so every process behind a proxy gives the same) and Last-Modified."""

    body: bytes
    gzipped: bytes | None
    etag: str
    modified: str


@functools.lru_cache(maxsize=256)
def _load(target: Path, mtime_ns: int, size: int) -> _File:
    """The file at ``target`` as it is at (``mtime_ns``, ``size``): read and gzipped once."""
    body = target.read_bytes()
    kind = mimetypes.guess_type(target.name)[0] or ""
    packed = None
    if kind.startswith(_COMPRESSIBLE) or target.suffix in (".js", ".mjs"):
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        if len(packed) >= len(body):
            packed = None
    etag = hashlib.sha256(body).hexdigest()[:20]
    modified = email.utils.formatdate(mtime_ns / 1e9, usegmt=True)
    return _File(body, packed, etag, modified)


@functools.cache
def _version(package: Path) -> str | None:
    """The version of the npm package installed at ``package`` (None when it is not)."""
    try:
        found = json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found if isinstance(found, str) else None


def _not_modified(request: Request, etag: str, modified: str) -> bool:
    """Whether the browser's copy is current: ``If-None-Match`` names ``etag`` (it wins when
    given), else ``If-Modified-Since`` is ``modified``."""
    match = request.headers.get("If-None-Match")
    if match is not None:
        return any(tag.strip().removeprefix("W/") in (etag, "*") for tag in match.split(","))
    return request.headers.get("If-Modified-Since") == modified


def _is_public(name: Path) -> bool:
    """Whether ``client/``'s file ``name`` is one the pages load (``PUBLIC``)."""
    return name.as_posix() in PUBLIC or (len(name.parts) > 1 and name.parts[0] in PUBLIC)


def _static(path: str, request: Request) -> Response:
    """A file of the web client (``client/``): ``/`` is its ``index.html`` and ``/visualizer``
    its ``visualizer.html``; ``/vendor/msgpack@VERSION/...`` is the ES module build of
    ``@msgpack/msgpack`` (``client/node_modules``, installed by ``npm ci``) when VERSION is the
    one installed, and ``/vendor/uplot@VERSION/...`` uPlot's (see ``VENDOR``). Only the
    ``PUBLIC`` files of ``client/`` are served (not the rest of ``client/node_modules``, its
    ``package.json``, its tests). Gzipped when the browser takes it; answered 304 with
    no body (and only the validators) when the browser's copy is current."""
    path = _PAGES.get(path, path)
    root = CLIENT_DIR
    cache = STATIC_CACHE
    for prefix, (package, build) in VENDOR.items():
        if path.startswith(prefix):
            version, _, rest = path[len(prefix) :].partition("/")
            if version != _version(package):
                return text(HTTPStatus.NOT_FOUND, "not found\n")
            root, path, cache = package / build, "/" + rest, VENDOR_CACHE
            break
    try:
        target = (root / path.lstrip("/")).resolve()
        hidden = root == CLIENT_DIR and not _is_public(target.relative_to(root))
        found = root in target.parents and not hidden and target.is_file()
        stat = target.stat() if found else None
    except (OSError, ValueError):  # a name too long for the file system, or outside root
        found, stat = False, None
    if not found or stat is None:
        if path == "/index.html":
            return text(HTTPStatus.OK, "Hive Arena server: the websocket is at /ws\n")
        return text(HTTPStatus.NOT_FOUND, "not found\n")
    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if target.suffix in (".js", ".mjs") or kind == "application/javascript":
        kind = "text/javascript"  # what browsers require of an ES module
    if kind.startswith("text/") or kind in ("application/json", "image/svg+xml"):
        kind += "; charset=utf-8"
    file = _load(target, stat.st_mtime_ns, stat.st_size)
    packed = file.gzipped is not None and "gzip" in request.headers.get("Accept-Encoding", "")
    etag = f'"{file.etag}-gz"' if packed else f'"{file.etag}"'
    validators = (("ETag", etag), ("Cache-Control", cache))
    if _not_modified(request, etag, file.modified):
        # the browser keeps the headers of its copy (its security headers too); a 304 carries
        # the validators only, so that a repeat visit costs a few bytes a file
        headers = Headers([*validators, ("Content-Length", "0")])
        return Response(HTTPStatus.NOT_MODIFIED.value, HTTPStatus.NOT_MODIFIED.phrase, headers, b"")
    body = file.body
    encoding: tuple[tuple[str, str], ...] = ()
    if packed and file.gzipped is not None:
        body, encoding = file.gzipped, (("Content-Encoding", "gzip"),)
    headers = Headers(
        [
            ("Content-Type", kind),
            ("Content-Length", str(len(body))),
            *validators,
            ("Last-Modified", file.modified),
            ("Vary", "Accept-Encoding"),
            *encoding,
            *SECURITY_HEADERS,
        ]
    )
    return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, headers, body)
