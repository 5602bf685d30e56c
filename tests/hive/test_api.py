"""The Game API as callers meet it: read-only GameStrings, copies, readable moves, hands, undo,
game types by name, the hash per game type, and the exported tables and Board interface."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest

import hive
from hive import (
    EMPTY,
    HAND,
    PASS,
    Board,
    Game,
    GameState,
    GameType,
    HiveError,
    InvalidGameStringError,
    Move,
    Piece,
    movegen,
)
from hive.hashing import (
    BLACK_KEY,
    HEX_KEYS,
    KEY_BITS,
    KIND_HEX_KEYS,
    KIND_LEVEL_KEYS,
    KIND_OF,
    KINDS,
    LEVEL_KEYS,
    LEVELS,
    STUNNED_KEYS,
    ZOBRIST_KEY_COUNT,
    game_type_key,
    kind_key,
    piece_key,
    splitmix64,
    zobrist_key,
)
from hive.hexes import CELLS, NEIGHBORS, hex_at
from hive.pieces import (
    ALL_GAME_TYPES,
    BUG_AT,
    BUG_OF,
    COLOR_OF,
    NAMES,
    OWNER,
    QUEENS,
    Bug,
    Color,
)
from tests.build import is_compiled
from tests.hive.support import MIDGAME, STACKED_AND_THROWN, raw_state

# nokamute's "Draw by threefold repetition" moves: the queens step back and forth.
REPEATING = (
    "wS1",
    "bB1 wS1-",
    "wQ \\wS1",
    "bQ bB1\\",
    "wQ -wS1",
    "bQ bB1-",
    "wQ \\wS1",
    "bQ bB1\\",
    "wQ -wS1",
    "bQ bB1-",
    "wQ \\wS1",
    "bQ bB1\\",
)


def freeze(game: Game) -> None:
    """Make the game's move list and board immutable, so that any change raises. Only in the
    pure build: the compiled board's lists are typed, so tuples cannot stand in for them (the
    tests that freeze then check only that the game ends as it began)."""
    if is_compiled("hive.board"):
        return
    board: Any = game.board
    board.top, board.height = tuple(board.top), tuple(board.height)
    board.hex_of = tuple(board.hex_of)
    board.under = MappingProxyType({h: tuple(c) for h, c in board.under.items()})
    frozen: Any = game
    frozen.moves = tuple(game.moves)


def random_game(game_type: GameType, plies: int, seed: str) -> Game:
    rng = random.Random(seed)
    game = Game(game_type)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.push(rng.choice(moves))
    return game


# -- game_string is read-only ----------------------------------------------------------------


@pytest.mark.parametrize("text", [MIDGAME, STACKED_AND_THROWN])
def test_game_string_only_reads_the_game(text: str) -> None:
    """A frozen game (tuples for lists) still spells itself: no push, pop or lift happens."""
    game = Game.from_game_string(text)
    before = raw_state(game)
    freeze(game)
    assert game.game_string() == text
    assert str(game) == text
    assert repr(game) == f"Game.from_game_string({text!r})"
    assert raw_state(game) == before


def test_game_string_while_iterating_over_the_moves_and_in_a_search() -> None:
    game = Game.from_game_string(STACKED_AND_THROWN)
    seen = []
    for move in game.moves:  # reading the game inside a loop over its own move list
        seen.append((move, game.game_string()))
    assert seen == [(move, STACKED_AND_THROWN) for move in game.moves]
    played = STACKED_AND_THROWN.split(";")[3:]
    for move in game.legal_moves():  # and inside a search's push / pop
        spelled = game.move_string(move)
        game.push(move)
        text = game.game_string()
        assert text.split(";")[3:] == [*played, spelled]
        assert Game.from_game_string(text).hash == game.hash
        game.pop()


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=str)
def test_game_string_of_pushed_moves_replays_to_the_same_game(game_type: GameType) -> None:
    game = random_game(game_type, 60, f"pushed-{game_type}")
    again = Game.from_game_string(game.game_string())
    assert raw_state(again) == raw_state(game)


# -- copy --------------------------------------------------------------------------------------


@pytest.mark.parametrize("make_copy", [Game.copy, copy.copy, copy.deepcopy])
def test_copy_is_an_independent_game(make_copy: Any) -> None:
    game = Game.from_game_string(STACKED_AND_THROWN)
    before = raw_state(game)
    other: Game = make_copy(game)
    assert other is not game
    assert raw_state(other) == before
    assert other.game_type == game.game_type
    assert other.game_string() == game.game_string()
    # Moves on the copy, its whole history taken back included, leave the game alone.
    for move in other.legal_moves():
        other.push(move)
        assert raw_state(game) == before
        other.pop()
    other.push(other.legal_moves()[0])
    other.undo(len(other.moves))
    assert other.hash == Game("Base+P").hash
    assert other.board.occupied() == set()
    assert raw_state(game) == before
    # The game still takes back its own history...
    game.undo(len(game.moves))
    assert raw_state(game) == raw_state(Game("Base+P"))
    # ... and moves on the game leave a copy alone.
    game = Game.from_game_string(STACKED_AND_THROWN)
    other = make_copy(game)
    game.push(game.legal_moves()[-1])
    game.undo(5)
    assert raw_state(other) == before


def test_copy_keeps_the_options_and_the_positions_seen() -> None:
    game = Game("Base", repetition_draw=True)
    for move in REPEATING[:-1]:
        game.play(move)
    other = game.copy()
    assert other.repetition_draw
    other.play(REPEATING[-1])  # the third occurrence of the position
    assert other.state == GameState.DRAW
    assert game.state == GameState.IN_PROGRESS
    assert Game("Base").copy().repetition_draw is False


# -- readable moves ----------------------------------------------------------------------------


def test_move_repr_names_the_piece_and_the_hexes() -> None:
    assert repr(Move(Piece.wA1, hex_at(0, 1), hex_at(2, -1))) == (
        "Move(Piece.wA1, hex_at(0, 1), hex_at(2, -1))"
    )
    assert repr(Move(Piece.bQ, HAND, hex_at(-16, 15))) == "Move(Piece.bQ, HAND, hex_at(-16, 15))"
    assert repr(Move(3, HAND, 0)) == "Move(Piece.wB1, HAND, hex_at(0, 0))"  # from plain ints
    assert repr(PASS) == "PASS"
    assert repr(Move(99, 1, 2)) == "Move(99, hex_at(1, 0), hex_at(2, 0))"  # not a piece


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=str)
def test_move_repr_evaluates_to_the_move(game_type: GameType) -> None:
    names = {"Move": Move, "Piece": Piece, "HAND": HAND, "PASS": PASS, "hex_at": hex_at}
    game = random_game(game_type, 40, f"repr-{game_type}")
    moves = [*game.moves, *game.legal_moves(), PASS]
    assert len(moves) > 20
    for move in moves:
        assert eval(repr(move), names) == move


def test_pass_is_exported() -> None:
    assert hive.PASS is hive.game.PASS
    assert PASS.is_pass
    assert not PASS.is_placement


# -- hands -------------------------------------------------------------------------------------


def test_hand_and_next_in_hand_are_pieces() -> None:
    game = Game.from_game_string(MIDGAME)
    for color in (Color.WHITE, Color.BLACK):
        hand, next_ = game.hand(color), game.next_in_hand(color)
        assert hand and next_
        assert all(type(p) is Piece for p in hand + next_)
        assert set(next_) <= set(hand)
        assert [p.bug for p in next_] == sorted({p.bug for p in hand})
        assert all(p.number == min(q.number for q in hand if q.bug == p.bug) for p in next_)
    assert game.next_in_hand(Color.WHITE) == [
        Piece.wS1,
        Piece.wG1,
        Piece.wA1,
        Piece.wM,
        Piece.wL,
        Piece.wP,
    ]
    placed = {Piece(m.piece) for m in game.legal_moves() if m.is_placement}
    assert placed == set(game.next_in_hand(Color.WHITE))


# -- undo --------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [-1, 9, 100])
def test_undo_refuses_more_moves_than_were_played(count: int) -> None:
    game = Game.from_game_string(MIDGAME)
    before = raw_state(game)
    with pytest.raises(HiveError) as info:
        game.undo(count)
    assert str(info.value) == f"cannot undo {count} moves: 8 played"
    assert isinstance(info.value, ValueError)
    assert raw_state(game) == before


def test_undo_takes_back_that_many_moves() -> None:
    game = Game.from_game_string(MIDGAME)
    game.undo(0)
    assert len(game.moves) == 8
    game.undo()
    assert len(game.moves) == 7
    game.undo(7)
    assert game.moves == []
    assert raw_state(game) == raw_state(Game("Base+MLP"))


# -- game types by name ------------------------------------------------------------------------


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=str)
def test_game_takes_the_game_type_or_its_name(game_type: GameType) -> None:
    by_name = Game(str(game_type), repetition_draw=True)
    assert by_name.game_type == game_type
    assert by_name.repetition_draw
    assert raw_state(by_name) == raw_state(Game(game_type))
    assert Game().game_type == GameType()


@pytest.mark.parametrize("name", ["Base+X", "base", "", "Base+MM"])
def test_game_refuses_a_bad_game_type_name(name: str) -> None:
    with pytest.raises(InvalidGameStringError) as info:
        Game(name)
    assert repr(name) in str(info.value)


# -- the hash and the game type ----------------------------------------------------------------


def test_the_same_moves_hash_differently_in_each_game_type() -> None:
    """A transposition table kept across games never mixes up Base and Base+MLP positions."""
    moves = ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wG1 -wQ", "bB1 bQ-", "wB1 \\wQ", "bB1 bQ")
    games = [Game(game_type) for game_type in ALL_GAME_TYPES]
    for move in (None, *moves):
        for game in games:
            if move:
                game.play(move)
            assert Game.from_game_string(game.game_string()).hash == game.hash
        assert len({game.hash for game in games}) == len(ALL_GAME_TYPES), move
    base, base_mlp = Game("Base"), Game("Base+MLP")
    for move in moves:
        base.play(move)
        base_mlp.play(move)
    assert base.board.top == base_mlp.board.top
    assert base.hash != base_mlp.hash


def expected_hash(game: Game, key: Callable[[int, int, int], int] = piece_key) -> int:
    """The hash of ``game``'s position, recomputed from its stacks as hive.hashing says (with
    ``kind_key``: its kind hash)."""
    board = game.board
    h = game_type_key(game.game_type)
    for cell in board.occupied():
        for level, piece in enumerate(board.stack(cell)):
            h ^= key(piece, cell, level)
    return h ^ BLACK_KEY if game.turn == Color.BLACK else h


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=str)
def test_hash_is_made_of_the_documented_keys(game_type: GameType) -> None:
    rng = random.Random(f"keys-{game_type}")
    game = Game(game_type)
    assert game.hash == game.kind_hash == game_type_key(game_type) != 0
    for _ in range(80):
        moves = game.legal_moves()
        if not moves:
            break
        game.push(rng.choice(moves))
        assert game.hash == expected_hash(game)
        assert game.kind_hash == expected_hash(game, kind_key)
    assert game.ply > 40


@pytest.mark.parametrize("text", [MIDGAME, STACKED_AND_THROWN])
def test_hash_of_stacks_is_made_of_the_documented_keys(text: str) -> None:
    game = Game.from_game_string(text)
    assert any(game.board.height[h] > 1 for h in game.board.occupied())
    assert game.hash == expected_hash(game)
    assert game.kind_hash == expected_hash(game, kind_key)


def test_splitmix64_is_the_reference_generator() -> None:
    """splitmix64 seeded with 0 gives these first outputs (Vigna's splitmix64.c)."""
    assert [splitmix64(i) for i in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


def test_zobrist_keys_are_distinct_and_leave_the_later_indices_free() -> None:
    # The kind keys are indexed by piece, as the others: one set for each kind.
    first_of_kind = [KIND_OF.index(kind) for kind in range(KINDS)]
    assert sorted(set(KIND_OF)) == list(range(KINDS))
    keys = [
        *HEX_KEYS,
        *LEVEL_KEYS,
        BLACK_KEY,
        *(game_type_key(game_type) for game_type in ALL_GAME_TYPES),
        *(KIND_HEX_KEYS[p * CELLS + h] for p in first_of_kind for h in range(CELLS)),
        *(KIND_LEVEL_KEYS[p * LEVELS + level] for p in first_of_kind for level in range(LEVELS)),
        *STUNNED_KEYS,
    ]
    assert len(keys) == ZOBRIST_KEY_COUNT
    assert sorted(keys) == sorted(zobrist_key(i) for i in range(ZOBRIST_KEY_COUNT))
    assert len(set(keys)) == len(keys)
    assert zobrist_key(ZOBRIST_KEY_COUNT) not in set(keys)


def test_keys_and_hashes_have_62_bits() -> None:
    """Below 2**62, the compiled build keeps them unboxed (and XOR cannot leave the range)."""
    kind_keys = (*KIND_HEX_KEYS, *KIND_LEVEL_KEYS, *STUNNED_KEYS)
    assert all(0 <= key < 1 << KEY_BITS for key in (*HEX_KEYS, *LEVEL_KEYS, BLACK_KEY, *kind_keys))
    assert KEY_BITS == 62
    assert max(HEX_KEYS) >= 1 << (KEY_BITS - 1)  # the top bit is used
    game = Game.from_game_string(STACKED_AND_THROWN)
    assert 0 <= game.hash < 1 << KEY_BITS
    assert 0 <= game.kind_hash < 1 << KEY_BITS and 0 <= game.repetition_key() < 1 << KEY_BITS


# -- tables and the Board interface ------------------------------------------------------------


@pytest.mark.skipif(
    is_compiled("hive.game"),
    reason="compiled, Game calls movegen.generate directly: the pure build counts the calls",
)
def test_legal_moves_are_generated_once_per_position_and_each_call_owns_its_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = Game.from_game_string(STACKED_AND_THROWN)
    calls = 0
    generate = movegen.generate

    def counted(g: Game) -> Any:
        nonlocal calls
        calls += 1
        return generate(g)

    monkeypatch.setattr(movegen, "generate", counted)
    first = game.legal_moves()
    first.clear()  # a caller's list is its own
    second = game.legal_moves()
    assert second and second == game.legal_moves() and calls == 1
    assert game.is_legal(second[0]) and game.parse_move(game.move_string(second[0]))
    assert calls == 1
    game.push(second[0])  # a new position: generated anew
    after = game.legal_moves()
    assert calls == 2 and after != second
    game.pop()
    assert game.legal_moves() == second and calls == 3
    other = game.copy()
    other.push(second[-1])
    assert game.legal_moves() == second and calls == 3


def test_the_articulation_points_a_board_keeps_by_shape_are_its_own() -> None:
    """Along random games and back, the points the board keeps by shape are those a fresh
    board computes, the shape is the bit set of the occupied hexes, and the pinned pieces are
    those alone on the points."""
    for number, game_type in enumerate(ALL_GAME_TYPES):
        game = random_game(game_type, 0, "shapes")
        rng = random.Random(number)
        seen = []
        while True:
            board = game.board
            occupied = sum(1 << h for h in board.occupied())
            assert board.shape == occupied
            points = board.articulation_points()
            assert points == board.copy().articulation_points()  # a copy computes them anew
            alone = [board.top[h] for h in points if board.height[h] == 1]
            assert board.pinned() == sum(1 << piece for piece in alone)
            seen.append((occupied, set(points)))
            moves = game.legal_moves()
            if len(seen) == 60 or not moves:
                break
            game.push(rng.choice(moves))
        while True:
            occupied, points = seen.pop()
            assert game.board.shape == occupied
            assert game.board.articulation_points() == points
            if not seen:
                break
            game.pop()
        assert not game.moves


def test_piece_names_are_the_enum_names() -> None:
    assert tuple(piece.name for piece in Piece) == NAMES


def test_piece_tables_have_one_home() -> None:
    assert (Piece.wQ, Piece.bQ) == QUEENS
    assert OWNER[EMPTY] == 2
    assert BUG_AT[EMPTY] == -1
    for piece in Piece:
        assert OWNER[piece] == piece.color == COLOR_OF[piece]
        assert BUG_AT[piece] == piece.bug == BUG_OF[piece]
        assert (piece in QUEENS) == (piece.bug == Bug.QUEEN)
    # Move generation uses these very tables (the names are not re-exported from there).
    assert vars(movegen)["OWNER"] is OWNER
    assert vars(movegen)["BUG_AT"] is BUG_AT


def test_board_interface_is_exported_and_describes_the_position() -> None:
    assert (hive.Board, hive.EMPTY, hive.HAND) == (hive.board.Board, -1, -1)
    game = Game.from_game_string(STACKED_AND_THROWN)
    board = game.board
    assert isinstance(board, Board)
    assert len(board.top) == len(board.height) == CELLS
    assert len(board.hex_of) == len(Piece)
    assert board.under  # this position has a stack
    for h in range(CELLS):
        stack = board.stack(h)
        assert board.height[h] == len(stack)
        assert board.top[h] == (stack[-1] if stack else EMPTY)
        assert board.under.get(h, []) == stack[:-1]
    for piece in Piece:
        h = board.hex_of[piece]
        in_play = game.game_type.has_piece(piece)
        assert (h == HAND and in_play) == (piece in game.hand(piece.color))
        assert h == HAND or piece in board.stack(h)


def test_stamps_are_new_each_time_and_mark_ring_marks_the_six_hexes_round_one() -> None:
    """Every stamp is one no hex holds, past the wrap at 255 too; ``mark_ring`` marks exactly
    the six neighbours of its hex with a new stamp, and nothing for a piece in hand."""
    board = Board()
    h = hex_at(3, -2)
    for round_ in range(600):  # more than two wraps of the stamps
        ring = board.mark_ring(h if round_ % 2 else HAND)
        assert 1 <= ring <= 255
        marked = {n for n in range(CELLS) if board.marks[n] == ring}
        assert marked == (set(NEIGHBORS[h]) if round_ % 2 else set())
        stamp = board.new_stamp()
        assert stamp not in board.marks[:CELLS]  # (the last item is the stamp counter)


def test_boards_sharing_scratch_give_each_other_new_stamps_and_the_same_moves() -> None:
    """Boards on one set of scratch lists (``Board.share_scratch``, as the server keeps its
    games) never reuse each other's stamps, and generate the moves they generate alone."""
    games = [Game.from_game_string(STACKED_AND_THROWN), Game()]
    alone = [sorted(map(str, game.copy().legal_moves())) for game in games]
    first, second = games[0].board, games[1].board
    second.share_scratch(first)
    stamps = [board.new_stamp() for _ in range(10) for board in (first, second)]
    assert stamps == sorted(set(stamps))  # each new, whichever board gave it
    for _ in range(150):  # past a wrap of the stamps, the boards in turn
        for game, moves in zip(games, alone, strict=True):
            assert sorted(map(str, game.legal_moves())) == moves
            game.push(game.legal_moves()[0])  # (generated again after the pop)
            game.pop()


def test_boards_sharing_stacks_hold_them_in_turn_and_play_as_boards_of_their_own() -> None:
    """Boards whose stacks live in one lender's lists (``Board.share_stacks``, as the server
    keeps its games) each take them with ``hold`` before a use, and then generate, play and
    undo exactly as games with lists of their own, interleaved move by move; a board that does
    not hold them fails loudly rather than read another's stacks."""

    def stacks(board: Board) -> list[list[int]]:
        return [board.stack(h) for h in range(CELLS)]

    rng = random.Random(7)
    lender = Board()
    starts = [STACKED_AND_THROWN, MIDGAME, "Base+MLP;NotStarted;White[1]", STACKED_AND_THROWN]
    alone = [Game.from_game_string(text) for text in starts]
    shared = [game.copy() for game in alone]
    for game in shared:
        game.board.share_stacks(lender)
    for _ in range(40):
        for own, game in zip(alone, shared, strict=True):
            if own.state is not GameState.IN_PROGRESS and own.state is not GameState.NOT_STARTED:
                continue
            game.board.hold()
            moves = own.legal_moves()
            assert sorted(game.legal_moves()) == sorted(moves)
            assert game.layout().positions == own.layout().positions
            if rng.random() < 0.2 and own.moves:
                own.pop()
                game.pop()
            else:
                move = rng.choice(moves)
                own.push(move)
                game.push(move)
            tops = [h for h in range(CELLS) if lender.top[h] != EMPTY]
            assert sorted(tops) == sorted(own.board.occupied())  # no other board's pieces
            assert [lender.height[h] for h in tops] == [own.board.height[h] for h in tops]
    held, idle = shared[-1].board, shared[0].board
    with pytest.raises(IndexError):
        idle.stack(idle.hex_of[next(p for p, h in enumerate(idle.hex_of) if h != HAND)])
    copied = idle.copy()  # (takes the lists first: the copy has the stacks, and its own lists)
    assert copied.top is not lender.top
    assert stacks(copied) == stacks(alone[0].board)
    held.hold()
    assert stacks(held) == stacks(alone[-1].board)


def test_board_copy_is_independent() -> None:
    board = Game.from_game_string(STACKED_AND_THROWN).board
    other = board.copy()
    covered = next(iter(board.under))
    assert other.stack(covered) == board.stack(covered)
    other.lift(covered)
    other.lift(covered)
    assert len(board.stack(covered)) == 2
    assert other.stack(covered) == []
