"""Bot levels and how a bot chooses its move.

A bot plays its first two placements from the opening book (when it has one), then searches,
and the level's randomness quotient Q picks one of the ranked moves: the best with probability
``(Q-1)/Q``, the second with ``(Q-1)/Q**2``, and so on (``choose_index``). The bot draws the
index first and asks the search for exact scores down to it: most of the time that is only the
best move, which is several times cheaper than scoring every move exactly. Weaker levels
search shallower and narrower, and have a lower Q. The third turn always uses Q = 2 so that
games do not all open alike. A level with a tolerance (``expert``) picks a move other than
the best only when it scores within the tolerance of the best.

A bot never throws away a forced win (when the best move wins, it picks among the quickest
winning moves) and never picks a move that loses by force when another does not.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from ai.book import OpeningBook
from ai.evaluation import FITTED, HAND_SET, MATE_BOUND, Weights
from ai.search import SearchResult, TranspositionTable, iterative_search, search
from ai.trace import TraceRecorder
from hive import Game, GameType, Move

OPENING_QUOTIENT: Final = 2
"""Q for the bot's first turns out of the book (the third turn, or any before it)."""

OPENING_TURNS: Final = 3

TOLERANCE: Final = 20
"""``expert``'s tolerance: a random pick scores at most this much below the best move. At
``ai.analysis.WIN_CHANCE_SLOPE`` that is some 2% of expected score at even chances, so
a game's one or two random picks cost little (docs/load.md measures it)."""

MARGIN: Final = 0.05
"""The share of a time budget left unsearched, for what follows the search's last look at
the clock (ending the search, the tie-break, handing the move back) on a busy machine."""


@dataclass(frozen=True)
class Level:
    """How a bot searches and how much it varies its play.

    Attributes:
        name: The level's name (also its key in ``LEVELS`` and in the opening book).
        depth: Plies to search; with ``seconds``, the most an iterative search goes to
            (None: as deep as time allows).
        seconds: Time budget per move: search iteratively deeper until it runs out
            (None: a fixed-depth search to ``depth``).
        branching: K, the children searched per node below the root (None: all). It
            matters from 3 plies on: the root's children are all searched, and a frontier
            node's children are all scored.
        min_depth: With ``seconds``, the plies always started, whatever the time the last
            depth took predicts; the budget still ends them (the move then comes from the
            last depth completed).
        quotient: Q, the randomness quotient (None: always the best move).
        tolerance: How far below the best move's score another may score and still be
            picked by the randomness (None: any, but for forced losses and slower wins): the
            replay value of near-equal moves without the blunders.
        table: Whether the bot keeps a transposition table between moves.
        aggressive: Among equally scored moves, prefer the one leaving the opponent the fewest
            replies that hold their score.
        weights: The static evaluation's weights: the fitted ones (``ai.evaluation.FITTED``)
            are stronger for a search of 4 plies and more, but a shallower one drifts with
            them and its games do not end; it keeps the hand-set ones.
        threats: Whether the search scores a leaf whose side to move surrounds the enemy
            Queen at once as that win (``ai.search.search``): a ply more for the threat that
            ends games. No level has it: it bought nothing at equal time (docs/load.md).
        null_move: Whether the search cuts a node where passing the turn still holds beta
            (``ai.search.search``). No level has it: expert scored less with it against
            nokamute at equal time (docs/load.md).
    """

    name: str
    depth: int | None
    seconds: float | None
    branching: int | None
    quotient: int | None
    table: bool
    tolerance: int | None = None
    aggressive: bool = False
    min_depth: int = 1
    weights: Weights = HAND_SET
    threats: bool = False
    null_move: bool = False

    def __post_init__(self) -> None:
        if self.depth is None and self.seconds is None:
            raise ValueError(f"level {self.name!r} needs a depth or a time budget")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"level {self.name!r}: depth must be at least 1")
        timed_depth = self.depth if self.seconds is not None else None
        if self.min_depth < 1 or (timed_depth is not None and self.min_depth > timed_depth):
            raise ValueError(f"level {self.name!r}: min_depth must lie in 1..depth")
        if self.quotient is not None and self.quotient < 2:
            raise ValueError(f"level {self.name!r}: the quotient must be at least 2")
        if self.tolerance is not None and self.tolerance < 0:
            raise ValueError(f"level {self.name!r}: the tolerance must be at least 0")


