"""The shared rule vectors: complete legal-move sets, per-piece moves, rejected moves, outcomes.

Expected moves are read with ``hive.notation.destination`` and compared as sets of
``(piece, destination)``; the pass is an element of its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from hive import (
    Game,
    GameState,
    GameType,
    HiveError,
    IllegalMoveError,
    InvalidGameStringError,
    InvalidMoveError,
    Piece,
)
from hive.hexes import axial
from hive.notation import destination
from tests.hive.support import (
    assert_same_moves,
    expected_keys,
    key,
    legal_keys,
    slug,
)
from tests.vectors import VECTORS

# -- Mzinga: complete legal-move sets of real games ----------------------------------------------


def real_game_cases() -> list[Any]:
    """One case per row; ids name the championship year and the number of moves played."""
    cases = []
    year = "?"
    for line in (VECTORS / "mzinga_validmoves_realgames.tsv").read_text().splitlines():
        if line.startswith("#"):
            year = line.split("Championships ")[1][:4]
        elif line.strip():
            game_string, moves = line.split("\t")
            played = len(game_string.split(";")) - 3
            cases.append(pytest.param(game_string, moves, id=f"wc{year}-move{played:02d}"))
    return cases


REAL_GAME_CASES = real_game_cases()


def test_real_games_file_has_195_positions() -> None:
    assert len(REAL_GAME_CASES) == 195
    assert len({case.id for case in REAL_GAME_CASES}) == 195


@pytest.mark.parametrize(("game_string", "moves"), REAL_GAME_CASES)
def test_real_game_legal_moves(game_string: str, moves: str) -> None:
    game = Game.from_game_string(game_string)
    expected = expected_keys(game, moves.split(";"))
    assert_same_moves(game, legal_keys(game), expected)
    assert game.count_legal_moves() == len(expected)


@pytest.mark.parametrize(("game_string", "moves"), REAL_GAME_CASES)
def test_move_strings_spell_every_legal_move_as_move_string_does(
    game_string: str, moves: str
) -> None:
    game = Game.from_game_string(game_string)
    legal = game.legal_moves()
    assert game.move_strings(legal) == [game.move_string(move) for move in legal]


# -- Mzinga: the moves of one piece --------------------------------------------------------------


def per_piece_cases() -> list[Any]:
    cases = []
    source = reason = "?"
    for line in (VECTORS / "mzinga_validmoves_per_piece.tsv").read_text().splitlines():
        if line.startswith("# ---"):
            source = line.split("ValidMovesFor")[1].split("Test")[0]
        elif line.startswith("#"):
            reason = line.lstrip("# ")
        elif line.strip():
            game_string, moves = line.split("\t")
            cases.append(pytest.param(game_string, moves, id=f"{source}-{slug(reason)}"))
    return cases


PER_PIECE_CASES = per_piece_cases()


def test_per_piece_file_covers_every_bug() -> None:
    assert len(PER_PIECE_CASES) == 10
    sources = {case.id.split("-")[0] for case in PER_PIECE_CASES}
    assert sources == {
        "QueenBee",
        "Spider",
        "Beetle",
        "Grasshopper",
        "SoldierAnt",
        "Mosquito",
        "Ladybug",
        "Pillbug",
    }


@pytest.mark.parametrize(("game_string", "moves"), PER_PIECE_CASES)
def test_moves_of_one_piece(game_string: str, moves: str) -> None:
    game = Game.from_game_string(game_string)
    expected = expected_keys(game, moves.split(";"))
    (piece,) = {p for p, _ in expected}  # every expected move names the same piece
    actual = {k for k in legal_keys(game) if k[0] == piece}
    assert_same_moves(game, actual, expected)


# -- Mzinga: moves rejected, by rule ------------------------------------------------------------


def invalid_move_cases() -> list[Any]:
    """One case per row; the id is the ``#`` comment above the pair (Mzinga's reason)."""
    cases = []
    reason = "?"
    count = 0
    for line in (VECTORS / "mzinga_invalidmoves_by_rule.tsv").read_text().splitlines():
        if line.startswith("#"):
            reason, count = slug(line.lstrip("# ")), 0
        elif line.strip():
            game_string, move = line.split("\t")
            count += 1
            cases.append(pytest.param(game_string, move, id=f"{reason}-{count}"))
    return cases


