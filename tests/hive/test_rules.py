"""Our own rule cases, for what the shared vectors miss.

Each position is built from a GameString written for the case and checked by reasoning on the
board. Coordinates are axial ``(q, r)`` with the first piece at (0, 0); the neighbours of a hex
in UHP terms are E (+1, 0) ``X-``, NE (+1, -1) ``X/``, NW (0, -1) ``\\X``, W (-1, 0) ``-X``,
SW (-1, +1) ``/X`` and SE (0, +1) ``X\\``. The sketches below show rows of constant r, each
shifted half a hex right of the one above.
"""

from __future__ import annotations

import pytest

from hive import (
    Game,
    GameState,
    GameType,
    IllegalMoveError,
    InvalidGameStringError,
    InvalidMoveError,
    Piece,
)
from hive.game import PASS
from hive.hashing import STUNNED_KEYS
from hive.hexes import NEIGHBORS
from tests.hive.support import (
    ANTS,
    SWAP,
    SWAP_BACK,
    at,
    cells,
    destinations,
    is_surrounded,
    legal_keys,
    moving_pieces,
)


def with_moves(game_string: str, *moves: str) -> Game:
    """The game of ``game_string`` with ``moves`` played after it (each one checked)."""
    game = Game.from_game_string(game_string)
    for move in moves:
        game.play(move)
    return game


def black_pieces(pieces: set[Piece]) -> set[Piece]:
    return {p for p in pieces if p.color == 1}


def white_pieces(pieces: set[Piece]) -> set[Piece]:
    return {p for p in pieces if p.color == 0}


def is_pinned(game: Game, piece: Piece) -> bool:
    """Whether lifting ``piece``'s whole stack would split the hive."""
    return game.board.hex_of[piece] in game.board.articulation_points()


def placement_hexes(game: Game) -> set[int]:
    """Where the side to move may place a piece (turn 3 on), computed here from the rule:
    empty, next to one of its own stacks, and next to no stack topped by the opponent."""
    board = game.board
    color = int(game.turn)
    owner = {h: Piece(board.top[h]).color for h in board.occupied()}
    return {
        n
        for h, c in owner.items()
        if c == color
        for n in NEIGHBORS[h]
        if n not in owner and all(owner.get(m, color) == color for m in NEIGHBORS[n])
    }


def snapshot(game: Game) -> dict[int, list[int]]:
    """Every stack on the board, bottom first."""
    return {h: game.board.stack(h) for h in game.board.occupied()}


# -- Pillbug ---------------------------------------------------------------------------------

# White's Pillbug at (0, 0) with a black stack next to it, bB1 on top of bQ at (1, -1), and a
# lone bA1 at (1, 0); the white pieces run west in a line:
#
#                                          bQ+bB1 bS1
#    wG3   wG2   wG1   wS2   wS1    wQ    wP   bA1
STACK_BESIDE_PILLBUG = (
    "Base+P;InProgress;White[8];wP;bB1 wP-;wQ -wP;bQ bB1/;wS1 -wQ;bQ \\bB1;wS2 -wS1;bB1 bQ;"
    "wG1 -wS2;bA1 bB1-;wG2 -wG1;bA1 wP-;wG3 -wG2;bS1 bB1-"
)


def test_pillbug_throws_neither_a_beetle_on_a_stack_nor_the_piece_under_it() -> None:
    game = Game.from_game_string(STACK_BESIDE_PILLBUG)
    board = game.board
    assert board.stack(at(1, -1)) == [Piece.bQ, Piece.bB1]
    assert at(1, -1) in NEIGHBORS[at(0, 0)]
    assert game.last_moved == Piece.bS1  # nobody is resting
    assert not is_pinned(game, Piece.bB1)  # bS1 and bA1 link the stack to the rest
    # The lone bA1 beside the Pillbug is thrown onto any empty neighbour of wP: that is the
    # only way White ever moves a black piece. The stack's two pieces are not.
    assert black_pieces(moving_pieces(game)) == {Piece.bA1}
    assert destinations(game, Piece.bA1) == cells((0, -1), (-1, 1), (0, 1))