LEVELS: Final[dict[str, Level]] = {
    level.name: level
    for level in (
        Level("beginner", depth=1, seconds=None, branching=None, quotient=2, table=False),
        Level("easy", depth=2, seconds=None, branching=None, quotient=5, table=False),
        Level("medium", depth=3, seconds=None, branching=5, quotient=5, table=False),
        Level("hard", depth=4, seconds=None, branching=8, quotient=7, table=True, weights=FITTED),
        Level(
            "expert",
            depth=None,
            seconds=2.0,
            branching=20,
            quotient=20,
            table=True,
            tolerance=TOLERANCE,
            aggressive=True,
            min_depth=4,
            weights=FITTED,
        ),
    )
}
"""The levels, weakest first."""

BASELINES: Final[dict[str, Level]] = {
    "greedy": Level("greedy", depth=1, seconds=None, branching=None, quotient=None, table=False),
}
"""Players for arenas only, to measure the levels against: ``greedy`` plays the move whose
position evaluates best, one ply deep, without randomness."""


def choose_index(n: int, quotient: int | None, rng: random.Random) -> int:
    """Index of the chosen move among ``n`` ranked best first.

    Each step down the ranking happens with probability ``1/quotient``, so index ``i < n - 1``
    comes with probability ``(Q-1)/Q**(i+1)`` (the last takes the remainder). A quotient of
    None always gives 0.
    """
    if n < 1:
        raise ValueError(f"nothing to choose from (n={n!r})")
    if quotient is None:
        return 0
    if quotient < 2:
        raise ValueError(f"the quotient must be at least 2, not {quotient!r}")
    i = 0
    while i < n - 1 and rng.randrange(quotient) == 0:
        i += 1
    return i


@dataclass(frozen=True)
class Choice:
    """A bot's move and how it was found.

    Attributes:
        move: The move to play.
        index: Its place in the search's ranking (0 for book and forced moves).
        result: The search, when there was one.
        source: ``"book"``, ``"search"`` or ``"forced"`` (the only legal move).
    """

    move: Move
    index: int
    result: SearchResult | None
    source: str


def candidates(
    ranked: list[tuple[Move, int]], exact: int | None = None, tolerance: int | None = None
) -> int:
    """How many of the best-first ``ranked`` moves the randomness may choose among: the first
    ``exact`` ones, whose scores are exact (None: all); of those, only the quickest wins (the
    moves scoring as much as the best) when the best wins by force, so a bot that can win in
    two does; else all but those that lose by force (unless every move loses), and with a
    ``tolerance``, only those scoring at most that much below the best."""
    if not ranked:
        return 0
    if exact is not None:
        ranked = ranked[:exact]
    best = ranked[0][1]
    if best >= MATE_BOUND:
        return sum(1 for _, value in ranked if value == best)
    if best <= -MATE_BOUND:
        return len(ranked)
    floor = -MATE_BOUND if tolerance is None else max(-MATE_BOUND, best - tolerance - 1)
    return sum(1 for _, value in ranked if value > floor)


