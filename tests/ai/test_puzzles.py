"""Puzzles: forced wins proved by brute force, kept only when their solution is unique.

The positions of ``tests/ai/data/win_in_two.tsv`` (each with every move that forces a win in
two, proved by the brute force of ``bench.forced_wins``) are the reference: the puzzles'
prover finds the same moves, and keeps a position exactly when one move alone wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai.arena import Player, play_game
from ai.proof import _quiet_reply
from ai.puzzles import (
    Puzzle,
    find,
    forces,
    forcing_moves,
    mine_moves,
    puzzle_of,
    saving_move,
    solve,
    winning_now,
    wins_within,
)
from bench.forced_wins import load
from hive import Game, GameState, GameType, Move
from hive.board import EMPTY
from hive.hexes import NEIGHBORS
from hive.pieces import FIRST_OF, Bug

POSITIONS = load()
THROWN = (Path(__file__).parent / "data" / "queen_thrown.txt").read_text().strip()
"""A Base+P position (random moves) where Black wins at once by throwing the white Queen
with its Pillbug (``wQ -bB1``) while two hexes round that Queen are empty."""
ONE_WAY = [(game, moves) for game, moves in POSITIONS if len(moves) == 1]
MANY_WAYS = [(game, moves) for game, moves in POSITIONS if len(moves) > 1]


def same(a: list[Move], b: list[Move]) -> bool:
    return {(m.piece, m.destination) for m in a} == {(m.piece, m.destination) for m in b}


@pytest.mark.parametrize("number", range(0, 100, 7))
def test_the_prover_finds_every_move_that_forces_a_win_in_two(number: int) -> None:
    game, moves = POSITIONS[number]
    assert same(forcing_moves(game, 2), moves)
    assert not winning_now(game)  # (the file's positions cannot win in one)


def test_a_position_won_in_two_ways_is_no_puzzle() -> None:
    """The planted non-unique positions: each has two moves or more that force the win."""
    for game, moves in MANY_WAYS[:6]:
        assert len(moves) > 1
        assert solve(game) is None, game.game_string()


def test_most_positions_won_in_two_one_way_are_puzzles_whose_lines_win() -> None:
    """Unique at first, a position is kept when the line stays unique after the defence it
    follows; each kept line's first move is the one that forces the win, and it wins."""
    kept = 0
    for game, moves in ONE_WAY[:20]:
        solved = solve(game)
        if solved is None:
            continue
        kept += 1
        length, line = solved
        assert length == 2 and same(line[:1], moves) and len(line) == 3
        mover = game.ply & 1
        for move in line:
            game.push(move)
        try:
            assert game.state is (GameState.WHITE_WINS, GameState.BLACK_WINS)[mover]
        finally:
            for _ in line:
                game.pop()
    assert kept >= 15


def test_a_win_in_one_is_a_puzzle_only_when_one_move_wins() -> None:
    game, moves = ONE_WAY[0]
    game.push(moves[0])  # the solver's move: now any reply leaves a win in one
    try:
        for reply in game.legal_moves()[:15]:
            game.push(reply)
            try:
                if game.state is not GameState.IN_PROGRESS:
                    continue
                winning = winning_now(game)
                assert winning and wins_within(game, 1)
                found = puzzle_of(game)
                if len(winning) == 1:
                    assert found is not None and found.theme == "win1"
                    assert found.solution == (game.move_string(winning[0]),)
                else:
                    assert found is None or found.theme != "win1"
            finally:
                game.pop()
    finally:
        game.pop()


def test_save_the_queen_is_the_one_move_that_stops_the_win() -> None:
    """The solver's opponent, to move before the solver's forcing move was played, in a
    position where the solver would win in two: a defence puzzle has one saving move, and
    every other move of the defender lets the win in two through."""
    checked = 0
    for game, _ in ONE_WAY[:12]:
        if game.ply < 1:
            continue
        last = game.pop()  # back to the defender's turn, before it let the threat in
        try:
            saving = saving_move(game)
            if saving is None:
                continue
            checked += 1
            for move in game.legal_moves():
                game.push(move)
                try:
                    lost = game.state is GameState.IN_PROGRESS and wins_within(game, 2)
                    assert lost == (move != saving), game.move_string(move)
                finally:
                    game.pop()
        finally:
            game.push(last)
    assert checked >= 1


def test_find_reads_a_game_s_positions_and_names_where_each_came_from() -> None:
    game, moves = ONE_WAY[0]
    whole = Game.from_game_string(game.game_string())
    whole.push(moves[0])
    found = list(find([("g1", whole)]))
    assert found and all(isinstance(p, Puzzle) for p in found)
    assert any(p.source == f"g1@{game.ply}" and p.theme == "win2" for p in found)
    for puzzle in found:
        again = Game.from_game_string(puzzle.game_string)
        for text in puzzle.solution:
            again.play(text)  # every move of the solution is legal
        assert again.state.is_over or puzzle.theme == "defend"


# -- the shortcuts of the proof, against playing every move ---------------------------------


