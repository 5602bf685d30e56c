"""The analysis board: ``position`` (a position and its legal moves, from the rules engine)
and the engine lines on demand (``engine``, ``engine_stop``).

The client holds no rules: each position it shows is asked here, checked by the engine
(``server.game.position``) in the worker of ``server.edge.review.Positions`` (at most a few
requests wait or run there at once, past them ``unavailable``), never on the event loop. A
position has at most ``MAX_ANALYSIS_MOVES`` moves (``too_long``); a malformed GameString or an
unknown game type is ``bad_message``, a move that is not legal ``illegal_move``, its message
saying which and why.

An engine run searches one depth a job in the bot pool (``ai.lines.lines_at_depth`` through
``BotPool.run``: below every live bot move in priority), sends ``lines`` as each depth
completes, and ends with ``engine_done`` at ``Settings.engine_depth`` plies, after
``Settings.engine_seconds``, on a finished game or once every line is proved. Bounded:

- a connection has one run at a time: a new ``engine`` ends the one running (so does
  ``engine_stop``, and a closed connection: ``forget``), and it may start ``ENGINE_BURST``
  at once, then one every ``1 / ENGINE_RATE`` seconds (``rate_limited``);
- an address has at most ``Settings.engine_runs_per_address`` runs at once over its
  connections (``rate_limited``), and the process ``Settings.engine_runs`` (``unavailable``);
- a run has at most one job in the pool at a time, so the pool's background queue holds at
  most ``engine_runs`` of them; a run cancelled makes its stop file, and its job running in a
  worker stops within a few thousand nodes (a job cannot be interrupted otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol, TypeVar

from ai.lines import Ended, Found, lines_at_depth
from protocol import (
    ENGINE_LINES,
    EngineDone,
    EngineEnd,
    EngineLine,
    ErrorCode,
    GetPosition,
    Lines,
    Position,
    ProtocolError,
    StartEngine,
    StopEngine,
)
from server.game.position import Checked, Refusal, check, position
from server.live.session import Session
from server.storage.limits import Bucket

log = logging.getLogger(__name__)

T = TypeVar("T")

ENGINE_RATE: Final = 1.0
ENGINE_BURST: Final = 10
"""A connection's ``engine`` requests: this many at once, then ``ENGINE_RATE`` a second."""
STOP_KEPT: Final = 60.0
"""Seconds a stop file stays after a run's longest time (its last job has read it)."""


class Compute(Protocol):
    """Runs ``work(*args)`` in a worker process, or answers something else when it cannot
    (``server.edge.review.Positions.call``)."""

    async def __call__(self, work: Callable[..., T], *args: Any) -> T | object: ...


class Pool(Protocol):
    """Runs background work in the bot pool (``ai.pool.BotPool.run``)."""

    async def run(self, work: Callable[..., T], /, *args: Any) -> T: ...


@dataclass
class Run:
    """A connection's engine run: its request's ``id``, the task, its stop file (its jobs
    stop searching once it exists), the deepest depth sent."""

    id: int
    task: asyncio.Task[None]
    stop: Path
    depth: int = 0