# White's Pillbug at (0, 0), once with bB1 on top of it (then bA1 enters at (1, 0)) and once
# with bB1 beside it at (1, -1) (then bA1 enters at (2, -1)). Both times bQ at (0, 1) touches
# the Pillbug, is not pinned and did not just move.
#
#    wG1   wS2   wS1    wQ  wP+bB1 bA1
#                                bQ
PILLBUG_COVERED = (
    "Base+P;InProgress;White[6];wP;bB1 wP-;wQ -wP;bQ bB1\\;wS1 -wQ;bQ wP\\;wS2 -wS1;bB1 wP;"
    "wG1 -wS2;bA1 bB1-"
)
PILLBUG_UNCOVERED = PILLBUG_COVERED.replace(";bB1 wP;", ";bB1 wP/;")


def test_pillbug_under_a_beetle_cannot_throw() -> None:
    game = Game.from_game_string(PILLBUG_COVERED)
    assert game.board.stack(at(0, 0)) == [Piece.wP, Piece.bB1]
    assert not is_pinned(game, Piece.bQ)
    assert black_pieces(moving_pieces(game)) == set()
    assert destinations(game, Piece.wP) == set()

    control = Game.from_game_string(PILLBUG_UNCOVERED)
    assert destinations(control, Piece.bQ) == cells((-1, 1), (0, -1), (1, 0))


# Both Pillbugs touch: wP (0, 0) and bP (1, 0). Black's beetle walks to (0, 1), between them.
#
#    wB1   wS2   wS1    wQ    wP    bP    bQ   bG1
#                               bB1
BEETLE_BETWEEN_PILLBUGS = (
    "Base+P;InProgress;White[6];wP;bP wP-;wQ -wP;bQ bP-;wS1 -wQ;bB1 bP\\;wS2 -wS1;bB1 wP\\;"
    "wB1 -wS2;bG1 bQ-"
)


def test_thrown_piece_rests_on_its_owners_next_turn_and_moves_the_turn_after() -> None:
    game = Game.from_game_string(BEETLE_BETWEEN_PILLBUGS)
    assert destinations(game, Piece.bB1) == cells((1, -1), (0, -1), (-1, 1))
    game.play("bB1 wP/")  # wP throws bB1 to (1, -1), which also touches bP
    assert game.board.hex_of[Piece.bB1] == at(1, -1)
    assert at(1, -1) in NEIGHBORS[game.board.hex_of[Piece.bP]]
    assert not is_pinned(game, Piece.bB1)

    # Black's next turn: bB1 neither walks nor is thrown back by its own Pillbug.
    assert Piece.bB1 not in moving_pieces(game)
    game.play("bS1 bG1-")
    game.play("wB2 -wB1")

    # The turn after, both: a beetle step to each neighbour it can reach, climbing wP and bP,
    # and bP's throw onto its empty neighbours (0, 1) and (1, 1), out of a beetle's reach.
    assert destinations(game, Piece.bB1) == cells((0, -1), (2, -1), (0, 0), (1, 0), (0, 1), (1, 1))


# bP thrown by wP: bP starts at (1, 0) beside wP (0, 0), with bQ at (1, -1) touching both, so
# bP is free to go; wS1 at (-1, 1).
#
#                      bA1
#                    bQ
#    wS2    wQ    wP    bP
#             wS1
PILLBUG_TO_THROW = (
    "Base+P;InProgress;White[5];wP;bP wP-;wQ -wP;bQ bP/;wS1 /wP;bQ \\bP;wS2 -wQ;bA1 bQ/"
)


def test_a_pillbug_just_thrown_cannot_throw() -> None:
    game = Game.from_game_string(PILLBUG_TO_THROW)
    assert destinations(game, Piece.bP) == cells((0, -1), (0, 1))
    game.play("bP wP\\")  # wP throws bP to (0, 1), next to wS1 (-1, 1)
    assert game.board.hex_of[Piece.bP] == at(0, 1)
    assert at(-1, 1) in NEIGHBORS[at(0, 1)]
    assert not is_pinned(game, Piece.wS1)
    assert game.last_moved == Piece.bP

    # Black's turn: bP rests, so it neither walks nor throws wS1.
    assert Piece.bP not in moving_pieces(game)
    assert white_pieces(moving_pieces(game)) == set()

    game.play("bB1 bA1/")
    game.play("wG1 -wS2")
    # A turn later bP throws wS1 onto each of its empty neighbours.
    assert destinations(game, Piece.wS1) == cells((1, 0), (1, 1), (0, 2), (-1, 2))


# -- Mosquito --------------------------------------------------------------------------------

