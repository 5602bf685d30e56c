"""Puzzles: forced wins proved by brute force, kept only when their solution is unique.

The positions of ``tests/ai/data/win_in_two.tsv`` (each with every move that forces a win in
two, proved by the brute force of ``bench.forced_wins``) are the reference: the puzzles'
prover finds the same moves, and keeps a position exactly when one move alone wins."""

from __future__ import annotations

import pytest

from ai.puzzles import (
    Puzzle,
    find,
    forcing_moves,
    puzzle_of,
    saving_move,
    solve,
    winning_now,
    wins_within,
)
from bench.forced_wins import load
from hive import Game, GameState, Move

POSITIONS = load()
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
