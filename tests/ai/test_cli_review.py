"""``hive-ai review`` and ``hive-ai lines``: the real console script."""

import re

import pytest

from ai.review import review
from hive import Game
from tests.ai.support import FINISHED, MIDGAME, run

MOVES = FINISHED.split(";")[3:]


def test_review_prints_each_move_and_each_player() -> None:
    done = run("review", FINISHED, "--depth", "3", "--workers", "2")
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert rows[0].split() == ["ply", "move", "white", "chance", "best", "best", "played", "mark"]
    assert [int(row.split()[0]) for row in rows[1:-2]] == list(range(1, len(MOVES) + 1))
    expected = review("Base", MOVES, depth=3)
    for row, ply in zip(rows[1:-2], expected.plies, strict=True):
        assert row.split()[1] == ply.move.split()[0]
        assert (str(ply.mark) in row) == (ply.mark is not None)
    white, black = expected.white, expected.black
    assert white.accuracy is not None and black.accuracy is not None
    assert rows[-2] == (
        f"White: accuracy {white.accuracy:.1f}; {white.inaccuracies} inaccuracies, "
        f"{white.mistakes} mistakes, {white.blunders} blunders"
    )
    assert rows[-1].startswith(f"Black: accuracy {black.accuracy:.1f}; ")
    assert "win/1" in rows[-3]  # the last move wins at once
    assert f"{len(MOVES)}/{len(MOVES)}" in done.stderr  # the progress bar reached the end


def test_review_in_one_process_prints_the_same() -> None:
    alone = run("review", FINISHED, "--depth", "2", "--workers", "1", "--quiet")
    apart = run("review", FINISHED, "--depth", "2", "--workers", "2", "--quiet")
    assert alone.returncode == apart.returncode == 0, alone.stderr + apart.stderr
    assert alone.stdout == apart.stdout
    assert alone.stderr == ""


def test_lines_print_each_depth_as_it_completes() -> None:
    done = run("lines", MIDGAME, "--seconds", "30", "--depth", "3", "--count", "2")
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    headers = [row for row in rows if not row.startswith("  ")]
    assert [h.split(":")[0] for h in headers] == ["depth 1", "depth 2", "depth 3"]
    assert len(rows) == 3 * 3
    for row in rows:
        if not row.startswith("  "):
            continue
        number, score, chance, pv = row.split(None, 3)
        assert number in ("1.", "2.") and chance.endswith("%")
        assert re.fullmatch(r"[+-]\d+|win/\d+|loss/\d+", score)
        game = Game.from_game_string(MIDGAME)
        for text in pv.split("; "):
            game.play(text)  # raises if a move is not legal in turn


def test_lines_stop_when_the_time_is_up() -> None:
    done = run("lines", MIDGAME, "--seconds", "0.3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("depth 1:")
    assert "depth 9:" not in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["review", "Base;InProgress;White[1]"], "invalid GameString 'Base;InProgress;White[1]'"),
        (["review", FINISHED, "--depth", "1"], "--depth must be at least 2"),
        (["lines", FINISHED], "the game is over (WhiteWins)"),
        (["lines", MIDGAME, "--seconds", "0"], "--seconds must be positive"),
    ],
)
def test_bad_input_is_a_clear_error(args: list[str], message: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""