INVALID_MOVE_CASES = invalid_move_cases()


def test_invalid_moves_file_has_every_pair() -> None:
    assert len(INVALID_MOVE_CASES) == 24


def replay(game_string: str) -> Game:
    """The game a GameString's moves give, read as Mzinga reads it: the state and turn fields
    are ignored (four rows of the invalid-moves file carry stale ones, such as
    ``Base;NotStarted;White[1];wS1``, which ``Game.from_game_string`` rightly refuses)."""
    game_type, _, _, *moves = game_string.split(";")
    game = Game(GameType.parse(game_type))
    for move in moves:
        game.play(move)
    return game


@pytest.mark.parametrize(("game_string", "move"), INVALID_MOVE_CASES)
def test_invalid_move_is_rejected(game_string: str, move: str) -> None:
    game = replay(game_string)
    before = (game.game_string(), game.hash, game.state, len(game.moves))
    with pytest.raises((IllegalMoveError, InvalidMoveError)) as info:
        game.play(move)
    assert isinstance(info.value, HiveError)
    assert repr(move) in str(info.value)
    assert (game.game_string(), game.hash, game.state, len(game.moves)) == before


# -- nokamute: uhp_tests.txt ---------------------------------------------------------------------


@dataclass(frozen=True)
class UhpBlock:
    name: str
    game_string: str
    valid_moves: str | None
    """The expected ``validmoves`` line, or None when the block has none (finished games)."""


def uhp_blocks() -> list[UhpBlock]:
    """Blocks of ``# name`` / GameString / optional move list; header-only blocks are dropped."""
    blocks = []
    for chunk in (VECTORS / "nokamute_uhp_tests.txt").read_text().split("\n\n"):
        lines = chunk.strip().splitlines()
        names = [line.lstrip("# ") for line in lines if line.startswith("#")]
        data = [line for line in lines if not line.startswith("#")]
        if data:
            blocks.append(UhpBlock(names[-1], data[0], data[1] if len(data) > 1 else None))
    return blocks


UHP_BLOCKS = uhp_blocks()
REPETITION = "Draw by threefold repetition"


def test_uhp_file_has_every_block() -> None:
    assert len(UHP_BLOCKS) == 21
    assert sum(block.name == REPETITION for block in UHP_BLOCKS) == 1


@pytest.mark.parametrize(
    "block",
    [block for block in UHP_BLOCKS if block.name != REPETITION],
    ids=lambda block: slug(block.name),
)
def test_uhp_block(block: UhpBlock) -> None:
    game = Game.from_game_string(block.game_string)
    state = GameState(block.game_string.split(";")[1])
    assert game.state == state
    if state.is_over:
        assert game.legal_moves() == []
        assert game.count_legal_moves() == 0
    else:
        assert block.valid_moves is not None
        expected = expected_keys(game, block.valid_moves.split(";"))
        assert_same_moves(game, legal_keys(game), expected)
        assert game.count_legal_moves() == len(expected)


def test_uhp_threefold_repetition_is_a_draw_only_with_the_rule_on() -> None:
    (block,) = [block for block in UHP_BLOCKS if block.name == REPETITION]
    game = Game.from_game_string(block.game_string, repetition_draw=True)
    assert game.state == GameState.DRAW
    assert game.legal_moves() == []

    # With the rule off (Mzinga's rules) the same moves leave the game in progress, so the
    # GameString's Draw no longer matches what its moves give.
    with pytest.raises(InvalidGameStringError) as info:
        Game.from_game_string(block.game_string)
    assert "InProgress" in str(info.value)
    assert repr(block.game_string) in str(info.value)
    in_progress = block.game_string.replace(";Draw;", ";InProgress;", 1)
    game = Game.from_game_string(in_progress)
    assert game.state == GameState.IN_PROGRESS
    assert game.legal_moves()

    # With the rule on, the draw comes exactly when the position occurs a third time.
    game = Game(GameType.parse("Base"), repetition_draw=True)
    hashes = []
    for move in block.game_string.split(";")[3:]:
        assert game.state != GameState.DRAW
        game.play(move)
        hashes.append(game.hash)
    assert game.state == GameState.DRAW
    assert hashes[3] == hashes[7] == hashes[11]  # after plies 4, 8 and 12
    assert hashes.count(hashes[11]) == 3


