"""A client of an external UHP engine process, for arenas: it asks for one best move at a time.

``UhpClient(command, search)`` starts the engine and reads its greeting; ``best_move(game)``
brings the engine's game up to ``game`` (with ``play`` when ``game`` continues the game the
engine holds, else with ``newgame <GameString>``) and asks ``bestmove <search>``. An engine
that cannot be started, or does not greet, raises ``EngineStartError``; one that answers
something unusable later, or nothing in time, raises ``Forfeit``.
"""

from __future__ import annotations

import contextlib
import queue
import shlex
import subprocess
import threading
from typing import Final

from hive import Game

UHP_TIMEOUT: Final = 60.0
"""Seconds an external engine may take to answer one command before it forfeits."""


class Forfeit(Exception):
    """An external engine answered something unusable (or nothing in time)."""


class DrawClaimed(Exception):
    """An external engine holds the game drawn where these rules play on: by its own
    repetition rule (nokamute's counts a board seen at 4, 8... plies back, whichever piece a
    Pillbug's throw left stunned; these rules count a position with its stunned piece)."""


class EngineStartError(Exception):
    """An external engine could not be started, or ended or failed before greeting."""


class UhpClient:
    """An external UHP engine process, asked for one best move at a time.

    Args:
        command: The engine's command line (split like a shell's, without one).
        search: What follows ``bestmove`` (``depth 2``, ``time 00:00:01``).
        timeout: Seconds the engine may take to answer one command.

    Raises:
        EngineStartError: The command cannot be run, or the engine ends (or says nothing for
            ``timeout`` seconds) before its greeting's ``ok``.
    """

    def __init__(self, command: str, search: str, timeout: float = UHP_TIMEOUT) -> None:
        self.search = search
        self.timeout = timeout
        self._game: Game | None = None  # a copy of the engine's game, when known
        try:
            self.process = subprocess.Popen(
                shlex.split(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except (OSError, ValueError) as error:  # ValueError: an unbalanced quote
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise EngineStartError(f"cannot start the engine {command!r}: {reason}") from None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self._answer()  # the greeting (the answer to info)
        except Forfeit as error:
            self.close()
            raise EngineStartError(f"{command!r} did not start as a UHP engine: {error}") from None

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _answer(self) -> list[str]:
        lines: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                raise Forfeit(f"no answer within {self.timeout:.0f} s") from None
            if line is None:
                self._lines.put(None)  # the end stays the end for later reads
                raise self._gone("the engine closed its output")
            if line == "ok":
                return lines
            lines.append(line)

    def _gone(self, otherwise: str) -> Forfeit:
        """The forfeit of an engine that stopped talking: its exit status if it ended."""
        try:
            status = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return Forfeit(otherwise)
        return Forfeit(f"the engine exited (status {status})")

    def ask(self, command: str) -> list[str]:
        """Send one command; its answer's lines, without the ``ok``.

        Raises:
            Forfeit: No answer in time, the engine gone, or ``err``/``invalidmove``.
        """
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise self._gone("the engine closed its input") from None
        lines = self._answer()
        if lines and lines[0].startswith(("err", "invalidmove")):
            raise Forfeit(f"{command!r} was answered {lines[0]!r}")
        return lines

    def best_move(self, game: Game) -> str:
        """The engine's MoveString for ``game`` (read, not checked).

        Raises:
            Forfeit: As ``ask``, or an answer of more or fewer than one line.
        """
        held, self._game = self._game, None  # unknown until the engine has answered
        if held is not None and held.game_type == game.game_type and _continues(game, held):
            for move in game.moves[held.ply :]:  # the engine keeps its game (and its bot)
                answer = self.ask(f"play {held.move_string(move)}")
                held.push(move)
                _check_state(answer, held)
        else:
            self.ask(f"newgame {game.game_string()}")
            held = game.copy()
        self._game = held
        answer = self.ask(f"bestmove {self.search}")
        if len(answer) != 1:
            raise Forfeit(f"bestmove was answered {answer!r}")
        return answer[0]

    def close(self) -> None:
        """Ask the engine to exit (kill it after 5 s) and release its pipes."""
        assert self.process.stdin is not None
        with contextlib.suppress(OSError):  # the engine may be gone already
            self.process.stdin.write("exit\n")
            self.process.stdin.flush()
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join()  # it ends at end of file, now that the process is gone
        assert self.process.stdout is not None
        self.process.stdout.close()


def _check_state(answer: list[str], game: Game) -> None:
    """Read the state of the GameString a ``play`` was answered with, against ``game``'s.

    Raises:
        DrawClaimed: The engine holds the game drawn while ``game`` goes on.
        Forfeit: It holds it won by either side while ``game`` goes on.
    """
    state = answered_state(answer)
    if state in ("", "InProgress", "NotStarted") or game.is_over():
        return
    if state == "Draw":
        raise DrawClaimed(f"the engine holds the game drawn after {game.ply} plies")
    raise Forfeit(f"the engine holds the game over ({state}) after {game.ply} plies")


def answered_state(answer: list[str]) -> str:
    """The state field of the GameString an engine answered ``newgame`` or ``play`` with
    (``Draw``, ``InProgress``...; '' if the answer holds none)."""
    fields = answer[0].split(";") if answer else []
    return fields[1] if len(fields) > 1 else ""


def _continues(game: Game, held: Game) -> bool:
    """Whether ``game`` is ``held`` with zero or more moves played on."""
    return game.ply >= held.ply and game.moves[: held.ply] == held.moves
