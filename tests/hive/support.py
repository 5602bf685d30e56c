"""Helpers shared by the rules-engine tests: moves as comparable sets, hexes by coordinates.

Moves are compared as ``(piece, destination)`` pairs, never as strings: one move has several
valid spellings. Strings appear only in failure messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import pytest

from hive import Game, Move, Piece
from hive.game import PASS
from hive.hexes import NEIGHBORS, axial, hex_at
from hive.notation import destination

# Positions with stacks, as canonical GameStrings (spelled as ``Game.game_string`` spells them).
# A Base+MLP game where wB2 climbs wQ and bB1 climbs bQ:
MIDGAME = "Base+MLP;InProgress;White[5];wB1;bB1 -wB1;wQ wB1-;bQ /bB1;wB2 wQ-;bQ /wB1;wB2 wQ;bB1 bQ"
# nokamute's Pillbug gate: Beetles on both Queens, and White's only moves are wP's throws of bA1.
STACKED_AND_THROWN = (
    "Base+P;InProgress;White[9];wP;bB1 wP-;wQ /wP;bQ bB1/;wQ /bB1;bQ wP/;wQ /wP;bA1 bQ/;"
    "wQ /bB1;bA1 -bQ;wQ /wP;bB2 bA1/;wQ /bB1;bB2 bQ;bA1 -wP;bB1 wQ"
)

# Pieces of a kind that swap places (the threefold repetition counts positions by kind):
# wS1 (0, 0), bS1 (1, 0), wQ (-1, 0), bQ (2, 0); White's ants west of wQ (wA1) and south-west
# of it (wA2); bA1 east of bQ, bG1 south-east of it.
ANTS = "Base;InProgress;White[5];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 -wQ;bA1 bQ-;wA2 /wQ;bG1 /bA1"
# White's ants swap places in three moves (wA1 round to wQ's north-west, wA2 into wA1's hex,
# wA1 into wA2's), while bA1 goes round and back: the position again, but for the numbers.
SWAP = ("wA1 \\wQ", "bA1 bQ/", "wA2 -wQ", "bA1 bS1/", "wA1 /wQ", "bA1 bQ-")
SWAP_BACK = ("wA2 \\wQ", "bA1 bQ/", "wA1 -wQ", "bA1 bS1/", "wA2 /wQ", "bA1 bQ-")

MoveKey = tuple[int, int]
"""A move as ``(piece, destination hex)``; the pass is ``PASS_KEY``."""

PASS_KEY: Final[MoveKey] = (PASS.piece, PASS.destination)


def key(move: Move) -> MoveKey:
    """The ``(piece, destination)`` pair that identifies ``move`` in its position."""
    return (move.piece, move.destination)


def legal_keys(game: Game) -> set[MoveKey]:
    """The legal moves of ``game`` as a set, after checking that none is listed twice."""
    moves = game.legal_moves()
    keys = {key(m) for m in moves}
    assert len(keys) == len(moves), f"a legal move is listed twice in {game.game_string()!r}"
    return keys


def expected_keys(game: Game, move_strings: Iterable[str]) -> set[MoveKey]:
    """Read MoveStrings on ``game``'s board (without checking legality) into a set of keys."""
    keys: set[MoveKey] = set()
    for text in move_strings:
        text = text.strip()
        if not text:
            continue
        keys.add(PASS_KEY if text == "pass" else destination(game.board, text))
    return keys


def destinations(game: Game, piece: int) -> set[int]:
    """The hexes ``piece`` may legally go to (by its own move or thrown by a Pillbug)."""
    return {m.destination for m in game.legal_moves() if m.piece == piece}


def moving_pieces(game: Game) -> set[Piece]:
    """Every piece that has at least one legal move."""
    return {Piece(m.piece) for m in game.legal_moves() if not m.is_pass}


def at(q: int, r: int) -> int:
    """The hex at axial ``(q, r)``: the first piece of a game sits at (0, 0); E is +q, SE +r."""
    return hex_at(q, r)


def cells(*coordinates: tuple[int, int]) -> set[int]:
    """The hexes at the given axial coordinates."""
    return {hex_at(q, r) for q, r in coordinates}


def is_surrounded(game: Game, piece: Piece) -> bool:
    """Whether all six neighbours of ``piece``'s hex hold a piece (read from the board)."""
    h = game.board.hex_of[piece]
    return h >= 0 and all(game.board.height[n] > 0 for n in NEIGHBORS[h])


def describe(game: Game, k: MoveKey) -> str:
    """A readable name for a move key in ``game``: its MoveString, or piece@(q, r)."""
    if k == PASS_KEY:
        return "pass"
    piece, to = k
    try:
        return game.move_string(Move(piece, game.board.hex_of[piece], to))
    except ValueError:  # an isolated hex has no MoveString
        return f"{Piece(piece).name}@{axial(to)}"


def assert_same_moves(game: Game, actual: set[MoveKey], expected: set[MoveKey]) -> None:
    """Fail with the missing and extra moves spelled out when the two sets differ."""
    if actual != expected:
        missing = sorted(describe(game, k) for k in expected - actual)
        extra = sorted(describe(game, k) for k in actual - expected)
        pytest.fail(f"{game.game_string()}\n  missing: {missing}\n  extra: {extra}")


def raw_state(game: Game) -> tuple[object, ...]:
    """Everything push and pop touch, read straight from the game and its board."""
    board = game.board
    return (
        game.hash,
        game.kind_hash,
        game.repetition_key(),
        game.state,
        game.ply,
        game.last_moved,
        tuple(game.moves),
        tuple(board.top),
        tuple(board.height),
        tuple(board.hex_of),
        {h: tuple(pieces) for h, pieces in board.under.items()},
    )


def slug(text: str) -> str:
    """A test id made of the words of ``text``: ``"Spider moves 2"`` -> ``"spider-moves-2"``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
