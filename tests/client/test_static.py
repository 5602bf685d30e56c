"""The web client's files over HTTP: the pages, the ES modules with a JavaScript type (browsers
refuse modules served otherwise), the msgpack package's ES module build, and nothing else of
``client/node_modules``; gzipped, with validators, and a bodiless 304 for a copy that is
current (issue 22)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from server.edge.static import STATIC_CACHE, VENDOR_CACHE
from tests.server.conftest import Running
from tests.server.support import http_get, raw_http

CLIENT = Path(__file__).resolve().parents[2] / "client"
VERSION = json.loads((CLIENT / "node_modules/@msgpack/msgpack/package.json").read_text())["version"]
MSGPACK = f"/vendor/msgpack@{VERSION}/"
"""Where the installed msgpack's ES module build is served (its version in the name)."""
UPLOT_VERSION = json.loads((CLIENT / "node_modules/uplot/package.json").read_text())["version"]
UPLOT = f"/vendor/uplot@{UPLOT_VERSION}/"
"""Where the installed uPlot's build is served (the profile's rating chart)."""


@pytest.mark.parametrize(
    ("path", "kind", "needle"),
    [
        ("/", "text/html; charset=utf-8", b'<script type="module" src="/js/app.js">'),
        ("/visualizer", "text/html; charset=utf-8", b"/js/visualizer.js"),
        ("/js/app.js", "text/javascript; charset=utf-8", b"import"),
        ("/css/style.css", "text/css; charset=utf-8", b".board"),
        ("/favicon.svg", "image/svg+xml; charset=utf-8", b"<svg"),
        (f"{MSGPACK}index.mjs", "text/javascript; charset=utf-8", b"export"),
        (f"{MSGPACK}utils/utf8.mjs", "text/javascript; charset=utf-8", b"export"),
        (f"{UPLOT}uPlot.esm.js", "text/javascript; charset=utf-8", b"export"),
        (f"{UPLOT}uPlot.min.css", "text/css; charset=utf-8", b".uplot"),
    ],
)
async def test_client_files_are_served_with_their_types(
    srv: Running, path: str, kind: str, needle: bytes
) -> None:
    status, content_type, body = await http_get(srv.http_url + path)
    assert (status, content_type) == (200, kind)
    assert needle in body


@pytest.mark.parametrize(
    "path",
    [
        "/node_modules/@msgpack/msgpack/package.json",
        f"{MSGPACK}../package.json",
        f"{MSGPACK}%2e%2e/package.json",
        "/vendor/msgpack/index.mjs",
        "/vendor/msgpack@0.0.1/index.mjs",
        "/vendor/msgpack@/index.mjs",
        "/vendor/uplot@0.0.1/uPlot.esm.js",
        f"{UPLOT}../package.json",
        "/node_modules/uplot/package.json",
        "/../pyproject.toml",
        "/js/../../pyproject.toml",
        "/no-such-file.js",
        # the client's files that no page loads
        "/package.json",
        "/package-lock.json",
        "/test/state.test.mjs",
        "/test/players.test.mjs",
        "/testing/vendored.mjs",
        "/js/../package.json",
        "/test",
        "/js",
    ],
)
async def test_nothing_else_is_served(srv: Running, path: str) -> None:
    status, _, _ = await http_get(srv.http_url + path)
    assert status == 404


def request(path: str, *headers: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: hive", *headers, "", ""]
    return "\r\n".join(lines).encode()


@pytest.mark.parametrize("path", ["/", "/js/app.js", "/css/style.css", f"{MSGPACK}index.mjs"])
async def test_client_files_go_gzipped_with_validators(srv: Running, path: str) -> None:
    status, headers, body = await raw_http(srv, request(path, "Accept-Encoding: gzip, br"))
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    vendored = path.startswith(MSGPACK)
    assert headers["cache-control"] == (STATIC_CACHE if not vendored else VENDOR_CACHE)
    assert headers["vary"] == "Accept-Encoding"
    assert headers["etag"].startswith('"') and headers["last-modified"].endswith("GMT")
    plain_status, plain, unpacked = await raw_http(srv, request(path))
    assert plain_status == 200 and "content-encoding" not in plain
    assert gzip.decompress(body) == unpacked
    assert len(body) < len(unpacked)
    assert plain["etag"] != headers["etag"]  # two representations, two tags


async def test_a_current_copy_is_answered_304_with_no_body(srv: Running) -> None:
    _, first, _ = await raw_http(srv, request("/js/state.js", "Accept-Encoding: gzip"))
    etag, modified = first["etag"], first["last-modified"]
    for header in (
        f"If-None-Match: {etag}",
        f'If-None-Match: "other", W/{etag}',
        f"If-Modified-Since: {modified}",
    ):
        status, headers, body = await raw_http(
            srv, request("/js/state.js", "Accept-Encoding: gzip", header)
        )
        assert (status, body) == (304, b"")
        assert headers["etag"] == etag and headers["cache-control"] == "no-cache"
    # another tag, or the plain file's tag for the gzipped one: the file again
    for header in ('If-None-Match: "other"', f"If-None-Match: {etag.replace('-gz', '')}"):
        status, _, body = await raw_http(
            srv, request("/js/state.js", "Accept-Encoding: gzip", header)
        )
        assert status == 200 and body


async def test_the_vendored_package_is_named_by_its_version_and_kept_for_good(
    srv: Running,
) -> None:
    imported = re.search(
        r'from "(/vendor/msgpack@[^/]+/)index.mjs"', (CLIENT / "js/protocol.js").read_text()
    )
    assert imported is not None and imported[1] == MSGPACK  # the version npm installed
    charted = re.search(r'UPLOT = "(/vendor/uplot@[^/]+/)"', (CLIENT / "js/chart.js").read_text())
    assert charted is not None and charted[1] == UPLOT
    status, headers, _ = await raw_http(srv, request(f"{MSGPACK}index.mjs"))
    assert status == 200
    assert headers["cache-control"] == VENDOR_CACHE == "public, max-age=31536000, immutable"