# White's Mosquito at (0, 0) touches bP (1, 0) and bQ (1, -1); White's Pillbug is in hand.
#
#                            bA1
#                          bQ
#    wS2   wS1    wQ    wM    bP
MOSQUITO_BESIDE_PILLBUG = (
    "Base+MP;InProgress;White[5];wM;bP wM-;wQ -wM;bQ bP/;wS1 -wQ;bQ \\bP;wS2 -wS1;bA1 bQ/"
)


def test_mosquito_next_to_a_pillbug_throws() -> None:
    game = Game.from_game_string(MOSQUITO_BESIDE_PILLBUG)
    assert Piece.wP in game.hand(0)
    # wM is pinned (it joins the white line to the black pieces), so it cannot move itself,
    # but throwing does not move it. bQ is pinned by bA1; bP is free.
    assert is_pinned(game, Piece.wM)
    assert is_pinned(game, Piece.bQ)
    assert not is_pinned(game, Piece.bP)
    assert destinations(game, Piece.wM) == set()
    assert black_pieces(moving_pieces(game)) == {Piece.bP}
    assert destinations(game, Piece.bP) == cells((0, -1), (-1, 1), (0, 1))


# White's Mosquito climbs wB1 and walks on top to wS1 at (0, 0), next to bP (1, 0) and bA2
# (1, -1); White's Pillbug is in hand.
#
#             bA2
#     wQ  wS1+wM  bP    bQ   bA1   bG1
#       wB1
MOSQUITO_ON_TOP = (
    "Base+MP;InProgress;White[7];wS1;bP wS1-;wQ -wS1;bQ bP-;wB1 /wS1;bA1 bQ-;wM -wB1;"
    "bA2 bA1-;wM wB1;bA2 wS1/;wM wS1;bG1 bA1-"
)


def test_mosquito_on_top_of_the_hive_moves_as_a_beetle_and_does_not_throw() -> None:
    game = Game.from_game_string(MOSQUITO_ON_TOP)
    board = game.board
    assert board.stack(at(0, 0)) == [Piece.wS1, Piece.wM]
    assert Piece.wP in game.hand(0)
    assert board.top[at(1, 0)] == Piece.bP
    # bA2 could be thrown by a Mosquito on the ground: it is free and did not just move.
    assert board.hex_of[Piece.bA2] in NEIGHBORS[at(0, 0)]
    assert not is_pinned(game, Piece.bA2)
    assert game.last_moved == Piece.bG1
    assert black_pieces(moving_pieces(game)) == set()
    # As a Beetle at height 2 with no stack of 2 around it: every neighbour, on top or down.
    assert destinations(game, Piece.wM) == set(NEIGHBORS[at(0, 0)])


# White's Mosquito, carried by its Ant powers, ends at (4, 0) beside bM (3, 0) and nothing else.
#
#    wA1
#        wQ   wS1   bS1    bQ    bM    wM
#                            bG1
#                               bA1
MOSQUITO_BY_MOSQUITO = (
    "Base+M;InProgress;White[6];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wM -wQ;bM bQ-;wA1 \\wQ;bG1 bQ\\;"
    "wM bM-;bA1 bG1\\"
)


def test_mosquito_touching_only_a_mosquito_has_no_moves() -> None:
    game = Game.from_game_string(MOSQUITO_BY_MOSQUITO)
    board = game.board
    h = board.hex_of[Piece.wM]
    assert h == at(4, 0)
    assert [Piece(board.top[n]) for n in NEIGHBORS[h] if board.top[n] >= 0] == [Piece.bM]
    assert not is_pinned(game, Piece.wM)
    assert game.last_moved == Piece.bA1
    assert destinations(game, Piece.wM) == set()
    assert moving_pieces(game)  # White has other moves

    earlier = Game.from_game_string(MOSQUITO_BY_MOSQUITO.rsplit(";", 2)[0].replace("[6]", "[5]"))
    assert at(4, 0) in destinations(earlier, Piece.wM)  # as an Ant it got there


# -- Passing -----------------------------------------------------------------------------------

# White's three pieces are all pinned and every empty hex next to them touches a black piece
# (the "Pass" position of nokamute's uhp_tests, where only its move list is checked).
#
#       bA1
#           wQ          bQ
#       wG1   wA1   bS1
#    bA2
FORCED_PASS = (
    "Base;InProgress;White[7];wA1;bS1 wA1-;wQ -wA1;bQ bS1/;wQ \\wA1;bA1 bS1\\;wQ -wA1;"
    "bA2 bQ\\;wQ \\wA1;bA1 \\wQ;wG1 /wQ;bA2 /wG1"
)


