"""The weighted opening book: the bots' first two placements, named by the shape they make.

The first four placed pieces form a chain ``w2 - w1 - b1 - b2``: White's first piece ``w1`` at
the origin, Black's ``b1`` next to it, White's second ``w2`` touching ``w1`` only and Black's
second ``b2`` touching ``b1`` only. The chain turns by 60 degrees or goes straight at ``w1`` and
at ``b1`` (a 120-degree turn would put ``w2`` next to ``b1``, or ``b2`` next to ``w1``, which the
placement rule forbids), and the two turns name the opening:

    I   straight at both            L   one bend (F and J are its rotations and reflections)
    C   two bends to the same side  Z   two bends to opposite sides
    X   either player's second placement is not its Queen, whatever the geometry

The book (``ai/book.toml``, documented in ``docs/book.md``) gives, per bot level, weights for
the first bug, the second bug and the shape. Its levels are the tables of the file, named like
the levels of ``ai.bots.LEVELS``; a bot level the book lacks opens by search. Everything here
is pure: ``OpeningBook.load`` reading the data file is the only IO.
"""

from __future__ import annotations

import math
import random
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Final, TypeVar

from hive import Bug, Game, Move
from hive.hexes import direction_between
from hive.pieces import BUG_OF

_TABLES: Final = ("first", "second", "shapes")
_BUG_LETTERS: Final = {bug.letter: bug for bug in Bug}
# Bugs in every game type, none of them used up by a side's second turn.
_BASE_BUGS: Final = frozenset((Bug.QUEEN, Bug.SPIDER, Bug.BEETLE, Bug.GRASSHOPPER, Bug.ANT))


class Shape(StrEnum):
    """The shape of an opening's first four placements."""

    C = "C"
    I = "I"  # noqa: E741 (the shape's name is the letter)
    L = "L"
    Z = "Z"
    X = "X"


CHAIN_SHAPES: Final = (Shape.C, Shape.I, Shape.L, Shape.Z)
"""The shapes the book weights (``X`` comes from the second-bug weights instead)."""

_SHAPE_LETTERS: Final = {shape.value: shape for shape in CHAIN_SHAPES}

# What White's second placement can still lead to, by its turn at w1 (0 straight, +-1 bent).
_WHITE_REACH: Final = {
    0: frozenset((Shape.I, Shape.L)),
    1: frozenset((Shape.L, Shape.C, Shape.Z)),
    -1: frozenset((Shape.L, Shape.C, Shape.Z)),
}


class BookError(ValueError):
    """A bad book data file; the message names the file and the offending key or value."""


def turn_at(before: int, at: int, after: int) -> int | None:
    """The turn of the path ``before -> at -> after`` of neighbouring hexes, at ``at``.

    Returns 0 when the path goes straight, +1 for a 60-degree turn counterclockwise (to the
    left, the direction ring E, NE, NW, W, SW, SE runs counterclockwise), -1 for one clockwise;
    None when the hexes are not neighbours in that order or the turn is sharper.
    """
    d_in = direction_between(before, at)
    d_out = direction_between(at, after)
    if d_in is None or d_out is None:
        return None
    return {0: 0, 1: 1, 5: -1}.get((d_out - d_in) % 6)


def shape_of_turns(at_w1: int, at_b1: int) -> Shape:
    """The shape of a chain ``w2 - w1 - b1 - b2`` turning by ``at_w1`` and ``at_b1`` (each 0 or
    +-1, as ``turn_at`` gives)."""
    if at_w1 == 0 and at_b1 == 0:
        return Shape.I
    if at_w1 == 0 or at_b1 == 0:
        return Shape.L
    return Shape.C if at_w1 == at_b1 else Shape.Z


def classify(game: Game) -> Shape | None:
    """The shape of the game's opening once its first four plies are played.

    Returns None before that, and when the first four plies are not four placements forming a
    chain (which no legal game does). ``X`` wins over the geometry: it is the shape whenever
    either player's second placement is not its Queen.
    """
    if len(game.moves) < 4:
        return None
    w1, b1, w2, b2 = game.moves[:4]
    if not all(move.is_placement for move in (w1, b1, w2, b2)):
        return None
    if BUG_OF[w2.piece] != Bug.QUEEN or BUG_OF[b2.piece] != Bug.QUEEN:
        return Shape.X
    at_w1 = turn_at(w2.destination, w1.destination, b1.destination)
    at_b1 = turn_at(w1.destination, b1.destination, b2.destination)
    if at_w1 is None or at_b1 is None:
        return None
    return shape_of_turns(at_w1, at_b1)