# -- Mzinga: BoardTests.cs unit tests ------------------------------------------------------------

BOARD_UNIT_TESTS = json.loads((VECTORS / "mzinga_board_unit_tests.json").read_text())["cases"]
COUNTED = [case for case in BOARD_UNIT_TESTS if "expected_validmove_count" in case]
CLOSED_CIRCLE = "Board_CanMoveWithoutBreakingHive_ClosedCircleTest"
OPEN_CIRCLE = "Board_CanMoveWithoutBreakingHive_OpenCircleTest"
ONE_HIVE = "Board_IsOneHive_* (same two GameStrings)"  # checked by the two circle tests


def board_case(name: str) -> dict[str, Any]:
    cases: list[dict[str, Any]] = [case for case in BOARD_UNIT_TESTS if case["test"] == name]
    (case,) = cases
    return case


def test_every_board_unit_test_is_checked() -> None:
    """Each case of the JSON file is picked up by one of the tests below."""
    names = {case["test"] for case in BOARD_UNIT_TESTS}
    checked = {case["test"] for case in COUNTED} | {CLOSED_CIRCLE, OPEN_CIRCLE, ONE_HIVE}
    assert names == checked
    assert len(COUNTED) == 3


@pytest.mark.parametrize("case", COUNTED, ids=lambda case: case["test"])
def test_board_unit_test(case: dict[str, Any]) -> None:
    game = Game.from_game_string(case["gamestring"])
    moves = game.legal_moves()
    assert len(moves) == case["expected_validmove_count"]
    assert game.count_legal_moves() == case["expected_validmove_count"]
    if "expected_board_state" in case:
        assert str(game.state) == case["expected_board_state"]
    if "expected_all_moves_by" in case:
        assert {Piece(m.piece) for m in moves} == {Piece.parse(case["expected_all_moves_by"])}
    if "nokamute_validmoves" in case:
        expected = expected_keys(game, case["nokamute_validmoves"].split(";"))
        assert_same_moves(game, {key(m) for m in moves}, expected)


def test_new_board_then_black_has_24_moves() -> None:
    """The note on Board_NewBoardValidMovesTest: after ``wS1``, 4 bugs x 6 hexes."""
    game = Game.from_game_string("Base;NotStarted;White[1]")
    game.play("wS1")
    assert len(legal_keys(game)) == 24


def pieces_in_play(game: Game) -> set[Piece]:
    return {Piece(p) for p, h in enumerate(game.board.hex_of) if h >= 0}


def pinned_pieces(game: Game) -> set[Piece]:
    board = game.board
    return {Piece(board.top[h]) for h in board.articulation_points()}


def test_closed_circle_every_piece_can_be_lifted() -> None:
    game = Game.from_game_string(board_case(CLOSED_CIRCLE)["gamestring"])
    assert len(pieces_in_play(game)) == 6
    assert game.board.articulation_points() == set()
    assert game.board.is_connected()
    for piece in pieces_in_play(game):  # each lift, done for real, leaves one hive
        h = game.board.hex_of[piece]
        game.board.lift(h)
        assert game.board.is_connected(), f"lifting {piece} at {axial(h)}"
        game.board.place(piece, h)


def test_open_circle_only_the_two_ends_can_be_lifted() -> None:
    game = Game.from_game_string(board_case(OPEN_CIRCLE)["gamestring"])
    assert game.board.is_connected()
    assert pinned_pieces(game) == {Piece.wS1, Piece.bS1, Piece.wQ}
    assert pieces_in_play(game) - pinned_pieces(game) == {Piece.wG1, Piece.bQ}
    for piece in pieces_in_play(game):  # the articulation points agree with real lifts
        h = game.board.hex_of[piece]
        game.board.lift(h)
        assert game.board.is_connected() == (piece in {Piece.wG1, Piece.bQ}), piece
        game.board.place(piece, h)
    game.board.lift(game.board.hex_of[Piece.wS1])
    assert not game.board.is_connected()


def test_expected_move_strings_name_real_hexes() -> None:
    """``destination`` reads a MoveString relative to its reference, here ``bS1 wS1-``."""
    game = Game.from_game_string("Base;InProgress;Black[1];wS1")
    piece, to = destination(game.board, "bS1 wS1-")
    assert (piece, axial(to)) == (Piece.bS1, (1, 0))
