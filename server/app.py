"""The server: the websocket at ``/ws``, the HTTP routes, and the tasks that keep games going.

``Hub`` holds what one server process knows: its connections (``Session``), who watches which
game, a cache of the games in play here, and the lobby lists. Every change to a game goes
through ``Hub.change``: it checks the request against the game (``server.match``) and commits it
to Redis against the version it was checked on (``server.store``). Redis publishes each
committed change; the hub's listener passes it on to every session watching the game, in
version order, so a change reaches everyone the same way whichever process made it.

Background tasks: the listener; the deadline sweep (open games expire, first moves abort,
flags fall, with nobody connected); the heartbeat (so that a restart knows how long no server
ran); presence marks; the lobby broadcast (at most twice a second); bot moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import mimetypes
import random
import re
import secrets
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from pathlib import Path
from typing import Any, Final

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response

from hive import Game
from server import match, review
from server.bots import BotPool
from server.embedded import RedisProcess
from server.limits import Bucket
from server.match import Record
from server.metrics import CONTENT_TYPE, Metrics
from server.protocol import (
    MAX_FRAME_BYTES,
    MAX_NICKNAME,
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
    Lobby,
    Message,
    Mute,
    Ping,
    Play,
    Pong,
    ProtocolError,
    Rematch,
    Resign,
    Seat,
    Unwatch,
    Update,
    Watch,
    WatchLobby,
    Welcome,
    decode,
    encode,
)
from server.settings import Settings
from server.store import EVENTS_CHANNEL, Store, pack, peek_published, unpack, unpack_event

log = logging.getLogger(__name__)

CLIENT_DIR: Final = Path(__file__).resolve().parent.parent / "client"
VENDOR: Final = {
    "/vendor/msgpack/": CLIENT_DIR / "node_modules" / "@msgpack" / "msgpack" / "dist.esm",
}
"""URL prefixes served from the client's npm packages: the ES module builds it imports."""
_PAGES: Final = {"": "/index.html", "/": "/index.html", "/visualizer": "/visualizer.html"}
RECENT_EVENTS: Final = 64
"""Events each cached game keeps in memory to fill a watcher's gap without asking Redis."""
LOBBY_LIVE_SHOWN: Final = 100
"""Games in progress listed in the lobby (the most recent)."""
ONLINE_TTL: Final = 30
VIEW_SECONDS: Final = 2
"""How often a process shares its spectator counts and learns the others' (and who is online)."""
STRIKE_SECONDS: Final = 5.0
"""A connection earns back one strike (see ``Settings.strikes``) after this long."""
SHUTDOWN_SECONDS: Final = 15
"""Longest wait for connections and tasks to end when the server stops."""
OUTAGE_MS: Final = 3000
"""A heartbeat older than this on start means no server ran: the outage is not charged."""

_GAME_ID_RE: Final = re.compile(r"[0-9a-z]{8}")
NICKNAME_RE: Final = re.compile(rf"[\w .\-]{{1,{MAX_NICKNAME}}}")


def now_ms() -> int:
    return int(time.time() * 1000)


def _nickname(text: str) -> str:
    """``text`` as a nickname (spaces around it dropped), or a ``bad_message`` refusal."""
    name = text.strip()
    if not NICKNAME_RE.fullmatch(name):
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"a nickname has 1 to {MAX_NICKNAME} letters, digits, spaces, '.', '-', '_'",
        )
    return name


