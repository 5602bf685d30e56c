"""Arenas: many games between two players, bots or external UHP engines, in parallel processes.

``play_game`` plays one game and returns a ``GameRecord``; ``run_arena`` plays many in a process
pool (one game per task, colours alternating, seeds derived from the arena's seed); ``summarize``
turns the records into the figures ``hive-ai arena`` prints: wins, draws and losses, the Elo
difference with a 95% interval, seconds per move, and how varied the games were.
"""

from __future__ import annotations

import contextlib
import math
import queue
import shlex
import statistics
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Final

from scipy.special import logit
from scipy.stats import norm

from ai.book import classify
from ai.bots import BASELINES, LEVELS, Bot
from hive import Game, GameState, GameType, HiveError, Move
from hive.hexes import axial
from hive.pieces import BUG_OF, COLOR_OF

DEFAULT_MAX_PLIES: Final = 300
"""Games still going after this many plies are adjudicated draws."""
UHP_TIMEOUT: Final = 60.0
"""Seconds an external engine may take to answer one command before it forfeits."""


@dataclass(frozen=True)
class Player:
    """One side of an arena: a bot level, or an external UHP engine command.

    Attributes:
        name: How results name it (the level, or the command).
        level: A key of ``ai.bots.LEVELS``; None for an external engine.
        uhp: The external engine's command line; None for a bot.
        uhp_search: What follows ``bestmove`` for the external engine (``time 00:00:01``).
    """

    name: str
    level: str | None = None
    uhp: str | None = None
    uhp_search: str = "time 00:00:01"

    @classmethod
    def bot(cls, level: str) -> Player:
        if level not in LEVELS and level not in BASELINES:
            names = ", ".join([*LEVELS, *BASELINES])
            raise ValueError(f"unknown level {level!r}; levels: {names}")
        return cls(level, level=level)

    @classmethod
    def engine(cls, command: str, search: str = "time 00:00:01") -> Player:
        if not shlex.split(command):
            raise ValueError("the --uhp command is empty")
        return cls(command, uhp=command, uhp_search=search)


@dataclass(frozen=True)
class GameRecord:
    """One arena game, seen from player A (the first player named).

    Attributes:
        index: The game's number in the arena (A plays White in even games).
        a_white: Whether A played White.
        score: A's score: 1 win, 0.5 draw, 0 loss.
        plies: Moves played.
        a_seconds: Seconds A took for each of its moves.
        b_seconds: Seconds B took for each of its moves.
        game_string: The whole game.
        opening: The first four MoveStrings (the opening both sides chose).
        shape: The opening's shape (C, I, L, Z or X), or None for a game under four plies.
        end: How it ended: the GameState, ``adjudicated`` or ``forfeit: <reason>``.
    """

    index: int
    a_white: bool
    score: float
    plies: int
    a_seconds: tuple[float, ...]
    b_seconds: tuple[float, ...]
    game_string: str
    opening: str
    shape: str | None
    end: str


class Forfeit(Exception):
    """An external engine answered something unusable (or nothing in time)."""


class UhpClient:
    """An external UHP engine process, asked for one best move at a time."""

    def __init__(self, command: str, search: str, timeout: float = UHP_TIMEOUT) -> None:
        self.search = search
        self.timeout = timeout
        self.process = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._answer()  # the banner

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
                raise Forfeit(f"the engine exited (status {self.process.poll()})")
            if line == "ok":
                return lines
            lines.append(line)

    def ask(self, command: str) -> list[str]:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise Forfeit("the engine closed its input") from None
        lines = self._answer()
        if lines and lines[0].startswith(("err", "invalidmove")):
            raise Forfeit(f"{command!r} was answered {lines[0]!r}")
        return lines

    def best_move(self, game: Game) -> str:
        self.ask(f"newgame {game.game_string()}")
        answer = self.ask(f"bestmove {self.search}")
        if len(answer) != 1:
            raise Forfeit(f"bestmove was answered {answer!r}")
        return answer[0]

    def close(self) -> None:
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


Chooser = Callable[[Game], Move]


