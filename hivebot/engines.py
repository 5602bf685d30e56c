"""Where ``hive-bot``'s moves come from: our bots (``LevelEngine``, in worker processes) or any
engine speaking the Universal Hive Protocol (``UhpEngine``: one engine process per game, given
the GameString and asked ``bestmove``).

An engine may hold a game drawn by a rule of its own where the server plays on: nokamute calls
a board seen 4 and 8 plies back a draw, blind to which piece moved last (with the Pillbug in
play, the stunned piece), and then cannot answer ``bestmove`` (it panics). The server's
threefold repetition tells those positions apart, so the game goes on: the bot accepts a draw
offered then, or plays our bot's move (``HeldDrawn``) and offers one, rather than resign a
drawn game."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import time
import zlib
from dataclasses import dataclass
from typing import Final, Protocol

from ai.pool import BotPool
from ai.uhpclient import answered_state
from hive.pieces import ALL_GAME_TYPES
from protocol import GameState

log = logging.getLogger("hive-bot")

ALL_TYPES: Final = [str(game_type) for game_type in ALL_GAME_TYPES]
ENGINE_SECONDS: Final = 300.0
"""Longest wait for a UHP engine's answer; past it the engine is stopped and started again."""


class EngineError(Exception):
    """A UHP engine failed, answered ``err``/``invalidmove``, or did not answer in time."""


class EngineGone(EngineError):
    """The engine process ended (killed, crashed) or stopped answering: a fresh one may try
    again."""


class HeldDrawn(EngineError):
    """The engine holds the game drawn (its ``newgame`` answer's state) while the server plays
    on; ``move`` is the fallback's move to play on with."""

    def __init__(self, message: str, move: str) -> None:
        super().__init__(message)
        self.move = move


FALLBACK_LEVEL: Final = "hard"
"""Our bot that moves for a UHP engine holding a game drawn that goes on."""

RESTARTS: Final = 2
"""Fresh engines started for one move after the engine dies during it."""


@dataclass(frozen=True)
class Budget:
    """The time for one move: search about ``seconds``; the move must be sent by ``deadline``
    (a ``time.monotonic()`` reading)."""

    seconds: float
    deadline: float

    def left(self) -> float:
        return self.deadline - time.monotonic()


class Engine(Protocol):
    """Where the bot's moves come from."""

    async def choose(self, state: GameState, budget: Budget | None = None) -> str:
        """The MoveString to play in ``state`` (the side to move is the bot's), within
        ``budget`` (None: no clock)."""

    async def forget(self, game_id: str) -> None:
        """The game is over or no longer ours: let go of what was kept for it."""

    async def close(self) -> None: ...


class LevelEngine:
    """Our bots at ``level``, computed in ``workers`` processes (never on the event loop)."""

    def __init__(self, level: str, workers: int) -> None:
        self.level = level
        self.pool = BotPool(workers)

    async def choose(self, state: GameState, budget: Budget | None = None) -> str:
        seed = zlib.crc32(state.id.encode())  # the game's own stream, whichever run plays it
        seconds = None if budget is None else budget.seconds
        answer = await self.pool.move(
            state.id, state.game_type, state.moves, self.level, seed, seconds=seconds
        )
        return answer.move

    async def forget(self, game_id: str) -> None:
        pass  # the workers keep a bounded number of games' bots

    async def close(self) -> None:
        await asyncio.to_thread(self.pool.close)