@dataclass(frozen=True)
class BookLevel:
    """The weights of one level. Weights are relative (they need not add up to 1).

    Attributes:
        first: bug -> weight of the first placement (the Queen's weight is ignored: she may not
            enter on turn 1).
        second: bug -> weight of the second placement (not the Queen means an ``X`` opening).
        shapes: shape -> weight, for ``C``, ``I``, ``L`` and ``Z`` only.
    """

    first: Mapping[Bug, float]
    second: Mapping[Bug, float]
    shapes: Mapping[Shape, float]

    def __post_init__(self) -> None:
        for name in _TABLES:  # read-only copies, so that a level cannot change under a bot
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))


@dataclass(frozen=True)
class OpeningBook:
    """Weighted openings per level; ``choose`` plays a level's first two placements.

    Attributes:
        levels: The weights of each level the book knows, by the level's name (in the order
            of the data file).
    """

    levels: Mapping[str, BookLevel]

    @classmethod
    def load(cls, path: Path | None = None) -> OpeningBook:
        """Read and check a book data file (default: ``ai/book.toml``, shipped with ``ai``).

        Raises:
            BookError: the file is not valid TOML or breaks the format of ``docs/book.md``;
                the message names the file and the offending key or value.
        """
        if path is None:
            resource = resources.files("ai").joinpath("book.toml")
            source, data = str(resource), resource.read_bytes()
        else:
            source, data = str(path), path.read_bytes()
        try:
            document = tomllib.loads(data.decode())
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise BookError(f"{source}: not a valid TOML file: {error}") from None
        return cls(MappingProxyType(_parse_levels(document, source)))

    def level(self, name: str) -> BookLevel:
        """The weights of level ``name``; raises KeyError naming the known levels."""
        try:
            return self.levels[name]
        except KeyError:
            known = ", ".join(self.levels)
            raise KeyError(f"unknown book level {name!r} (the levels are {known})") from None

    def choose(self, game: Game, level: str, rng: random.Random) -> Move | None:
        """A placement for the side to move's first or second turn, drawn from the book.

        First turn: a bug drawn from ``first`` among those the side may place, at a hex drawn
        uniformly. Second turn: a bug drawn from ``second``, then a shape drawn from ``shapes``
        among those still realisable (weights renormalised), then a hex drawn uniformly among
        those that realise the shape (for White: that can still lead to it). With no realisable
        shape of positive weight, any hex of the drawn bug; likewise in a position that is not a
        normal opening. Weights of bugs the side cannot place (not in the game type, all used,
        the Queen on turn 1) are dropped; if no weight is left, the bug is drawn uniformly.

        Returns:
            A member of ``game.legal_moves()``, or None from the side's third turn on.

        Raises:
            KeyError: ``level`` is not one of the book's levels.
        """
        book = self.level(level)
        if game.ply >= 4 or game.is_over():
            return None
        placements = [move for move in game.legal_moves() if move.is_placement]
        if not placements:
            return None
        first_turn = game.ply < 2
        bugs = sorted({Bug(BUG_OF[move.piece]) for move in placements})  # no Queen on turn 1
        bug = _draw(bugs, book.first if first_turn else book.second, rng)
        moves = [move for move in placements if BUG_OF[move.piece] == bug]
        reach = None if first_turn else _reachable_shapes(game, moves)
        if reach is None:
            return rng.choice(moves)
        shapes = sorted({shape for reachable in reach.values() for shape in reachable})
        weights = [max(book.shapes.get(shape, 0.0), 0.0) for shape in shapes]
        if sum(weights) <= 0:
            return rng.choice(moves)
        shape = rng.choices(shapes, weights)[0]
        return rng.choice([move for move in moves if shape in reach[move]])


_T = TypeVar("_T")


