"""Fitting the evaluation's weights to game results (``bench.texel``): the positions a game
gives, the fit, and the command from a file of games to the fitted weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ai.arena import Player, play_game
from ai.evaluation import FITTED_WEIGHTS, MATE_BOUND, WEIGHTS, features
from ai.search import search
from bench.texel import fit, game_positions, log_loss, main
from hive import Game, GameType


def beginner_games(count: int) -> list[str]:
    player = Player.bot("beginner")
    base_mlp = GameType.parse("Base+MLP")
    return [
        play_game(player, player, i, game_type=base_mlp, seed=4).game_string for i in range(count)
    ]


def test_the_fit_recovers_the_weights_that_drew_the_results() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(-4, 5, size=(40_000, 3)).astype(np.float64)
    truth = np.array([0.5, -0.25, 0.1])
    y = (rng.random(len(x)) < 1 / (1 + np.exp(-x @ truth))).astype(np.float64)
    found = fit(x, y, np.zeros(3))
    assert found == pytest.approx(truth, abs=0.03)
    assert log_loss(found, x, y) < log_loss(truth * 0.8, x, y)
    # The ridge penalty pulls toward the start, all the way when it is heavy.
    assert fit(x, y, np.zeros(3), l2=1e6) == pytest.approx(np.zeros(3), abs=1e-4)


def test_a_game_gives_its_quiet_positions_in_whites_view_with_whites_result() -> None:
    decided = [s for s in beginner_games(6) if s.split(";")[1] in ("WhiteWins", "BlackWins")]
    assert decided
    text = decided[0]
    fields = text.split(";")
    white = 1.0 if fields[1] == "WhiteWins" else 0.0
    got = game_positions(text, skip=4)
    game = Game(fields[0])
    expected, forced = [], 0
    for ply, move in enumerate(fields[3:]):
        if ply >= 4:
            if abs(search(game, depth=2, exact_top=1).ranked[0][1]) >= MATE_BOUND:
                forced += 1  # the side to move wins in one, or cannot stop a loss
            else:
                sign = 1 if ply % 2 == 0 else -1
                expected.append([sign * features(game)[name] for name in WEIGHTS])
        game.play(move)
    assert forced >= 1  # the position before the winning move is never fitted
    assert [counts for counts, _ in got] == expected
    assert {result for _, result in got} == {white}
    assert any(counts[0] != 0 for counts, _ in got)  # a Queen was pressed on the way


@pytest.mark.parametrize(
    ("start", "in_use", "dictionary"),
    [([], FITTED_WEIGHTS, "FITTED_WEIGHTS"), (["--start", "hand-set"], WEIGHTS, "WEIGHTS")],
    ids=["fitted", "hand-set"],
)
def test_the_command_fits_weights_from_a_file_of_games(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    start: list[str],
    in_use: dict[str, int],
    dictionary: str,
) -> None:
    games = tmp_path / "games.txt"
    games.write_text("\n".join(beginner_games(9)) + "\n")
    main([str(games), "--folds", "3", "--parallel", "1", *start])
    out = capsys.readouterr().out
    assert out.startswith("9 games, ")
    rows = [line.split(" | ") for line in out.splitlines() if " | " in line]
    folds = [row for row in rows if row[0] in ("0", "1", "2")]
    assert len(folds) == 3
    assert sum(int(row[1]) for row in folds) == int(out.split(", ")[1].split()[0])
    for row in folds:
        assert float(row[2]) == pytest.approx(np.log(2), abs=1e-4)  # the constant 0.5
        assert float(row[5]) == pytest.approx(float(row[4]) - float(row[3]), abs=2e-4)
    weights = {row[0]: row for row in rows if row[0] in WEIGHTS}
    assert list(weights) == list(WEIGHTS)
    for name, weight in in_use.items():
        assert weights[name][1] == str(weight)
        int(weights[name][2])  # the fitted weight, a whole number in the evaluation's units
    assert f"in use ({dictionary})" in out
    assert f'as {dictionary} entries:\n    "{next(iter(WEIGHTS))}": ' in out  # to paste


def test_the_command_refuses_too_few_games(tmp_path: Path) -> None:
    games = tmp_path / "games.txt"
    games.write_text("\n".join(beginner_games(2)) + "\n")
    with pytest.raises(SystemExit, match="too few games: 2 for 5 folds"):
        main([str(games), "--parallel", "1"])
