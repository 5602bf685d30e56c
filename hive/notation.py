"""UHP notation: MoveStrings and their canonical spelling.

A MoveString names the piece and where it goes relative to a reference piece already in play:
``wS1`` (the first move), ``bS1 wS1-``, ``wQ \\wS1``, ``wB1 bQ`` (climb onto bQ's stack), ``pass``.
Any piece next to the destination may serve as reference, the moving piece included; a
direction mark names an empty hex, and a climb names the top piece of the stack it climbs.
"""

from __future__ import annotations

import re
from typing import Final

from hive.board import EMPTY, HAND, Board
from hive.errors import IllegalMoveError, InvalidMoveError
from hive.hexes import NEIGHBORS
from hive.pieces import NAMES, Piece

PASS_STRING: Final = "pass"

_MOVE_RE: Final = re.compile(
    r"(?P<piece>\w+)(?:\s+(?P<before>[-/\\]?)(?P<ref>\w+)(?P<after>[-/\\]?))?"
)
# Direction from the reference to the destination, by the mark before or after its name.
_BEFORE: Final = {"-": 3, "/": 4, "\\": 2}
_AFTER: Final = {"-": 0, "/": 1, "\\": 5}


def parse_move_string(text: str) -> tuple[Piece, Piece | None, int | None]:
    """Split a MoveString into ``(piece, reference, direction)`` without looking at a board.

    ``reference`` is None for a bare piece (the first move of a game); ``direction`` is None
    when the piece goes on top of the reference. A pass is not handled here.
    """
    match = _MOVE_RE.fullmatch(text.strip())
    if not match or (match["before"] and match["after"]):
        raise InvalidMoveError(f"unreadable MoveString {text!r}")
    piece = Piece.parse(match["piece"])
    if match["ref"] is None:
        return piece, None, None
    reference = Piece.parse(match["ref"])
    mark = match["before"] or match["after"]
    direction = (_BEFORE if match["before"] else _AFTER)[mark] if mark else None
    return piece, reference, direction


def destination(board: Board, text: str) -> tuple[Piece, int]:
    """The piece a MoveString names and the hex it goes to on ``board``."""
    piece, reference, direction = parse_move_string(text)
    if reference is None:
        if board.occupied():
            raise InvalidMoveError(f"{text!r} needs a reference piece (only a first move has none)")
        return piece, 0
    h = board.hex_of[reference]
    if h == HAND:
        raise InvalidMoveError(f"{text!r}: the reference piece {reference} is not in play")
    if direction is None:  # a climb names the top of the stack it climbs
        if board.top[h] != reference:
            top = Piece(board.top[h])
            raise IllegalMoveError(f"{text!r}: {reference} is covered; name the top piece, {top}")
        return piece, h
    to = NEIGHBORS[h][direction]
    if board.top[to] != EMPTY:  # a direction names an empty hex
        top = Piece(board.top[to])
        raise IllegalMoveError(
            f"{text!r}: a piece is already there; to climb onto it write {piece} {top}"
        )
    return piece, to


def spell(piece: int, board: Board, to: int) -> str:
    """The canonical MoveString for ``piece`` going to hex ``to`` (board before the move).

    On top of a stack: the stack's top piece. Otherwise the first neighbour of ``to`` in
    direction order, naming the top of its stack, or the piece below when that is the mover.
    """
    name = NAMES[piece]
    top = board.top
    if top[to] != EMPTY:
        return f"{name} {NAMES[top[to]]}"
    for d, n in enumerate(NEIGHBORS[to]):
        ref = top[n]
        if ref == piece:
            below = board.under.get(n)
            ref = below[-1] if below else EMPTY
        if ref != EMPTY:
            return _relative(name, NAMES[ref], (d + 3) % 6)
    if not board.occupied():
        return name
    raise InvalidMoveError(f"{name} to an isolated hex has no MoveString")


def _relative(name: str, ref: str, direction: int) -> str:
    """``name`` going in ``direction`` from ``ref``."""
    mark = "-/\\-/\\"[direction]
    return f"{name} {ref}{mark}" if direction in (0, 1, 5) else f"{name} {mark}{ref}"