class Session:
    """One websocket connection."""

    def __init__(self, ws: ServerConnection, settings: Settings) -> None:
        self.ws = ws
        self.player: str | None = None
        self.name = ""
        self.bot = False  # a bot account
        self.watching: dict[str, int] = {}  # game id -> last version sent
        self.lobby = False
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

    async def send(self, message: Message) -> None:
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
        self.sessions: set[Session] = set()
        self.by_player: dict[str, set[Session]] = {}
        self.watchers: dict[str, dict[Session, None]] = {}
        self.games: dict[str, Live] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.sending: dict[str, asyncio.Lock] = {}
        # The lobby's games, the last changed last; summed up only when someone watches.
        self.lobby_open: dict[str, Record] = {}
        self.lobby_live: dict[str, Record] = {}
        self.lobby_dirty = asyncio.Event()
        self.bot_tasks: dict[str, asyncio.Task[None]] = {}
        # The change of a game in flight here: its packed record, record, event and game (if
        # built). The listener often hears of a change before its request resumes, and takes
        # these instead of unpacking the record and replaying its move.
        self.committing: dict[str, tuple[bytes, Record, Event, Game | None]] = {}
        self.ready = False
        self.first_move_ms = int(settings.first_move_timeout * 1000)
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
            live_games=lambda: len(self.lobby_live),
            bot_queue=lambda: self.pool.queued,
        )

    # -- the websocket ---------------------------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        session = Session(ws, self.settings)
        self.sessions.add(session)
        try:
            async for frame in ws:
                await self.receive(session, frame)
        except ConnectionClosed:
            pass  # the client went away without a proper close: nothing to answer
        finally:
            await self.drop(session)

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
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
            log.warning("storage unavailable for %s: %s", request, error)
            await session.send(
                Error(ErrorCode.UNAVAILABLE, "storage unavailable; try again", request, game)
            )

    async def drop(self, session: Session) -> None:
        self.sessions.discard(session)
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
                        self.lobby_dirty.set()  # no longer listed
                    with contextlib.suppress(redis.exceptions.RedisError):
                        await self.store.set_offline(session.player, now_ms())

    # -- handlers ------------------------------------------------------------------------------

    async def hello(self, session: Session, message: Hello) -> None:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_AUTHENTICATED, "hello was already said")
        bot = False
        nickname = None if message.nickname is None else _nickname(message.nickname)
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
                await self.store.rename(player, nickname)
                name = nickname
        elif nickname is None:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "hello needs a nickname or a token")
        else:
            name = nickname
            player, token = await self.store.new_player(name, now_ms())
        if player not in self.by_player:
            await self.store.set_online(player, now_ms(), ONLINE_TTL)
        games = await self.store.games_of(player)
        # Storage said all it had to: only now is the connection signed in, so a hello that
        # failed on the way (storage away) leaves it as it was, free to say hello again.
        session.player, session.name, session.bot = player, name, bot
        if bot:
            rate, burst = self.settings.bot_message_rate, self.settings.bot_message_burst
            session.messages = Bucket(rate, burst, time.monotonic())
        self.by_player.setdefault(player, set()).add(session)
        await session.send(Welcome(player, name, token, now_ms(), games, bot))
        if session.bot and player in self.bot_offers:
            self.lobby_dirty.set()  # listed again

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
        self.lobby_dirty.set()
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
        if message.subscribe:
            await session.send(self._lobby_message())

    async def create(self, session: Session, message: CreateGame) -> None:
        player = session.player
        assert player is not None
        if message.opponent != "bot":
            mine = sum(1 for r in self.lobby_open.values() if r.creator == player)
            if mine >= self.settings.open_games:
                raise ProtocolError(
                    ErrorCode.NOT_ALLOWED,
                    f"you have {mine} open games (the most allowed): cancel one first",
                )
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
        if self._playing(player) >= offer.max_games:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED, f"the bot {name} is busy ({offer.max_games} games)"
            )
        return Seat(player, name, account="bot")

    def _playing(self, player: str) -> int:
        """How many games in progress ``player`` plays (as this process's lobby knows them)."""
        return sum(1 for r in self.lobby_live.values() if player in r.players())

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

        def cancel(live: Live, now: int) -> tuple[Record, Event]:
            record = live.record
            if record.creator != player:
                raise ProtocolError(ErrorCode.NOT_YOUR_GAME, "only its creator may cancel a game")
            if record.status != "open":
                raise ProtocolError(ErrorCode.NOT_OPEN, f"game {record.id} is {record.status}")
            return match._end(record, now, None, "cancelled")

        await self.change(message.game, cancel)

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
        player = session.player
        assert player is not None
        live = await self.live(message.game)
        if not match.rematch_accepted(live.record, player):
            await self.change(
                message.game, lambda live, now: match.offer_rematch(live.record, player, now)
            )
            return
        new_id = secrets.token_hex(4)
        seed = random.getrandbits(31)
        created: list[Record] = []

        def accept(live: Live, now: int) -> tuple[Record, Event]:
            if not match.rematch_accepted(live.record, player):
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "the rematch offer was withdrawn")
            old, new, event = match.start_rematch(live.record, new_id, now, seed)
            created.append(new)
            return old, event

        old = await self.change(message.game, accept)
        assert old is not None
        new = created[-1]
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
                    self._watch(other, new_id, 0)

    async def chat(self, session: Session, message: Chat) -> None:
        text = message.text.strip()
        if not text:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "an empty chat line")
        if len(text) > self.settings.chat_length:
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
            message.game, lambda live, now: match.chat(live.record, player, name, text, now)
        )

    async def mute(self, session: Session, message: Mute) -> None:
        player = session.player
        assert player is not None
        await self.live(message.game)  # UNKNOWN_GAME before anything else
        name = await self.store.name_of(message.player)
        await self.change(
            message.game,
            lambda live, now: match.mute(
                live.record, player, message.player, name, message.mute, now
            ),
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

    HANDLERS: Final[dict[type[Message], Callable[[Any, Session, Any], Awaitable[None]]]] = {
        Hello: hello,
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
    }

    # -- games -----------------------------------------------------------------------------------

    def _deadline(self, record: Record) -> int | None:
        return match.deadline(record, self.first_move_ms)

    def _watch(self, session: Session, game_id: str, version: int) -> None:
        session.watching[game_id] = version
        self.watchers.setdefault(game_id, {})[session] = None
        self.seen.add(game_id)

    def _unwatch(self, session: Session, game_id: str) -> None:
        session.watching.pop(game_id, None)
        watchers = self.watchers.get(game_id)
        if watchers is not None:
            watchers.pop(session, None)
            if not watchers:
                del self.watchers[game_id]
            self.seen.add(game_id)
        self._forget_if_idle(game_id)

    def _forget_if_idle(self, game_id: str) -> None:
        """Drop a game from this process's caches once nobody here follows it and it no longer
        changes by itself (it is over or cancelled): memory stays bounded by live games."""
        live = self.games.get(game_id)
        if live is None or live.record.status == "live" or game_id in self.watchers:
            return
        for locks in (self.locks, self.sending):
            lock = locks.get(game_id)
            if lock is not None and lock.locked():
                return
        del self.games[game_id]
        self.locks.pop(game_id, None)
        self.sending.pop(game_id, None)

    def lock(self, game_id: str) -> asyncio.Lock:
        lock = self.locks.get(game_id)
        if lock is None:
            lock = self.locks[game_id] = asyncio.Lock()
        return lock

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
        async with self.lock(game_id):
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

    async def deliver(
        self, game_id: str, *, also: Session | None = None, built: tuple[int, bytes] | None = None
    ) -> None:
        """Bring every watcher of the game up to date: the events it has not seen, then the
        state (a snapshot when the events are too old). ``also`` gets an update even when it
        has seen everything (it has just asked to watch). ``built``: a version and the update
        for the watchers one version behind it, as the process that made the change built it;
        passed on as it is while the game is at that version."""
        async with self.sending.setdefault(game_id, asyncio.Lock()):
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
            for seen, sessions in behind.items():
                if built is not None and built[0] == record.version == seen + 1:
                    frame = built[1]
                else:
                    if state is None:
                        state = self._state(record, live.game)
                    events: list[Event] | None = None
                    if seen >= 0:
                        events = live.events_after(seen)
                        if events is None:
                            events = await self.store.events_after(game_id, seen)
                    update = Update(game_id, record.version, events or [], state, events is None)
                    frame = encode(update)
                broadcast([s.ws for s in sessions], frame)
                for s in sessions:
                    if game_id in s.watching:
                        s.watching[game_id] = record.version

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
            self.lobby_dirty.set()  # a bot came or went on another process
        self.online_elsewhere = online_elsewhere
        self.bot_offers = offers

    async def listen(self, redis_client: aioredis.Redis) -> None:
        """Pass every committed change on to this process's watchers (forever; it resubscribes
        after Redis comes back, and resyncs every watched game)."""
        while True:
            try:
                async with redis_client.pubsub() as pubsub:
                    await pubsub.subscribe(EVENTS_CHANNEL)
                    await self._resync()
                    async for message in pubsub.listen():
                        if message["type"] == "message":
                            await self._published(message["data"])
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
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
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
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
            len(record.moves),
            self._spectators(record.id, record),
            record.creator_color if record.status == "open" else None,
            record.wants,
            record.challenge,
        )

    def _update_lobby(self, record: Record) -> None:
        was = self.lobby_open.pop(record.id, None) or self.lobby_live.pop(record.id, None)
        if (was is None or was.status != record.status) and record.id in self.watchers:
            self.seen.add(record.id)  # a join changes the players, so the spectators
        if record.status == "open":
            self.lobby_open[record.id] = record
        elif record.status == "live":
            self.lobby_live[record.id] = record
        self.lobby_dirty.set()

    def _lobby_message(self) -> Lobby:
        live = list(self.lobby_live.values())[-LOBBY_LIVE_SHOWN:]
        bots = [
            replace(offer, playing=self._playing(player))
            for player, offer in self.bot_offers.items()
            if self._connected(player)
        ]
        return Lobby(
            [self._summary(r) for r in self.lobby_open.values()],
            [self._summary(r) for r in reversed(live)],
            sorted(bots, key=lambda offer: offer.name),
        )

    async def broadcast_lobby(self) -> None:
        while True:
            await self.lobby_dirty.wait()
            self.lobby_dirty.clear()
            listeners = [s.ws for s in self.sessions if s.lobby]
            if listeners:
                broadcast(listeners, encode(self._lobby_message()))
            await asyncio.sleep(0.5)  # at most two lobby messages a second

    # -- time ----------------------------------------------------------------------------------

    async def sweep(self) -> None:
        """Apply passed deadlines (expiries, aborts, flags), whoever is connected."""
        while True:
            try:
                for game_id in await self.store.due(now_ms()):
                    try:
                        await self._expire(game_id)
                    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                        raise
                    except Exception:  # one game's failure must not stop the others' clocks
                        log.exception("game %s: deadline not applied", game_id)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
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

    async def heartbeat(self) -> None:
        """Every second, mark this server alive and renew the online marks of a tenth of its
        players (each player's every ten seconds; they lapse after ONLINE_TTL if this process
        dies); every VIEW_SECONDS, share the view with the other processes."""
        beats = 0
        while True:
            with contextlib.suppress(
                redis.exceptions.ConnectionError, redis.exceptions.TimeoutError
            ):
                started = time.perf_counter()
                await self.store.heartbeat(now_ms())
                self.metrics.redis_seconds.observe(time.perf_counter() - started)
                await self.renew_online(beats)
                if beats % VIEW_SECONDS == 0:
                    await self.share_view()
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


