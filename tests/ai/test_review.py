"""A game's review (``ai.review``): marks, accuracies, and each move's scores."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import pytest

from ai.analysis import win_chance
from ai.evaluation import MATE_BOUND
from ai.review import (
    Mark,
    PlyReview,
    mark,
    move_accuracy,
    player_accuracy,
    position_search,
    review,
    review_position,
)
from hive import Game, HiveError

# A short Base game White wins with its 15th move, ply 14 (wQ /bG1 surrounds the black Queen).
FINISHED = (
    "Base;WhiteWins;Black[8];wS1;bS1 wS1-;wQ -wS1;bQ bS1/;wG1 -wQ;bG1 \\bQ;wG1 bQ\\;bG2 bQ/;"
    "wA1 wQ\\;bA1 bG2/;wA1 bG2\\;bA1 \\bG2;wQ \\wS1;bA1 bG2/;wQ /bG1"
)
GAME_TYPE = FINISHED.split(";")[0]
MOVES = FINISHED.split(";")[3:]
DEPTH = 3  # cheap: the rules of the review, not its strength


@pytest.mark.parametrize(
    ("drop", "expected"),
    [
        (0.0, None),
        (0.0499, None),
        (0.05, Mark.INACCURACY),
        (0.0999, Mark.INACCURACY),
        (0.10, Mark.MISTAKE),
        (0.15, Mark.BLUNDER),
        (1.0, Mark.BLUNDER),
    ],
)
def test_marks_are_lichess_thresholds_on_the_drop_in_winning_chance(
    drop: float, expected: Mark | None
) -> None:
    assert mark(drop) == expected


def test_move_accuracy_follows_lichess_curve() -> None:
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert move_accuracy(-0.2) == move_accuracy(0.0)  # a gain is no drop
    assert move_accuracy(0.10) == pytest.approx(103.1668 * 2.718281828459045**-0.4354 - 3.1669)
    assert move_accuracy(1.0) == 0.0
    drops = [0.0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.6]
    values = [move_accuracy(d) for d in drops]
    assert values == sorted(values, reverse=True)


def test_player_accuracy_is_the_mean_of_the_arithmetic_and_harmonic_means() -> None:
    assert player_accuracy([]) is None
    assert player_accuracy([80.0, 80.0]) == pytest.approx(80.0)
    assert player_accuracy([100.0, 50.0]) == pytest.approx((75.0 + 200 / 3) / 2)
    assert player_accuracy([100.0, 0.0]) == pytest.approx(25.0)  # one blunder weighs


def test_the_best_move_played_gives_nothing_away() -> None:
    game = Game(GAME_TYPE)
    for text in MOVES[:6]:
        game.play(text)
    best = position_search(game, depth=DEPTH)[0][0]
    moves = [*MOVES[:6], game.move_string(best)]
    found = review_position(GAME_TYPE, moves, 6, depth=DEPTH)
    assert found.played_score == found.best_score
    assert found.drop == 0.0
    assert found.mark is None
    assert found.accuracy == pytest.approx(100.0, abs=1e-3)
    assert found.chance == win_chance(found.best_score)


def test_missing_a_win_in_one_for_a_move_that_wins_nothing_is_a_blunder() -> None:
    game = Game(GAME_TYPE)
    for text in MOVES[:14]:
        game.play(text)
    marks = set()
    for move in game.legal_moves():
        found = review_position(GAME_TYPE, [*MOVES[:14], game.move_string(move)], 14, depth=DEPTH)
        assert found.best == "wQ -bQ"  # the winning move (wQ /bG1)
        assert found.chance == 1.0
        if found.played_score < MATE_BOUND:  # not even a slower forced win
            assert found.mark is Mark.BLUNDER
        else:
            assert found.played_chance == 1.0 and found.mark is None
        marks.add(found.mark)
    assert marks == {None, Mark.BLUNDER}


def test_each_move_scored_as_alone_and_summed_up_per_player() -> None:
    done = review(GAME_TYPE, MOVES, depth=DEPTH)
    assert [p.ply for p in done.plies] == list(range(len(MOVES)))
    game = Game(GAME_TYPE)
    for p, text in zip(done.plies, MOVES, strict=True):
        assert game.parse_move(p.move) == game.parse_move(text)  # one move, maybe two spellings
        game.play(text)
    for ply in (0, 7, 14):
        assert done.plies[ply] == review_position(GAME_TYPE, MOVES, ply, depth=DEPTH)
    for p in done.plies:
        assert p.played_score <= p.best_score
        assert p.mark == mark(p.chance - p.played_chance)
        assert p.white_score == (p.best_score if p.ply % 2 == 0 else -p.best_score)
    assert done.plies[14].chance == 1.0  # the winning move, found and played
    assert done.plies[14].mark is None
    for player, plies in ((done.white, done.plies[0::2]), (done.black, done.plies[1::2])):
        marks = [p.mark for p in plies]
        assert player.inaccuracies == marks.count(Mark.INACCURACY)
        assert player.mistakes == marks.count(Mark.MISTAKE)
        assert player.blunders == marks.count(Mark.BLUNDER)
        assert player.accuracy == player_accuracy([p.accuracy for p in plies])


def test_positions_reviewed_in_worker_processes_review_alike() -> None:
    seen: list[PlyReview] = []
    with ProcessPoolExecutor(max_workers=2) as pool:
        apart = review(GAME_TYPE, MOVES[:8], depth=DEPTH, mapper=pool.map, on_ply=seen.append)
    assert apart == review(GAME_TYPE, MOVES[:8], depth=DEPTH)
    assert [p.ply for p in seen] == list(range(8))


def test_an_illegal_move_is_refused_before_any_search() -> None:
    with pytest.raises(HiveError, match="wQ"):
        review(GAME_TYPE, [*MOVES[:3], "wQ wS1-"], depth=DEPTH)
    with pytest.raises(ValueError, match="ply 3 is not a move"):
        review_position(GAME_TYPE, MOVES[:3], 3, depth=DEPTH)


def test_a_move_other_than_the_best_is_scored_at_the_best_ones_horizon() -> None:
    game = Game(GAME_TYPE)
    for text in MOVES[:9]:
        game.play(text)
    best = position_search(game, depth=DEPTH)[0][0]
    other = next(m for m in game.legal_moves() if m != best)
    found = review_position(GAME_TYPE, [*MOVES[:9], game.move_string(other)], 9, depth=DEPTH)
    game.push(other)
    reply = position_search(game, depth=DEPTH - 1)[0][1]
    assert found.played_score == min(-reply, found.best_score)
    assert found.played_chance == win_chance(found.played_score)
    assert found.mark == mark(found.chance - found.played_chance)