def test_forced_pass() -> None:
    game = Game.from_game_string(FORCED_PASS)
    assert all(is_pinned(game, p) for p in (Piece.wA1, Piece.wQ, Piece.wG1))
    assert placement_hexes(game) == set()
    assert game.legal_moves() == [PASS]
    assert game.count_legal_moves() == 1

    board_before, hash_before, ply = snapshot(game), game.hash, game.ply
    move = game.play("pass")
    assert move == PASS and move.is_pass
    assert game.moves[-1] == PASS
    assert game.turn == 1
    assert game.ply == ply + 1
    assert snapshot(game) == board_before
    assert game.hash != hash_before  # the side to move is part of the position
    assert game.state == GameState.IN_PROGRESS
    assert game.game_string().endswith(";pass")
    assert Game.from_game_string(game.game_string()).hash == game.hash
    assert game.pop() == PASS
    assert game.hash == hash_before


@pytest.mark.parametrize(
    "game_string",
    [
        "Base;NotStarted;White[1]",
        "Base;InProgress;Black[1];wS1",
        STACK_BESIDE_PILLBUG,
    ],
    ids=["start", "second-move", "mid-game"],
)
def test_pass_is_rejected_when_other_moves_exist(game_string: str) -> None:
    game = Game.from_game_string(game_string)
    before = game.game_string()
    with pytest.raises(IllegalMoveError) as info:
        game.play("pass")
    assert repr("pass") in str(info.value)
    assert game.game_string() == before


# -- End of the game ---------------------------------------------------------------------------

# wQ (1, -1) and bQ (2, -1) side by side, each with only (2, -2) free; wS1 walks round to fill it.
#
#    wS1   wA1    .    bG1   bG2
#       wA2    wQ    bQ   bB1
#          wB1   bA1   bA2
BOTH_QUEENS_ONE_HOLE = (
    "Base;InProgress;White[7];wB1;bA1 wB1-;wQ \\wB1;bQ bA1/;wQ -bQ;bG1 bQ/;wA1 \\wQ;bA2 bQ\\;"
    "wA2 -wQ;bB1 bG1\\;wS1 -wA1;bG2 bG1-"
)


def test_both_queens_surrounded_at_once_is_a_draw() -> None:
    game = Game.from_game_string(BOTH_QUEENS_ONE_HOLE)
    hole = at(2, -2)
    for queen in (Piece.wQ, Piece.bQ):
        empty = [n for n in NEIGHBORS[game.board.hex_of[queen]] if game.board.height[n] == 0]
        assert empty == [hole]
    game.play("wS1 -bG1")
    assert game.board.hex_of[Piece.wS1] == hole
    assert is_surrounded(game, Piece.wQ) and is_surrounded(game, Piece.bQ)
    assert game.state == GameState.DRAW
    assert game.is_over()
    assert game.legal_moves() == []
    assert game.count_legal_moves() == 0


# wQ (1, 0) with one free neighbour (1, 1) that only White may place on; bQ (2, -1) has free
# neighbours. White places wG1 there, surrounding its own Queen.
#
#                bG2   bB2
#       bG1    bQ   bB1
#    wA1    wQ   wA3
#       wA2    .
OWN_QUEEN_ONE_HOLE = (
    "Base;InProgress;White[7];wA1;bG1 wA1/;wQ wA1\\;bQ bG1/;wQ bG1\\;bQ bG1-;wA2 /wQ;bB1 bQ-;"
    "wA3 wQ\\;bG2 bQ/;wA3 /bB1;bB2 bG2-"
)


def test_surrounding_your_own_queen_is_legal_and_loses() -> None:
    game = Game.from_game_string(OWN_QUEEN_ONE_HOLE)
    assert game.board.hex_of[Piece.wQ] == at(1, 0)
    assert game.board.hex_of[Piece.bQ] == at(2, -1)
    assert at(1, 1) in placement_hexes(game)
    game.play("wG1 /wA3")
    assert game.board.hex_of[Piece.wG1] == at(1, 1)
    assert is_surrounded(game, Piece.wQ)
    assert not is_surrounded(game, Piece.bQ)
    assert game.state == GameState.BLACK_WINS
    assert game.legal_moves() == []