# -- HTTP ----------------------------------------------------------------------------------------


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)


def _text(status: HTTPStatus, text: str) -> Response:
    return _response(status, text.encode(), "text/plain; charset=utf-8")


async def http(hub: Hub, connection: ServerConnection, request: Request) -> Response | None:
    """The HTTP routes; None lets ``/ws`` go on to the websocket handshake."""
    try:
        path, _, query = request.path.partition("?")
        return await _route(hub, path, query)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
        log.warning("storage unavailable for %s: %s", request.path[:100], error)
        return _text(HTTPStatus.SERVICE_UNAVAILABLE, "storage unavailable; try again\n")


async def _route(hub: Hub, path: str, query: str = "") -> Response | None:
    if path == "/ws":
        return None
    if path == "/metrics":
        return _response(HTTPStatus.OK, hub.metrics.exposition(), CONTENT_TYPE)
    if path == "/healthz":
        status = HTTPStatus.OK if hub.ready else HTTPStatus.SERVICE_UNAVAILABLE
        body = {
            "status": "ok" if hub.ready else "starting",
            "connections": len(hub.sessions),
            "games": len(hub.lobby_live),
            "open": len(hub.lobby_open),
        }
        return _response(status, json.dumps(body).encode(), "application/json")
    found = re.fullmatch(r"/games/([0-9a-z]{8})\.txt", path)
    if found:
        record = await hub.store.get(found[1])
        if record is None:
            return _text(HTTPStatus.NOT_FOUND, f"no game {found[1]}\n")
        return _text(HTTPStatus.OK, record.new_game().game_string() + "\n")
    found = re.fullmatch(r"/games/([0-9a-z]{8})/trace/(\d{1,4})\.json", path)
    if found:
        trace = await hub.store.get_trace(found[1], int(found[2]))
        if trace is None:
            return _text(HTTPStatus.NOT_FOUND, "no trace kept for that move\n")
        return _response(HTTPStatus.OK, trace, "application/json")
    answer = await review.route(hub.store, path, query)
    if answer is not None:
        return _response(*answer)
    return _static(path)


