"""Bot moves, computed in a pool of worker processes so that no search runs on the event loop:
the server's bots (``server.live.botturns``) and ``hive-bot``'s levels (``hivebot.engines``)
both use it.

``BotPool.move`` sends a position to a worker and awaits its answer. Requests wait in FIFO
order and at most ``workers`` run at once, each game having at most one request in flight, so
the pool is shared fairly: a game waits for at most the requests made before its own.

``BotPool.run`` sends any other work (a function of a worker, such as an analysis of a
position) to worker processes of its own, at most ``workers - 1`` of them (one if there is
only one worker), run at the operating system's lowest priority (``nice`` 19): a bot's move
never waits for background work, neither for a worker nor, on a busy machine, for a core
(background work takes the CPU the moves leave). The
expensive levels (searching 4 plies or more: ``hard``, ``expert``) take at most ``workers - 1``
workers at once (one if there is only one), so the cheap levels' moves, which take
milliseconds, never wait behind a queue of searches that take seconds. A worker that dies
(killed, out of memory) breaks the pool: it is replaced and the request is retried.

A move's search trace is kept to ``trace_bytes`` of JSON (a larger tree is kept shallower)
and gzipped: the server stores it and serves it as it is.

In a worker, one ``ai.bots.Bot`` per game is kept (a few dozen games, least recently used
first out), so its transposition table carries from move to move when the same worker serves
the game again; its randomness is seeded from the game's seed and the ply, so a move does not
depend on which worker computes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import logging
import multiprocessing
import os
import signal
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import Final, ParamSpec, TypeVar

from ai.bots import LEVELS, Bot, Level
from ai.trace import TraceRecorder
from hive import Game

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


TRACE_DEPTH: Final = 2
"""Plies below the root kept in a bot move's trace."""
_BOTS_KEPT: Final = 64
_RETRIES: Final = 3
FIXED_DEPTH_SECONDS: Final = 5.0
"""A move's share of a clock from which a fixed-depth level searches its whole depth
(``within``)."""
TRACE_BYTES: Final = 64 * 1024
"""The default longest trace kept (JSON bytes)."""


def expensive(level: str) -> bool:
    """Whether a level's move takes seconds (it searches 4 plies or more, or by time)."""
    found = LEVELS[level]
    return found.depth is None or found.depth >= 4


@dataclass(frozen=True)
class BotMove:
    """A worker's answer: the MoveString, the search trace (JSON), and the seconds it took."""

    move: str
    trace: bytes
    """The search trace (gzipped JSON)."""
    seconds: float


_bots: OrderedDict[tuple[str, str], Bot] = OrderedDict()


def compute(
    game_id: str,
    game_type: str,
    moves: list[str],
    level: str,
    seed: int,
    trace_bytes: int = TRACE_BYTES,
    seconds: float | None = None,
    asked: float | None = None,
) -> BotMove:
    """The bot's move (runs in a worker process), with its trace kept to ``trace_bytes``,
    searched within ``seconds`` if given (``within``). ``asked``: when the move was asked
    for (``time.monotonic()``, one clock for every process of the machine): a time budget
    counts from there, the wait for a worker included."""
    started = time.perf_counter()
    game = Game(game_type, repetition_draw=True)
    for move in moves:
        game.play_unchecked(move)  # the record's moves, checked when played
    key = (game_id, level)
    bot = _bots.pop(key, None)
    if bot is None:
        bot = Bot(level)
    _bots[key] = bot
    while len(_bots) > _BOTS_KEPT:
        _bots.popitem(last=False)
    bot.rng.seed(seed * 1000 + len(moves))
    recorder = TraceRecorder(max_depth=TRACE_DEPTH)
    search = None if seconds is None else within(bot.level, seconds)
    choice = bot.choose(game, level=search, trace=recorder, asked=asked)
    return BotMove(
        game.move_string(choice.move),
        gzip.compress(trace_json(recorder, trace_bytes), compresslevel=6),
        time.perf_counter() - started,
    )


def within(level: Level, seconds: float) -> Level:
    """``level`` searching for at most ``seconds`` (a move's share of a clock): deeper while
    the time lasts, down to one ply, and never past the level's own depth or time."""
    if level.seconds is not None and level.seconds <= seconds / 2:
        return level  # its own time, with its floor of plies, fits well within
    if level.seconds is None and seconds >= FIXED_DEPTH_SECONDS:
        return level  # its fixed depth, as without a clock
    limit = seconds if level.seconds is None else min(level.seconds, seconds)
    return replace(level, seconds=max(limit, 0.01), min_depth=1)


