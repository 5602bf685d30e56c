"""Arenas: many games between two players, bots or external UHP engines, in parallel processes.

``play_game`` plays one game and returns a ``GameRecord``; ``run_arena`` plays many in a process
pool (one game per task, colours alternating, seeds derived from the arena's seed). The figures
come from ``ai.stats`` (``summarize``), positions up to symmetry from ``ai.symmetry``, and the
external engines are driven by ``ai.uhpclient``.
"""

from __future__ import annotations

import contextlib
import itertools
import shlex
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Final

from ai.book import classify
from ai.bots import BASELINES, LEVELS, Bot, Level
from ai.uhpclient import DrawClaimed, Forfeit, UhpClient
from hive import Game, GameState, GameType, HiveError, Move

DEFAULT_MAX_PLIES: Final = 300
"""Games still going after this many plies are adjudicated draws."""

BEST: Final = ":best"
"""After a level's name (``expert:best``): that level with its randomness off, the best move
found every time (its opening book still plays): what the randomness costs, against the level
itself."""


@dataclass(frozen=True)
class Player:
    """One side of an arena: a bot level, or an external UHP engine command.

    Attributes:
        name: How results name it (the level, or the command).
        level: A key of ``ai.bots.LEVELS``; None for an external engine.
        uhp: The external engine's command line; None for a bot.
        uhp_search: What follows ``bestmove`` for the external engine (``time 00:00:01``).
        seconds: A bot's time budget per move instead of its level's (its depth, if any,
            still the deepest it goes): equal time for both sides of an arena.
        best: A bot's randomness off (named with ``BEST``).
    """

    name: str
    level: str | None = None
    uhp: str | None = None
    uhp_search: str = "time 00:00:01"
    seconds: float | None = None
    best: bool = False

    @classmethod
    def bot(cls, name: str, seconds: float | None = None) -> Player:
        """A bot of the level ``name``, or of its level with the randomness off when ``name``
        ends with ``BEST``."""
        best = name.endswith(BEST)
        level = name.removesuffix(BEST)
        if level not in LEVELS and level not in BASELINES:
            names = ", ".join([*LEVELS, *BASELINES])
            raise ValueError(f"unknown level {level!r}; levels: {names} (each may end with {BEST})")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a time budget must be positive, not {seconds:g} s")
        return cls(name, level=level, seconds=seconds, best=best)

    def level_played(self) -> Level:
        """The bot's level, with the time budget and the randomness it plays with."""
        assert self.level is not None
        level = LEVELS[self.level] if self.level in LEVELS else BASELINES[self.level]
        if self.best:
            level = replace(level, quotient=None)
        if self.seconds is None:
            return level
        min_depth = min(level.min_depth, level.depth or level.min_depth)
        return replace(level, seconds=self.seconds, min_depth=min_depth)

    @classmethod
    def engine(cls, command: str, search: str = "time 00:00:01") -> Player:
        try:
            words = shlex.split(command)
        except ValueError as error:  # an unbalanced quote
            raise ValueError(f"cannot read the --uhp command {command!r}: {error}") from None
        if not words:
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
        end: How it ended: the GameState, ``adjudicated``, ``forfeit by A|B: <reason>``, or
            ``draw claimed by A|B: <reason>`` (an external engine's own repetition rule held
            the game drawn where these rules play on: scored a draw).
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


Chooser = Callable[[Game], Move]


@contextlib.contextmanager
def _chooser(player: Player, seed: int) -> Iterator[Chooser]:
    if player.level is not None:
        bot = Bot(player.level_played(), seed=seed)
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
    """Play game ``index`` of an arena between ``a`` and ``b`` (A is White in even games).

    An external engine that answers something unusable, or nothing in time, forfeits the game.
    One that holds the game drawn by its own rules (a repetition these rules do not count)
    ends it as a draw.

    Raises:
        EngineStartError: An external engine could not be started.
    """
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
            except DrawClaimed as claim:
                end, score = f"draw claimed by {'A' if a_to_move else 'B'}: {claim}", 0.5
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
    shape = classify(game)  # of the first four plies (None for a shorter game)
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
    stop: Callable[[list[GameRecord]], bool] | None = None,
) -> list[GameRecord]:
    """Play ``games`` games, ``parallel`` at a time in worker processes (in this process when
    ``parallel`` is 1); ``on_game`` is called as each game ends. Returns them by index.

    ``stop``, asked with the games ended so far after each one, ends the arena early when it
    says so (an SPRT that has decided): no game is begun after it, and the games being played
    then are finished and returned too.

    Ctrl-C (KeyboardInterrupt) stops the arena early: games not yet begun are dropped, and the
    games that finish are returned, fewer than ``games``. A terminal's Ctrl-C reaches the
    worker processes too, which drop the games they were playing; an interrupt sent to this
    process alone lets those games finish first.

    Raises:
        EngineStartError: An external engine could not be started for a game; the games not
            yet begun are dropped.
    """
    records: dict[int, GameRecord] = {}

    def keep(record: GameRecord) -> bool:
        """Keep a game; whether the arena stops."""
        if record.index not in records:
            records[record.index] = record
            if on_game:
                on_game(record)
        return stop is not None and stop(list(records.values()))

    options = {"game_type": game_type, "seed": seed, "max_plies": max_plies}
    if parallel <= 1:
        with contextlib.suppress(KeyboardInterrupt):
            for index in range(games):
                if keep(play_game(a, b, index, **options)):  # type: ignore[arg-type]
                    break
        return [records[i] for i in sorted(records)]
    # Only ``parallel`` games are in the pool at a time: one queued in it could no longer be
    # cancelled, so stopping (an SPRT, Ctrl-C) would wait for games not yet begun.
    indices = iter(range(games))
    begun: list[Future[GameRecord]] = []
    with ProcessPoolExecutor(max_workers=parallel) as pool:

        def begin(count: int) -> set[Future[GameRecord]]:
            new = [
                pool.submit(play_game, a, b, index, **options)  # type: ignore[arg-type]
                for index in itertools.islice(indices, count)
            ]
            begun.extend(new)
            return set(new)

        try:
            playing, stopped = begin(parallel), False
            while playing:
                done, playing = wait(playing, return_when=FIRST_COMPLETED)
                for future in done:
                    stopped = keep(future.result()) or stopped
                if not stopped:  # (those being played go on, and are kept)
                    playing |= begin(len(done))
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            for future in begun:
                if not future.cancelled() and future.exception() is None:
                    keep(future.result())
        except BaseException:  # an engine that cannot start (or a bug): no more games
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return [records[i] for i in sorted(records)]
