"""A client of the server's protocol, in Python: for the tests, the load bench and bots.

    async with Client.connect("ws://127.0.0.1:8080/ws", nickname="ada") as client:
        await client.send(CreateGame(opponent="bot", level="easy"))
        update = await client.expect(Update)

``recv`` returns every message in order; ``expect`` waits for one of a type, and raises if an
``Error`` comes first (or anything else, with ``strict``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

from websockets.asyncio.client import ClientConnection, connect

from server.protocol import (
    Error,
    Hello,
    Lobby,
    Message,
    Welcome,
    decode_server,
    encode,
)

_T = TypeVar("_T", bound=Message)


class ServerError(Exception):
    """The server answered with an ``Error``."""

    def __init__(self, error: Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error


class Client:
    """One connection, after ``hello``: ``welcome`` says who we are."""

    def __init__(self, ws: ClientConnection, welcome: Welcome) -> None:
        self.ws = ws
        self.welcome = welcome

    @property
    def player(self) -> str:
        return self.welcome.player

    @classmethod
    @contextlib.asynccontextmanager
    async def connect(
        cls, url: str, *, nickname: str | None = None, token: str | None = None
    ) -> AsyncIterator[Client]:
        async with connect(url, max_size=None, compression=None) as ws:
            await ws.send(encode(Hello(nickname=nickname, token=token)))
            first = decode_server(_binary(await ws.recv()))
            if isinstance(first, Error):
                raise ServerError(first)
            assert isinstance(first, Welcome), first
            yield cls(ws, first)

    async def send(self, message: Message) -> None:
        await self.ws.send(encode(message))

    async def recv(self, timeout: float = 30.0) -> Message:
        async with asyncio.timeout(timeout):
            return decode_server(_binary(await self.ws.recv()))

    async def expect(self, kind: type[_T], *, timeout: float = 30.0, strict: bool = False) -> _T:
        """The next message of type ``kind``; lobby lists on the way are skipped (and, unless
        ``strict``, anything else).

        Raises:
            ServerError: An ``Error`` came first (unless ``kind`` is ``Error``).
            TimeoutError: Nothing of that type came in ``timeout`` seconds.
        """
        async with asyncio.timeout(timeout):
            while True:
                message = decode_server(_binary(await self.ws.recv()))
                if isinstance(message, kind):
                    return message
                if isinstance(message, Error):
                    raise ServerError(message)
                if strict and not isinstance(message, Lobby):
                    raise AssertionError(f"expected {kind.__name__}, got {message!r:.300}")


def _binary(frame: bytes | str) -> bytes:
    if isinstance(frame, str):
        raise ValueError("the server sent a text frame")
    return frame
