"""A finished game's computer analysis: every position searched at one fixed strength, each
move judged by the winning chance it gave away, and an accuracy per player.

Each position before a move is searched to ``REVIEW_DEPTH`` plies (K = ``REVIEW_BRANCHING``,
one table per position, deepened 1, 2, ... ``REVIEW_DEPTH``): its best move and that move's
score. The move played, when it is not the best, is scored at the same horizon: the position
after it searched ``REVIEW_DEPTH - 1`` plies, negated. So both scores look equally far ahead
(as lichess's evaluations of the positions before and after a move do not: those are one ply
apart, which in Hive's evaluation swings with the side to move), and the review of a
position depends on that position alone: ``review_position`` is pure and reproducible, and
a caller can search the positions of a game in any order, in parallel, with progress.

The marks are lichess's (``lila`` ``modules/analyse/.../Advice.scala``), by the drop in the
mover's winning chance (``ai.analysis.win_chance``) from the best move to the move played:
lichess measures winning chances in [-1, 1] and marks a drop of 0.1 an inaccuracy, 0.2 a
mistake, 0.3 a blunder; in [0, 1] chances those are drops of 0.05, 0.10 and 0.15. A proved
win counts as chance 1 and a proved loss as 0, so a thrown-away forced win, or a move into
a forced loss from a playable position, is a blunder.

A move's accuracy is lichess's (``AccuracyPercent.scala``): ``103.1668 * exp(-0.04354 * d)
- 3.1669`` clamped to [0, 100], ``d`` the drop in win percent (0..100). A player's accuracy is
lichess's without its volatility weights: the mean of the arithmetic and the harmonic mean of
their moves' accuracies. The harmonic mean makes one blunder cost more than many small
slips; lichess also weights moves by how much the position swings around them, which this
leaves out, as it needs a whole game's evaluations where each position stands alone here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import Final

from ai.analysis import win_chance
from ai.evaluation import terminal_score
from ai.search import TranspositionTable, search
from hive import Game, GameType, Move

REVIEW_DEPTH: Final = 5
"""The review's plies: a 60-ply Base+MLP game is reviewed in about 15 s on two cores
(``python -m bench.review``), within the minute asked."""
REVIEW_BRANCHING: Final = 8
"""The review's K (the ``hard`` level's)."""


class Mark(StrEnum):
    """How bad a move was, by the winning chance it gave away."""

    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


MARK_DROPS: Final[tuple[tuple[float, Mark], ...]] = (
    (0.15, Mark.BLUNDER),
    (0.10, Mark.MISTAKE),
    (0.05, Mark.INACCURACY),
)
"""The least drop in the mover's winning chance (in [0, 1]) for each mark, worst first:
lichess's 0.3, 0.2 and 0.1 in its [-1, 1] chances, halved."""


def mark(drop: float) -> Mark | None:
    """The mark of a move that lowered its player's winning chance by ``drop`` (None: good)."""
    for least, name in MARK_DROPS:
        if drop >= least:
            return name
    return None


def move_accuracy(drop: float) -> float:
    """A move's accuracy in [0, 100] from the drop in its player's winning chance (in [0, 1];
    a gain counts as no drop): lichess's curve of the drop in win percent."""
    percent = max(drop, 0.0) * 100
    raw = 103.1668 * math.exp(-0.04354 * percent) - 3.1669
    return min(100.0, max(0.0, raw))


def player_accuracy(accuracies: Sequence[float]) -> float | None:
    """A player's accuracy from their moves': the mean of the arithmetic and the harmonic mean
    (a move of accuracy 0 makes the harmonic mean 0); None for no move."""
    if not accuracies:
        return None
    mean = sum(accuracies) / len(accuracies)
    harmonic = 0.0 if min(accuracies) <= 0 else len(accuracies) / sum(1 / a for a in accuracies)
    return (mean + harmonic) / 2


@dataclass(frozen=True)
class PlyReview:
    """The review of one move: the position before it and what was played there.

    Attributes:
        ply: The move's index in the game (0: White's first move).
        move: The move played (MoveString).
        best: The search's best move there (MoveString).
        best_score: Its score: the position's evaluation, the mover's view.
        played_score: The move played's score, the mover's view (``best_score`` when it is
            the best move; never above it).
        chance: The mover's winning chance with the best move (``win_chance(best_score)``).
        played_chance: The mover's winning chance after the move played.
        mark: The move's mark (None: no worse than an inaccuracy's threshold).
        accuracy: The move's accuracy in [0, 100].
    """

    ply: int
    move: str
    best: str
    best_score: int
    played_score: int
    chance: float
    played_chance: float
    mark: Mark | None
    accuracy: float

    @property
    def white_score(self) -> int:
        """The position's evaluation from White's point of view."""
        return self.best_score if self.ply % 2 == 0 else -self.best_score

    @property
    def drop(self) -> float:
        """The winning chance the move gave away (0 for the best move)."""
        return max(0.0, self.chance - self.played_chance)


@dataclass(frozen=True)
class PlayerReview:
    """One player's summary: how many moves got each mark, and their accuracy (None: no
    move)."""

    inaccuracies: int
    mistakes: int
    blunders: int
    accuracy: float | None


