"""Engine lines (``ai.analysis.generate_lines``) and the winning chance (``win_chance``)."""

from __future__ import annotations

import pytest

from ai.analysis import LINES_BRANCHING, generate_lines, principal_variation, win_chance
from ai.evaluation import MATE_BOUND, WIN, evaluate
from ai.search import TranspositionTable, search
from hive import Game
from tests.ai.support import fake_clock, mid_games

# White to move surrounds the black Queen with wQ /bG1 (the game's last move, taken back).
WIN_IN_ONE = (
    "Base;InProgress;White[8];wS1;bS1 wS1-;wQ -wS1;bQ bS1/;wG1 -wQ;bG1 \\bQ;wG1 bQ\\;bG2 bQ/;"
    "wA1 wQ\\;bA1 bG2/;wA1 bG2\\;bA1 \\bG2;wQ \\wS1;bA1 bG2/"
)
POSITIONS = [game.game_string() for game in mid_games(4)]


@pytest.mark.parametrize("text", POSITIONS)
def test_each_depth_ranks_the_best_moves_as_a_search_of_that_depth(text: str) -> None:
    game = Game.from_game_string(text)
    depths = list(generate_lines(game, count=3, max_depth=3))
    assert [d.depth for d in depths] == [1, 2, 3]
    for found in depths:
        scores = [line.score for line in found.lines]
        assert len(scores) == 3
        assert scores == sorted(scores, reverse=True)
        alone = search(game, depth=found.depth, branching=LINES_BRANCHING, exact_top=3)
        assert scores == [score for _, score in alone.ranked[:3]]
        assert [line.chance for line in found.lines] == [win_chance(s) for s in scores]
        assert found.nodes > 0


@pytest.mark.parametrize("text", POSITIONS)
def test_a_principal_variation_is_legal_and_ends_where_its_score_says(text: str) -> None:
    game = Game.from_game_string(text)
    full = 0
    for found in generate_lines(game, count=3, max_depth=3):
        for line in found.lines:
            assert line.pv[0] == line.move
            assert 1 <= len(line.pv) <= found.depth
            for move in line.pv:
                assert game.is_legal(move)
                game.push(move)
            leaf = evaluate(game)
            for _ in line.pv:
                game.pop()
            if len(line.pv) == found.depth:  # the search's leaf: its static score, signed
                full += 1
                assert (leaf if found.depth % 2 == 0 else -leaf) == line.score
    assert full >= 6, "most variations reach the depth"
    assert game.game_string() == text


def test_a_variation_stops_where_the_table_knows_nothing() -> None:
    game = Game.from_game_string(POSITIONS[0])
    move = game.legal_moves()[0]
    assert principal_variation(game, move, 0, 4, TranspositionTable()) == (move,)
    assert game.game_string() == POSITIONS[0]


def test_a_win_in_one_leads_with_a_winning_score() -> None:
    game = Game.from_game_string(WIN_IN_ONE)
    depths = list(generate_lines(game, count=3, max_depth=4))
    first = depths[0].lines[0]
    assert first.move == game.parse_move("wQ /bG1")
    assert first.score == WIN - (game.ply + 1)
    assert first.chance == 1.0
    assert first.pv == (first.move,)


def test_the_game_is_left_as_it_was_when_the_caller_stops_early() -> None:
    game = Game.from_game_string(POSITIONS[1])
    lines = generate_lines(game, max_depth=5)
    next(lines)
    next(lines)
    lines.close()
    assert game.game_string() == POSITIONS[1]


def test_the_lines_stop_at_the_deadline() -> None:
    game = Game.from_game_string(POSITIONS[2])
    clock = fake_clock(0.001)  # a millisecond a reading
    depths = list(generate_lines(game, deadline=0.5, clock=clock))
    assert depths, "depth 1 fits"
    assert clock() < 0.6, "no depth ran on long past the deadline"
    assert [d.depth for d in depths] == list(range(1, len(depths) + 1))
    assert all(d.seconds > 0 for d in depths)
    assert game.game_string() == POSITIONS[2]
    late = fake_clock(0.001)
    assert list(generate_lines(game, deadline=-1.0, clock=late)) == []


def test_a_finished_game_has_no_lines() -> None:
    game = Game.from_game_string(WIN_IN_ONE)
    game.play("wQ /bG1")
    assert list(generate_lines(game, max_depth=3)) == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"count": 0, "max_depth": 2}, "count must be at least 1"),
        ({"max_depth": 0}, "max_depth must be at least 1"),
        ({"deadline": 1.0}, "a deadline needs a clock"),
        ({}, "give a max_depth or a deadline"),
    ],
)
def test_bad_options_are_refused(options: dict[str, int | float], message: str) -> None:
    game = Game.from_game_string(POSITIONS[0])
    with pytest.raises(ValueError, match=message):
        next(generate_lines(game, **options))  # type: ignore[arg-type]


def test_win_chance_is_a_symmetric_rising_curve_through_one_half() -> None:
    assert win_chance(0) == 0.5
    scores = [-800, -200, -50, -1, 0, 1, 50, 200, 800]
    chances = [win_chance(s) for s in scores]
    assert chances == sorted(chances)
    assert len(set(chances)) == len(chances)
    for s in scores:
        assert win_chance(s) + win_chance(-s) == pytest.approx(1.0)
        assert 0.0 < win_chance(s) < 1.0
    assert win_chance(100, slope=0.01) == pytest.approx(1 / (1 + 2.718281828459045**-1))


def test_proved_results_are_certain() -> None:
    assert win_chance(WIN - 30) == 1.0
    assert win_chance(MATE_BOUND) == 1.0
    assert win_chance(-(WIN - 30)) == 0.0
    assert win_chance(-MATE_BOUND) == 0.0
    assert 0.0 <= win_chance(-(MATE_BOUND - 1)) < win_chance(MATE_BOUND - 1) <= 1.0
