"""Computer analyses of finished games, asked for on the review page: ``analyse_game`` follows
a game's analysis (answered ``game_analysis``: stored, queued, running, or none) and with
``start`` queues it; ``leave_analysis`` stops following. The analysis itself is made by
whichever process claims it (``server.live.analyst``); its progress, heard on the analyses'
channel from every process (``heard``, called by the listener), goes to those who follow the
game here, and once it is stored, the analysis itself.

Bounded: a connection follows one game's analysis at a time (the last asked); each request
takes from the connection's lookups (as profiles do: ``LOOKUP_BURST`` at once, then
``LOOKUP_RATE`` a second); an address may start ``per_address`` analyses in ``START_WINDOW``
(``rate_limited``), over every process; and at most the queue's limit wait or run at once,
whoever asks (past it: ``unavailable``, try again later). Reading a stored analysis costs
one query by key, and is what every request after the first does.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import TYPE_CHECKING, Final

from protocol import AnalyseGame, ErrorCode, GameAnalysis, LeaveAnalysis, ProtocolError
from server.archive import analyses
from server.archive.db.database import Database
from server.archive.games import DATABASE_ERRORS
from server.game.record import GAME_ID
from server.game.reviewed import analysis_view
from server.live.session import LOOKUP_RATE, Session
from server.storage.analyses import AnalysisQueue
from server.storage.channels import AnalysisNews
from server.storage.limits import per_origin

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from server.game.record import Record
    from server.storage.store import Store

START_WINDOW: Final = 600.0
"""The window, in seconds, of an address's analyses started (``Settings.analyses_per_address``)."""
SEND_SECONDS: Final = 5.0
"""Longest wait for a follower's connection to take one message (a client that does not read
misses the progress, not the end: the stored analysis is read again on its next request)."""


class Reviews:
    """The ``analyse_game`` and ``leave_analysis`` handlers, and the news of analyses.

    Args:
        database: Where analyses are stored, and the archived games.
        store: Where each address's analyses are counted.
        queue: The analyses waiting and running, over every process.
        archive_now: Archives a game that has finished and waits for the archive's sweep,
            and returns its record (None: no such game waits; ``Archive.archive_finished``).
        wake: Called when an analysis was queued here (``Analyst.wake``).
        per_address: Analyses an address may start in ``START_WINDOW``.
    """

    def __init__(
        self,
        database: Database,
        store: Store,
        queue: AnalysisQueue,
        archive_now: Callable[[str], Awaitable[Record | None]],
        *,
        wake: Callable[[], None],
        per_address: int,
    ) -> None:
        self.database = database
        self.store = store
        self.queue = queue
        self.archive_now = archive_now
        self.wake = wake
        self.per_address = per_address
        self.followers: dict[str, weakref.WeakSet[Session]] = {}
        self.following: weakref.WeakKeyDictionary[Session, str] = weakref.WeakKeyDictionary()
        self.tasks: set[asyncio.Task[None]] = set()

    async def analyse(self, session: Session, message: AnalyseGame) -> None:
        if not session.lookups.take(time.monotonic()):
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {LOOKUP_RATE:g} analyses, profiles or leaderboards a second",
            )
        game_id = message.game
        if not GAME_ID.fullmatch(game_id):
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game_id!r:.20}")
        self._follow(session, game_id)  # first: news that comes meanwhile reaches it
        try:
            answer = await self._answer(session, game_id, start=message.start)
        except DATABASE_ERRORS as error:
            self._unfollow(session)
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the database is unavailable") from error
        except ProtocolError:
            self._unfollow(session)
            raise
        await session.send(answer)

    async def leave(self, session: Session, message: LeaveAnalysis) -> None:
        if self.following.get(session) == message.game:
            self._unfollow(session)

    async def _answer(self, session: Session, game_id: str, *, start: bool) -> GameAnalysis:
        """The analysis of ``game_id`` as it is now, queued first if ``start``."""
        stored = await self.done(game_id)
        if stored is not None:
            return stored
        played = await analyses.archived(self.database, game_id)
        if played is None:  # a game that just ended is archived now
            finished = await self.archive_now(game_id)
            if finished is None:
                raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no finished game {game_id}")
            played = await analyses.archived(self.database, game_id)
            if played is None:  # another process is archiving it, this very moment
                if start:
                    raise ProtocolError(
                        ErrorCode.UNAVAILABLE,
                        f"game {game_id} is being archived: try again in a moment",
                    )
                return GameAnalysis(game_id, "none", 0, len(finished.moves))
        queue = self.queue
        queued = await queue.is_queued(game_id)
        if start and not queued:
            await per_origin(
                self.store,
                session.origin,
                "analysis",
                self.per_address,
                START_WINDOW,
                "computer analyses",
            )
            if await queue.request(game_id) is None:
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE,
                    f"the server is analysing {queue.limit} games already; try again in a "
                    "few minutes",
                )
            self.wake()
            queued = True
        total = len(played.moves)
        if not queued:
            return GameAnalysis(game_id, "none", 0, total)
        done = await queue.progress(game_id)
        running = await queue.is_claimed(game_id)
        return GameAnalysis(game_id, "running" if running else "queued", done, total)

    async def done(self, game_id: str) -> GameAnalysis | None:
        """The stored analysis of ``game_id`` as sent (None: none stored)."""
        stored = await analyses.read(self.database, game_id)
        if stored is None:
            return None
        played = await analyses.archived(self.database, game_id)
        if played is None:
            return None
        return analysis_view(game_id, played.game_type, played.moves, stored.depth, stored.plies)

    def _follow(self, session: Session, game_id: str) -> None:
        if self.following.get(session) == game_id:
            return
        self._unfollow(session)
        self.following[session] = game_id
        self.followers.setdefault(game_id, weakref.WeakSet()).add(session)

    def _unfollow(self, session: Session) -> None:
        game_id = self.following.pop(session, None)
        if game_id is None:
            return
        followers = self.followers.get(game_id)
        if followers is not None:
            followers.discard(session)
            if not followers:
                del self.followers[game_id]

    def heard(self, news: AnalysisNews) -> None:
        """News of an analysis from any process (the listener's): to its followers here."""
        followers = self.followers.get(news.game)
        if not followers:
            self.followers.pop(news.game, None)
            return
        task = asyncio.create_task(self._tell(news, list(followers)))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _tell(self, news: AnalysisNews, sessions: list[Session]) -> None:
        if news.finished:
            try:
                message = await self.done(news.game)
            except DATABASE_ERRORS:
                return  # (they read it on their next request)
            if message is None:
                message = GameAnalysis(news.game, "none", 0, news.total)
        else:
            message = GameAnalysis(news.game, "running", news.done, news.total)
        await asyncio.gather(*(self._send(session, message) for session in sessions))

    @staticmethod
    async def _send(session: Session, message: GameAnalysis) -> None:
        if session.closing:
            return
        try:
            async with asyncio.timeout(SEND_SECONDS):
                await session.send(message)
        except TimeoutError:
            pass
