"""What every HTTP answer carries, and the plain answers the edge builds.

Every answer says what the browser may do with it: a Content-Security-Policy that lets a page
run only the site's own scripts (no inline script, no plugins, no framing), ``nosniff``, and no
referrer sent elsewhere. The ``Server`` header names no version (see ``SERVER``). Only ``GET``
is answered, and ``HEAD`` wherever ``GET`` is (``METHODS``, ``headless``). A server stops
answering within a bound (``stop_serving``).
"""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus
from typing import Final

from websockets.asyncio.server import Server
from websockets.datastructures import Headers
from websockets.http11 import Response

log = logging.getLogger(__name__)

SERVER: Final = "Hive Arena"
"""The ``Server`` header: no software version for a scanner to match."""
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
METHODS: Final = ("GET", "HEAD")
"""The methods answered: ``HEAD`` wherever ``GET`` is, with the same status and headers and
no body; any other gets 405."""
ALLOW: Final = (("Allow", ", ".join(METHODS)),)


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


def headless(answer: Response) -> Response:
    """The answer to a ``HEAD``: the ``GET``'s status and headers (its ``Content-Length``
    too), without the body (RFC 9110, 9.3.2)."""
    return Response(answer.status_code, answer.reason_phrase, answer.headers, b"")


async def stop_serving(server: Server, seconds: float, what: str) -> None:
    """Close ``server`` (no new connections; open websockets closed with 1001) and wait at
    most ``seconds`` for its connections and their handlers to end (``serve``'s own exit
    waits for them without a bound)."""
    server.close()
    try:
        async with asyncio.timeout(seconds):
            await server.wait_closed()
    except TimeoutError:
        log.warning("%s: connections still open after %.0f s; stopping anyway", what, seconds)
