"""The computer analyses of finished games this process makes: taken from the queue that every
process shares (``server.storage.analyses``), searched in the bot pool, stored in SQL.

Every ``sweep_seconds`` (or at once when a request here queued one: ``wake``) the analyst
looks at the games queued and claims up to ``at_once`` of them, oldest first. For each, it
searches every position before a move (``ai.review.review_position``: ``REVIEW_DEPTH`` plies,
K = ``REVIEW_BRANCHING``), one position a job in the bot pool at ``BACKGROUND`` priority
(``BotPool.run``: a bot move waiting goes first, and background work never takes every
worker, so a live game's bot waits at most for one position), at most ``WINDOW`` positions of
a game in flight. Each position's review is kept in Redis as it comes and announced on the
analyses' channel (``done`` of ``total``); once all are done, the analysis is written to SQL
(once: ``server.archive.analyses``), taken off the queue, and announced as finished.

While it works, the analyst renews its claim; a process that dies lets go of it within
``CLAIM_MS`` and the next sweep (of any process, this one restarted included) takes the game
up again, from the positions already kept. A process that loses its claim stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Final

from ai.pool import BotPool
from ai.review import REVIEW_BRANCHING, REVIEW_DEPTH, PlyReview, review_position, summarize
from server.archive import analyses
from server.archive.db.database import Database
from server.archive.games import DATABASE_ERRORS
from server.storage.analyses import CLAIM_MS, AnalysisQueue
from server.storage.channels import AnalysisNews
from server.storage.stopping import cancel_all
from server.storage.store import STORAGE_ERRORS

log = logging.getLogger(__name__)

WINDOW: Final = 2
"""Positions of one game sent to the pool at once (the pool runs at most ``workers - 1``
pieces of background work at once in all)."""
SWEEP_SECONDS: Final = 2.0


class LostClaimError(Exception):
    """Another process has the analysis now (this one's claim expired)."""


class Analyst:
    """This process's analyses.

    Args:
        queue: The analyses asked for, over every process.
        database: Where a finished analysis is stored.
        pool: The bot pool the positions are searched in.
        at_once: Analyses this process runs at once.
        counted: Called once for each position searched here (a metric).
        depth: The plies each position is searched.
        branching: K of those searches.
    """

    def __init__(
        self,
        queue: AnalysisQueue,
        database: Database,
        pool: BotPool,
        *,
        at_once: int,
        counted: Callable[[], None],
        depth: int = REVIEW_DEPTH,
        branching: int | None = REVIEW_BRANCHING,
        sweep_seconds: float = SWEEP_SECONDS,
    ) -> None:
        self.queue = queue
        self.database = database
        self.pool = pool
        self.at_once = at_once
        self.counted = counted
        self.depth = depth
        self.branching = branching
        self.sweep_seconds = sweep_seconds
        self.owner = secrets.token_hex(8)
        self.running: dict[str, asyncio.Task[None]] = {}
        self.woken = asyncio.Event()

    def wake(self) -> None:
        """An analysis was queued here: look at the queue now."""
        self.woken.set()

    async def sweep(self) -> None:
        """Forever: claim the analyses queued that nobody runs, while this process has room."""
        while True:
            self.woken.clear()
            try:
                await self.sweep_once()
            except STORAGE_ERRORS as error:
                log.warning("analyses: Redis unavailable (%s)", error)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.sweep_seconds):
                    await self.woken.wait()

    async def sweep_once(self) -> None:
        for game_id in await self.queue.queued():
            if len(self.running) >= self.at_once:
                return
            if game_id in self.running or not await self.queue.claim(game_id, self.owner):
                continue
            task = asyncio.create_task(self._run(game_id))
            self.running[game_id] = task

    async def _run(self, game_id: str) -> None:
        try:
            await self.analyse(game_id)
        except LostClaimError:
            log.warning("analysis of %s: claim lost; another process goes on", game_id)
        except (*STORAGE_ERRORS, *DATABASE_ERRORS) as error:
            log.warning("analysis of %s stopped (%s); taken up again later", game_id, error)
        except Exception:
            log.exception("analysis of %s failed; dropped", game_id)
            with contextlib.suppress(*STORAGE_ERRORS):
                await self.queue.finish(game_id)
                await self.queue.publish(AnalysisNews(game_id, 0, 0, True))
        finally:
            self.running.pop(game_id, None)
            with contextlib.suppress(*STORAGE_ERRORS):
                await self.queue.release(game_id, self.owner)
            self.woken.set()  # room for the next

    async def analyse(self, game_id: str) -> None:
        """Search every position of ``game_id`` not searched yet, then store the analysis."""
        queue = self.queue
        played = await analyses.archived(self.database, game_id)
        stored = await analyses.read(self.database, game_id)
        if played is None or stored is not None:
            await queue.finish(game_id)
            await queue.publish(AnalysisNews(game_id, 0, 0, True))
            return
        total = len(played.moves)
        saved = await queue.saved(game_id)
        await queue.publish(AnalysisNews(game_id, len(saved), total, False))
        keeper = asyncio.create_task(self._keep(game_id))
        searching = asyncio.create_task(self._search(game_id, played, saved))
        try:
            await asyncio.wait([keeper, searching], return_when=asyncio.FIRST_COMPLETED)
            if keeper.done():
                keeper.result()  # raises LostClaimError (or the storage's error)
            searching.result()
        finally:  # (the keeper's renewal may swallow a single cancel: stopping)
            await cancel_all([keeper, searching])
        plies = [saved[ply] for ply in range(total)]
        white, black = summarize(plies[0::2]), summarize(plies[1::2])
        await analyses.write(
            self.database, game_id, self.depth, plies, (white.accuracy, black.accuracy)
        )
        await queue.finish(game_id)
        await queue.publish(AnalysisNews(game_id, total, total, True))

    async def _search(
        self, game_id: str, record: analyses.Played, saved: dict[int, PlyReview]
    ) -> None:
        """Search the positions not in ``saved`` (added to it, and kept in Redis, as they
        come), ``WINDOW`` at a time."""
        total = len(record.moves)
        window = asyncio.Semaphore(WINDOW)

        async def one(ply: int) -> None:
            async with window:
                review = await self.pool.run(
                    review_position,
                    record.game_type,
                    record.moves,
                    ply,
                    depth=self.depth,
                    branching=self.branching,
                    repetition_draw=True,
                )
            await self.queue.save(game_id, review)
            saved[ply] = review
            self.counted()
            await self.queue.publish(AnalysisNews(game_id, len(saved), total, False))

        tasks = [asyncio.create_task(one(ply)) for ply in range(total) if ply not in saved]
        try:
            await asyncio.gather(*tasks)
        finally:
            await cancel_all(tasks)

    async def _keep(self, game_id: str) -> None:
        """Renew the claim every third of ``CLAIM_MS``, until it is lost (then raise)."""
        while True:
            await asyncio.sleep(CLAIM_MS / 3000)
            if not await self.queue.renew(game_id, self.owner):
                raise LostClaimError(game_id)
