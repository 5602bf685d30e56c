"""Where ``hive-bot``'s moves come from: our bots (``LevelEngine``, in worker processes) or any
engine speaking the Universal Hive Protocol (``UhpEngine``: one engine process per game, given
the GameString and asked ``bestmove``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import zlib
from typing import Final, Protocol

from hive.pieces import ALL_GAME_TYPES
from server.bots import BotPool
from server.protocol import GameState

log = logging.getLogger("hive-bot")

ALL_TYPES: Final = [str(game_type) for game_type in ALL_GAME_TYPES]
ENGINE_SECONDS: Final = 300.0
"""Longest wait for a UHP engine's answer; past it the engine is stopped and started again."""


class EngineError(Exception):
    """A UHP engine failed, answered ``err``/``invalidmove``, or did not answer in time."""


class Engine(Protocol):
    """Where the bot's moves come from."""

    async def choose(self, state: GameState) -> str:
        """The MoveString to play in ``state`` (the side to move is the bot's)."""

    async def forget(self, game_id: str) -> None:
        """The game is over or no longer ours: let go of what was kept for it."""

    async def close(self) -> None: ...


class LevelEngine:
    """Our bots at ``level``, computed in ``workers`` processes (never on the event loop)."""

    def __init__(self, level: str, workers: int) -> None:
        self.level = level
        self.pool = BotPool(workers)

    async def choose(self, state: GameState) -> str:
        seed = zlib.crc32(state.id.encode())  # the game's own stream, whichever run plays it
        answer = await self.pool.move(state.id, state.game_type, state.moves, self.level, seed)
        return answer.move

    async def forget(self, game_id: str) -> None:
        pass  # the workers keep a bounded number of games' bots

    async def close(self) -> None:
        await asyncio.to_thread(self.pool.close)


class UhpEngine:
    """Any UHP engine: one process per game, started with ``command``, asked ``bestmove
    SEARCH`` on the game's GameString."""

    def __init__(self, command: str, search: str) -> None:
        self.command = shlex.split(command)
        self.search = search
        self.processes: dict[str, asyncio.subprocess.Process] = {}

    async def expansions(self) -> set[str]:
        """The expansions the engine says it supports (the second line of its ``info``)."""
        process = await self._start()
        try:
            lines = await self._ask(process, "info")
        finally:
            await self._stop(process)
        names = lines[1].split(";") if len(lines) > 1 else []
        return {name.strip() for name in names if name.strip()}

    async def choose(self, state: GameState) -> str:
        process = self.processes.get(state.id)
        if process is None or process.returncode is not None:
            process = self.processes[state.id] = await self._start()
        try:
            await self._ask(process, f"newgame {state.game_string}")
            lines = await self._ask(process, f"bestmove {self.search}")
        except EngineError:
            await self.forget(state.id)  # a fresh process for the next try
            raise
        if not lines:
            raise EngineError("the engine answered bestmove with nothing")
        return lines[-1].strip()

    async def forget(self, game_id: str) -> None:
        process = self.processes.pop(game_id, None)
        if process is not None:
            await self._stop(process)

    async def close(self) -> None:
        for game_id in list(self.processes):
            await self.forget(game_id)

    async def _start(self) -> asyncio.subprocess.Process:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
        except OSError as error:
            raise EngineError(f"cannot start {self.command[0]!r}: {error}") from None
        await self._read_until_ok(process)  # the engine greets with its id and "ok"
        return process

    async def _ask(self, process: asyncio.subprocess.Process, command: str) -> list[str]:
        assert process.stdin is not None
        try:
            process.stdin.write(command.encode() + b"\n")
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise EngineError(f"the engine exited (status {process.returncode})") from None
        lines = await self._read_until_ok(process)
        for line in lines:
            if line.startswith(("err", "invalidmove")):
                raise EngineError(f"{command!r}: {line}")
        return lines

    @staticmethod
    async def _read_until_ok(process: asyncio.subprocess.Process) -> list[str]:
        assert process.stdout is not None
        lines: list[str] = []
        try:
            async with asyncio.timeout(ENGINE_SECONDS):
                while (raw := await process.stdout.readline()) != b"":
                    line = raw.decode().rstrip("\r\n")
                    if line == "ok":
                        return lines
                    lines.append(line)
        except TimeoutError:
            process.kill()
            raise EngineError(f"no answer from the engine in {ENGINE_SECONDS:.0f} s") from None
        raise EngineError(f"the engine exited (status {await process.wait()})")

    @staticmethod
    async def _stop(process: asyncio.subprocess.Process) -> None:
        if process.returncode is None:
            assert process.stdin is not None
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                process.stdin.close()
            try:
                async with asyncio.timeout(2):
                    await process.wait()
            except TimeoutError:
                process.kill()
                await process.wait()


def supported_types(expansions: set[str]) -> list[str]:
    """The game types whose expansions are all among ``expansions`` (names from UHP ``info``,
    e.g. ``{"Mosquito", "Ladybug"}``)."""
    letters = {name[:1].upper() for name in expansions}
    return [t for t in ALL_TYPES if set(t.partition("+")[2]) <= letters]