class Analysis:
    """The ``position``, ``engine`` and ``engine_stop`` handlers.

    Args:
        compute: Where positions are checked (``Positions.call``).
        pool: Where the engine searches (``BotPool``).
        seconds: The longest engine run (``Settings.engine_seconds``).
        depth: The deepest search of a run (``Settings.engine_depth``).
        runs: Runs at once in this process (``Settings.engine_runs``).
        per_address: Runs at once from one address (``Settings.engine_runs_per_address``).
    """

    def __init__(
        self,
        compute: Compute,
        pool: Pool,
        *,
        seconds: float,
        depth: int,
        runs: int,
        per_address: int,
    ) -> None:
        self.compute = compute
        self.pool = pool
        self.seconds = seconds
        self.depth = depth
        self.most_runs = runs
        self.per_address = per_address
        self.runs: dict[Session, Run] = {}
        """The engine run of each connection that has one."""
        self.by_address: Counter[str] = Counter()
        self.started = 0
        self.cancelled = 0
        """Runs ended before their end (stopped, replaced, their connection closed)."""
        self._starts: dict[Session, Bucket] = {}
        self.stops = Path(tempfile.mkdtemp(prefix="hive-engine-stops-"))
        """Where a run's stop file is made when it is cancelled: a job of it running in a
        worker stops within a few thousand nodes (``ai.lines``), not at its deadline."""

    # -- the handlers --------------------------------------------------------------------------

    async def position(self, session: Session, message: GetPosition) -> None:
        answer = await self.compute(
            position, message.game_type, message.game_string, list(message.moves), message.id
        )
        await session.send(_answered(answer, Position))

    async def engine(self, session: Session, message: StartEngine) -> None:
        self._stop(session)  # a new position (or the same again) ends the run before
        starts = self._starts.get(session)
        if starts is None:
            starts = self._starts[session] = Bucket(ENGINE_RATE, ENGINE_BURST, time.monotonic())
        if not starts.take(time.monotonic()):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "engine asked too often; slow down")
        answer = await self.compute(
            check, message.game_type, message.game_string, list(message.moves)
        )
        checked = _answered(answer, Checked)
        if session.closing:
            return  # (its run would be forgotten at once)
        # no wait from here to the start: the counts checked are those the run joins
        if self.by_address[session.address] >= self.per_address:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"at most {self.per_address} engine runs at once from your address",
            )
        if len(self.runs) >= self.most_runs:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the engine is busy; try again soon")
        self._start(session, message.id, checked)

    async def stop(self, session: Session, message: StopEngine) -> None:
        run = self._stop(session)
        if run is not None:
            await session.send(EngineDone(run.id, "stopped", run.depth))

    def close(self) -> None:
        """Remove the stop files (the server stops)."""
        shutil.rmtree(self.stops, ignore_errors=True)

    def forget(self, session: Session) -> None:
        """A connection closed: its run ends."""
        self._stop(session)
        self._starts.pop(session, None)

    # -- runs ----------------------------------------------------------------------------------

    def _start(self, session: Session, asked: int, checked: Checked) -> None:
        self.started += 1
        self.by_address[session.address] += 1
        stop = self.stops / f"run-{self.started}"
        coroutine = self._search(session, asked, checked, stop)
        run = Run(asked, asyncio.create_task(coroutine), stop)
        self.runs[session] = run
        run.task.add_done_callback(lambda _: self._ended(session, run))

    def _stop(self, session: Session) -> Run | None:
        run = self.runs.get(session)
        if run is None:
            return None
        if not run.task.done():
            self.cancelled += 1
            run.task.cancel()
            with contextlib.suppress(OSError):  # its job in a worker stops too
                run.stop.touch()
                asyncio.get_running_loop().call_later(
                    self.seconds + STOP_KEPT, functools.partial(run.stop.unlink, missing_ok=True)
                )
        self._ended(session, run)
        return run

    def _ended(self, session: Session, run: Run) -> None:
        """Forget ``run`` (once: when stopped, and again when its task ends)."""
        if self.runs.get(session) is run:
            del self.runs[session]
            self.by_address[session.address] -= 1
            if self.by_address[session.address] <= 0:
                del self.by_address[session.address]

    async def _search(self, session: Session, asked: int, checked: Checked, stop: Path) -> None:
        """Search depth after depth, each answer sent as it comes, then say why it ended.
        The workers keep a table for the run's position (keyed by its stop file's name): its
        depths share it (when a worker searched the one before), another run starts afresh."""
        deadline = time.monotonic() + self.seconds
        reason: EngineEnd = "depth"
        run = self.runs.get(session)
        depth = 0
        try:
            for depth in range(1, self.depth + 1):
                found = await self.pool.run(
                    lines_at_depth,
                    checked.game_type,
                    checked.moves,
                    depth,
                    ENGINE_LINES,
                    deadline,
                    stop.name,
                    str(stop),
                )
                if isinstance(found, Ended):
                    reason = "time" if found.reason == "time" else "over"
                    break
                assert isinstance(found, Found)
                if run is not None:
                    run.depth = found.depth
                await session.send(_lines(asked, found))
                if found.proved:
                    reason = "proved"
                    break
        except asyncio.CancelledError:
            raise  # stopped: the stop says so, or nobody listens any more
        except Exception:  # a worker's failure ends this run alone, said to its client
            log.exception("an engine run failed at depth %d", depth)
            reason = "failed"
        await session.send(EngineDone(asked, reason, 0 if run is None else run.depth))


def _answered(answer: object, kind: type[T]) -> T:
    """``answer`` from the worker when it is a ``kind``; else the refusal it says, or that the
    worker is busy.

    Raises:
        ProtocolError: The position's refusal, or ``unavailable``.
    """
    if isinstance(answer, kind):
        return answer
    if isinstance(answer, Refusal):
        raise ProtocolError(answer.code, answer.message)
    raise ProtocolError(ErrorCode.UNAVAILABLE, "busy computing positions; try again")


def _lines(asked: int, found: Found) -> Lines:
    return Lines(
        asked,
        found.depth,
        [EngineLine(line.move, line.score, line.chance, list(line.pv)) for line in found.lines],
        found.nodes,
        found.seconds,
    )


__all__ = ["ENGINE_BURST", "ENGINE_RATE", "Analysis", "Run"]
