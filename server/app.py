"""The server: the websocket at ``/ws``, and the tasks that keep games going.

``Hub`` holds what one server process knows: its connections (``Session``), who watches which
game, a cache of the games in play here, and the lobby (``server.lobby``). Every change to a
game goes through ``Hub.change``: it checks the request against the game (``server.match``) and
commits it to Redis against the version it was checked on (``server.store``). Redis publishes
each committed change; the hub's listener passes it on to every session watching the game, in
version order, so a change reaches everyone the same way whichever process made it.

Nothing a client sends, or fails to read, grows the process without bound: what waits to be
sent to one client is bounded (``Settings.queue_limit``: past it, its feeds are skipped, and it
gets a snapshot once it reads again), locks and cached games exist only while used, a
connection must say hello within ``Settings.hello_timeout``, and an address has a bounded
number of connections, guests, open games and games against bots.

Background tasks: the listener; the deadline sweep (open games expire, first moves abort,
flags fall, with nobody connected); the heartbeat (so that a restart knows how long no server
ran, and so that ``/healthz`` knows whether Redis answers); presence marks; the lobby broadcast
(at most twice a second); the catch-up of clients that fell behind; the end of games against
the server's bots that their person left; bot moves. The HTTP routes are in ``server.http``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import random
import re
import resource
import secrets
import socket
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from typing import Any, Final

import msgpack
import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response

from ai.bots import LEVELS
from hive import Game
from server import match, names
from server.bots import BotPool
from server.embedded import RedisProcess
from server.http import SERVER, client_address, http, text
from server.limits import Bucket
from server.lobby import LobbyBoard
from server.locks import Locks
from server.match import Record
from server.metrics import Metrics
from server.protocol import (
    MAX_FRAME_BYTES,
    MAX_WATCHING,
    SIGNED_OUT,
    BotInfo,
    BotReady,
    CancelGame,
    Chat,
    ClaimWin,
    CreateGame,
    Draw,
    Error,
    ErrorCode,
    Event,
    GameState,
    GameSummary,
    Hello,
    JoinGame,
    Logout,
    Message,
    Mute,
    Ping,
    Play,
    Pong,
    ProtocolError,
    Rematch,
    Resign,
    Seat,
    SpectatorChat,
    Unwatch,
    Update,
    Watch,
    WatchLobby,
    Welcome,
    decode,
    encode,
)
from server.review import Positions
from server.settings import Settings
from server.store import (
    Store,
    pack,
    peek_published,
    token_hash,
    unpack,
    unpack_event,
)

log = logging.getLogger(__name__)

RECENT_EVENTS: Final = 64
"""Events each cached game keeps in memory to fill a watcher's gap without asking Redis."""
FAR_BEHIND: Final = 50
"""A watcher more events behind than this gets a snapshot, not the events it missed."""
ONLINE_TTL: Final = 30
VIEW_SECONDS: Final = 2
"""How often a process shares its spectator counts and learns the others' (and who is online)."""
STRIKE_SECONDS: Final = 5.0
"""A connection earns back one strike (see ``Settings.strikes``) after this long."""
SHUTDOWN_SECONDS: Final = 15
"""Longest wait for connections and tasks to end when the server stops."""
OUTAGE_MS: Final = 3000
"""A heartbeat older than this on start means no server ran: the outage is not charged."""
CATCH_UP_SECONDS: Final = 0.25
"""How often the clients whose feeds were skipped are looked at again."""
ABANDON_SECONDS: Final = 5.0
"""How often (at most) games against the server's bots are looked at for a person who left."""
RESERVED_FILES: Final = 128
"""File descriptors kept for other things than client connections (Redis, workers, files)."""
FILE_WARNING_SECONDS: Final = 60.0
"""Least time between two warnings that connections near the file limit."""
SOCIAL_PER_MINUTE: Final = 10
"""Mutes and openings or closings of a game's chat a player may make in a minute."""
STORAGE_ERRORS: Final = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)

_GAME_ID_RE: Final = re.compile(r"[0-9a-z]{8}")


def now_ms() -> int:
    return int(time.time() * 1000)


class Session:
    """One websocket connection.

    Attributes:
        address: The client's address (see ``server.http.client_address``).
        origin: A keyed hash of ``address``: what limits per address count, and what a game
            records of where it was made.
        token: The hash of the session token the connection signed in with.
        owed: Games whose last update was not sent (the client was not reading): it gets one
            when it reads again.
        lobby_stale: The lobby's last change was not sent: a snapshot is owed.
    """

    def __init__(self, ws: ServerConnection, settings: Settings, address: str, origin: str):
        self.ws = ws
        self.address = address
        self.origin = origin
        self.player: str | None = None
        self.name = ""
        self.bot = False  # a bot account
        self.token: str | None = None
        self.watching: dict[str, int] = {}  # game id -> last version sent
        self.lobby = False
        self.owed: set[str] = set()
        self.lobby_stale = False
        now = time.monotonic()
        self.messages = Bucket(settings.message_rate, settings.message_burst, now)
        self.chats = Bucket(1 / settings.chat_interval, settings.chat_burst, now)
        # Refusals for breaking a limit that the connection may still collect (one comes back
        # every STRIKE_SECONDS); when none is left it is closed with 1008.
        self.strikes = Bucket(1 / STRIKE_SECONDS, settings.strikes, now)

    def seat(self) -> Seat:
        """This connection's player, as seated in a game."""
        assert self.player is not None
        return Seat(self.player, self.name, account="bot" if self.bot else "guest")

    def queued(self) -> int:
        """Bytes waiting to be sent to this client."""
        transport = self.ws.transport
        return 0 if transport is None else transport.get_write_buffer_size()

    async def send(self, message: Message) -> None:
        """Send a reply (it waits while the client does not read: the connection's handler
        reads nothing more meanwhile, so nothing piles up)."""
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(encode(message))


@dataclass
class Live:
    """A game cached in this process: its record, a ``hive.Game`` of its moves, recent events."""

    record: Record
    game: Game
    recent: deque[Event] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))

    @classmethod
    def of(cls, record: Record, keep: int = RECENT_EVENTS) -> Live:
        """The cache of ``record``, keeping at most ``keep`` recent events."""
        return cls(record, record.new_game(), deque(maxlen=min(keep, RECENT_EVENTS)))

    def apply(self, record: Record, event: Event, game: Game | None = None) -> None:
        """Bring the cache to ``record`` (no-op when it is not newer), keeping ``event``;
        ``game``, if given, already holds the record's moves."""
        if record.version <= self.record.version:
            return
        played = self.record.moves
        if game is not None:
            self.game = game
        elif record.moves[: len(played)] == played:
            for move in record.moves[len(played) :]:
                self.game.play_unchecked(move)  # committed: checked when played
        else:
            self.game = record.new_game()
        if not self.recent or self.recent[-1].version == event.version - 1:
            self.recent.append(event)
        else:
            self.recent.clear()
            self.recent.append(event)
        self.record = record

    def events_after(self, version: int) -> list[Event] | None:
        """The events after ``version`` if this cache still has them all."""
        if version >= self.record.version:
            return []
        if not self.recent or self.recent[0].version > version + 1:
            return None
        return [e for e in self.recent if e.version > version]


