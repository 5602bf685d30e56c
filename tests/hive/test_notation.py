"""Notation round trips: MoveStrings (every valid spelling), GameStrings, pieces, game types.

Valid spellings follow Mzinga's reading of UHP (``Board.TryParseMove``): a reference with a
direction mark names the hex beside it at ground level, so it spells a move to an empty hex;
a bare reference means "on top of that piece", so a climb is spelled with the top of the stack.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from hive import (
    Game,
    GameType,
    HiveError,
    IllegalMoveError,
    InvalidGameStringError,
    InvalidMoveError,
    Move,
    Piece,
)
from hive.board import EMPTY
from hive.hexes import NEIGHBORS
from hive.notation import destination
from hive.pieces import ALL_GAME_TYPES

PLIES = 30
SAMPLE = 0.25
SEED = 20240611

# How a MoveString marks the direction from the reference to the destination, in the ring
# order E, NE, NW, W, SW, SE of hive.hexes (written out here, not taken from the engine).
MARKS = ("{ref}-", "{ref}/", "\\{ref}", "-{ref}", "/{ref}", "{ref}\\")


def valid_spellings(game: Game, move: Move) -> set[str]:
    """Every MoveString that names ``move`` in ``game``'s position."""
    if move.is_pass:
        return {"pass"}
    board = game.board
    name = Piece(move.piece).name
    if not board.occupied():
        return {name}
    if board.top[move.destination] != EMPTY:  # a climb: on top of the stack's top piece
        return {f"{name} {Piece(board.top[move.destination]).name}"}
    spellings = set()
    for d, n in enumerate(NEIGHBORS[move.destination]):
        for ref in board.stack(n):  # covered pieces and the mover itself included
            mark = MARKS[(d + 3) % 6]  # the destination seen from the reference
            spellings.add(f"{name} {mark.format(ref=Piece(ref).name)}")
    return spellings


def random_positions(game_type: GameType, rng: random.Random) -> Iterator[Game]:
    """The positions of one random game of up to PLIES plies (each yielded before its move is
    pushed, so the consumer sees each one as it stands)."""
    game = Game(game_type)
    for _ in range(PLIES):
        moves = game.legal_moves()
        if not moves:
            return
        yield game
        game.push(rng.choice(moves))
    yield game


def game_type_id(game_type: GameType) -> str:
    return str(game_type)


def check_spellings(game: Game, rng: random.Random) -> int:
    """Check every legal move's spellings in ``game``; returns how many moves were checked.

    The canonical MoveString goes through ``parse_move``; every valid spelling goes through
    the parser proper (``destination``), and one in SAMPLE of them through ``parse_move`` too
    (which adds the legality check, at the cost of generating the legal moves again).
    """
    legal = game.legal_moves()
    for move in legal:
        canonical = game.move_string(move)
        spellings = valid_spellings(game, move)
        assert canonical in spellings, (game.game_string(), canonical)
        assert game.parse_move(canonical) == move, (game.game_string(), canonical)
        if move.is_pass:
            continue
        for text in spellings:
            assert destination(game.board, text) == (move.piece, move.destination), (
                game.game_string(),
                text,
            )
        if rng.random() < SAMPLE:
            text = rng.choice(sorted(spellings))
            assert game.parse_move(text) == move, (game.game_string(), text)
    return len(legal)


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=game_type_id)
def test_every_spelling_of_every_legal_move_parses_back(game_type: GameType) -> None:
    rng = random.Random(f"{SEED}-{game_type}")
    checked = sum(check_spellings(game, rng) for game in random_positions(game_type, rng))
    assert checked > 500


# Positions with stacks, gates and Pillbugs, from the shared vectors.
STACKED_POSITIONS = {
    "uhp-beetle-gate": "Base;InProgress;White[12];wB1;bS1 wB1-;wQ \\wB1;bQ bS1/;wB2 -wQ;bB1 bQ\\;"
    "wS1 /wB2;bB1 bS1;wG1 /wS1;bQ \\bB1;wG2 wG1\\;bB2 bQ/;wG3 wG2\\;bB2 \\bQ;wA1 wG3-;bB2 wQ;"
    "wA2 wA1-;bA1 bQ/;wS2 wA2-;bA1 bB1/;wA3 wS2/;bA1 wA3/",
    "uhp-pillbug-gate": "Base+P;InProgress;White[9];wP;bB1 wP-;wQ /wP;bQ bB1/;wQ wP\\;bQ \\bB1;"
    "wQ /wP;bA1 bQ/;wQ wP\\;bA1 -bQ;wQ /wP;bB2 \\bQ;wQ wP\\;bB2 bQ;bA1 -wP;bB1 wQ",
    "perft-rs-beetle-gate": "Base+MLP;InProgress;White[5];wB1;bB1 -wB1;wQ wB1-;bQ /bB1;"
    "wB2 wQ-;bQ /wB1;wB2 wQ;bB1 bQ",
}


