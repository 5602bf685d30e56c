"""A client of the server's protocol, in Python: for the tests, the load bench and bots.

    async with Client.connect("ws://127.0.0.1:8080/ws", nickname="ada") as client:
        await client.send(CreateGame(opponent="bot", level="easy"))
        update = await client.expect(Update)

``recv`` returns every message in order; ``expect`` waits for one of a type, and raises if an
``Error`` comes first (or anything else, with ``strict``). The lobby's messages on the way keep
``lobby`` up to date (a ``Lobby`` snapshot, then each ``LobbyChange`` applied to it), and
``expect(Lobby)`` gives the lobby after the next of them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

from websockets.asyncio.client import ClientConnection, connect

from protocol import (
    Error,
    GameSummary,
    Hello,
    Lobby,
    LobbyChange,
    LogIn,
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
        self.lobby: Lobby | None = None

    @property
    def player(self) -> str:
        return self.welcome.player

    @classmethod
    @contextlib.asynccontextmanager
    async def connect(
        cls,
        url: str,
        *,
        nickname: str | None = None,
        token: str | None = None,
        password: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> AsyncIterator[Client]:
        """A connection that has said hello, or with a ``password`` logged in to the account
        ``nickname`` (``headers``: extra ones for the handshake).

        Raises:
            ServerError: The server refused the hello or the login.
        """
        first_message: Message = Hello(nickname=nickname, token=token)
        if password is not None:
            first_message = LogIn(nickname or "", password)
        async with connect(url, max_size=None, compression=None, additional_headers=headers) as ws:
            await ws.send(encode(first_message))
            first = decode_server(_binary(await ws.recv()))
            if isinstance(first, Error):
                raise ServerError(first)
            assert isinstance(first, Welcome), first
            yield cls(ws, first)

    async def send(self, message: Message) -> None:
        await self.ws.send(encode(message))

    async def recv(self, timeout: float = 30.0) -> Message:
        async with asyncio.timeout(timeout):
            return self._seen(decode_server(_binary(await self.ws.recv())))

    def _seen(self, message: Message) -> Message:
        """Keep ``lobby`` up to date with a lobby message."""
        if isinstance(message, Lobby):
            self.lobby = message
        elif isinstance(message, LobbyChange) and self.lobby is not None:
            self.lobby = apply_change(self.lobby, message)
        return message

    async def expect(self, kind: type[_T], *, timeout: float = 30.0, strict: bool = False) -> _T:
        """The next message of type ``kind`` (for ``Lobby``: the lobby after the next
        ``Lobby`` or ``LobbyChange``); lobby messages on the way are skipped (and, unless
        ``strict``, anything else).

        Raises:
            ServerError: An ``Error`` came first (unless ``kind`` is ``Error``).
            TimeoutError: Nothing of that type came in ``timeout`` seconds.
        """
        async with asyncio.timeout(timeout):
            while True:
                message = self._seen(decode_server(_binary(await self.ws.recv())))
                if kind is Lobby and isinstance(message, LobbyChange) and self.lobby is not None:
                    return self.lobby  # type: ignore[return-value]  # kind is Lobby
                if isinstance(message, kind):
                    return message
                if isinstance(message, Error):
                    raise ServerError(message)
                if strict and not isinstance(message, Lobby | LobbyChange):
                    raise AssertionError(f"expected {kind.__name__}, got {message!r:.300}")


def apply_change(lobby: Lobby, change: LobbyChange) -> Lobby:
    """The lobby after ``change``: the open games for bots first, then oldest first, the
    games in progress newest first, as the server lists them."""
    open_ = {game.id: game for game in lobby.open}
    live = {game.id: game for game in lobby.live}
    for game_id in change.gone:
        open_.pop(game_id, None)
        live.pop(game_id, None)
    for game in change.open:
        live.pop(game.id, None)
        open_[game.id] = game
    for game in change.live:
        open_.pop(game.id, None)
        live[game.id] = game
    return Lobby(
        sorted(open_.values(), key=lambda game: (game.wants != "bots", *_age(game))),
        sorted(live.values(), key=_age, reverse=True),
        lobby.bots if change.bots is None else change.bots,
        change.open_total,
        change.live_total,
    )


def _age(game: GameSummary) -> tuple[int, str]:
    return game.created, game.id


def _binary(frame: bytes | str) -> bytes:
    if isinstance(frame, str):
        raise ValueError("the server sent a text frame")
    return frame