def _draw(items: Sequence[_T], weights: Mapping[_T, float], rng: random.Random) -> _T:
    """One of ``items`` drawn by ``weights`` (missing ones weigh 0); uniformly if all are 0."""
    ws = [max(weights.get(item, 0.0), 0.0) for item in items]
    if sum(ws) <= 0:
        return rng.choice(items)
    return rng.choices(items, ws)[0]


def _reachable_shapes(game: Game, moves: list[Move]) -> dict[Move, frozenset[Shape]] | None:
    """For a second-turn placement, the shapes each of ``moves`` can still lead to; None when
    the first plies do not form the start of a chain (not a normal opening)."""
    played = game.moves[: game.ply]
    if len(played) not in (2, 3) or not all(move.is_placement for move in played):
        return None
    w1, b1 = played[0].destination, played[1].destination
    reach: dict[Move, frozenset[Shape]] = {}
    if len(played) == 2:
        for move in moves:
            at_w1 = turn_at(move.destination, w1, b1)
            if at_w1 is None:
                return None
            reach[move] = _WHITE_REACH[at_w1]
        return reach
    at_w1 = turn_at(played[2].destination, w1, b1)
    if at_w1 is None:
        return None
    for move in moves:
        at_b1 = turn_at(w1, b1, move.destination)
        if at_b1 is None:
            return None
        reach[move] = frozenset((shape_of_turns(at_w1, at_b1),))
    return reach


# -- reading the data file ---------------------------------------------------------------------

_K = TypeVar("_K")


def _parse_levels(document: Mapping[str, object], source: str) -> dict[str, BookLevel]:
    levels = {}
    for name, table in document.items():
        if not isinstance(table, dict):
            raise BookError(f"{source}: {name} must be a table, not {table!r}")
        for key in table:
            if key not in _TABLES:
                raise BookError(
                    f"{source}: unknown key {name}.{key} (expected {', '.join(_TABLES)})"
                )
        for key in _TABLES:
            if key not in table:
                raise BookError(f"{source}: missing table [{name}.{key}]")
        first = _parse_weights(table["first"], f"{name}.first", _BUG_LETTERS, source)
        second = _parse_weights(table["second"], f"{name}.second", _BUG_LETTERS, source)
        shapes = _parse_weights(table["shapes"], f"{name}.shapes", _SHAPE_LETTERS, source)
        if first.get(Bug.QUEEN, 0.0) > 0:
            raise BookError(f"{source}: {name}.first.Q: the Queen may not be placed on turn 1")
        for key, weights in (("first", first), ("second", second)):
            if not any(weights.get(bug, 0.0) > 0 for bug in _BASE_BUGS):
                raise BookError(
                    f"{source}: {name}.{key}: give a positive weight to a bug of the base game "
                    "(Q S B G A), so that the level plays in every game type"
                )
        levels[name] = BookLevel(first, second, shapes)
    return levels


def _parse_weights(
    table: object, where: str, letters: Mapping[str, _K], source: str
) -> dict[_K, float]:
    if not isinstance(table, dict):
        raise BookError(f"{source}: {where} must be a table of letter = weight, not {table!r}")
    known = " ".join(letters)
    weights: dict[_K, float] = {}
    for key, value in table.items():
        if key not in letters:
            if key == Shape.X and where.endswith("shapes"):
                raise BookError(
                    f"{source}: {where}.X: X is not weighted here: it comes from the second "
                    "placement not being the Queen (see the level's second table)"
                )
            raise BookError(f"{source}: {where}.{key}: unknown letter {key!r} (expected {known})")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BookError(f"{source}: {where}.{key}: the weight {value!r} is not a number")
        if not math.isfinite(value) or value < 0:
            raise BookError(
                f"{source}: {where}.{key}: the weight {value!r} must be finite and >= 0"
            )
        weights[letters[key]] = float(value)
    if not any(weights.values()):
        raise BookError(f"{source}: {where}: all weights are zero (or none is given)")
    return weights


__all__ = [
    "CHAIN_SHAPES",
    "BookError",
    "BookLevel",
    "OpeningBook",
    "Shape",
    "classify",
    "shape_of_turns",
    "turn_at",
]