FINISHED = {
    "draw": with_moves(BOTH_QUEENS_ONE_HOLE, "wS1 -bG1"),
    "suicide": with_moves(OWN_QUEEN_ONE_HOLE, "wG1 /wA3"),
}


@pytest.mark.parametrize("name", sorted(FINISHED))
@pytest.mark.parametrize("move", ["bS1 bG2-", "bQ bG1\\", "wS2 -wA1", "pass"])
def test_moves_are_rejected_after_the_game_ended(name: str, move: str) -> None:
    game = Game.from_game_string(FINISHED[name].game_string())
    before = (game.game_string(), game.hash)
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)
    assert repr(move) in str(info.value)
    assert "over" in str(info.value)
    assert (game.game_string(), game.hash) == before


def test_a_finished_game_string_with_a_further_move_is_refused() -> None:
    text = FINISHED["draw"].game_string() + ";bS1 bG2-"
    with pytest.raises(InvalidGameStringError) as info:
        Game.from_game_string(text)
    assert repr("bS1 bG2-") in str(info.value)


# -- Threefold repetition ----------------------------------------------------------------------


def test_pieces_of_a_kind_swapped_repeat_the_position_and_the_third_time_draws() -> None:
    """The repetition counts positions by the pieces' colours and bugs, not their numbers
    (nokamute's and hivegame.com's rule, issue 33): ants swapped make the same position."""
    game = Game.from_game_string(ANTS, repetition_draw=True)
    start = (game.hash, game.kind_hash, game.repetition_key())
    for move in SWAP:
        game.play(move)
    assert game.board.hex_of[Piece.wA1] != Game.from_game_string(ANTS).board.hex_of[Piece.wA1]
    assert game.hash != start[0]  # the numbers tell the ants apart...
    assert (game.kind_hash, game.repetition_key()) == start[1:]  # ... the kinds do not
    for move in SWAP_BACK[:-1]:
        game.play(move)
        assert game.state == GameState.IN_PROGRESS
    game.play(SWAP_BACK[-1])  # the third time by kind, the second by number
    assert game.hash == start[0]
    assert game.state == GameState.DRAW
    assert game.legal_moves() == []
    assert game.game_string().startswith("Base;Draw;White[11];")
    assert game.pop() and not game.is_over()  # the count is taken back too
    assert game.legal_moves()
    game.play(SWAP_BACK[-1])
    assert game.state == GameState.DRAW

    without = Game.from_game_string(ANTS)  # the rule off: the game goes on
    for move in SWAP + SWAP_BACK:
        without.play(move)
    assert without.state == GameState.IN_PROGRESS
    assert (without.hash, without.kind_hash) == start[:2]


def test_a_repetition_with_pillbugs_needs_the_same_piece_stunned() -> None:
    """The piece moved last is stunned (with Pillbugs in play, a thing of the position): the
    same stacks reached by placements in another order are another position then."""
    opening = "wS1;bS1 wS1-;wQ -wS1;bQ bS1-"
    one = ("wA1 -wQ", "bA1 bQ-", "wA2 /wQ", "bG1 bQ/")
    other = ("wA1 -wQ", "bG1 bQ/", "wA2 /wQ", "bA1 bQ-")
    for game_type, apart in (("Base+P", True), ("Base", False)):
        games = [
            with_moves(f"{game_type};InProgress;White[3];{opening}", *moves)
            for moves in (one, other)
        ]
        assert games[0].last_moved != games[1].last_moved
        assert games[0].hash == games[1].hash and games[0].kind_hash == games[1].kind_hash
        keys = {game.repetition_key() for game in games}
        assert len(keys) == (2 if apart else 1), game_type
        assert (
            games[0].repetition_key()
            == games[0].kind_hash ^ apart * (STUNNED_KEYS[games[0].board.hex_of[Piece.bG1]])
        )


# -- Opening rules -----------------------------------------------------------------------------

# Three pieces each, no Queens: both sides must place theirs on their fourth turn.
NO_QUEENS = "Base;InProgress;White[4];wG1;bG1 wG1-;wA1 -wG1;bA1 bG1-;wS1 -wA1;bS1 bA1-"


def test_queen_must_be_placed_by_the_fourth_turn() -> None:
    game = Game.from_game_string(NO_QUEENS)
    spots = placement_hexes(game)
    assert len(spots) == 7  # around the three white pieces in a row, away from Black
    assert legal_keys(game) == {(Piece.wQ, h) for h in spots}
    with pytest.raises(IllegalMoveError) as info:
        game.play("wS2 -wS1")
    assert repr("wS2 -wS1") in str(info.value)
    game.play("wQ -wS1")
    spots = placement_hexes(game)
    assert legal_keys(game) == {(Piece.bQ, h) for h in spots}