@pytest.fixture(scope="module")
def played() -> list[Game]:
    """Every position, both Queens down, of two games between the ``easy`` bot and itself in
    each of three game types (the Pillbug's throws and the Mosquito's copies among them)."""
    positions = []
    for index, game_type in enumerate(("Base", "Base+M", "Base+MLP", "Base+MLP", "Base+PL")):
        easy = Player.bot("easy")
        record = play_game(easy, easy, index, game_type=GameType.parse(game_type), seed=3)
        whole = Game.from_game_string(record.game_string, repetition_draw=True)
        game = Game(whole.game_type)
        for move in whole.moves:
            game.push(move)
            both = game.queen_placed(0) and game.queen_placed(1)
            if game.state is GameState.IN_PROGRESS and both:
                positions.append(Game.from_game_string(game.game_string()))
    return positions


def every_winning_move(game: Game) -> list[Move]:
    """The moves that win at once, each legal move played."""
    won = (GameState.WHITE_WINS, GameState.BLACK_WINS)[game.ply & 1]
    found = []
    for move in game.legal_moves():
        game.push(move)
        if game.state is won:
            found.append(move)
        game.pop()
    return found


def forces_by_hand(game: Game, move: Move, n: int) -> bool:
    """``forces`` by playing every reply and every move, no shortcut, no table."""
    me = game.ply & 1
    won = (GameState.WHITE_WINS, GameState.BLACK_WINS)[me]
    game.push(move)
    try:
        if game.state is won:
            return True
        if game.state is not GameState.IN_PROGRESS or n == 1:
            return False
        for reply in game.legal_moves():
            game.push(reply)
            try:
                after = game.state
                held = after is not won and (
                    after is not GameState.IN_PROGRESS
                    or not any(forces_by_hand(game, m, n - 1) for m in game.legal_moves())
                )
            finally:
                game.pop()
            if held:
                return False
        return True
    finally:
        game.pop()


def holes(game: Game) -> int:
    queen = FIRST_OF[1 - (game.ply & 1)][Bug.QUEEN]
    return sum(game.board.top[h] == EMPTY for h in NEIGHBORS[game.board.hex_of[queen]])


def test_the_win_at_once_is_found_as_by_playing_every_move(played: list[Game]) -> None:
    """``winning_now`` plays only the moves into the one hole round the Queen (or every move
    near a Pillbug): the same moves as playing them all, at every position, and on the same
    positions with the other side to move (the moves found for a reply)."""
    kinds = {game.game_type for game in played}
    assert len(kinds) == 4 and len(played) > 150
    wins = 0
    for game in played:
        assert same(winning_now(game), every_winning_move(game)), game.game_string()
        wins += bool(winning_now(game))
        for reply in game.legal_moves()[::7]:
            game.push(reply)
            try:
                assert same(winning_now(game), every_winning_move(game)), game.game_string()
                wins += bool(winning_now(game))
            finally:
                game.pop()
    assert wins >= 10  # (positions where a move wins, not only those where none does)


def test_a_move_forces_the_win_in_two_as_by_playing_every_reply(played: list[Game]) -> None:
    """``forces`` (its quiet replies found without generating the defender's moves, its table)
    says of every move what playing every reply and every move says, where the enemy Queen
    has three holes or fewer round it."""
    near = [game for game in played if holes(game) <= 3]
    assert len(near) >= 12
    step = max(1, len(near) // 12)
    # A dozen spread over the games, then the others in order until a move that forces is met.
    order = near[::step] + [game for i, game in enumerate(near) if i % step]
    forcing = 0
    for checked, game in enumerate(order):
        if checked >= 12 and forcing:
            break
        for move in game.legal_moves():
            expected = forces_by_hand(game, move, 2)
            assert forces(game, move, 2) is expected, (game.game_string(), move)
            forcing += expected
    assert forcing >= 1


def test_the_queen_thrown_into_a_hole_wins_and_no_reply_beside_the_thrower_is_quiet() -> None:
    """Beside a Pillbug that can throw it, a Queen with two holes round it can still be
    surrounded at once: ``winning_now`` plays the throw, and the shortcut that stands in for
    the defender's quiet replies (private, tested here since only such a rare position tells)
    stands back, so the search plays those replies."""
    game = Game.from_game_string(THROWN)
    throw = game.parse_move("wQ -bB1")
    assert holes(game) >= 2
    assert same(winning_now(game), every_winning_move(game))
    assert throw in winning_now(game)
    game.pop()  # White to move, the Queen's defender: its last reply let the throw in
    assert not _quiet_reply(game)


def test_an_archived_game_s_moves_give_its_puzzles_and_bad_moves_none() -> None:
    """``mine_moves``, what the server's miner runs in a worker: a game given as MoveStrings
    (its winning line played through) gives the puzzle of its position, named by the game and
    ply; moves that do not replay give nothing (and raise nothing)."""
    game, moves = ONE_WAY[0]
    whole = Game.from_game_string(game.game_string())
    whole.push(moves[0])
    played = tuple(m.strip() for m in whole.game_string().split(";")[3:])
    found = mine_moves(str(whole.game_type), played, "g1")
    assert any(p.source == f"g1@{game.ply}" and p.theme == "win2" for p in found)
    assert mine_moves(str(whole.game_type), (*played[:3], "wQ wQ-"), "g2") == []
