"""Signing in and out: ``hello`` (a new guest, or a session token), ``logout``, and what a
bot account says it plays (``bot_ready``).

A guest's name is never an account's (``names.folded``, against the names kept in Redis): a
new guest or a new name that is one is refused (``name_taken``), and a guest whose name an
account took since is renamed ``NAME guest`` at its next ``hello``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from ai.bots import LEVELS
from hive import GameType
from hive.pieces import ALL_GAME_TYPES
from protocol import (
    MAX_FRAME_BYTES,
    MAX_NICKNAME,
    MAX_WATCHING,
    SIGNED_OUT,
    BotInfo,
    BotReady,
    ErrorCode,
    Hello,
    Limits,
    Logout,
    ProtocolError,
    Welcome,
)
from server.game import match, names
from server.game.clock import now_ms
from server.live.session import Session
from server.storage.limits import Bucket, per_origin
from server.storage.players import token_hash

if TYPE_CHECKING:
    from ai.pool import BotPool
    from server.live.lobby import LobbyBoard
    from server.live.presence import Presence
    from server.settings import Settings
    from server.storage.store import Store

log = logging.getLogger(__name__)

GUEST_WINDOW = 3600.0
"""The window of ``Settings.guests_per_address``, in seconds."""

Close = Callable[[Session, int, str], None]
"""Closes a connection with a code and a reason, without waiting (``Connections.close``)."""


def _listed(game_type: GameType) -> tuple[int, bool, bool, bool]:
    """Where a game type is listed: fewer expansions first; among as many, M, then L, then P."""
    t = game_type
    return len(t.bugs), not t.mosquito, not t.ladybug, not t.pillbug


GAME_TYPES: Final = tuple(str(t) for t in sorted(ALL_GAME_TYPES, key=_listed))
"""Every game type the server plays, as ``match.canonical_type`` spells it: Base, then one
expansion, two, all three (``Base``, ``Base+M``, ``Base+L``, ``Base+P``, ``Base+ML`` ...)."""


class SignIn:
    """Who a connection is: ``store`` keeps the players and their sessions, ``presence`` who
    is connected here; ``lobby`` lists the bot accounts connected, ``pool`` the server's bots'
    levels; ``close`` closes a connection signed out (the edge's, a call up: given as a
    callable)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        presence: Presence,
        lobby: LobbyBoard,
        pool: BotPool,
        close: Close,
    ) -> None:
        self.settings = settings
        self.store = store
        self.presence = presence
        self.lobby = lobby
        self.pool = pool
        self.close = close

    async def _reserved(self) -> frozenset[str]:
        """The names a person may not take (the bots')."""
        return names.reserved(LEVELS, await self.store.bot_names())

    async def _guest_name(self, text: str) -> str:
        """``text`` as a guest's name: a nickname (``names.nickname``), and no account's,
        ignoring case, separators and the width of letters (``names.folded``): an account's
        name is its alone, on every process (they are kept in Redis).

        Raises:
            ProtocolError: BAD_MESSAGE (not a nickname, or a bot's), NAME_TAKEN (an
                account's).
        """
        name = names.nickname(text, await self._reserved())
        if await self.store.is_account_name(names.folded(name)):
            raise ProtocolError(
                ErrorCode.NAME_TAKEN,
                f"{name!r} is an account's name: log in to it, or choose another nickname",
            )
        return name

    async def _unclaimed(self, name: str, player: str) -> str:
        """A free name for the guest ``player`` whose ``name`` an account took since:
        ``NAME guest`` (cut to fit), ``NAME guest2`` ... ``NAME guest9``, else ``guest ID``."""
        store = self.store
        for suffix in ["guest", *(f"guest{n}" for n in range(2, 10))]:
            candidate = f"{name[: MAX_NICKNAME - len(suffix) - 1].rstrip()} {suffix}"
            if not await store.is_account_name(names.folded(candidate)):
                return candidate
        return f"guest {player}"

    async def hello(self, session: Session, message: Hello) -> None:
        store, settings = self.store, self.settings
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_AUTHENTICATED, "hello was already said")
        bot = account = False
        nickname = None if message.nickname is None else names.readable(message.nickname)
        if message.token is not None:
            found = await store.player_of(message.token)
            if found is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown or expired session token")
            player, name, bot = found
            token = message.token
            account = not bot and await store.is_account(player)
            if nickname is not None and nickname != name:  # a guest takes a new name
                if bot or account:
                    raise ProtocolError(
                        ErrorCode.NOT_ALLOWED, "an account's name stays as it was made"
                    )
                nickname = await self._guest_name(nickname)
                await store.rename(player, nickname)
                name = nickname
            elif not bot and not account and await store.is_account_name(names.folded(name)):
                # an account took the guest's name since it was given: the guest gives it up
                name = await self._unclaimed(name, player)
                await store.rename(player, name)
            hashed = token_hash(token)
            if not bot:
                await store.touch(player, hashed, int(settings.session_ttl))
        elif nickname is None:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "hello needs a nickname or a token")
        else:
            name = await self._guest_name(nickname)
            await per_origin(
                store,
                session.origin,
                "guest",
                settings.guests_per_address,
                GUEST_WINDOW,
                "new guests",
            )
            player, token = await store.new_player(name, now_ms(), int(settings.session_ttl))
        await self.enter(session, player, name, bot, token, account=account)

    async def enter(
        self, session: Session, player: str, name: str, bot: bool, token: str, *, account: bool
    ) -> None:
        """Sign ``session`` in as ``player`` with its session ``token`` (``hello``, ``login``),
        and welcome it (``account``: a person's account, not a guest)."""
        store, settings, presence = self.store, self.settings, self.presence
        hashed = token_hash(token)
        await presence.arriving(player)
        games = await store.games_of(player)
        # Storage said all it had to: only now is the connection signed in, so a hello that
        # failed on the way (storage away) leaves it as it was, free to say hello again.
        session.player, session.name, session.bot, session.token = player, name, bot, hashed
        session.account = account
        rate, burst = settings.message_rate, settings.message_burst
        if bot:
            rate, burst = settings.bot_message_rate, settings.bot_message_burst
            session.messages = Bucket(rate, burst, time.monotonic())
        presence.arrived(session)
        limits = Limits(
            chat_length=settings.chat_length,
            chat_interval=settings.chat_interval,
            chat_burst=settings.chat_burst,
            message_rate=rate,
            message_burst=burst,
            max_frame_bytes=MAX_FRAME_BYTES,
            max_watching=MAX_WATCHING,
            nickname_length=MAX_NICKNAME,
            first_move_timeout=settings.first_move_timeout,
        )
        await session.send(
            Welcome(
                player,
                name,
                token,
                now_ms(),
                games,
                bot,
                account,
                limits=limits,
                game_types=list(GAME_TYPES),
                levels=self.pool.levels(),
            )
        )
        if session.bot and player in presence.bot_offers:
            self.lobby.dirty.set()  # listed again

    async def logout(self, session: Session, message: Logout) -> None:
        assert session.player is not None
        if session.bot:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                "a bot account's token is replaced by its operator (create-bot --new-token)",
            )
        everywhere = None if message.everywhere else session.token
        await self.store.end_sessions(session.player, everywhere)
        session.token = None  # nothing to renew when it closes
        self.close(session, SIGNED_OUT, "signed out")

    def signed_out(self, player: str, hashed: str | None) -> None:
        """A session ended (``hashed`` None: every session of ``player``): close its
        connections here."""
        for session in self.presence.sessions_of(player):
            if hashed is None or session.token == hashed:
                session.token = None
                self.close(session, SIGNED_OUT, "signed out")

    async def bot_ready(self, session: Session, message: BotReady) -> None:
        player = session.player
        assert player is not None
        if not session.bot:
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED,
                "only bot accounts say what they play (see hive-server create-bot)",
            )
        game_types = sorted({match.canonical_type(text) for text in message.game_types})
        offer = BotInfo(player, session.name, game_types, message.times, message.max_games)
        await self.store.set_bot_offer(offer)
        self.presence.offered(offer)
        log.info(
            "bot %s plays %s (%s), %d games at once",
            session.name,
            ", ".join(offer.game_types),
            ", ".join(offer.times),
            offer.max_games,
        )