def test_before_the_fourth_turn_other_pieces_may_be_placed() -> None:
    game = Game.from_game_string(NO_QUEENS.rsplit(";", 2)[0].replace("White[4]", "White[3]"))
    assert {Piece.wS1, Piece.wB1, Piece.wG2, Piece.wA2, Piece.wQ} == moving_pieces(game)


def test_queen_may_not_be_placed_on_the_first_turn() -> None:
    game = Game(GameType.parse("Base+MLP"))
    assert Piece.wQ not in moving_pieces(game)
    assert moving_pieces(game) == {
        Piece.wS1,
        Piece.wB1,
        Piece.wG1,
        Piece.wA1,
        Piece.wM,
        Piece.wL,
        Piece.wP,
    }
    with pytest.raises(IllegalMoveError) as info:
        game.play("wQ")
    assert repr("wQ") in str(info.value)
    game.play("wS1")
    assert Piece.bQ not in moving_pieces(game)
    with pytest.raises(IllegalMoveError):
        game.play("bQ wS1-")
    game.play("bS1 wS1-")
    assert Piece.wQ in moving_pieces(game)  # the second turn is fine


def test_pieces_of_a_bug_enter_in_order() -> None:
    game = Game(GameType.parse("Base"))
    with pytest.raises(IllegalMoveError) as info:
        game.play("wS2")
    assert repr("wS2") in str(info.value)
    assert "wS1" in str(info.value).replace(repr("wS2"), "")
    assert game.ply == 0
    game.play("wS1")
    with pytest.raises(IllegalMoveError) as info:
        game.play("bA2 wS1-")
    assert "bA1" in str(info.value).replace(repr("bA2 wS1-"), "")
    game.play("bA1 wS1-")
    game.play("wS2 -wS1")  # wS1 is in play, so wS2 is next
    assert game.board.hex_of[Piece.wS2] == at(-1, 0)


# -- GameStrings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        pytest.param("Base+X;NotStarted;White[1]", "Base+X", id="bad-game-type"),
        pytest.param("Base+MM;NotStarted;White[1]", "Base+MM", id="repeated-expansion"),
        pytest.param("Chess;NotStarted;White[1]", "Chess", id="not-hive"),
        pytest.param("Base;Started;White[1]", "Started", id="bad-state"),
        pytest.param("Base;NotStarted;Green[1]", "Green[1]", id="bad-turn-colour"),
        pytest.param("Base;NotStarted;White1", "White1", id="bad-turn-brackets"),
        pytest.param("Base;NotStarted", "Base;NotStarted", id="too-few-fields"),
        pytest.param(
            "Base;NotStarted;White[1];wS1", "Base;NotStarted;White[1];wS1", id="stale-state"
        ),
        pytest.param(
            "Base;InProgress;White[1];wS1", "Base;InProgress;White[1];wS1", id="wrong-turn"
        ),
        pytest.param(
            "Base;InProgress;White[1]", "Base;InProgress;White[1]", id="in-progress-no-moves"
        ),
        pytest.param("Base;InProgress;Black[1];wX1", "wX1", id="unreadable-move"),
        pytest.param("Base;InProgress;White[2];wS1;bS1 wS1=", "bS1 wS1=", id="unreadable-mark"),
        pytest.param("Base;InProgress;White[2];wS1;wS2 wS1-", "wS2 wS1-", id="illegal-move"),
    ],
)
def test_game_string_errors_quote_the_input(text: str, quoted: str) -> None:
    with pytest.raises(InvalidGameStringError) as info:
        Game.from_game_string(text)
    assert repr(quoted) in str(info.value)


def test_game_string_accepts_spaces_after_semicolons() -> None:
    game = Game.from_game_string("Base+M; InProgress; White[2]; wS1; bM wS1-")
    assert game.game_string() == "Base+M;InProgress;White[2];wS1;bM wS1-"


def test_unreadable_move_is_an_invalid_move_error() -> None:
    game = Game(GameType.parse("Base"))
    for text in ("wX1", "wS1 wS1-/", "wS1 -", "", "wQ1"):
        with pytest.raises(InvalidMoveError) as info:
            game.play(text)
        assert repr(text) in str(info.value)
