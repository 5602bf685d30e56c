"""The web client's files (``client/``), as the pages load them: only its ``PUBLIC`` files and
the packages of ``VENDOR``, gzipped for a browser that takes it, with an ``ETag`` and
``Last-Modified`` and ``Cache-Control: no-cache``: the browser keeps a file and asks each visit
whether it changed, and an unchanged file costs a bodiless 304 (``client_file``)."""

from __future__ import annotations

import email.utils
import functools
import gzip
import hashlib
import json
import mimetypes
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Final

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.edge.answers import SECURITY_HEADERS, text

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


def client_file(path: str, request: Request) -> Response:
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
