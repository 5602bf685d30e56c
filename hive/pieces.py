"""Colours, bugs, pieces and game types."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from hive.errors import InvalidGameStringError, InvalidMoveError


class Color(IntEnum):
    WHITE = 0
    BLACK = 1

    def __str__(self) -> str:
        return "White" if self is Color.WHITE else "Black"

    @property
    def letter(self) -> str:
        return "w" if self is Color.WHITE else "b"


class Bug(IntEnum):
    QUEEN = 0
    SPIDER = 1
    BEETLE = 2
    GRASSHOPPER = 3
    ANT = 4
    MOSQUITO = 5
    LADYBUG = 6
    PILLBUG = 7

    @property
    def letter(self) -> str:
        return "QSBGAMLP"[self]


BUG_COUNTS: Final[tuple[int, ...]] = (1, 2, 2, 3, 3, 1, 1, 1)
"""How many pieces of each bug a player has."""

PIECES_PER_COLOR: Final = sum(BUG_COUNTS)  # 14


class Piece(IntEnum):
    """One of the 28 pieces. White pieces are 0-13, black 14-27; the names are UHP's."""

    wQ = 0
    wS1 = 1
    wS2 = 2
    wB1 = 3
    wB2 = 4
    wG1 = 5
    wG2 = 6
    wG3 = 7
    wA1 = 8
    wA2 = 9
    wA3 = 10
    wM = 11
    wL = 12
    wP = 13
    bQ = 14
    bS1 = 15
    bS2 = 16
    bB1 = 17
    bB2 = 18
    bG1 = 19
    bG2 = 20
    bG3 = 21
    bA1 = 22
    bA2 = 23
    bA3 = 24
    bM = 25
    bL = 26
    bP = 27

    def __str__(self) -> str:
        return self.name

    @property
    def color(self) -> Color:
        return Color(self >= PIECES_PER_COLOR)

    @property
    def bug(self) -> Bug:
        return Bug(BUG_OF[self])

    @property
    def number(self) -> int:
        """1-based number among the player's pieces of its bug (wS2 -> 2)."""
        return NUMBER_OF[self]

    @classmethod
    def parse(cls, name: str) -> Piece:
        """The piece called ``name`` in UHP (``wQ``, ``bS2``); raises InvalidMoveError."""
        piece = _BY_NAME.get(name)  # (a dict: ``__members__`` builds a mapping proxy a call)
        if piece is None:
            raise InvalidMoveError(f"unknown piece {name!r}")
        return piece


_BY_NAME: Final[dict[str, Piece]] = {piece.name: piece for piece in Piece}

NUM_PIECES: Final = 2 * PIECES_PER_COLOR
BUG_OF: Final = tuple(b for _ in range(2) for b, n in enumerate(BUG_COUNTS) for _ in range(n))
NUMBER_OF: Final = tuple(i + 1 for _ in range(2) for n in BUG_COUNTS for i in range(n))
COLOR_OF: Final = tuple(p // PIECES_PER_COLOR for p in range(NUM_PIECES))
FIRST_OF: Final = tuple(
    tuple(c * PIECES_PER_COLOR + sum(BUG_COUNTS[:b]) for b in range(8)) for c in range(2)
)
"""``FIRST_OF[color][bug]`` is the piece id of that player's first piece of that bug."""

QUEENS: Final[tuple[int, ...]] = (FIRST_OF[0][Bug.QUEEN], FIRST_OF[1][Bug.QUEEN])
"""``QUEENS[color]`` is the piece id of that player's Queen. (Typed ``tuple[int, ...]``: the
compiled build keeps a tuple of fixed length unboxed, and boxes it again at each index by a
variable; the other tables here have a length that only the interpreter knows.)"""

OWNER: Final = (*COLOR_OF, 2)
"""``OWNER[board.top[h]]`` is the colour of the top piece at ``h``, and 2 for an empty hex
(``EMPTY`` is -1, which indexes the last entry)."""

BUG_AT: Final = (*BUG_OF, -1)
"""``BUG_AT[board.top[h]]`` is the bug of the top piece at ``h``, and -1 for an empty hex."""

NAMES: Final = tuple(Piece(p).name for p in range(NUM_PIECES))
"""``NAMES[piece]`` is the UHP name of a piece id (``Piece(piece).name`` without building the
enum member: the notation spells many moves)."""

MEMBERS: Final = tuple(Piece(p) for p in range(NUM_PIECES))
"""``MEMBERS[piece]`` is ``Piece(piece)``, the enum member of a piece id, from a tuple
(calling the enum class goes through Python's enum machinery: a server's every state lists
the pieces in hand)."""


@dataclass(frozen=True, order=True)
class GameType:
    """Which expansion pieces are in play: ``Base``, ``Base+M`` ... ``Base+MLP``."""

    mosquito: bool = False
    ladybug: bool = False
    pillbug: bool = False

    @classmethod
    def parse(cls, text: str) -> GameType:
        """Read a GameTypeString such as ``Base+MLP``; raises InvalidGameStringError."""
        match = re.fullmatch(r"Base(?:\+([MLP]{1,3}))?", text.strip())
        letters = match.group(1) or "" if match else ""
        if not match or len(set(letters)) != len(letters):
            raise InvalidGameStringError(f"invalid GameTypeString {text!r}")
        return cls("M" in letters, "L" in letters, "P" in letters)

    def __str__(self) -> str:
        letters = "M" * self.mosquito + "L" * self.ladybug + "P" * self.pillbug
        return f"Base+{letters}" if letters else "Base"

    @functools.cached_property
    def bugs(self) -> tuple[Bug, ...]:
        """The bugs in play, in UHP order."""
        extra = (self.mosquito, self.ladybug, self.pillbug)
        return tuple(b for b in Bug if b < Bug.MOSQUITO or extra[b - Bug.MOSQUITO])

    def has_piece(self, piece: int) -> bool:
        return BUG_OF[piece] in self.bugs

    def __reduce__(self) -> tuple[type[GameType], tuple[bool, bool, bool]]:
        """Pickled by its fields (a worker process gets its games so): the compiled build's
        frozen class cannot be restored attribute by attribute."""
        return GameType, (self.mosquito, self.ladybug, self.pillbug)


BASE: Final = GameType()
BASE_MLP: Final = GameType(True, True, True)
ALL_GAME_TYPES: Final = tuple(
    GameType(m, l_, p) for m in (False, True) for l_ in (False, True) for p in (False, True)
)