def _static(path: str) -> Response:
    """A file of the web client (``client/``): ``/`` is its ``index.html`` and ``/visualizer``
    its ``visualizer.html``; ``/vendor/msgpack/...`` is the ES module build of
    ``@msgpack/msgpack`` (``client/node_modules``, installed by ``npm ci``). The rest of
    ``client/node_modules`` is not served."""
    path = _PAGES.get(path, path)
    root = CLIENT_DIR
    for prefix, folder in VENDOR.items():
        if path.startswith(prefix):
            root, path = folder, path[len(prefix) :]
            break
    target = (root / path.lstrip("/")).resolve()
    hidden = root == CLIENT_DIR and CLIENT_DIR / "node_modules" in target.parents
    if root not in target.parents or hidden or not target.is_file():
        if path == "/index.html":
            return _text(HTTPStatus.OK, "Hive Arena server: the websocket is at /ws\n")
        return _text(HTTPStatus.NOT_FOUND, "not found\n")
    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if target.suffix in (".js", ".mjs") or kind == "application/javascript":
        kind = "text/javascript"  # what browsers require of an ES module
    if kind.startswith("text/") or kind in ("application/json", "image/svg+xml"):
        kind += "; charset=utf-8"
    return _response(HTTPStatus.OK, target.read_bytes(), kind)


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
    connections closed with 1001, tasks stopped, the bot pool and Redis closed."""
    embedded: RedisProcess | None = None
    url = settings.redis_url
    if url is None:
        embedded = RedisProcess(settings.data / "redis")
        embedded.start()  # in this thread: the child's parent-death signal follows the thread
        url = embedded.url
    # A blocking pool: under a burst a command waits for a free connection, where the default
    # pool would refuse the 101st at once (and the request would be answered "unavailable").
    pool_of_connections = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=50,
        timeout=5,
        health_check_interval=5,
        socket_connect_timeout=1,
        socket_timeout=5,
        # A few quick retries ride out a dropped connection; past them, while Redis is away,
        # requests are answered "unavailable" within a fraction of a second.
        retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 3),
        retry_on_error=[redis.exceptions.ConnectionError, redis.exceptions.TimeoutError],
    )
    client = aioredis.Redis(connection_pool=pool_of_connections)
    pool = BotPool(settings.bot_workers)
    store = Store(client, event_log=settings.event_log)
    hub = Hub(settings, store, pool)
    tasks: list[asyncio.Task[None]] = []
    try:
        await hub.recover()
        tasks = [
            asyncio.create_task(hub.listen(client)),
            asyncio.create_task(hub.sweep()),
            asyncio.create_task(hub.heartbeat()),
            asyncio.create_task(hub.broadcast_lobby()),
        ]
        async with serve(
            hub.handle,
            settings.host,
            settings.port,
            process_request=lambda connection, request: http(hub, connection, request),
            max_size=MAX_FRAME_BYTES,
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
        await _cancel_all([*tasks, *hub.bot_tasks.values()])
        pool.close()
        await client.aclose()
        await pool_of_connections.aclose()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