@dataclass(frozen=True)
class Review:
    """A game's review: each move's, then White's and Black's summaries."""

    plies: tuple[PlyReview, ...]
    white: PlayerReview
    black: PlayerReview


def review_position(
    game_type: GameType | str,
    moves: Sequence[str],
    ply: int,
    *,
    depth: int = REVIEW_DEPTH,
    branching: int | None = REVIEW_BRANCHING,
    repetition_draw: bool = False,
) -> PlyReview:
    """The review of move ``ply`` of the game ``moves`` (MoveStrings) of ``game_type``: the
    position before it searched to ``depth`` plies, and the move played scored at the same
    horizon. Pure: the same arguments give the same review.

    Raises:
        HiveError: A move is unreadable or illegal.
        ValueError: ``ply`` is not the index of a move of ``moves``, or ``depth`` below 2.
    """
    if not 0 <= ply < len(moves):
        raise ValueError(f"ply {ply!r} is not a move of this {len(moves)}-ply game")
    if depth < 2:
        raise ValueError(f"depth must be at least 2, not {depth!r}")
    game = Game(game_type, repetition_draw=repetition_draw)
    for text in moves[:ply]:
        game.play(text)
    played = game.parse_move(moves[ply])
    if not game.is_legal(played):
        game.play(moves[ply])  # raises IllegalMoveError with the reason
    table = TranspositionTable()
    best, best_score = position_search(game, depth=depth, branching=branching, table=table)[0]
    if (played.piece, played.destination) == (best.piece, best.destination):
        played_score = best_score
    else:
        game.push(played)
        if game.is_over():
            played_score = -terminal_score(game)
        else:
            reply = search(game, depth=depth - 1, branching=branching, table=table, exact_top=1)
            played_score = -reply.ranked[0][1]
        game.pop()
        played_score = min(played_score, best_score)
    chance = win_chance(best_score)
    played_chance = win_chance(played_score)
    drop = max(0.0, chance - played_chance)
    return PlyReview(
        ply=ply,
        move=game.move_string(played),
        best=game.move_string(best),
        best_score=best_score,
        played_score=played_score,
        chance=chance,
        played_chance=played_chance,
        mark=mark(drop),
        accuracy=move_accuracy(drop),
    )


def position_search(
    game: Game,
    *,
    depth: int = REVIEW_DEPTH,
    branching: int | None = REVIEW_BRANCHING,
    table: TranspositionTable | None = None,
) -> list[tuple[Move, int]]:
    """The review's search of ``game`` (in progress): 1, 2, ... ``depth`` plies with one table,
    only the best move scored exactly; the ranking of the last depth."""
    table = table if table is not None else TranspositionTable()
    ranked: list[tuple[Move, int]] = []
    for d in range(1, depth + 1):
        ranked = search(game, depth=d, branching=branching, table=table, exact_top=1).ranked
    return ranked


Mapper = Callable[[Callable[[int], PlyReview], Iterable[int]], Iterator[PlyReview]]


def review(
    game_type: GameType | str,
    moves: Sequence[str],
    *,
    depth: int = REVIEW_DEPTH,
    branching: int | None = REVIEW_BRANCHING,
    repetition_draw: bool = False,
    mapper: Mapper = map,
    on_ply: Callable[[PlyReview], None] | None = None,
) -> Review:
    """The review of every move of a game (``review_position`` for each, then the summaries).

    Args:
        game_type: The game's type.
        moves: Its moves (MoveStrings), checked first.
        depth: The plies searched at each position.
        branching: K of those searches.
        repetition_draw: Whether the game was played with threefold repetition drawing.
        mapper: How the positions are searched: ``map`` (here, in order) or an executor's
            ``map`` (in worker processes; the function and its arguments pickle).
        on_ply: Called with each move's review as it comes (progress: ply k of n).

    Raises:
        HiveError: A move is unreadable or illegal.
    """
    game = Game(game_type, repetition_draw=repetition_draw)
    for text in moves:
        game.play(text)
    one = partial(
        review_position,
        game_type,
        list(moves),
        depth=depth,
        branching=branching,
        repetition_draw=repetition_draw,
    )
    plies = []
    for ply_review in mapper(one, range(len(moves))):
        plies.append(ply_review)
        if on_ply is not None:
            on_ply(ply_review)
    return Review(tuple(plies), summarize(plies[0::2]), summarize(plies[1::2]))


def summarize(plies: Sequence[PlyReview]) -> PlayerReview:
    """One player's marks and accuracy, from the reviews of their moves."""
    marks = [p.mark for p in plies]
    return PlayerReview(
        inaccuracies=marks.count(Mark.INACCURACY),
        mistakes=marks.count(Mark.MISTAKE),
        blunders=marks.count(Mark.BLUNDER),
        accuracy=player_accuracy([p.accuracy for p in plies]),
    )


__all__ = [
    "MARK_DROPS",
    "REVIEW_BRANCHING",
    "REVIEW_DEPTH",
    "Mark",
    "PlayerReview",
    "PlyReview",
    "Review",
    "mark",
    "move_accuracy",
    "player_accuracy",
    "position_search",
    "review",
    "review_position",
    "summarize",
]