@contextlib.contextmanager
def _chooser(player: Player, seed: int) -> Iterator[Chooser]:
    if player.level is not None:
        bot = Bot(player.level, seed=seed)
        yield lambda game: bot.choose(game).move
        return
    assert player.uhp is not None
    client = UhpClient(player.uhp, player.uhp_search)
    try:

        def choose(game: Game) -> Move:
            text = client.best_move(game)
            try:
                return game.parse_move(text)
            except HiveError as error:
                raise Forfeit(str(error)) from None

        yield choose
    finally:
        client.close()


def play_game(
    a: Player,
    b: Player,
    index: int,
    *,
    game_type: GameType,
    seed: int,
    max_plies: int = DEFAULT_MAX_PLIES,
) -> GameRecord:
    """Play game ``index`` of an arena between ``a`` and ``b`` (A is White in even games)."""
    a_white = index % 2 == 0
    game = Game(game_type, repetition_draw=True)
    seconds: tuple[list[float], list[float]] = ([], [])  # A's, B's
    end = ""
    with (
        _chooser(a, seed * 1_000_003 + 2 * index) as choose_a,
        _chooser(b, seed * 1_000_003 + 2 * index + 1) as choose_b,
    ):
        while not game.is_over() and game.ply < max_plies:
            a_to_move = (game.ply % 2 == 0) == a_white
            start = time.perf_counter()
            try:
                move = (choose_a if a_to_move else choose_b)(game)
            except Forfeit as error:
                end = f"forfeit by {'A' if a_to_move else 'B'}: {error}"
                score = 0.0 if a_to_move else 1.0
                break
            seconds[0 if a_to_move else 1].append(time.perf_counter() - start)
            game.push(move)
    if not end:
        if game.is_over():
            end = str(game.state)
            white_score = {GameState.WHITE_WINS: 1.0, GameState.BLACK_WINS: 0.0}.get(
                game.state, 0.5
            )
            score = white_score if a_white else 1.0 - white_score
        else:
            end, score = "adjudicated", 0.5
    shape = classify(_replay(game, 4)) if game.ply >= 4 else None
    return GameRecord(
        index=index,
        a_white=a_white,
        score=score,
        plies=game.ply,
        a_seconds=tuple(seconds[0]),
        b_seconds=tuple(seconds[1]),
        game_string=game.game_string(),
        opening=";".join(game.game_string().split(";")[3:7]),
        shape=None if shape is None else str(shape),
        end=end,
    )


def _replay(game: Game, plies: int) -> Game:
    """A new game with the first ``plies`` moves of ``game``."""
    copy = Game(game.game_type)
    for move in game.moves[:plies]:
        copy.push(move)
    return copy