@pytest.mark.parametrize("game_string", STACKED_POSITIONS.values(), ids=STACKED_POSITIONS.keys())
def test_every_spelling_in_positions_with_stacks(game_string: str) -> None:
    game = Game.from_game_string(game_string)
    board = game.board
    assert any(board.height[h] > 1 for h in board.occupied())
    assert check_spellings(game, random.Random(SEED)) > 0


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=game_type_id)
def test_game_string_round_trip_is_stable(game_type: GameType) -> None:
    rng = random.Random(f"{SEED}-gs-{game_type}")
    for game in random_positions(game_type, rng):
        text = game.game_string()
        again = Game.from_game_string(text)
        assert again.game_string() == text
        assert again.hash == game.hash
        assert again.state == game.state
        assert again.moves == game.moves


# Mzinga's position for "You can't move there because a piece already exists at that
# position": bB1 (2, -1) beside bS1 (1, 0), which is west of bQ (2, 0).
CLIMB_POSITION = (
    "Base;InProgress;Black[5];wS1;bS1 wS1-;wB1 \\wS1;bB1 bS1/;wG1 /wS1;bG1 bS1\\;wQ /wB1;"
    "bQ bB1\\;wS2 /wG1"
)


def test_a_climb_is_spelled_with_the_top_of_the_stack() -> None:
    game = Game.from_game_string(CLIMB_POSITION)
    climb = game.parse_move("bB1 bS1")
    assert climb.destination == game.board.hex_of[Piece.bS1]
    assert game.move_string(climb) == "bB1 bS1"


@pytest.mark.parametrize(
    ("text", "reference", "direction"),
    [
        pytest.param("bB1 -bQ", Piece.bQ, 3, id="west-of-bQ"),
        pytest.param("bB1 wS1-", Piece.wS1, 0, id="east-of-wS1"),
        pytest.param("bB1 \\bG1", Piece.bG1, 2, id="north-west-of-bG1"),
        pytest.param("bB1 /bB1", Piece.bB1, 4, id="south-west-of-itself"),
    ],
)
def test_a_climb_spelled_beside_a_neighbour_is_rejected(
    text: str, reference: Piece, direction: int
) -> None:
    """As in Mzinga (and its invalid-move vector ``bB1 -bQ``): a direction mark names the
    ground-level hex beside the reference, and here that hex, bS1's, is taken."""
    game = Game.from_game_string(CLIMB_POSITION)
    board = game.board
    assert NEIGHBORS[board.hex_of[reference]][direction] == board.hex_of[Piece.bS1]
    with pytest.raises((IllegalMoveError, InvalidMoveError)) as info:
        game.parse_move(text)
    assert repr(text) in str(info.value)


def test_a_climb_spelled_with_a_covered_piece_is_rejected() -> None:
    """``bB2 wB1`` means "on top of wB1"; with wB2 on wB1 that spot is wB2's, so a climb onto
    the stack names wB2."""
    #             bB2
    #    wS1    wQ  wB1+wB2  bB1    bQ
    game = Game.from_game_string(
        "Base;InProgress;Black[5];wB1;bB1 wB1-;wQ -wB1;bQ bB1-;wB2 \\wB1;bB2 bB1/;wB2 wB1;"
        "bB2 \\bB1;wS1 -wQ"
    )
    board = game.board
    assert board.stack(board.hex_of[Piece.wB1]) == [Piece.wB1, Piece.wB2]
    climb = game.parse_move("bB2 wB2")
    assert climb.destination == board.hex_of[Piece.wB1]
    with pytest.raises((IllegalMoveError, InvalidMoveError)) as info:
        game.parse_move("bB2 wB1")
    assert repr("bB2 wB1") in str(info.value)


# -- Pieces and game types -------------------------------------------------------------------


@pytest.mark.parametrize("piece", list(Piece), ids=str)
def test_piece_round_trip(piece: Piece) -> None:
    assert Piece.parse(str(piece)) is piece
    assert str(piece) == piece.name
    assert piece.name[0] == piece.color.letter
    assert piece.name[1] == piece.bug.letter


@pytest.mark.parametrize("text", ["wQ1", "wS3", "wA4", "wM1", "xQ", "WQ", "wq", "w", "", "wS0"])
def test_piece_rejections(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Piece.parse(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=game_type_id)
def test_game_type_round_trip(game_type: GameType) -> None:
    assert GameType.parse(str(game_type)) == game_type


def test_game_type_strings() -> None:
    assert [str(gt) for gt in ALL_GAME_TYPES] == [
        "Base",
        "Base+P",
        "Base+L",
        "Base+LP",
        "Base+M",
        "Base+MP",
        "Base+ML",
        "Base+MLP",
    ]


@pytest.mark.parametrize("text", ["Base+MM", "Base+X", "Base+", "base", "Base+MLPM", "", "MLP"])
def test_game_type_rejections(text: str) -> None:
    with pytest.raises(InvalidGameStringError) as info:
        GameType.parse(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, HiveError)