def trace_json(recorder: TraceRecorder, limit: int) -> bytes:
    """The recorded trace as JSON of at most ``limit`` bytes: shallower trees until it fits
    (the root alone always does)."""
    depth = recorder.max_depth
    text = json.dumps(recorder.to_dict()).encode()
    while len(text) > limit and depth > 0:
        depth -= 1
        text = json.dumps(recorder.to_dict(depth)).encode()
    return text


def ignore_interrupts() -> None:
    """In a worker process: ignore SIGINT. Ctrl-C in a terminal sends it to the whole process
    group; the server (or hive-bot) stops its workers itself, where each one interrupted in
    the middle of a wait printed a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _warm() -> None:
    """Ignore Ctrl-C, and load the bots' modules and book, in a fresh worker."""
    ignore_interrupts()
    Bot("beginner")


def _warm_low() -> None:
    """A background worker: as ``_warm``, at the lowest priority (``nice`` 19)."""
    os.nice(19 - os.nice(0))
    _warm()


class BotPool:
    """The worker processes and the fair queue in front of them.

    Args:
        workers: Processes (and so bot moves computed at once).
    """

    def __init__(self, workers: int, *, trace_bytes: int = TRACE_BYTES) -> None:
        if workers < 1:
            raise ValueError(f"a bot pool needs at least one worker, not {workers}")
        self.workers = workers
        self.trace_bytes = trace_bytes
        self._slots = asyncio.Semaphore(workers)
        self._expensive = asyncio.Semaphore(max(1, workers - 1))
        self.background_workers = max(1, workers - 1)
        """Processes of background work (``run``)."""
        self._background = asyncio.Semaphore(self.background_workers)
        self._executor = self._new_executor()
        self._low: ProcessPoolExecutor | None = None  # started by the first background work
        self.queued = 0
        self.background_queued = 0
        self.replaced = 0

    def _new_executor(self, *, low: bool = False) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("forkserver")
        if low:
            count = self.background_workers
            return ProcessPoolExecutor(count, mp_context=context, initializer=_warm_low)
        return ProcessPoolExecutor(self.workers, mp_context=context, initializer=_warm)

    @staticmethod
    def knows(level: str) -> bool:
        return level in LEVELS

    @staticmethod
    def levels() -> list[str]:
        """The levels of the bots the pool plays (``knows`` each), weakest first."""
        return list(LEVELS)

    async def move(
        self,
        game_id: str,
        game_type: str,
        moves: list[str],
        level: str,
        seed: int,
        *,
        seconds: float | None = None,
    ) -> BotMove:
        """The bot's move, computed in a worker (retried on a new pool if a worker dies),
        within ``seconds`` if given (a clock's share). A level's time budget, and
        ``seconds``, count from this call: the wait for a worker is spent from them."""
        asked = time.monotonic()
        self.queued += 1
        lane = self._expensive if expensive(level) else contextlib.nullcontext()
        try:
            # FIFO within a lane: asyncio.Semaphore wakes waiters in order
            async with lane, self._slots:
                return await self._submit(
                    f"game {game_id}",
                    compute,
                    game_id,
                    game_type,
                    moves,
                    level,
                    seed,
                    self.trace_bytes,
                    seconds,
                    asked,
                )
        finally:
            self.queued -= 1

    async def run(self, work: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """``work(*args, **kwargs)`` in a background worker (a module-level function; its
        arguments and answer are pickled): at most ``workers - 1`` at once, at the lowest
        priority of the machine (see the module's docstring)."""
        self.background_queued += 1
        try:
            async with self._background:
                return await self._submit(
                    getattr(work, "__name__", "work"), work, *args, low=True, **kwargs
                )
        finally:
            self.background_queued -= 1

    async def _submit(
        self,
        what: str,
        work: Callable[..., T],
        /,
        *args: object,
        low: bool = False,
        **kwargs: object,
    ) -> T:
        """``work`` in a worker (a background one when ``low``), on a new pool if a worker
        died (up to ``_RETRIES`` times)."""
        for attempt in range(_RETRIES):
            if low and self._low is None:
                self._low = self._new_executor(low=True)
            executor = self._low if low else self._executor
            assert executor is not None
            try:
                future = executor.submit(work, *args, **kwargs)
                return await asyncio.wrap_future(future)
            except BrokenProcessPool:
                log.warning(
                    "bot worker died during %s (attempt %d); replacing the pool",
                    what,
                    attempt + 1,
                )
                if low and self._low is executor:
                    self._low = self._new_executor(low=True)
                elif not low and self._executor is executor:
                    self._executor = self._new_executor()
                else:
                    continue
                self.replaced += 1
                executor.shutdown(wait=False, cancel_futures=True)
        raise RuntimeError(f"bot workers kept dying on {what}")

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests that kill one)."""
        processes = self._executor._processes or {}
        return list(processes)

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
        if self._low is not None:
            self._low.shutdown(wait=True, cancel_futures=True)