@functools.cache
def default_book() -> OpeningBook:
    """The shipped opening book (``ai/book.toml``), read once."""
    return OpeningBook.load()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection during a search: a full one walks every object the
    transposition table keeps (hundreds of thousands after a few moves) and took up to 1.5 s
    on a busy machine, past any deadline. After the search, what it left is frozen (moved
    out of the collector's sight): it is the table's, long-lived by construction, freed by
    reference counting when the table lets go of it (a search makes no reference cycles), so
    the collector's next turn does not walk it either."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if paused:
            gc.enable()


class Bot:
    """A player of one level, for a whole game (or many).

    Its random stream and its transposition table (for a level with ``table``) carry over from
    move to move: use one bot per player and game, not one per move. The table is cleared
    when the bot is asked about a game of another type.

    Args:
        level: A ``Level`` or the name of one in ``LEVELS``.
        seed: Seeds the bot's randomness (None: from the system); the same seed and the same
            sequence of positions give the same moves (for fixed-depth levels; a time budget
            may reach different depths on a busy machine).
        book: The opening book for the first two placements (None: the shipped one). A level
            the book does not know plays its openings by search.
        use_book: False to play the openings by search too.
        clock: The time source for time budgets.
    """

    def __init__(
        self,
        level: Level | str = "medium",
        *,
        seed: int | None = None,
        book: OpeningBook | None = None,
        use_book: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(level, str):
            try:
                level = LEVELS[level] if level in LEVELS else BASELINES[level]
            except KeyError:
                raise ValueError(f"unknown level {level!r}: one of {', '.join(LEVELS)}") from None
        self.level = level
        self.rng = random.Random(seed)
        self.book = (book or default_book()) if use_book else None
        self.clock = clock
        self.table = TranspositionTable() if level.table else None
        self._table_game_type: GameType | None = None  # the game type of the table's entries

    def __repr__(self) -> str:
        return f"Bot({self.level.name!r})"

    def choose(
        self,
        game: Game,
        *,
        level: Level | None = None,
        trace: TraceRecorder | None = None,
        asked: float | None = None,
    ) -> Choice:
        """The bot's move in ``game`` (searched in place with push/pop, left unchanged).

        Args:
            game: The position.
            level: Search this move as ``level`` rather than the bot's own (the UHP engine's
                ``bestmove depth N`` and ``bestmove time T``); the random stream and the table
                are the bot's all the same.
            trace: A recorder to fill with the search tree.
            asked: When the move was asked for (a reading of the bot's ``clock``): a time
                budget counts from there, so that a wait in a queue is spent from it (None:
                from this call).

        Raises:
            ValueError: The game is over.
        """
        started = self.clock() if asked is None else asked
        moves = game.legal_moves()
        if not moves:
            raise ValueError(f"the game is over ({game.state}): there is no move to choose")
        level = level or self.level
        if trace is not None:  # a book or forced move is traced as a root without a tree
            trace.position = game.game_string()
            trace.note(level=level.name)
        if len(moves) == 1:
            if trace is not None:
                trace.note(source="forced", chosen=game.move_string(moves[0]), chosen_index=0)
            return Choice(moves[0], 0, None, "forced")
        if self.book is not None and level.name in self.book.levels:
            move = self.book.choose(game, level.name, self.rng)
            if move is not None:
                if trace is not None:
                    trace.note(source="book", chosen=game.move_string(move), chosen_index=0)
                return Choice(move, 0, None, "book")
        quotient = level.quotient
        if quotient is not None and game.turn_number <= OPENING_TURNS:
            quotient = min(quotient, OPENING_QUOTIENT)
        # Drawn over every move, then cut to the candidates: the same law as drawing over them.
        walk = choose_index(len(moves), quotient, self.rng)
        with _collector_paused():
            result = self._search(game, level, trace, exact_top=walk + 1, started=started)
        index = min(walk, candidates(result.ranked, result.exact, level.tolerance) - 1)
        move, score = result.ranked[index]
        if trace is not None:
            trace.note(
                source="search",
                quotient=quotient,
                chosen=game.move_string(move),
                chosen_index=index,
                skipped_best=score < result.ranked[0][1],
            )
        return Choice(move, index, result, "search")

    def _table(self, game: Game, level: Level) -> TranspositionTable | None:
        """The table for a search of ``game`` at ``level``: emptied if it holds entries of
        another game type (whose positions may hash alike)."""
        if not level.table:
            return None
        if self.table is None:
            self.table = TranspositionTable()
        if self._table_game_type != game.game_type:
            self.table.clear()
            self._table_game_type = game.game_type
        return self.table

    def _search(
        self,
        game: Game,
        level: Level,
        trace: TraceRecorder | None,
        *,
        exact_top: int,
        started: float,
    ) -> SearchResult:
        if trace is not None:
            trace.note(level=level.name)
        table = self._table(game, level)
        if level.seconds is not None:
            return iterative_search(
                game,
                max_depth=level.depth,
                min_depth=level.min_depth,
                branching=level.branching,
                deadline=started + level.seconds * (1 - MARGIN),
                clock=self.clock,
                table=table,
                aggressive=level.aggressive,
                trace=trace,
                exact_top=exact_top,
                weights=level.weights,
                threats=level.threats,
                null_move=level.null_move,
            )
        assert level.depth is not None  # a level has one or the other
        return search(
            game,
            depth=level.depth,
            branching=level.branching,
            table=table,
            aggressive=level.aggressive,
            trace=trace,
            exact_top=exact_top,
            clock=self.clock,
            weights=level.weights,
            threats=level.threats,
            null_move=level.null_move,
        )
