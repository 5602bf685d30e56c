"""push/pop symmetry, the Zobrist hash, and invariants along random games."""

from __future__ import annotations

import random

import pytest

from hive import Game, GameType, Move, Piece
from hive.board import HAND
from hive.hexes import NEIGHBORS, ORIGIN
from hive.pieces import ALL_GAME_TYPES
from tests.hive.support import raw_state

GAMES_PER_TYPE = 25  # 200 games in all
PLIES = 60
SEED = 1729


def board_snapshot(game: Game) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every stack on the board (bottom first) and the side to move: what the hash stands for."""
    board = game.board
    stacks = tuple(sorted((h, tuple(board.stack(h))) for h in board.occupied()))
    return (*stacks, (-1, (int(game.turn),)))


def full_state(game: Game) -> tuple[object, ...]:
    """``raw_state`` and the GameString (which replays the whole game, so costs more)."""
    return (game.game_string(), *raw_state(game))


def game_type_id(game_type: GameType) -> str:
    return str(game_type)


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=game_type_id)
def test_push_pop_restores_everything(game_type: GameType) -> None:
    rng = random.Random(f"{SEED}-{game_type}")
    plies = 0
    for _ in range(GAMES_PER_TYPE):
        game = Game(game_type)
        history = []
        for _ in range(PLIES):
            moves = game.legal_moves()
            assert game.count_legal_moves() == len(moves)
            assert len(set(moves)) == len(moves)
            if not moves:
                assert game.is_over()
                break
            before = full_state(game)
            move = rng.choice(moves)
            # A move tried and taken back leaves no trace (the GameString is compared when the
            # whole game is unwound below).
            game.push(move)
            assert game.board.is_connected(), game.game_string()
            assert game.pop() == move
            assert raw_state(game) == before[1:]
            game.push(move)
            history.append(before)
            plies += 1
        while history:  # then unwind the whole game
            game.pop()
            assert full_state(game) == history.pop()
        assert game.hash == Game(game_type).hash
        assert game.ply == 0
    assert plies > GAMES_PER_TYPE * PLIES // 2


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=game_type_id)
def test_hash_is_that_of_the_position(game_type: GameType) -> None:
    """The incremental hash equals the one a fresh replay of the GameString builds, and two
    positions share a hash exactly when their boards and sides to move agree."""
    rng = random.Random(f"{SEED}-hash-{game_type}")
    seen: dict[int, tuple[object, ...]] = {}
    for _ in range(3):
        game = Game(game_type)
        for _ in range(PLIES):
            moves = game.legal_moves()
            if not moves:
                break
            game.push(rng.choice(moves))
            assert Game.from_game_string(game.game_string()).hash == game.hash
            snapshot = board_snapshot(game)
            assert seen.setdefault(game.hash, snapshot) == snapshot
    assert len(seen) > 100
    assert len(set(seen.values())) == len(seen)  # different boards, different hashes


# Two placements by the same player, either order, separated by the same reply: one position.
TRANSPOSED = (
    ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wG1 -wQ", "bG1 bQ-", "wA1 \\wQ"),
    ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wA1 \\wQ", "bG1 bQ-", "wG1 -wQ"),
)


def test_hash_of_a_transposition() -> None:
    first, second = (Game(), Game())
    for game, moves in zip((first, second), TRANSPOSED, strict=True):
        for move in moves:
            game.play(move)
    assert board_snapshot(first) == board_snapshot(second)
    assert first.hash == second.hash
    assert first.game_string() != second.game_string()


def test_hash_of_commuting_moves_later_in_random_games() -> None:
    """Whenever White's moves a then b (Black's reply x between) can be played as b, x, a,
    the hash depends only on the position reached."""
    rng = random.Random(SEED)
    found = 0
    for game_type in ALL_GAME_TYPES:
        game = Game(game_type)
        for _ in range(40):
            moves = game.legal_moves()
            if not moves:
                break
            if game.turn == 0 and game.queen_placed(0) and game.ply >= 8:
                found += try_commuting(game, rng)
            game.push(rng.choice(moves))
    assert found >= 100


def try_commuting(game: Game, rng: random.Random) -> int:
    """Try a few (a, x, b) triples in ``game``; count those whose two orders reach the same
    board, checking their hashes on the way. The game is left as it was."""
    start = game.hash
    found = 0
    white = [m for m in game.legal_moves() if not m.is_pass]
    for a in rng.sample(white, min(4, len(white))):
        game.push(a)
        replies = game.legal_moves()
        x = rng.choice(replies) if replies else None
        if x is not None:
            game.push(x)
            for b in [m for m in game.legal_moves() if m.piece != a.piece][:6]:
                game.push(b)
                one_way = (board_snapshot(game), game.hash)
                game.pop()
                found += played_the_other_way(game, a, x, b, one_way)
            game.pop()
        game.pop()
    assert game.hash == start
    return found


def played_the_other_way(game: Game, a: Move, x: Move, b: Move, one_way: tuple[object, int]) -> int:
    """From the position after a, x: undo both, play b, x, a if legal, and compare."""
    undone = [game.pop(), game.pop()]
    result = 0
    if b in game.legal_moves():
        game.push(b)
        if x in game.legal_moves():
            game.push(x)
            if a in game.legal_moves():
                game.push(a)
                snapshot, hash_ = board_snapshot(game), game.hash
                assert (snapshot == one_way[0]) == (hash_ == one_way[1])
                result = snapshot == one_way[0]
                game.pop()
            game.pop()
        game.pop()
    for move in reversed(undone):
        game.push(move)
    return int(result)


def test_hash_tells_the_order_of_a_stack() -> None:
    """The same pieces on the same hexes, stacked the other way up, are another position.
    Built with the trusted ``push``, which stacks whatever it is given."""
    beside = NEIGHBORS[ORIGIN][0]
    games = []
    for lower, upper in ((Piece.wB1, Piece.bB1), (Piece.bB1, Piece.wB1)):
        game = Game()
        game.push(Move(Piece.wQ, HAND, beside))
        game.push(Move(lower, HAND, ORIGIN))
        game.push(Move(upper, HAND, ORIGIN))
        game.push(Move(Piece.bQ, HAND, NEIGHBORS[ORIGIN][3]))
        assert game.board.stack(ORIGIN) == [lower, upper]
        games.append(game)
    first, second = games
    assert first.board.hex_of == second.board.hex_of
    assert first.turn == second.turn
    assert first.hash != second.hash


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=game_type_id)
def test_play_unchecked_reaches_the_positions_play_reaches(game_type: GameType) -> None:
    """A stored game replayed without checks (the server's cache) is the game played with
    them: the same moves, hash and state at every ply, passes included."""
    rng = random.Random(f"{SEED}-unchecked-{game_type}")
    for _ in range(5):
        checked, unchecked = Game(game_type), Game(game_type)
        while not checked.is_over() and checked.ply < PLIES:
            text = checked.move_string(rng.choice(checked.legal_moves()))
            assert unchecked.play_unchecked(text) == checked.play(text)
            assert full_state(unchecked) == full_state(checked)
