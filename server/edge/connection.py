"""The websocket at ``/ws``: admission, the hello, each frame to its handler, and the end.

A connection must send its hello within ``Settings.hello_timeout`` (then it is answered,
``unavailable`` if storage is away); an address has at most
``Settings.connections_per_address`` of them (an IPv6 address counts as its /64: see
``server.edge.addresses.address_block``); a process takes as many as its file limit allows
(a warning is logged from four fifths of it). Each frame is decoded, counted against the
connection's message budget and passed to its handler; a refusal is an ``Error`` reply and the
connection lives on, but a connection that keeps breaking limits is closed with 1008.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import resource
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Final

import redis.exceptions
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response
from websockets.protocol import State

from protocol import (
    AllowChallenges,
    AnalyseGame,
    AnswerChallenge,
    Block,
    BotReady,
    CancelGame,
    Challenge,
    ChangePassword,
    Chat,
    ClaimWin,
    CreateGame,
    CreateTournament,
    Draw,
    Error,
    ErrorCode,
    Follow,
    GetLeaderboard,
    GetOnline,
    GetPosition,
    GetProfile,
    GetPuzzle,
    GetTournaments,
    Hello,
    JoinGame,
    JoinTournament,
    LeaveAnalysis,
    LeaveTournament,
    LogIn,
    Logout,
    Message,
    Mute,
    Ping,
    Play,
    ProtocolError,
    PuzzleMove,
    Rematch,
    Resign,
    ShowSolution,
    SignUp,
    SpectatorChat,
    StartEngine,
    StopEngine,
    Takeback,
    Unwatch,
    Watch,
    WatchLobby,
    WatchTournament,
    decode,
)
from server.edge.addresses import address_block, client_address, is_allowed_origin
from server.edge.answers import text
from server.live.session import Session
from server.requests.passwords import GoneError
from server.storage.replicas import UnreplicatedError
from server.storage.store import STORAGE_ERRORS

if TYPE_CHECKING:
    from server.edge.health import Health
    from server.edge.metrics import Metrics
    from server.live.cache import GameCache
    from server.live.fanout import Fanout
    from server.live.lobby import LobbyBoard
    from server.live.presence import Presence
    from server.requests.accounts import Accounts
    from server.requests.analysis import Analysis
    from server.requests.challenges import Challenges
    from server.requests.commands import Commands
    from server.requests.friends import Friends
    from server.requests.profiles import Profiles
    from server.requests.puzzles import Puzzles
    from server.requests.reviews import Reviews
    from server.requests.seating import Seating
    from server.requests.signin import SignIn
    from server.requests.tournaments import Tournaments
    from server.settings import Settings
    from server.storage.store import Store

log = logging.getLogger(__name__)

RESERVED_FILES: Final = 128
"""File descriptors kept for other things than client connections (Redis, workers, files)."""
FILE_WARNING_SECONDS: Final = 60.0
"""Least time between two warnings that connections near the file limit."""

Handler = Callable[[Session, Any], Awaitable[None]]


def dispatch(
    signin: SignIn,
    accounts: Accounts,
    seating: Seating,
    commands: Commands,
    profiles: Profiles,
    analysis: Analysis,
    challenges: Challenges,
    friends: Friends,
    reviews: Reviews,
    puzzles: Puzzles,
    tournaments: Tournaments,
) -> dict[type[Message], Handler]:
    """Each message a client may send, to its handler (the requests')."""
    return {
        Hello: signin.hello,
        Logout: signin.logout,
        BotReady: signin.bot_ready,
        SignUp: accounts.signup,
        LogIn: accounts.login,
        ChangePassword: accounts.change_password,
        Ping: commands.ping,
        WatchLobby: commands.watch_lobby,
        CreateGame: seating.create,
        JoinGame: seating.join,
        CancelGame: seating.cancel,
        Rematch: seating.rematch,
        Watch: commands.watch,
        Unwatch: commands.unwatch,
        Play: commands.play,
        Resign: commands.resign,
        Draw: commands.draw,
        ClaimWin: commands.claim,
        Chat: commands.chat,
        Mute: commands.mute,
        SpectatorChat: commands.spectator_chat,
        GetProfile: profiles.profile,
        GetLeaderboard: profiles.leaderboard,
        GetPosition: analysis.position,
        StartEngine: analysis.engine,
        StopEngine: analysis.stop,
        Takeback: commands.takeback,
        Challenge: challenges.challenge,
        AnswerChallenge: challenges.answer,
        Follow: friends.follow,
        Block: friends.block,
        AllowChallenges: friends.allow,
        GetOnline: friends.online,
        AnalyseGame: reviews.analyse,
        LeaveAnalysis: reviews.leave,
        GetPuzzle: puzzles.puzzle,
        PuzzleMove: puzzles.move,
        ShowSolution: puzzles.solution,
        CreateTournament: tournaments.create,
        GetTournaments: tournaments.list,
        JoinTournament: tournaments.join,
        LeaveTournament: tournaments.leave,
        WatchTournament: tournaments.watch,
    }


class Connections:
    """The connections of this process: each message to its handler in ``handlers``
    (``dispatch``), counted in ``metrics``; a failure of storage told to ``health``. When a
    connection ends, it stops watching its games (``cache``) and being owed an update
    (``fanout``), those who keep something of it are told (``on_closed``: its engine run
    ends, its player's challenges may end), and its player, if it was their last
    here, goes offline (``presence``, ``store``; a bot account no longer listed in
    ``lobby``)."""

    def __init__(
        self,
        settings: Settings,
        handlers: Mapping[type[Message], Handler],
        *,
        metrics: Metrics,
        health: Health,
        store: Store,
        cache: GameCache,
        fanout: Fanout,
        presence: Presence,
        lobby: LobbyBoard,
        on_closed: Sequence[Callable[[Session], None]] = (),
    ) -> None:
        self.settings = settings
        self.on_closed = on_closed
        self.handlers = handlers
        self.metrics = metrics
        self.health = health
        self.store = store
        self.cache = cache
        self.fanout = fanout
        self.presence = presence
        self.lobby = lobby
        self.sessions: set[Session] = set()
        self.closed = 0  # connections closed so far
        self.by_address: Counter[str] = Counter()
        self.closing: set[asyncio.Task[None]] = set()
        self.secret = b""  # the key of origin hashes (from Redis, on start)
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        self.max_connections = max(16, soft - RESERVED_FILES)
        self._warned = 0.0

    def origin_of(self, address: str) -> str:
        """The keyed hash of an address (the address itself is never stored)."""
        return hmac.new(self.secret, address.encode(), hashlib.sha256).hexdigest()[:16]

    def admit(self, connection: ServerConnection, request: Request) -> Response | None:
        """Whether a websocket handshake may go on (None) or the refusal: a web page of
        another site (``is_allowed_origin``), too many connections from its address, or near
        the file limit."""
        settings, metrics = self.settings, self.metrics
        if not is_allowed_origin(request, settings.allowed_origins):
            metrics.refused.labels("origin").inc()
            return text(HTTPStatus.FORBIDDEN, "pages of another site may not connect here\n")
        address = address_block(client_address(connection, request, settings.proxies))
        if self.by_address[address] >= settings.connections_per_address:
            metrics.refused.labels("connections_per_address").inc()
            return text(HTTPStatus.TOO_MANY_REQUESTS, "too many connections from your address\n")
        open_now = len(self.sessions)
        if open_now >= self.max_connections * 4 // 5:
            clock = time.monotonic()
            if clock - self._warned >= FILE_WARNING_SECONDS:
                self._warned = clock
                log.warning(
                    "%d connections open, near the limit of %d this process's file limit "
                    "allows (raise it with ulimit -n)",
                    open_now,
                    self.max_connections,
                )
            if open_now >= self.max_connections:
                metrics.refused.labels("full").inc()
                return text(HTTPStatus.SERVICE_UNAVAILABLE, "the server is full; try again\n")
        return None

    async def handle(self, ws: ServerConnection) -> None:
        settings = self.settings
        address = "unknown"
        if ws.request is not None:
            address = address_block(client_address(ws, ws.request, settings.proxies))
        session = Session(ws, settings, address, self.origin_of(address))
        sock = ws.transport.get_extra_info("socket")
        if sock is not None:
            # The kernel's own buffer for a client that does not read, fixed (its autotuning
            # grows it to megabytes), so that what waits beyond it is seen and bounded.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, settings.queue_limit)
        self.sessions.add(session)
        self.by_address[address] += 1
        try:
            if self.by_address[address] > settings.connections_per_address:
                # handshakes that came at once all passed ``admit``: the extra ones go now
                self.metrics.refused.labels("connections_per_address").inc()
                await ws.close(CloseCode.TRY_AGAIN_LATER, "too many connections from your address")
            else:
                await self._hello_in_time(session)
                async for frame in ws:  # once closing, read on until the client's close
                    await self.receive(session, frame)
        except ConnectionClosed:
            pass  # the client went away without a proper close: nothing to answer
        finally:
            await self.drop(session)

    async def _hello_in_time(self, session: Session) -> None:
        """Answer the connection's frames until it has said hello; close it with 1008 when it
        has not sent one within ``Settings.hello_timeout``. Only the wait for a frame is
        timed: a hello that came in time is answered, however long storage takes (each of
        its commands gives up after ``Settings.redis_timeout``: ``unavailable``)."""
        deadline = asyncio.get_running_loop().time() + self.settings.hello_timeout
        while session.player is None and not session.closing:
            try:
                async with asyncio.timeout_at(deadline):
                    frame = await session.ws.recv()
            except TimeoutError:
                self.metrics.refused.labels("no_hello").inc()
                self.close(session, CloseCode.POLICY_VIOLATION, "no hello in time")
                return
            await self.receive(session, frame)

    async def receive(self, session: Session, frame: bytes | str) -> None:
        """Answer one frame: refusals become ``Error`` messages, the connection lives on
        (unless it keeps breaking limits: then it is closed, and what it still sends is
        dropped unanswered)."""
        if session.closing:
            return
        metrics = self.metrics
        request: str | None = None
        game: str | None = None
        tournament: str | None = None
        try:
            allowed = session.messages.take(time.monotonic())  # every frame takes from it
            try:
                message = decode(frame)
            except ProtocolError:
                metrics.received.labels("undecodable").inc()
                if allowed:
                    raise
                raise _too_many() from None  # over the budget: refused as such
            request = message.TYPE
            metrics.received_of(request).inc()
            game = getattr(message, "game", None)
            tournament = getattr(message, "tournament", None)
            if not allowed:
                raise _too_many()
            if session.player is None and not isinstance(message, (Hello, LogIn)):
                raise ProtocolError(ErrorCode.NOT_AUTHENTICATED, "say hello (or login) first")
            await self.handlers[type(message)](session, message)
        except ProtocolError as error:
            metrics.refused.labels(error.code.value).inc()
            await session.send(Error(error.code, error.message, request, game, tournament))
            if error.code == ErrorCode.RATE_LIMITED:
                self._strike(session)
        except GoneError:
            pass  # the connection went away while its password waited: nothing to answer
        except STORAGE_ERRORS as error:
            if not isinstance(error, UnreplicatedError):  # (Redis answers: no replica did)
                self.health.storage(False, error)
            await session.send(
                Error(
                    ErrorCode.UNAVAILABLE,
                    "storage unavailable; try again (a move sent again is played once)",
                    request,
                    game,
                    tournament,
                )
            )
        finally:
            if game is not None:
                self.cache.forget_if_idle(game)  # loaded for this request only: not kept

    def _strike(self, session: Session) -> None:
        """A refusal for breaking a limit: the one that takes the connection's last strike
        closes it (``Settings.strikes`` refusals in a row do)."""
        strikes = session.strikes
        if strikes.take(time.monotonic()) and strikes.tokens >= 1:
            return
        log.info("closing a connection of %s: it keeps breaking limits", session.player)
        self.metrics.closed_for_abuse.inc()
        self.close(session, CloseCode.POLICY_VIOLATION, "too many requests")

    def close(self, session: Session, code: int, reason: str) -> None:
        """Close a connection without waiting: its handler goes on reading (so the client's
        close frame is read however much it sent before), and answers nothing more."""
        if session.closing:
            return
        session.closing = True
        task = asyncio.create_task(session.ws.close(code, reason))
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    async def drop(self, session: Session) -> None:
        """A connection ended: forget it, and mark its player offline if it was their last."""
        store, presence = self.store, self.presence
        self.closed += 1
        self.metrics.connections_closed.labels(str(session.ws.close_code)).inc()
        self.sessions.discard(session)
        self.fanout.lagging.discard(session)
        self.by_address[session.address] -= 1
        if not self.by_address[session.address]:
            del self.by_address[session.address]
        for game_id in list(session.watching):
            self.cache.unwatch(session, game_id)
        for closed in self.on_closed:
            closed(session)
        player = session.player
        if player is None:
            return
        ttl = int(self.settings.session_ttl)
        await presence.left(session, ttl)
        if not session.bot and session.token is not None:
            with contextlib.suppress(redis.exceptions.RedisError):
                await store.touch(player, session.token, ttl)


def counted(metrics: Metrics) -> type[ServerConnection]:
    """The connections' class, counting in ``metrics.frames_sent`` every frame written to
    a websocket (each is one write of its protocol, as is the handshake's 101; a half-close
    is an empty one). The answers to plain HTTP requests, which never open, are not counted.
    (A plain int, read when scraped: a prometheus_client Counter's ``inc`` takes a lock, and
    this counts some five frames a move.)"""

    class CountedConnection(ServerConnection):
        def send_data(self) -> None:
            if self.protocol.state is not State.CONNECTING:
                metrics.frames_sent += sum(1 for data in self.protocol.writes if data)
            super().send_data()

    return CountedConnection


def _too_many() -> ProtocolError:
    return ProtocolError(ErrorCode.RATE_LIMITED, "too many messages; slow down")
