"""The puzzle miner: finished games of the archive (people's and bots') read for puzzles in the
background, each once, by one process at a time.

Every ``interval`` seconds (the first pass at start; ``CATCH_UP_SECONDS`` after a pass that read
as many games as a pass may), a process takes the miner's lease in
Redis (``hive:puzzles:mining``, ``server.storage.leases``; another process holding it: this
pass is skipped), reads the next ``GAMES_A_PASS`` archived games after the cursor stored in
SQL (``server.archive.mining``), proves each game's positions in the bot pool's background
workers (``BotPool.run``: a bot's move never waits for them; ``ai.puzzles.mine_moves``), and
stores the puzzles found and moves the cursor in one transaction, through the path of
``hive-server puzzles load`` (each puzzle once, by its key). The cursor moves only from where
the pass found it, so a game is mined once even by two processes, and a restart goes on
where the last pass stopped. Nothing of it runs on the event loop but the waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Final

from ai.pool import BotPool
from ai.puzzles import Puzzle, mine_moves
from server.archive import mining
from server.archive.db.database import Database
from server.archive.games import DATABASE_ERRORS
from server.game.clock import now_ms
from server.settings import Settings
from server.storage.leases import Lease
from server.storage.store import STORAGE_ERRORS, Store

log = logging.getLogger(__name__)

LEASE_KEY: Final = "hive:puzzles:mining"
LEASE_MS: Final = 60_000
"""How long the lease lasts unless renewed (after each game); a process that died lets go
within this."""
GAMES_A_PASS: Final = 20
"""The most games a pass reads (each proved in one job of the pool)."""
CATCH_UP_SECONDS: Final = 1.0
"""The wait after a pass that read ``GAMES_A_PASS`` games (more may be waiting), instead of
the interval: the miner keeps up with a busy archive, a pass at a time."""


class PuzzleMiner:
    """This process's part in mining the archive for puzzles.

    Args:
        settings: Its ``puzzle_mining_interval``: seconds between passes (0: no mining here).
        store: The Redis store (the lease).
        database: The archive, its games read and its puzzles written.
        pool: The bot pool whose background workers prove the positions.
        mined: Called with the games read and the puzzles added by each pass (metrics).
        games_a_pass: The most games a pass reads.
    """

    def __init__(
        self,
        settings: Settings,
        store: Store,
        database: Database,
        pool: BotPool,
        mined: Callable[[int, int], None],
        *,
        games_a_pass: int = GAMES_A_PASS,
    ) -> None:
        self.lease = Lease(store, LEASE_KEY, ms=LEASE_MS)
        self.database = database
        self.pool = pool
        self.interval = settings.puzzle_mining_interval
        self.mined = mined
        self.games_a_pass = games_a_pass
        self.owner = secrets.token_hex(8)

    async def sweep(self) -> None:
        """Forever, unless the interval is 0: a pass, then the interval's wait."""
        if self.interval <= 0:
            return
        while True:
            read = None
            try:
                read = await self.mine_once()
            except (*STORAGE_ERRORS, *DATABASE_ERRORS) as error:
                log.warning("puzzle mining: pass stopped (%s); the next one goes on", error)
            except Exception:  # (a bug, or workers that kept dying: the next pass tries again)
                log.exception("puzzle mining: pass failed; the next one goes on")
            behind = read is not None and read >= self.games_a_pass
            await asyncio.sleep(min(CATCH_UP_SECONDS, self.interval) if behind else self.interval)

    async def mine_once(self) -> int | None:
        """One pass: the games read (None: another process holds the lease, or took the
        cursor on while this one read)."""
        if not await self.lease.take(self.owner):
            return None
        try:
            was = await mining.cursor(self.database)
            games = await mining.after(self.database, was, now=now_ms(), limit=self.games_a_pass)
            found: list[Puzzle] = []
            for game in games:
                found += await self.pool.run(mine_moves, game.game_type, game.moves, game.id)
                if not await self.lease.renew(self.owner):
                    log.warning("puzzle mining: lease lost; this pass writes nothing")
                    return None
            added = await mining.advance(self.database, was, games, found)
            if added is None:
                log.warning("puzzle mining: the cursor moved meanwhile; this pass wrote nothing")
                return None
            if games:
                log.info("puzzle mining: %d games read, %d puzzles added", len(games), added)
            self.mined(len(games), added)
            return len(games)
        finally:
            with contextlib.suppress(*STORAGE_ERRORS):
                await self.lease.release(self.owner)
