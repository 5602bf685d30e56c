"""Plain axial coordinates (``Game.layout``, ``Game.positions``): unwrapped and stable.

Checked along the real games of the shared vectors, random games of every game type, positions
with stacks, and a game built to drift across the wrap of the 32x32 grid.
"""

from __future__ import annotations

import itertools
import random

import pytest

from hive import HAND, PASS, Game, GameType, HiveError, Layout, Move, Piece
from hive.hexes import NEIGHBORS, ORIGIN, SIZE, axial, hex_at
from hive.pieces import ALL_GAME_TYPES
from tests.hive.support import MIDGAME, STACKED_AND_THROWN, raw_state
from tests.vectors import tsv_rows

Axial = tuple[int, int]
SEED = 4242
SAMPLED_MOVES = 4  # legal moves per position that are pushed to see where they land


def distance(a: Axial, b: Axial) -> int:
    """Hex distance between two axial coordinates (computed here, not by the engine)."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def real_games() -> list[str]:
    """The longest GameString of each real game of the Mzinga vectors (the other rows of that
    file are its earlier positions)."""
    games = [row[0].split(";") for row in tsv_rows("mzinga_validmoves_realgames.tsv")]
    return [
        ";".join(game)
        for game in games
        if not any(len(other) > len(game) and other[3 : len(game)] == game[3:] for other in games)
    ]


REAL_GAMES = real_games()


def test_the_real_games_are_four_whole_games() -> None:
    assert sorted(len(text.split(";")) - 3 for text in REAL_GAMES) == [24, 48, 53, 66]


def check_layout(game: Game, layout: Layout) -> None:
    """Every stack's pieces share coordinates that wrap to its hex, in ``Board.stack`` order,
    and two stacks are at distance 1 exactly when the board says they touch."""
    board = game.board
    positions = layout.positions
    assert list(positions) == [Piece(p) for p, h in enumerate(board.hex_of) if h != HAND]
    stacks: dict[int, Axial] = {}
    for h in board.occupied():
        stack = board.stack(h)
        (place,) = {positions[Piece(p)][:2] for p in stack}
        assert [positions[Piece(p)][2] for p in stack] == list(range(len(stack)))
        assert hex_at(*place) == h
        assert layout.axial(h) == place
        stacks[h] = place
    for a, b in itertools.combinations(stacks, 2):
        assert (distance(stacks[a], stacks[b]) == 1) == (b in NEIGHBORS[a]), (
            game.game_string(),
            axial(a),
            axial(b),
        )


def check_legal_moves(game: Game, layout: Layout, rng: random.Random) -> None:
    """Each legal move starts where its piece is and ends on a stack or next to one; a few of
    them are pushed, and the piece is then found where ``endpoints`` said, the others unmoved."""
    positions = layout.positions
    places = {position[:2] for position in positions.values()}
    moves = game.legal_moves()
    for move in moves:
        source, destination = layout.endpoints(move)
        if move.is_pass:
            assert (source, destination) == (None, None)
            continue
        assert destination is not None
        assert hex_at(*destination) == move.destination
        if move.is_placement:
            assert source is None
        else:
            assert source == positions[Piece(move.piece)][:2]
        if places:
            assert destination in places or any(distance(destination, p) == 1 for p in places)
        else:
            assert destination == (0, 0)
    for move in rng.sample(moves, min(SAMPLED_MOVES, len(moves))):
        game.push(move)
        after = game.positions()
        game.pop()
        others = {p: place for p, place in positions.items() if p != move.piece}
        if not move.is_pass:
            assert after.pop(Piece(move.piece))[:2] == layout.endpoints(move)[1]
        assert after == others


def check_game(game: Game, moves: list[Move], rng: random.Random) -> Layout:
    """Replay ``moves`` on ``game`` checking every position; returns the last layout."""
    layout = game.layout()
    check_layout(game, layout)
    first = None
    for move in moves:
        check_legal_moves(game, layout, rng)
        game.push(move)
        after = game.layout()
        check_layout(game, after)
        if first is None and move[0] >= 0:
            first = Piece(move[0])
        if first is not None and first in after.positions and game.board.hex_of[first] == ORIGIN:
            assert after.positions[first][:2] == (0, 0)
        # Only the piece that moved has new coordinates (a climb changes no one else's level).
        before = {p: v for p, v in layout.positions.items() if p != move[0]}
        assert {p: v for p, v in after.positions.items() if p != move[0]} == before
        layout = after
    return layout


@pytest.mark.parametrize("text", REAL_GAMES, ids=lambda text: f"{len(text.split(';')) - 3}-moves")
def test_real_games(text: str) -> None:
    played = Game.from_game_string(text)
    check_game(Game(played.game_type), list(played.moves), random.Random(SEED))


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=str)
def test_random_games(game_type: GameType) -> None:
    """Random games have stacks, throws and passes that the real games may lack."""
    rng = random.Random(f"{SEED}-{game_type}")
    for _ in range(3):
        game = Game(game_type)
        for _ in range(70):
            moves = game.legal_moves()
            if not moves:
                break
            game.push(rng.choice(moves))
        check_game(Game(game_type), list(game.moves), rng)


@pytest.mark.parametrize("text", [MIDGAME, STACKED_AND_THROWN])
def test_stacks_share_coordinates(text: str) -> None:
    game = Game.from_game_string(text)
    layout = check_game(Game(game.game_type), list(game.moves), random.Random(SEED))
    tall = [h for h in game.board.occupied() if game.board.height[h] > 1]
    assert tall
    for h in tall:
        levels = [layout.positions[Piece(p)] for p in game.board.stack(h)]
        assert [level for _, _, level in levels] == list(range(len(levels)))


# White lines up its pieces west of its first, Black east of its own; then White's Grasshoppers
# jump over the line to its east end and its Ants walk there, while Black, every piece pinned
# and none in hand, passes. The line drifts east until it runs off the wrapped grid's q range.
WHITE_LINE = ("wS1", "wQ", "wS2", "wB1", "wB2", "wA1", "wA2", "wA3", "wG1", "wG2", "wG3")
BLACK_LINE = ("bS1", "bQ", "bS2", "bB1", "bB2", "bA1", "bA2", "bA3", "bG1", "bG2", "bG3")
TRAVELLERS = ("wG3", "wG2", "wG1", "wA3", "wA2", "wA1")


def drifting_game() -> Game:
    game = Game("Base")
    game.play("wS1")
    game.play("bS1 wS1-")
    for i in range(1, len(WHITE_LINE)):
        game.play(f"{WHITE_LINE[i]} -{WHITE_LINE[i - 1]}")
        game.play(f"{BLACK_LINE[i]} {BLACK_LINE[i - 1]}-")
    east = BLACK_LINE[-1]
    for piece in TRAVELLERS:
        game.play(f"{piece} {east}-")
        assert game.legal_moves() == [PASS]
        game.play("pass")
        east = piece
    return game


def test_coordinates_do_not_wrap_when_the_hive_drifts() -> None:
    game = drifting_game()
    layout = check_game(Game("Base"), list(game.moves), random.Random(SEED))
    line = sorted(layout.positions.items(), key=lambda item: item[1])
    assert [q for _, (q, _, _) in line] == list(range(-4, 18))
    assert {(r, level) for _, (_, r, level) in line} == {(0, 0)}
    assert [str(piece) for piece, _ in line[-6:]] == list(TRAVELLERS)
    # The last two Ants stand beyond the grid's q range [-16, 15]: their wrapped hexes say
    # (-16, 0) and (-15, 0), on the far side of the first piece.
    assert layout.positions[Piece.wA1] == (17, 0, 0)
    assert axial(game.board.hex_of[Piece.wA1]) == (17 - SIZE, 0)
    assert layout.positions[Piece.wA2] == (16, 0, 0)
    assert layout.positions[Piece.wS1] == (0, 0, 0)  # the first piece never moved
    # Moves there are given in the same plain coordinates.
    game.undo(2)
    wA1_moves = [m for m in game.legal_moves() if m.piece == Piece.wA1]
    ends = {game.layout().endpoints(m) for m in wA1_moves}
    assert ((-5, 0), (17, 0)) in ends
    assert all(source == (-5, 0) for source, _ in ends)


def test_an_empty_board_and_the_first_moves() -> None:
    game = Game("Base+MLP")
    assert game.positions() == {}
    assert game.axial(ORIGIN) == (0, 0)
    assert {game.layout().endpoints(m) for m in game.legal_moves()} == {(None, (0, 0))}
    game.play("wG1")
    assert game.positions() == {Piece.wG1: (0, 0, 0)}
    ends = {game.layout().endpoints(m)[1] for m in game.legal_moves()}
    assert ends == {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}
    assert game.layout().endpoints(PASS) == (None, None)


def test_a_hex_away_from_the_hive_has_no_coordinates() -> None:
    game = Game.from_game_string(MIDGAME)
    far = hex_at(10, 10)
    assert all(game.board.height[n] == 0 for n in (far, *NEIGHBORS[far]))
    with pytest.raises(HiveError) as info:
        game.axial(far)
    assert "(10, 10)" in str(info.value)


def test_layout_only_reads_the_game() -> None:
    game = Game.from_game_string(STACKED_AND_THROWN)
    before = raw_state(game)
    layout = game.layout()
    assert game.positions() == layout.positions
    assert [game.axial(h) for h in game.board.occupied()] == [
        layout.axial(h) for h in game.board.occupied()
    ]
    assert raw_state(game) == before


def test_a_piece_pushed_where_it_touches_nothing() -> None:
    """``push`` trusts its move; such a piece gets the image of its hex nearest the hive."""
    game = Game()
    game.push(Move(Piece.wS1, HAND, ORIGIN))
    game.push(Move(Piece.bQ, HAND, hex_at(3, -20)))
    assert game.positions() == {Piece.wS1: (0, 0, 0), Piece.bQ: (3, 12, 0)}
