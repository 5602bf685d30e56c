"""Who is online, and an account's follows, blocks and whose challenges it takes: ``online``,
``follow``, ``block`` and ``allow_challenges``, kept in the database
(``server.archive.social``), between accounts only (a guest follows nobody and is followed by
nobody; a guest may ask who is online).

``online`` first sends the challenges still waiting that the asker made or was sent (a
client that connects again learns of them so), then lists the persons' accounts connected
now (on every process: their online marks in Redis), at most ``ONLINE_SHOWN``, each with a
rating and whether it plays now (this process's lobby knows every game in progress), and the
games in progress of the players the asker follows. It is a database read, bounded as
profiles are (``Session.lookups``). A follow or a block is a write: ``CHANGES_PER_MINUTE`` a
player, ``MAX_FOLLOWS`` and ``MAX_BLOCKS`` an account. ``blocked_by_any`` is what chat asks
(``Commands.chat``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection
from typing import TYPE_CHECKING, Final

from protocol import (
    MAX_BLOCKS,
    MAX_FOLLOWS,
    ONLINE_SHOWN,
    AllowChallenges,
    Block,
    ErrorCode,
    Follow,
    GetOnline,
    Online,
    OnlinePlayer,
    ProtocolError,
    Social,
)
from server.archive import queries, social
from server.archive.games import DATABASE_ERRORS
from server.game import view
from server.game.clock import now_ms
from server.live.session import LOOKUP_RATE, Session
from server.storage.limits import per_player

if TYPE_CHECKING:
    from server.archive.db.database import Database
    from server.live.lobby import LobbyBoard
    from server.live.presence import Presence
    from server.storage.store import Store

log = logging.getLogger(__name__)

CHANGES_PER_MINUTE: Final = 30
"""Follows, blocks and changes of whose challenges one takes, a player, in a minute."""
ONLINE_READ: Final = 2000
"""Players online read from Redis for one ``online`` (the accounts among them are listed)."""
MAX_NAME: Final = 24


class Friends:
    """The ``online``, ``follow``, ``block`` and ``allow_challenges`` handlers.

    Args:
        database: Where follows, blocks and settings are kept.
        store: Who is online; the limits.
        board: The games in progress (who plays now; the followed players' games).
        presence: The spectators of a game, for its line.
    """

    def __init__(
        self, database: Database, store: Store, board: LobbyBoard, presence: Presence
    ) -> None:
        self.database = database
        self.store = store
        self.board = board
        self.presence = presence

    async def online(self, session: Session, message: GetOnline) -> None:
        if not session.lookups.take(time.monotonic()):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {LOOKUP_RATE:g} profiles, leaderboards or online lists a second",
            )
        player = session.player
        assert player is not None
        store = self.store
        for offer in await store.waiting_for(player, now_ms()):
            await session.send(offer)
        players, total = await store.online_players(now_ms(), ONLINE_READ)
        try:
            async with self.database.engine.connect() as connection:
                known = await social.online(connection, players, ONLINE_SHOWN)
                followed = await social.followed(connection, player) if session.account else set()
                lists = await social.lists(connection, player) if session.account else None
        except DATABASE_ERRORS as error:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
        playing = self.board.playing
        listed = [
            OnlinePlayer(k.name, k.player, k.rating, k.speed, playing[k.player] > 0) for k in known
        ]
        games = [
            view.summary(record, self.presence.spectators(record))
            for record in self.board.in_progress.values()
            if followed.intersection(record.players())
        ][-ONLINE_SHOWN:]
        if lists is not None:
            await session.send(Social(*lists))
        await session.send(Online(listed, total, games))

    async def follow(self, session: Session, message: Follow) -> None:
        await self._put(session, "follow", message.name, message.follow, MAX_FOLLOWS)

    async def block(self, session: Session, message: Block) -> None:
        await self._put(session, "block", message.name, message.block, MAX_BLOCKS)

    async def allow(self, session: Session, message: AllowChallenges) -> None:
        player = self._account(session, "choose whose challenges you take")
        await per_player(self.store, player, "social", CHANGES_PER_MINUTE, 60.0)
        try:
            async with self.database.engine.begin() as connection:
                await social.allow(connection, player, message.allow)
                lists = await social.lists(connection, player)
        except DATABASE_ERRORS as error:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
        await session.send(Social(*lists))

    async def _put(self, session: Session, kind: str, name: str, on: bool, most: int) -> None:
        """``session``'s account follows (``kind`` ``block``: blocks) the account ``name``, or
        (``on`` False) no longer; answered with its lists.

        Raises:
            ProtocolError: ACCOUNT_REQUIRED, UNKNOWN_PLAYER, NOT_ALLOWED, RATE_LIMITED,
                UNAVAILABLE.
        """
        player = self._account(session, f"{kind} players")
        await per_player(self.store, player, "social", CHANGES_PER_MINUTE, 60.0)
        try:
            async with self.database.engine.begin() as connection:
                target = None if len(name) > MAX_NAME else await queries.account(connection, name)
                if target is None:
                    raise ProtocolError(
                        ErrorCode.UNKNOWN_PLAYER, f"no account is named {name!r:.40}"
                    )
                if target.player == player:
                    raise ProtocolError(ErrorCode.NOT_ALLOWED, f"you cannot {kind} yourself")
                if on and not await social.holds(connection, kind, player, target.player):
                    count = await social.count(connection, kind, player)
                    if count >= most:
                        what = "follow" if kind == "follow" else "have blocked"
                        raise ProtocolError(
                            ErrorCode.NOT_ALLOWED,
                            f"you {what} {count} players (the most allowed)",
                        )
                await social.put(connection, kind, player, target.player, on, now_ms())
                lists = await social.lists(connection, player)
        except DATABASE_ERRORS as error:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
        await session.send(Social(*lists))

    @staticmethod
    def _account(session: Session, what: str) -> str:
        """``session``'s player, a person's account.

        Raises:
            ProtocolError: ACCOUNT_REQUIRED.
        """
        if not session.account or session.player is None:
            raise ProtocolError(ErrorCode.ACCOUNT_REQUIRED, f"sign up or log in to {what}")
        return session.player

    async def blocked_by_any(self, player: str, others: Collection[str]) -> bool:
        """Whether one of ``others`` blocked ``player`` (False while the database does not
        answer: chat goes on without it)."""
        try:
            async with self.database.engine.connect() as connection:
                return await social.blocked_by_any(connection, player, others)
        except DATABASE_ERRORS as error:
            log.warning("blocks not read (%s): a chat line goes through", error)
            return False