class Hub:
    """One server process's state and its handlers."""

    def __init__(self, settings: Settings, store: Store, pool: BotPool) -> None:
        self.settings = settings
        self.store = store
        self.pool = pool
        self.positions = Positions()
        self.sessions: set[Session] = set()
        self.closed = 0  # connections closed so far
        self.by_player: dict[str, set[Session]] = {}
        self.by_address: Counter[str] = Counter()
        self.watchers: dict[str, dict[Session, None]] = {}
        self.games: dict[str, Live] = {}
        self.locks = Locks()  # one per game changed here, while a change is decided
        self.sending = Locks()  # one per game delivered here, while it is delivered
        self.lobby = LobbyBoard()
        self.lagging: set[Session] = set()  # sessions owed an update or the lobby
        self.bot_tasks: dict[str, asyncio.Task[None]] = {}
        self.closing: set[asyncio.Task[None]] = set()
        # The change of a game in flight here: its packed record, record, event and game (if
        # built). The listener often hears of a change before its request resumes, and takes
        # these instead of unpacking the record and replaying its move.
        self.committing: dict[str, tuple[bytes, Record, Event, Game | None]] = {}
        self.ready = False
        self.storage_ok = True
        self.started = now_ms()  # a person gone longer than this process runs: gone since then
        self.secret = b""  # the key of origin hashes (from Redis, on start)
        self.first_move_ms = int(settings.first_move_timeout * 1000)
        self.session_ttl = int(settings.session_ttl)
        self.proxies = settings.proxies
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        self.max_connections = max(16, soft - RESERVED_FILES)
        self.warned_files = 0.0
        # What the other server processes on this Redis share (see share_view).
        self.process = secrets.token_hex(4)
        self.spectators_elsewhere: dict[str, int] = {}
        # The view is kept up to date game by game: ``seen`` holds the games whose watchers
        # or players here changed since share_view last looked (a loop over every watched
        # game every two seconds was a pause for every game's moves).
        self.seen: set[str] = set()
        self.spectating: dict[str, int] = {}  # spectators here by game id (none: left out)
        self.players_of: dict[str, tuple[str, ...]] = {}  # the players of the games watched here
        self.watched_players: Counter[str] = Counter()  # ... counted in how many games
        self.shared: dict[str, int] = {}  # the spectator counts last shared, by game id
        self.share_all = True  # Redis holds none of them: share them all next time
        # No other process runs (as of the last share_view): a change's update is built by
        # whoever delivers it, not before the commit to be published with it.
        self.alone = False
        self.online_elsewhere: set[str] = set()
        self.bot_offers: dict[str, BotInfo] = {}  # what each bot account plays, by player id
        self.metrics = Metrics(
            connections=lambda: len(self.sessions),
            live_games=lambda: len(self.lobby.live),
            bot_queue=lambda: self.pool.queued,
            lagging=lambda: len(self.lagging),
        )

    # -- admission -------------------------------------------------------------------------------

    def origin_of(self, address: str) -> str:
        """The keyed hash of an address (the address itself is never stored)."""
        return hmac.new(self.secret, address.encode(), hashlib.sha256).hexdigest()[:16]

    def admit(self, connection: ServerConnection, request: Request) -> Response | None:
        """Whether a websocket handshake may go on (None) or the refusal: too many connections
        from its address, or near the file limit (a warning is logged, at most once a
        minute, from four fifths of it)."""
        address = client_address(connection, request, self.proxies)
        if self.by_address[address] >= self.settings.connections_per_address:
            self.metrics.refused.labels("connections_per_address").inc()
            return text(HTTPStatus.TOO_MANY_REQUESTS, "too many connections from your address\n")
        open_now = len(self.sessions)
        if open_now >= self.max_connections * 4 // 5:
            clock = time.monotonic()
            if clock - self.warned_files >= FILE_WARNING_SECONDS:
                self.warned_files = clock
                log.warning(
                    "%d connections open, near the limit of %d this process's file limit "
                    "allows (raise it with ulimit -n)",
                    open_now,
                    self.max_connections,
                )
            if open_now >= self.max_connections:
                self.metrics.refused.labels("full").inc()
                return text(HTTPStatus.SERVICE_UNAVAILABLE, "the server is full; try again\n")
        return None

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` says: ``status`` ``ok`` only while games are accepted and Redis
        answers."""
        status = "starting" if not self.ready else "ok" if self.storage_ok else "storage away"
        return {
            "status": status,
            "connections": len(self.sessions),
            "games": len(self.lobby.live),
            "open": len(self.lobby.open),
        }

    def _storage(self, ok: bool, error: BaseException | None = None) -> None:
        """Note whether Redis answers (logged when it changes)."""
        if ok != self.storage_ok:
            if ok:
                log.info("storage answers again")
            else:
                log.warning("storage unavailable: %s", error)
        self.storage_ok = ok

    # -- the websocket ---------------------------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        address = client_address(ws, ws.request, self.proxies) if ws.request else "unknown"
        session = Session(ws, self.settings, address, self.origin_of(address))
        sock = ws.transport.get_extra_info("socket")
        if sock is not None:
            # The kernel's own buffer for a client that does not read, fixed (its autotuning
            # grows it to megabytes), so that what waits beyond it is seen and bounded.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.settings.queue_limit)
        self.sessions.add(session)
        self.by_address[address] += 1
        try:
            if self.by_address[address] > self.settings.connections_per_address:
                # handshakes that came at once all passed ``admit``: the extra ones go now
                self.metrics.refused.labels("connections_per_address").inc()
                await ws.close(CloseCode.TRY_AGAIN_LATER, "too many connections from your address")
            elif await self._hello_in_time(session):
                async for frame in ws:
                    await self.receive(session, frame)
        except ConnectionClosed:
            pass  # the client went away without a proper close: nothing to answer
        finally:
            await self.drop(session)

    async def _hello_in_time(self, session: Session) -> bool:
        """Answer the connection's frames until it has said hello; False (and the connection
        closed with 1008) when it has not within ``Settings.hello_timeout``."""
        try:
            async with asyncio.timeout(self.settings.hello_timeout):
                while session.player is None:
                    await self.receive(session, await session.ws.recv())
        except TimeoutError:
            self.metrics.refused.labels("no_hello").inc()
            await session.ws.close(CloseCode.POLICY_VIOLATION, "no hello in time")
            return False
        return True

    async def receive(self, session: Session, frame: bytes | str) -> None:
        """Answer one frame: refusals become ``Error`` messages, the connection lives on."""
        request: str | None = None
        game: str | None = None
        try:
            if not session.messages.take(time.monotonic()):
                raise ProtocolError(ErrorCode.RATE_LIMITED, "too many messages; slow down")
            message = decode(frame)
            request = message.TYPE
            game = getattr(message, "game", None)
            if session.player is None and not isinstance(message, Hello):
                raise ProtocolError(ErrorCode.NOT_AUTHENTICATED, "say hello first")
            await self.HANDLERS[type(message)](self, session, message)
        except ProtocolError as error:
            self.metrics.refused.labels(error.code.value).inc()
            await session.send(Error(error.code, error.message, request, game))
            if error.code == ErrorCode.RATE_LIMITED and not session.strikes.take(time.monotonic()):
                log.info("closing a connection of %s: it keeps breaking limits", session.player)
                self.metrics.closed_for_abuse.inc()
                await session.ws.close(CloseCode.POLICY_VIOLATION, "too many requests")
        except STORAGE_ERRORS as error:
            self._storage(False, error)
            await session.send(
                Error(
                    ErrorCode.UNAVAILABLE,
                    "storage unavailable; try again (a move sent again is played once)",
                    request,
                    game,
                )
            )
        finally:
            if game is not None:
                self._forget_if_idle(game)  # loaded for this request only: not kept

    async def drop(self, session: Session) -> None:
        self.closed += 1
        self.sessions.discard(session)
        self.lagging.discard(session)
        self.by_address[session.address] -= 1
        if not self.by_address[session.address]:
            del self.by_address[session.address]
        for game_id in list(session.watching):
            self._unwatch(session, game_id)
        if session.player is not None:
            mine = self.by_player.get(session.player)
            if mine is not None:
                mine.discard(session)
                if not mine:
                    del self.by_player[session.player]
                    self.online_elsewhere.discard(session.player)
                    if session.player in self.bot_offers:
                        self.lobby.dirty.set()  # no longer listed
                    with contextlib.suppress(redis.exceptions.RedisError):
                        await self.store.set_offline(session.player, now_ms(), self.session_ttl)
            if not session.bot and session.token is not None:
                with contextlib.suppress(redis.exceptions.RedisError):
                    await self.store.touch(session.player, session.token, self.session_ttl)

    def _close(self, session: Session, code: int, reason: str) -> None:
        """Close a connection from outside its handler (the task is kept until it ends)."""
        task = asyncio.create_task(session.ws.close(code, reason))
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    # -- handlers ------------------------------------------------------------------------------

    async def _reserved(self) -> frozenset[str]:
        """The names a person may not take (the bots')."""
        return names.reserved(LEVELS, await self.store.bot_names())

    async def hello(self, session: Session, message: Hello) -> None:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_AUTHENTICATED, "hello was already said")
        bot = False
        nickname = None if message.nickname is None else names.readable(message.nickname)
        if message.token is not None:
            found = await self.store.player_of(message.token)
            if found is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown or expired session token")
            player, name, bot = found
            token = message.token
            if nickname is not None and nickname != name:  # a guest takes a new name
                if bot:
                    raise ProtocolError(
                        ErrorCode.NOT_ALLOWED, "a bot account's name is set by the operator"
                    )
                nickname = names.nickname(nickname, await self._reserved())
                await self.store.rename(player, nickname)
                name = nickname
            hashed = token_hash(token)
            if not bot:
                await self.store.touch(player, hashed, self.session_ttl)
        elif nickname is None:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "hello needs a nickname or a token")
        else:
            name = names.nickname(nickname, await self._reserved())
            await self._per_origin(
                session, "guest", self.settings.guests_per_address, 3600, "new guests"
            )
            player, token = await self.store.new_player(name, now_ms(), self.session_ttl)
            hashed = token_hash(token)
        if player not in self.by_player:
            await self.store.set_online(player, now_ms(), ONLINE_TTL)
        games = await self.store.games_of(player)
        # Storage said all it had to: only now is the connection signed in, so a hello that
        # failed on the way (storage away) leaves it as it was, free to say hello again.
        session.player, session.name, session.bot, session.token = player, name, bot, hashed
        if bot:
            rate, burst = self.settings.bot_message_rate, self.settings.bot_message_burst
            session.messages = Bucket(rate, burst, time.monotonic())
        self.by_player.setdefault(player, set()).add(session)
        await session.send(Welcome(player, name, token, now_ms(), games, bot))
        if session.bot and player in self.bot_offers:
            self.lobby.dirty.set()  # listed again

    async def logout(self, session: Session, message: Logout) -> None:
        assert session.player is not None
        if session.bot:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                "a bot account's token is replaced by its operator (create-bot --new-token)",
            )
        await self.store.end_sessions(session.player, None if message.everywhere else session.token)
        session.token = None  # nothing to renew when it closes
        self._close(session, SIGNED_OUT, "signed out")

    def _signed_out(self, player: str, hashed: str | None) -> None:
        """A session ended (``hashed`` None: every session of ``player``): close its
        connections here."""
        for session in list(self.by_player.get(player, ())):
            if hashed is None or session.token == hashed:
                session.token = None
                self._close(session, SIGNED_OUT, "signed out")

    async def bot_ready(self, session: Session, message: BotReady) -> None:
        player = session.player
        assert player is not None
        if not session.bot:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                "only bot accounts say what they play (see hive-server create-bot)",
            )
        game_types = [match.canonical_type(text) for text in message.game_types]
        offer = BotInfo(
            player, session.name, sorted(set(game_types)), message.times, message.max_games
        )
        await self.store.set_bot_offer(offer)
        self.bot_offers[player] = offer
        self.lobby.dirty.set()
        log.info(
            "bot %s plays %s (%s), %d games at once",
            session.name,
            ", ".join(offer.game_types),
            ", ".join(offer.times),
            offer.max_games,
        )

    async def ping(self, session: Session, message: Ping) -> None:
        await session.send(Pong(message.t, now_ms()))

    async def watch_lobby(self, session: Session, message: WatchLobby) -> None:
        session.lobby = message.subscribe
        session.lobby_stale = False
        if message.subscribe:
            self._offer_lobby(session)

    def _offer_lobby(self, session: Session) -> None:
        """Send the lobby as last shown to a subscriber, unless it is not reading."""
        if session.queued() >= self.settings.queue_limit:
            self._skipped(session, lobby=True)
            return
        broadcast([session.ws], encode(self.lobby.snapshot(self._summary, self._bots_online)))

    async def create(self, session: Session, message: CreateGame) -> None:
        player = session.player
        assert player is not None
        self._may_create(session, message)
        await self._per_player(player, "create", self.settings.games_per_minute, 60.0)
        if message.opponent == "bot" and (
            message.level is None or not self.pool.knows(message.level)
        ):
            raise ProtocolError(ErrorCode.UNKNOWN_LEVEL, f"unknown bot level {message.level!r}")
        challenge = None
        if message.challenge is not None:
            if message.opponent != "bots":
                raise ProtocolError(
                    ErrorCode.BAD_MESSAGE, "a challenge names a bot: it goes with opponent 'bots'"
                )
            challenge = await self._challenge(message)
        game_id = secrets.token_hex(4)
        now = now_ms()
        record = match.create(
            game_id,
            session.seat(),
            game_type=message.game_type,
            time=message.time,
            color=message.color,
            now=now,
            ttl_ms=int(self.settings.open_game_ttl * 1000),
            seed=random.getrandbits(31),
            wants="bots" if message.opponent == "bots" else "anyone",
            challenge=challenge,
            origin=session.origin,
        )
        event = Event(1, "created", now, by=session.name)
        self._watch(session, game_id, 0)
        if message.opponent == "bot":
            assert message.level is not None
            bot = Seat(
                f"bot:{message.level}", f"{message.level} bot", bot=message.level, account="bot"
            )
            record, event2 = match.join(record, bot, now)
            if not await self.store.commit(
                record, event2, expected=0, deadline=self._deadline(record)
            ):
                raise ProtocolError(ErrorCode.INTERNAL, "game id collision; try again")
        elif not await self.store.commit(
            record, event, expected=0, deadline=self._deadline(record)
        ):
            raise ProtocolError(ErrorCode.INTERNAL, "game id collision; try again")
        self._cache(record)  # unless the listener has cached a later version meanwhile
        self._after_commit(record)

    def _may_create(self, session: Session, message: CreateGame) -> None:
        """Refuse a game past the limits on open games (the player's, the address's, the
        whole lobby's) or on games against the server's bots (the player's, the address's).

        Raises:
            ProtocolError: NOT_ALLOWED.
        """
        board, settings, player = self.lobby, self.settings, session.player
        assert player is not None
        if message.opponent == "bot":
            checks = [
                (board.bot_games_of[player], settings.bot_games, "you play"),
                (
                    board.bot_games_from[session.origin],
                    settings.bot_games_per_address,
                    "your address plays",
                ),
            ]
            for count, limit, who in checks:
                if count >= limit:
                    raise ProtocolError(
                        ErrorCode.NOT_ALLOWED,
                        f"{who} {count} games against the server's bots (the most allowed): "
                        "finish one first",
                    )
            return
        mine = sum(1 for r in board.open.values() if r.creator == player)
        if mine >= settings.open_games:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"you have {mine} open games (the most allowed): cancel one first",
            )
        if board.open_from[session.origin] >= settings.open_games_per_address:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"your address has {settings.open_games_per_address} open games (the most "
                "allowed): cancel one first",
            )
        if len(board.open) >= settings.open_games_total:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                "the lobby is full: join one of its open games, or try again shortly",
            )

    async def _challenge(self, message: CreateGame) -> Seat:
        """The seat of the bot account ``message`` challenges, if it is connected, plays that
        game and has room for it.

        Raises:
            ProtocolError: UNKNOWN_BOT, NOT_ALLOWED.
        """
        name = message.challenge
        assert name is not None
        player = await self.store.bot_named(name)
        if player is None:
            raise ProtocolError(ErrorCode.UNKNOWN_BOT, f"no bot account named {name[:40]!r}")
        offer = self.bot_offers.get(player)
        if offer is None or not self._connected(player):
            raise ProtocolError(ErrorCode.NOT_ALLOWED, f"the bot {name} is not connected")
        game_type = match.canonical_type(message.game_type)
        if game_type not in offer.game_types:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"the bot {name} plays {', '.join(offer.game_types)}, not {game_type}",
            )
        if message.time.kind not in offer.times:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"the bot {name} plays time controls {', '.join(offer.times)}, "
                f"not {message.time.kind}",
            )
        if self.lobby.playing[player] >= offer.max_games:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED, f"the bot {name} is busy ({offer.max_games} games)"
            )
        return Seat(player, name, account="bot")

    async def join(self, session: Session, message: JoinGame) -> None:
        assert session.player is not None
        seat = session.seat()
        watched = message.game in session.watching
        if not watched:
            self._watch(session, message.game, 0)  # before the commit: its update comes here
        try:
            await self.change(message.game, lambda live, now: match.join(live.record, seat, now))
        except ProtocolError:
            if not watched:  # a refused join leaves nothing behind
                self._unwatch(session, message.game)
            raise

    async def cancel(self, session: Session, message: CancelGame) -> None:
        player = session.player
        assert player is not None
        await self.change(message.game, lambda live, now: match.cancel(live.record, player, now))

    async def watch(self, session: Session, message: Watch) -> None:
        live = await self.live(message.game)
        since = message.since
        if since is not None and not 0 <= since <= live.record.version:
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE, f"since {since} is not in 0..{live.record.version}"
            )
        self._watch(session, message.game, -1 if since is None else since)
        await self.deliver(message.game, also=session)

    async def unwatch(self, session: Session, message: Unwatch) -> None:
        self._unwatch(session, message.game)

    async def play(self, session: Session, message: Play) -> None:
        player = session.player
        assert player is not None
        started = time.perf_counter()
        played = await self.change(
            message.game,
            lambda live, now: match.play(
                live.record,
                live.game,
                player,
                message.move,
                message.version,
                now,
                self.first_move_ms,
            ),
        )
        if played is not None:
            self.metrics.moves.inc()
            self.metrics.move_seconds.observe(time.perf_counter() - started)

    async def resign(self, session: Session, message: Resign) -> None:
        player = session.player
        assert player is not None
        await self.change(message.game, lambda live, now: match.resign(live.record, player, now))

    async def draw(self, session: Session, message: Draw) -> None:
        player = session.player
        assert player is not None
        await self.change(
            message.game, lambda live, now: match.draw(live.record, player, message.action, now)
        )

    async def claim(self, session: Session, message: ClaimWin) -> None:
        player = session.player
        assert player is not None
        live = await self.live(message.game)
        color = live.record.color_of(player)
        opponent = live.record.seat(match.other(color)) if color is not None else None
        gone: int | None = None
        if opponent is not None and opponent.bot is None:
            gone = await self.store.gone_since(opponent.player, now_ms())
            limit = int(self.settings.disconnect_claim * 1000)
            if gone is not None and now_ms() - gone < limit:
                left = (limit - (now_ms() - gone)) / 1000
                raise ProtocolError(
                    ErrorCode.NOT_ALLOWED, f"your opponent may still come back ({left:.0f} s)"
                )
        await self.change(
            message.game, lambda live, now: match.claim(live.record, player, now, gone)
        )

    async def rematch(self, session: Session, message: Rematch) -> None:
        """Offer a rematch, or start it when the opponent has offered one: decided on the game
        as it is when the change is committed, so two offers crossing are an agreement."""
        player = session.player
        assert player is not None
        new_id = secrets.token_hex(4)
        seed = random.getrandbits(31)
        started: list[Record] = []

        def decide(live: Live, now: int) -> tuple[Record, Event]:
            old, event, new = match.rematch(live.record, player, now, new_id, seed)
            started[:] = [] if new is None else [new]
            return old, event

        old = await self.change(message.game, decide)
        if old is None or not started:
            return
        new = started[0]
        self._follow_rematch(old, new.id)  # before any client hears of it (and unwatches)
        # The old game's rematch event reaches its watchers before the new game's first state
        # (the listener would pass it on later): a client follows the event to the new game.
        await self.deliver(message.game)
        start = Event(new.version, "joined", new.created, text=message.game)
        if await self.store.commit(new, start, expected=0, deadline=self._deadline(new)):
            self._cache(new)
            self._after_commit(new)
            await self.deliver(new.id)

    def _follow_rematch(self, old: Record, new_id: str) -> None:
        """The players' connections here that follow the old game follow its rematch: their
        clients go to the new game on the old one's ``rematch`` event, without a ``watch``."""
        for player in old.players():
            for other in self.by_player.get(player, ()):
                if old.id in other.watching:
                    self._watch(other, new_id, 0, checked=False)

    async def chat(self, session: Session, message: Chat) -> None:
        text_ = message.text.strip()
        if not text_:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "an empty chat line")
        if len(text_) > self.settings.chat_length:
            raise ProtocolError(
                ErrorCode.TOO_LONG, f"chat lines are at most {self.settings.chat_length} characters"
            )
        if not session.chats.take(time.monotonic()):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many chat lines; slow down")
        assert session.player is not None
        await self._per_player(session.player, "chat", self.settings.chat_burst, self._chat_window)
        player, name = session.player, session.name
        await self.live(message.game)  # UNKNOWN_GAME before anything else
        await self.change(
            message.game, lambda live, now: match.chat(live.record, player, name, text_, now)
        )

    async def mute(self, session: Session, message: Mute) -> None:
        player = session.player
        assert player is not None
        await self.live(message.game)  # UNKNOWN_GAME before anything else
        await self._per_player(player, "social", SOCIAL_PER_MINUTE, 60.0)
        await self.change(
            message.game,
            lambda live, now: match.mute(live.record, player, message.player, message.mute, now),
        )

    async def spectator_chat(self, session: Session, message: SpectatorChat) -> None:
        player = session.player
        assert player is not None
        await self.live(message.game)  # UNKNOWN_GAME before anything else
        await self._per_player(player, "social", SOCIAL_PER_MINUTE, 60.0)
        await self.change(
            message.game,
            lambda live, now: match.spectator_chat(live.record, player, message.open, now),
        )

    @property
    def _chat_window(self) -> float:
        return self.settings.chat_burst * self.settings.chat_interval

    async def _per_player(self, player: str, what: str, limit: int, seconds: float) -> None:
        """Refuse the player's ``limit + 1``-th ``what`` within a window of ``seconds``,
        whichever server processes its connections are on (counted in Redis)."""
        if await self.store.count_in_window(player, what, seconds, now_ms()) > limit:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {limit} {what} requests in {seconds:.0f} s; wait a little",
            )

    async def _per_origin(
        self, session: Session, what: str, limit: int, seconds: float, words: str
    ) -> None:
        """Refuse the ``limit + 1``-th ``what`` from the connection's address within a window
        of ``seconds``, on every server process (counted in Redis by origin hash)."""
        if await self.store.count_in_window(session.origin, what, seconds, now_ms()) > limit:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {limit} {words} from one address in {seconds / 60:.0f} min; "
                "wait a little",
            )

    HANDLERS: Final[dict[type[Message], Callable[[Any, Session, Any], Awaitable[None]]]] = {
        Hello: hello,
        Logout: logout,
        BotReady: bot_ready,
        Ping: ping,
        WatchLobby: watch_lobby,
        CreateGame: create,
        JoinGame: join,
        CancelGame: cancel,
        Watch: watch,
        Unwatch: unwatch,
        Play: play,
        Resign: resign,
        Draw: draw,
        ClaimWin: claim,
        Rematch: rematch,
        Chat: chat,
        Mute: mute,
        SpectatorChat: spectator_chat,
    }

    # -- games -----------------------------------------------------------------------------------

    def _deadline(self, record: Record) -> int | None:
        return match.deadline(record, self.first_move_ms)

    def _watch(self, session: Session, game_id: str, version: int, *, checked: bool = True) -> None:
        """``session`` follows the game from ``version``.

        Raises:
            ProtocolError: NOT_ALLOWED when it follows ``MAX_WATCHING`` games already (unless
                ``checked`` is off: a rematch followed for the client).
        """
        if checked and game_id not in session.watching and len(session.watching) >= MAX_WATCHING:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                f"a connection watches at most {MAX_WATCHING} games: unwatch one first",
            )
        session.watching[game_id] = version
        self.watchers.setdefault(game_id, {})[session] = None
        self.seen.add(game_id)

    def _unwatch(self, session: Session, game_id: str) -> None:
        session.watching.pop(game_id, None)
        session.owed.discard(game_id)
        watchers = self.watchers.get(game_id)
        if watchers is not None:
            watchers.pop(session, None)
            if not watchers:
                del self.watchers[game_id]
            self.seen.add(game_id)
        self._forget_if_idle(game_id)

    def _forget_if_idle(self, game_id: str) -> None:
        """Drop a game from this process's cache once nobody here follows it and it no longer
        changes by itself (it is over or cancelled): memory stays bounded by live games."""
        live = self.games.get(game_id)
        if live is None or live.record.status == "live" or game_id in self.watchers:
            return
        if self.locks.busy(game_id) or self.sending.busy(game_id):
            return
        del self.games[game_id]

    def _cache(self, record: Record) -> Live:
        """Cache ``record`` unless a later version of it is cached: a request awaiting its
        commit resumes after the listener may have applied later changes of the game."""
        live = self.games.get(record.id)
        if live is None or live.record.version < record.version:
            live = self.games[record.id] = Live.of(record, self.settings.event_log)
        return live

    async def live(self, game_id: str) -> Live:
        """The cached game, loaded from Redis if needed.

        Raises:
            ProtocolError: UNKNOWN_GAME.
        """
        live = self.games.get(game_id)
        if live is not None:
            return live
        record = await self.store.get(game_id) if _GAME_ID_RE.fullmatch(game_id) else None
        if record is None:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")
        live = self.games.get(game_id)  # loaded by someone else meanwhile
        if live is None:
            live = self.games[game_id] = Live.of(record, self.settings.event_log)
        return live

    async def change(
        self, game_id: str, decide: Callable[[Live, int], tuple[Record, Event] | None]
    ) -> Record | None:
        """Apply the change ``decide`` makes to the game, committed against the version it was
        decided on; retried on a fresh copy if another process changed the game meanwhile.

        Raises:
            ProtocolError: from ``decide``, or UNKNOWN_GAME.
        """
        if not _GAME_ID_RE.fullmatch(game_id):  # no lock for a name that is no game
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")
        async with self.locks.hold(game_id):
            for _ in range(3):
                live = await self.live(game_id)
                decided = decide(live, now_ms())
                if decided is None:
                    return None
                record, event = decided
                was = live.record
                game = None if self.alone else _game_after(live, record)
                body = pack(record)
                self.committing[game_id] = (body, record, event, game)
                try:
                    committed = await self.store.commit(
                        record,
                        event,
                        expected=was.version,
                        deadline=self._deadline(record),
                        indexed=(was.status, self._deadline(was)),
                        update=None if game is None else self._update(record, game, event),
                        body=body,
                    )
                finally:
                    del self.committing[game_id]
                if committed:
                    live.apply(record, event, game)
                    self._after_commit(record)
                    return record
                fresh = await self.store.get(game_id)
                if fresh is None:
                    raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game_id!r}")
                self._cache(fresh)
            raise ProtocolError(ErrorCode.STALE, "the game kept changing; try again")

    def _after_commit(self, record: Record) -> None:
        self._update_lobby(record)
        if record.status == "live":
            seat = record.seat(record.turn)
            if seat is not None and seat.bot is not None and record.id not in self.bot_tasks:
                task = asyncio.create_task(self.bot_turn(record.id))
                self.bot_tasks[record.id] = task
                task.add_done_callback(lambda _: self.bot_tasks.pop(record.id, None))

    async def bot_turn(self, game_id: str) -> None:
        """Compute and play the bot's move (its thinking time runs on its clock)."""
        try:
            live = await self.live(game_id)
            record = live.record
            seat = record.seat(record.turn)
            if record.status != "live" or seat is None or seat.bot is None:
                return
            started = time.perf_counter()
            answer = await self.pool.move(
                game_id, record.game_type, list(record.moves), seat.bot, record.seed
            )
            self.metrics.bot_move_seconds.observe(time.perf_counter() - started)
            await self.store.put_trace(
                game_id, len(record.moves) + 1, answer.trace, int(self.settings.trace_ttl)
            )
            version = record.version
            bot_player = seat.player
            played = await self.change(
                game_id,
                lambda live, now: match.play(
                    live.record,
                    live.game,
                    bot_player,
                    answer.move,
                    version,
                    now,
                    self.first_move_ms,
                ),
            )
            if played is not None:
                self.metrics.moves.inc()
        except ProtocolError as error:  # the game changed meanwhile (resigned, flagged...)
            log.info("bot move in game %s not played: %s", game_id, error.message)
        except redis.exceptions.RedisError as error:
            log.warning("bot move in game %s lost to storage: %s; retrying", game_id, error)
            await asyncio.sleep(1)  # back off before the retry below
            self.bot_tasks.pop(game_id, None)
            cached = self.games.get(game_id)
            if cached is not None:
                self._after_commit(cached.record)
        except Exception:
            log.exception("bot move in game %s failed", game_id)
            raise

    # -- delivery ------------------------------------------------------------------------------

    def _update(self, record: Record, game: Game, event: Event) -> bytes:
        """The encoded update of the change to ``record`` (``game`` holds its moves) for a
        watcher one version behind: built once, by the process that makes the change, and
        published with it (every process passes it on, see ``deliver``)."""
        return encode(Update(record.id, record.version, [event], self._state(record, game), False))

    def _state(self, record: Record, game: Game) -> GameState:
        """The state of ``record`` (``game`` holds its moves), with this process's view of
        the spectators and of who is connected."""
        return match.state(
            record,
            game,
            now_ms(),
            spectators=self._spectators(record.id, record),
            connected=self._connected,
        )

    def _ready(self, sessions: list[Session], game_id: str | None) -> list[Session]:
        """The sessions that read what they are sent: the others (more than
        ``Settings.queue_limit`` bytes wait for them) are skipped, owed the game (``game_id``)
        or, for None, the lobby."""
        limit = self.settings.queue_limit
        ready = [s for s in sessions if s.queued() < limit]
        if len(ready) < len(sessions):
            for session in sessions:
                if session.queued() >= limit:
                    self._skipped(session, game_id=game_id, lobby=game_id is None)
        return ready

    def _skipped(
        self, session: Session, *, game_id: str | None = None, lobby: bool = False
    ) -> None:
        """A frame for ``session`` was not sent: it is brought up to date once it reads."""
        if game_id is not None:
            session.owed.add(game_id)
        if lobby:
            session.lobby_stale = True
        self.lagging.add(session)
        self.metrics.skipped.inc()

    async def deliver(
        self, game_id: str, *, also: Session | None = None, built: tuple[int, bytes] | None = None
    ) -> None:
        """Bring every watcher of the game up to date: the events it has not seen, then the
        state (a snapshot when the events are too old, or more than ``FAR_BEHIND``). ``also``
        gets an update even when it has seen everything (it has just asked to watch).
        ``built``: a version and the update for the watchers one version behind it, as the
        process that made the change built it; passed on as it is while the game is at that
        version. A watcher that does not read is skipped (see ``_ready``)."""
        async with self.sending.hold(game_id):
            watchers = self.watchers.get(game_id)
            live = self.games.get(game_id)
            if not watchers or live is None:
                return
            record = live.record
            behind: dict[int, list[Session]] = {}
            for session in watchers:
                seen = session.watching.get(game_id, record.version)
                if seen < record.version or session is also:
                    behind.setdefault(seen, []).append(session)
            if not behind:
                return
            state: GameState | None = None
            for seen, waiting in behind.items():
                sessions = self._ready(waiting, game_id)
                if not sessions:
                    continue
                if built is not None and built[0] == record.version == seen + 1:
                    frame = built[1]
                else:
                    if state is None:
                        state = self._state(record, live.game)
                    events: list[Event] | None = None
                    if seen >= 0 and record.version - seen <= FAR_BEHIND:
                        events = live.events_after(seen)
                        if events is None:
                            events = await self.store.events_after(game_id, seen)
                    update = Update(game_id, record.version, events or [], state, events is None)
                    frame = encode(update)
                broadcast([s.ws for s in sessions], frame)
                for s in sessions:
                    s.owed.discard(game_id)
                    if game_id in s.watching:
                        s.watching[game_id] = record.version

    async def catch_up(self) -> None:
        """Every ``CATCH_UP_SECONDS``, bring the clients that were skipped and read again up to
        date: one update of each game they are owed (a snapshot when far behind), and the
        lobby as it stands."""
        while True:
            await asyncio.sleep(CATCH_UP_SECONDS)
            limit = self.settings.queue_limit // 2
            for session in list(self.lagging):
                if session not in self.sessions:
                    self.lagging.discard(session)
                    continue
                if session.queued() >= limit:
                    continue
                self.lagging.discard(session)
                if session.lobby_stale and session.lobby:
                    session.lobby_stale = False
                    self._offer_lobby(session)
                for game_id in list(session.owed):
                    session.owed.discard(game_id)
                    if game_id in session.watching:
                        with contextlib.suppress(*STORAGE_ERRORS):
                            await self.deliver(game_id, also=session)

    def _connected(self, player: str) -> bool:
        return player in self.by_player or player in self.online_elsewhere

    def _spectators(self, game_id: str, record: Record) -> int:
        return self._local_spectators(game_id, record) + self.spectators_elsewhere.get(game_id, 0)

    def _local_spectators(self, game_id: str, record: Record) -> int:
        players = set(record.players())
        return sum(1 for s in self.watchers.get(game_id, ()) if s.player not in players)

    def _look_again(self) -> set[str]:
        """Count again the spectators here, and note the players, of the games whose watchers
        or players changed since the last look; returns those games."""
        looked, self.seen = self.seen, set()
        for game_id in looked:
            for player in self.players_of.pop(game_id, ()):
                self.watched_players[player] -= 1
                if not self.watched_players[player]:
                    del self.watched_players[player]
            self.spectating.pop(game_id, None)
            if game_id not in self.watchers:
                continue
            live = self.games.get(game_id)
            if live is None:  # not loaded yet: look next time
                self.seen.add(game_id)
                continue
            players = self.players_of[game_id] = tuple(live.record.players())
            self.watched_players.update(players)
            if count := self._local_spectators(game_id, live.record):
                self.spectating[game_id] = count
        return looked

    async def share_view(self) -> None:
        """Tell the other server processes how many spectators each game has here, and learn
        theirs and which players of the games watched here (and which bot accounts) are
        connected to them (every VIEW_SECONDS, from the heartbeat)."""
        looked = self._look_again()
        shared = self.shared
        if self.share_all:
            looked = looked | self.spectating.keys() | shared.keys()
        changes = {
            game_id: count
            for game_id in looked
            if (count := self.spectating.get(game_id, 0)) != shared.get(game_id, 0)
        }
        try:
            offers = await self.store.bot_offers()
            asked = (self.watched_players.keys() | offers.keys()) - self.by_player.keys()
            view = await self.store.share_view(
                self.process, changes, asked, now_ms(), int(VIEW_SECONDS * 3)
            )
        except BaseException:
            self.seen |= looked  # their changes were not shared: look again next time
            raise
        self.alone = view.others == 0
        if view.renewed or self.share_all:  # Redis holds what it held, and the changes
            for game_id, count in changes.items():
                if count:
                    shared[game_id] = count
                else:
                    shared.pop(game_id, None)
            self.share_all = False
        else:  # the counts had lapsed (Redis was away, or this process stalled): Redis holds
            self.shared = {}  # only the changes; all are shared again next time
            self.share_all = True
        self.spectators_elsewhere = view.spectators
        online_elsewhere = view.online - self.by_player.keys()
        if offers.keys() & (online_elsewhere ^ self.online_elsewhere) or offers != self.bot_offers:
            self.lobby.dirty.set()  # a bot came or went on another process
        self.online_elsewhere = online_elsewhere
        self.bot_offers = offers

    async def listen(self, redis_client: aioredis.Redis) -> None:
        """Pass every committed change on to this process's watchers, and close the
        connections of sessions ended elsewhere (forever; it resubscribes after Redis comes
        back, and resyncs every watched game)."""
        while True:
            try:
                async with redis_client.pubsub() as pubsub:
                    await pubsub.subscribe(self.store.events_channel, self.store.control_channel)
                    await self._resync()
                    async for message in pubsub.listen():
                        if message["type"] != "message":
                            continue
                        if message["channel"] == self.store.control_channel.encode():
                            _, player, hashed = msgpack.unpackb(message["data"])
                            self._signed_out(player, hashed)
                        else:
                            await self._published(message["data"])
            except STORAGE_ERRORS as error:
                log.warning("event listener lost Redis (%s); resubscribing", error)
                await asyncio.sleep(0.5)  # back off while Redis is away

    async def _published(self, data: bytes) -> None:
        """One committed change, from Redis: update the cache, the lobby and the watchers."""
        game_id, version, body, event_body, update = peek_published(data)
        try:
            live = self.games.get(game_id)
            if live is None or live.record.version < version:  # not applied here yet
                mine = self.committing.get(game_id)
                game: Game | None = None
                if mine is not None and mine[0] == body:  # made here; its request waits
                    _, record, event, game = mine
                else:
                    record, event = unpack(body), unpack_event(event_body)
                if live is not None:
                    live.apply(record, event, game)
                elif game_id in self.watchers:
                    self._cache(record)
                self._update_lobby(record)
                if event.kind == "rematch" and event.text is not None:
                    self._follow_rematch(record, event.text)  # before the event is passed on
            else:
                self._update_lobby(live.record)
            await self.deliver(game_id, built=None if update is None else (version, update))
            self._forget_if_idle(game_id)
        except STORAGE_ERRORS:
            raise
        except Exception:  # one game's failure must not stop the others' events
            log.exception("game %s: event %d not delivered", game_id, version)

    async def _resync(self) -> None:
        """Reload every watched game from Redis (after the listener missed messages)."""
        for game_id in list(self.watchers):
            record = await self.store.get(game_id)
            if record is None:
                continue
            self._cache(record)
            self._update_lobby(record)
            await self.deliver(game_id)

    # -- lobby ---------------------------------------------------------------------------------

    def _summary(self, record: Record) -> GameSummary:
        return GameSummary(
            record.id,
            record.game_type,
            record.time,
            record.white,
            record.black,
            record.created,
            len(record.moves),
            self._spectators(record.id, record),
            record.creator_color if record.status == "open" else None,
            record.wants,
            record.challenge,
        )

    def _update_lobby(self, record: Record) -> None:
        if self.lobby.update(record) and record.id in self.watchers:
            self.seen.add(record.id)  # a join changes the players, so the spectators

    def _bots_online(self) -> list[BotInfo]:
        """The bot accounts connected anywhere, with how many games each plays."""
        bots = [
            replace(offer, playing=self.lobby.playing[player])
            for player, offer in self.bot_offers.items()
            if self._connected(player)
        ]
        return sorted(bots, key=lambda offer: offer.name)

    async def broadcast_lobby(self) -> None:
        """Send the lobby's subscribers what changed (at most twice a second)."""
        while True:
            await self.lobby.dirty.wait()
            self.lobby.dirty.clear()
            listeners = [s for s in self.sessions if s.lobby]
            if not listeners:
                self.lobby.forget_shown()
            else:
                change = self.lobby.change(self._summary, self._bots_online)
                if change is not None:
                    current = [s for s in listeners if not s.lobby_stale]
                    broadcast([s.ws for s in self._ready(current, None)], encode(change))
            await asyncio.sleep(0.5)  # at most two lobby messages a second

    # -- time ----------------------------------------------------------------------------------

    async def sweep(self) -> None:
        """Apply passed deadlines (expiries, aborts, flags), whoever is connected."""
        while True:
            try:
                for game_id in await self.store.due(now_ms()):
                    try:
                        await self._expire(game_id)
                    except STORAGE_ERRORS:
                        raise
                    except Exception:  # one game's failure must not stop the others' clocks
                        log.exception("game %s: deadline not applied", game_id)
            except STORAGE_ERRORS as error:
                log.warning("deadline sweep: storage unavailable (%s)", error)
            await asyncio.sleep(self.settings.sweep_interval)

    async def _expire(self, game_id: str) -> None:
        try:
            done = await self.change(
                game_id, lambda live, now: match.expire(live.record, now, self.first_move_ms)
            )
        except ProtocolError:  # the game is gone
            await self.store.drop_deadline(game_id)
            return
        if done is not None:
            log.info("game %s: %s", game_id, done.reason)
            return
        live = self.games.get(game_id)  # not due after all: a move moved the deadline
        if live is not None:
            await self.store.index(live.record, self._deadline(live.record))

    async def end_abandoned(self) -> None:
        """End the games against the server's bots whose person has been gone past
        ``Settings.disconnect_claim`` (nobody is there to claim the win): aborted before
        both sides have moved, else lost by the person (``abandoned``). Looked at every
        ``ABANDON_SECONDS``, or a quarter of the limit if that is shorter."""
        limit = int(self.settings.disconnect_claim * 1000)
        every = min(ABANDON_SECONDS, max(0.05, self.settings.disconnect_claim / 4))
        while True:
            await asyncio.sleep(every)
            games = [
                (record.id, person)
                for record in self.lobby.live.values()
                if (bot := record.bot_opponent()) is not None
                for person in record.players()
                if person != bot.player
            ]
            if not games:
                continue
            try:
                now = now_ms()
                gone = await self.store.gone_since_many([person for _, person in games], now)
                for (game_id, person), since in zip(games, gone, strict=True):
                    # Gone "since before this process started" counts from its start: the
                    # person may not have been able to reconnect while no server ran.
                    if since is not None and now - max(since, self.started) >= limit:
                        await self._abandon(game_id, person)
            except STORAGE_ERRORS as error:
                log.warning("abandoned games: storage unavailable (%s)", error)

    async def _abandon(self, game_id: str, person: str) -> None:
        try:
            done = await self.change(
                game_id,
                lambda live, now: (
                    match.abandon(live.record, person, now)
                    if live.record.status == "live"
                    else None
                ),
            )
        except ProtocolError:  # over meanwhile
            return
        if done is not None:
            log.info("game %s: %s (its person left)", game_id, done.reason)

    async def heartbeat(self) -> None:
        """Every second, mark this server alive (and note whether Redis answers, for
        ``/healthz``) and renew the online marks of a tenth of its players (each player's
        every ten seconds; they lapse after ONLINE_TTL if this process dies); every
        VIEW_SECONDS, share the view with the other processes."""
        beats = 0
        while True:
            try:
                started = time.perf_counter()
                await self.store.heartbeat(now_ms())
                self.metrics.redis_seconds.observe(time.perf_counter() - started)
                self._storage(True)
                await self.renew_online(beats)
                if beats % VIEW_SECONDS == 0:
                    await self.share_view()
            except STORAGE_ERRORS as error:
                self._storage(False, error)
            beats += 1
            await asyncio.sleep(1)

    async def renew_online(self, beat: int) -> None:
        """Renew the online marks of a tenth of this process's players, which tenth by
        ``beat``; the lapsed marks are forgotten every tenth beat. (One command for all the
        players every ten seconds was a pause for every game's moves.)"""
        part = beat % 10
        await self.store.keep_online(
            [player for player in self.by_player if hash(player) % 10 == part],
            now_ms(),
            ONLINE_TTL,
            forget_lapsed=part == 0,
        )

    async def recover(self) -> None:
        """On start: rebuild the indexes, give back the time no server ran, restart bots."""
        self.secret = await self.store.secret()
        now = now_ms()
        previous = await self.store.heartbeat(now)
        active = await self.store.repair(self.first_move_ms)
        outage = 0 if previous is None else now - previous
        if outage > OUTAGE_MS:
            log.info(
                "no server ran for %.1f s: clocks and expiries resume where they were",
                outage / 1000,
            )
        for record in active:
            if outage > OUTAGE_MS:
                if record.status == "live":
                    record = replace(record, turn_started=record.turn_started + outage)
                elif record.expires is not None:
                    record = replace(record, expires=record.expires + outage)
                if await self.store.rewrite(record):
                    await self.store.index(record, self._deadline(record))
            self._update_lobby(record)
            if record.status == "live":
                self.games[record.id] = Live.of(record, self.settings.event_log)
                self._after_commit(record)


def _game_after(live: Live, record: Record) -> Game | None:
    """The game of ``record``, a change of the cached one: the cached game itself when no move
    was made, a copy with the move played when one was, else None."""
    played = live.record.moves
    if record.moves == played:
        return live.game
    if len(record.moves) == len(played) + 1 and record.moves[:-1] == played:
        game = live.game.copy()
        game.play_unchecked(record.moves[-1])  # checked by the change
        return game
    return None


# -- running -------------------------------------------------------------------------------------


async def _cancel_all(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait until they end. A task cancelled inside a redis-py command may
    swallow the cancellation and go on, so the ones still running are cancelled again (for at
    most SHUTDOWN_SECONDS)."""
    give_up = asyncio.get_running_loop().time() + SHUTDOWN_SECONDS
    pending = [task for task in tasks if not task.done()]
    while pending:
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=0.5)
        pending = [task for task in pending if not task.done()]
        if pending and asyncio.get_running_loop().time() > give_up:
            log.warning("%d background tasks would not stop", len(pending))
            return


@contextlib.asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[tuple[Server, Hub]]:
    """The server, started (on ``settings.port``; 0 picks a free port) and stopped on exit:
    connections closed with 1001, tasks stopped, the worker pools and Redis closed."""
    embedded: RedisProcess | None = None
    url = settings.redis_url
    if url is None:
        embedded = RedisProcess(settings.data / "redis")
        embedded.start()  # in this thread: the child's parent-death signal follows the thread
        url = embedded.url
    # A blocking pool: under a burst a command waits for a free connection, where the default
    # pool would refuse the 101st at once (and the request would be answered "unavailable").
    # A command that gets no answer within redis_timeout fails (a frozen Redis): it is not
    # retried, as a retry would wait as long again; a broken connection is retried at once.
    pool_of_connections = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=50,
        timeout=settings.redis_timeout,
        health_check_interval=5,
        socket_connect_timeout=min(1.0, settings.redis_timeout),
        socket_timeout=settings.redis_timeout,
        # (A Retry retries on timeouts too unless told its errors: then a frozen Redis held a
        # request for four timeouts.)
        retry=Retry(
            ExponentialBackoff(cap=0.2, base=0.02),
            3,
            supported_errors=(redis.exceptions.ConnectionError,),
        ),
        retry_on_timeout=False,
    )
    client = aioredis.Redis(connection_pool=pool_of_connections)
    # The listener's own connection, never retried behind its back: a reconnect it did not see
    # would lose what was published meanwhile, where a lost connection makes it resubscribe
    # and bring every watched game up to date.
    listener = aioredis.Redis.from_url(
        url,
        health_check_interval=5,
        socket_connect_timeout=min(1.0, settings.redis_timeout),
        retry=Retry(NoBackoff(), 0),
    )
    pool = BotPool(settings.bot_workers, trace_bytes=settings.trace_bytes)
    store = Store(client, event_log=settings.event_log)
    hub = Hub(settings, store, pool)
    tasks: list[asyncio.Task[None]] = []
    try:
        await hub.recover()
        tasks = [
            asyncio.create_task(hub.listen(listener)),
            asyncio.create_task(hub.sweep()),
            asyncio.create_task(hub.heartbeat()),
            asyncio.create_task(hub.broadcast_lobby()),
            asyncio.create_task(hub.catch_up()),
            asyncio.create_task(hub.end_abandoned()),
        ]
        if embedded is not None:
            tasks.append(asyncio.create_task(embedded.supervise()))
        async with serve(
            hub.handle,
            settings.host,
            settings.port,
            process_request=lambda connection, request: http(hub, connection, request),
            server_header=SERVER,
            max_size=MAX_FRAME_BYTES,
            max_queue=8,
            compression=None,
        ) as server:
            hub.ready = True
            yield server, hub
            hub.ready = False
            server.close()  # no new connections; open ones are closed with 1001
            try:
                async with asyncio.timeout(SHUTDOWN_SECONDS):
                    await server.wait_closed()
            except TimeoutError:
                log.warning("connections still open after %d s; stopping anyway", SHUTDOWN_SECONDS)
    finally:
        await _cancel_all([*tasks, *hub.bot_tasks.values(), *hub.closing])
        pool.close()
        hub.positions.close()
        await client.aclose()
        await listener.aclose()
        await pool_of_connections.aclose()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
