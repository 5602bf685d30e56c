"""One websocket connection: who it is, what it follows, and its limits."""

from __future__ import annotations

import contextlib
import time
from typing import Final

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol import AccountKind, Message, Seat, encode
from server.settings import Settings
from server.storage.limits import Bucket

STRIKE_SECONDS: Final = 5.0
"""A connection earns back one strike (see ``Settings.strikes``) after this long."""
LOOKUP_RATE: Final = 2.0
LOOKUP_BURST: Final = 10
"""A connection's ``profile`` and ``leaderboard`` requests (database reads): this many at
once, then ``LOOKUP_RATE`` a second, within its message budget (``server.requests.profiles``)."""


class Session:
    """One websocket connection.

    Attributes:
        address: The client's address as the limits per address count it: an IPv6 address's
            /64 (see ``server.edge.addresses.client_address`` and ``address_block``).
        origin: A keyed hash of ``address``: what limits per address count, and what a game
            records of where it was made.
        token: The hash of the session token the connection signed in with.
        watching: The games it follows, each with the last version it was sent (None: it
            was sent nothing yet, and gets a snapshot).
        owed: Games whose last update was not sent (the client was not reading): it gets one
            when it reads again.
        lobby_stale: The lobby's last change was not sent: a snapshot is owed.
        closing: It is being closed: nothing more it sends is answered.
    """

    def __init__(self, ws: ServerConnection, settings: Settings, address: str, origin: str):
        self.ws = ws
        self.address = address
        self.origin = origin
        self.player: str | None = None
        self.name = ""
        self.bot = False  # a bot account
        self.account = False  # a person's account (not a guest)
        self.token: str | None = None
        self.watching: dict[str, int | None] = {}
        self.lobby = False
        self.owed: set[str] = set()
        self.lobby_stale = False
        self.closing = False
        now = time.monotonic()
        self.messages = Bucket(settings.message_rate, settings.message_burst, now)
        self.chats = Bucket(1 / settings.chat_interval, settings.chat_burst, now)
        # Refusals for breaking a limit that the connection may still collect (one comes back
        # every STRIKE_SECONDS); when none is left it is closed with 1008.
        self.strikes = Bucket(1 / STRIKE_SECONDS, settings.strikes, now)
        self.lookups = Bucket(LOOKUP_RATE, LOOKUP_BURST, now)

    def seat(self, rating: int | None = None, provisional: bool = False) -> Seat:
        """This connection's player, as seated in a game (with their ``rating`` in its speed,
        if any)."""
        assert self.player is not None
        kind: AccountKind = "bot" if self.bot else "account" if self.account else "guest"
        return Seat(self.player, self.name, account=kind, rating=rating, provisional=provisional)

    def is_open(self) -> bool:
        """Whether the connection is open and not being closed (read from any thread)."""
        return not self.closing and self.ws.state is State.OPEN

    def queued(self) -> int:
        """Bytes waiting to be sent to this client."""
        transport = self.ws.transport
        return 0 if transport is None else transport.get_write_buffer_size()

    async def send(self, message: Message) -> None:
        """Send a reply (it waits while the client does not read: the connection's handler
        reads nothing more meanwhile, so nothing piles up)."""
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(encode(message))