def run_arena(
    a: Player,
    b: Player,
    games: int,
    *,
    parallel: int = 1,
    game_type: GameType,
    seed: int = 0,
    max_plies: int = DEFAULT_MAX_PLIES,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Play ``games`` games, ``parallel`` at a time in worker processes (in this process when
    ``parallel`` is 1); ``on_game`` is called as each game ends. Returns them by index.

    Ctrl-C (KeyboardInterrupt) stops the arena early: games not yet begun are dropped, and the
    games that finish are returned, fewer than ``games``. A terminal's Ctrl-C reaches the
    worker processes too, which drop the games they were playing; an interrupt sent to this
    process alone lets those games finish first.
    """
    records: dict[int, GameRecord] = {}

    def keep(record: GameRecord) -> None:
        if record.index not in records:
            records[record.index] = record
            if on_game:
                on_game(record)

    options = {"game_type": game_type, "seed": seed, "max_plies": max_plies}
    if parallel <= 1:
        with contextlib.suppress(KeyboardInterrupt):
            for index in range(games):
                keep(play_game(a, b, index, **options))  # type: ignore[arg-type]
        return [records[i] for i in sorted(records)]
    with ProcessPoolExecutor(max_workers=parallel) as pool:
        futures = [pool.submit(play_game, a, b, i, **options) for i in range(games)]  # type: ignore[arg-type]
        try:
            for future in as_completed(futures):
                keep(future.result())
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            for future in futures:
                if not future.cancelled() and future.exception() is None:
                    keep(future.result())
    return [records[i] for i in sorted(records)]


@dataclass(frozen=True)
class Summary:
    """The figures of an arena, from A's point of view."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_low: float
    elo_high: float
    a_seconds: tuple[float, float]  # median, 95th percentile
    b_seconds: tuple[float, float]
    distinct_openings: int
    distinct_games: int
    distinct_positions: int  # at VARIETY_PLY, up to symmetry
    games_reaching: int  # games at least VARIETY_PLY long
    shapes: dict[str, int] = field(default_factory=dict)
    ends: dict[str, int] = field(default_factory=dict)


def elo_difference(scores: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """The Elo difference a list of game scores (1, 0.5, 0) shows, with its interval.

    The mean score ``s`` maps to Elo through the logistic curve, ``400 * log10(s / (1 - s))``;
    the interval is that of the mean (normal approximation, per-game variance), mapped the same
    way. A score of 0 or 1 gives an infinite difference.
    """
    n = len(scores)
    if n == 0:
        raise ValueError("no games to rate")
    mean = statistics.fmean(scores)
    spread = statistics.pstdev(scores) / math.sqrt(n)
    z = float(norm.ppf(0.5 + confidence / 2))
    low, high = max(mean - z * spread, 0.0), min(mean + z * spread, 1.0)
    return _elo(mean), _elo(low), _elo(high)


def _elo(score: float) -> float:
    return float(logit(score)) * 400 / math.log(10)


def summarize(records: Sequence[GameRecord]) -> Summary:
    scores = [r.score for r in records]
    positions = [position_at(r.game_string, VARIETY_PLY) for r in records]
    elo, low, high = elo_difference(scores)
    return Summary(
        games=len(records),
        wins=sum(s == 1.0 for s in scores),
        draws=sum(s == 0.5 for s in scores),
        losses=sum(s == 0.0 for s in scores),
        score=statistics.fmean(scores),
        elo=elo,
        elo_low=low,
        elo_high=high,
        a_seconds=_spread([t for r in records for t in r.a_seconds]),
        b_seconds=_spread([t for r in records for t in r.b_seconds]),
        distinct_openings=len({r.opening for r in records}),
        distinct_games=len({r.game_string for r in records}),
        distinct_positions=len({p for p in positions if p is not None}),
        games_reaching=sum(p is not None for p in positions),
        shapes=dict(Counter(r.shape or "-" for r in records).most_common()),
        ends=dict(Counter(r.end.split(":")[0] for r in records).most_common()),
    )


VARIETY_PLY: Final = 12
"""The ply at which arenas count distinct positions."""

# The twelve symmetries of the hex grid, on axial coordinates: six rotations, each mirrored.
_SYMMETRIES: Final = tuple(
    (rotations, mirrored) for rotations in range(6) for mirrored in (False, True)
)

Position = tuple[tuple[int, int, int, int, int], ...]


def position_at(game_string: str, ply: int) -> Position | None:
    """The position after ``ply`` moves of a game, as a value equal for positions that differ
    only by translation, rotation, reflection or which piece of a bug stands where; None for a
    shorter game."""
    game = Game.from_game_string(game_string, repetition_draw=True)
    if game.ply < ply:
        return None
    game.undo(game.ply - ply)
    board = game.board
    pieces = []
    for h in board.occupied():
        q, r = axial(h)
        for level, piece in enumerate(board.stack(h)):
            pieces.append((COLOR_OF[piece], BUG_OF[piece], q, r, level))
    return min(_canonical(pieces, rotations, mirrored) for rotations, mirrored in _SYMMETRIES)


def _canonical(
    pieces: list[tuple[int, int, int, int, int]], rotations: int, mirrored: bool
) -> Position:
    moved = []
    for color, bug, q, r, level in pieces:
        if mirrored:
            q, r = r, q
        for _ in range(rotations):
            q, r = -r, q + r
        moved.append((q, r, color, bug, level))
    q0, r0 = min((q, r) for q, r, *_ in moved)
    return tuple(sorted((q - q0, r - r0, c, b, lv) for q, r, c, b, lv in moved))


def _spread(seconds: Sequence[float]) -> tuple[float, float]:
    """Median and 95th percentile."""
    if not seconds:
        return (0.0, 0.0)
    if len(seconds) == 1:
        return (seconds[0], seconds[0])
    return statistics.median(seconds), statistics.quantiles(seconds, n=20)[-1]