class UhpEngine:
    """Any UHP engine: one process per game in play, started with ``command``, asked
    ``bestmove SEARCH`` on the game's GameString; with a clock, ``SEARCH`` (a ``time``) is a
    ceiling and the move's budget the limit (``search_within``). An engine that dies during
    its search is replaced by a fresh one, given the game and asked again with the time left
    (``RESTARTS`` times at most). Where the engine holds the game drawn and the server plays
    on, our bot at level ``fallback`` chooses the move (``HeldDrawn``; its worker process is
    started then)."""

    def __init__(self, command: str, search: str, fallback: str | None = None) -> None:
        self.command = shlex.split(command)
        self.search = search
        self.fallback = fallback
        self._fallback: LevelEngine | None = None
        self.processes: dict[str, asyncio.subprocess.Process] = {}

    async def expansions(self) -> set[str]:
        """The expansions the engine says it supports (the second line of its ``info``)."""
        process = await self._start()
        try:
            lines = await self._ask(process, "info", ENGINE_SECONDS)
        finally:
            await self._stop(process)
        names = lines[1].split(";") if len(lines) > 1 else []
        return {name.strip() for name in names if name.strip()}

    async def choose(self, state: GameState, budget: Budget | None = None) -> str:
        for attempt in range(RESTARTS + 1):
            wait = ENGINE_SECONDS if budget is None else budget.left()
            if wait <= 0:
                raise EngineError("no time left on the clock")
            search = self.search if budget is None else search_within(self.search, wait, budget)
            lines: list[str] = []
            fallback = None  # the level to move with, where the engine holds the game drawn
            try:
                process = self.processes.get(state.id)
                if process is None or process.returncode is not None:
                    log.info("game %s: starting the engine", state.id)
                    process = self.processes[state.id] = await self._start()
                answer = await self._ask(process, f"newgame {state.game_string}", wait)
                if answered_state(answer) == "Draw":
                    fallback = self.fallback
                if fallback is None:
                    log.info(
                        "game %s: bestmove %s at ply %d (engine %d)",
                        *(state.id, search, len(state.moves), process.pid),
                    )
                    lines = await self._ask(process, f"bestmove {search}", wait)
            except EngineGone as error:
                await self.forget(state.id)
                if attempt == RESTARTS:
                    raise
                log.warning("game %s: %s; starting a fresh engine", state.id, error)
                continue
            except BaseException:  # refused, or cancelled (the game ended, the bot stops)
                await self.forget(state.id)  # no answer left half-read for the next move
                raise
            if fallback is not None:  # (nokamute's bestmove would panic)
                if self._fallback is None:
                    self._fallback = LevelEngine(fallback, 1)
                move = await self._fallback.choose(state, budget)
                raise HeldDrawn(f"the engine holds the game drawn at ply {len(state.moves)}", move)
            if not lines:
                raise EngineError("the engine answered bestmove with nothing")
            return lines[-1].strip()
        raise AssertionError("unreachable")

    async def forget(self, game_id: str) -> None:
        process = self.processes.pop(game_id, None)
        if process is not None:
            await self._stop(process)

    async def close(self) -> None:
        for game_id in list(self.processes):
            await self.forget(game_id)
        if self._fallback is not None:
            await self._fallback.close()

    async def _start(self) -> asyncio.subprocess.Process:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
        except OSError as error:
            raise EngineError(f"cannot start {self.command[0]!r}: {error}") from None
        try:
            await self._read_until_ok(process, ENGINE_SECONDS)  # it greets with its id and ok
        except BaseException:  # cancelled meanwhile: the process is nobody's, stop it here
            await self._stop(process, at_once=True)
            raise
        return process

    async def _ask(
        self, process: asyncio.subprocess.Process, command: str, wait: float
    ) -> list[str]:
        assert process.stdin is not None
        try:
            process.stdin.write(command.encode() + b"\n")
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise EngineGone(f"the engine exited (status {await process.wait()})") from None
        lines = await self._read_until_ok(process, wait)
        for line in lines:
            if line.startswith(("err", "invalidmove")):
                raise EngineError(f"{command!r}: {line}")
        return lines

    @staticmethod
    async def _read_until_ok(process: asyncio.subprocess.Process, wait: float) -> list[str]:
        assert process.stdout is not None
        lines: list[str] = []
        try:
            async with asyncio.timeout(wait):
                while (raw := await process.stdout.readline()) != b"":
                    line = raw.decode().rstrip("\r\n")
                    if line == "ok":
                        return lines
                    lines.append(line)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise EngineGone(f"no answer from the engine in {wait:.1f} s") from None
        raise EngineGone(f"the engine exited (status {await process.wait()})")

    @staticmethod
    async def _stop(process: asyncio.subprocess.Process, *, at_once: bool = False) -> None:
        if process.returncode is None:
            assert process.stdin is not None
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                process.stdin.close()
            try:
                if at_once:
                    raise TimeoutError
                async with asyncio.timeout(2):
                    await process.wait()
            except TimeoutError:
                process.kill()
                await process.wait()


def search_within(ceiling: str, wait: float, budget: Budget) -> str:
    """What follows ``bestmove`` for a move with ``budget`` and ``wait`` seconds left before
    its deadline: a ``time`` ceiling cut to the budget, in whole seconds as UHP writes them
    (``hh:mm:ss``), and ``depth 1`` under one second; any other search (a ``depth``) as given
    (the deadline still stops it: the engine is then replaced and the move asked again)."""
    seconds = min(budget.seconds, wait)
    if seconds < 1:
        return "depth 1"
    words = ceiling.split()
    if len(words) != 2 or words[0].lower() != "time":
        return ceiling
    try:
        hours, minutes, secs = (int(part) for part in words[1].split(":"))
    except ValueError:
        return ceiling
    whole = min(hours * 3600 + minutes * 60 + secs, int(seconds))
    return f"time {whole // 3600:02}:{whole // 60 % 60:02}:{whole % 60:02}"


def supported_types(expansions: set[str]) -> list[str]:
    """The game types whose expansions are all among ``expansions`` (names from UHP ``info``,
    e.g. ``{"Mosquito", "Ladybug"}``)."""
    letters = {name[:1].upper() for name in expansions}
    return [t for t in ALL_TYPES if set(t.partition("+")[2]) <= letters]
