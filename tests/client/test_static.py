"""The web client's files over HTTP: the pages, the ES modules with a JavaScript type (browsers
refuse modules served otherwise), the msgpack package's ES module build, and nothing else of
``client/node_modules``."""

from __future__ import annotations

import pytest

from tests.server.conftest import Running
from tests.server.support import http_get


@pytest.mark.parametrize(
    ("path", "kind", "needle"),
    [
        ("/", "text/html; charset=utf-8", b'<script type="module" src="/js/app.js">'),
        ("/visualizer", "text/html; charset=utf-8", b"/js/visualizer.js"),
        ("/js/app.js", "text/javascript; charset=utf-8", b"import"),
        ("/css/style.css", "text/css; charset=utf-8", b".board"),
        ("/favicon.svg", "image/svg+xml; charset=utf-8", b"<svg"),
        ("/vendor/msgpack/index.mjs", "text/javascript; charset=utf-8", b"export"),
        ("/vendor/msgpack/utils/utf8.mjs", "text/javascript; charset=utf-8", b"export"),
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
        "/vendor/msgpack/../package.json",
        "/vendor/msgpack/%2e%2e/package.json",
        "/../pyproject.toml",
        "/js/../../pyproject.toml",
        "/no-such-file.js",
    ],
)
async def test_nothing_else_is_served(srv: Running, path: str) -> None:
    status, _, _ = await http_get(srv.http_url + path)
    assert status == 404
