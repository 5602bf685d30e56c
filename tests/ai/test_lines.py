"""The analysis board's engine lines, a depth a job (ai/lines.py): the same lines as
``generate_lines``, refusals as values, and a stop file that ends a search at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Final

from ai.analysis import generate_lines
from ai.lines import Ended, Found, lines_at_depth
from hive import Game

MIDGAME: Final = ["wG1", "bL /wG1", "wM wG1/", "bM /bL", "wA1 wM\\", "bQ bL\\", "wQ \\wM"]


def test_each_depth_is_generate_lines_depth_spelled() -> None:
    game = Game("Base+MLP")
    for text in MIDGAME:
        game.play(text)
    expected = list(generate_lines(game, count=3, max_depth=3))
    for depth in (1, 2, 3):
        found = lines_at_depth("Base+MLP", MIDGAME, depth, 3, time.monotonic() + 60, "t")
        assert isinstance(found, Found) and found.depth == depth
        want = expected[depth - 1]
        assert [line.score for line in found.lines] == [line.score for line in want.lines]
        assert [line.move for line in found.lines] == [
            game.move_string(line.move) for line in want.lines
        ]
        assert all(line.pv[0] == line.move and len(line.pv) <= depth for line in found.lines)


def test_refusals_and_the_end_of_a_game_are_values() -> None:
    far = time.monotonic() + 60
    assert lines_at_depth("Base+X", [], 1, 3, far) == Ended(
        "illegal", "invalid GameTypeString 'Base+X'"
    )
    illegal = lines_at_depth("Base", ["wS1", "wS2"], 1, 3, far)
    assert (
        isinstance(illegal, Ended)
        and illegal.reason == "illegal"
        and "move 2 'wS2'" in illegal.message
    )
    assert lines_at_depth("Base", ["wS1"], 9, 3, time.monotonic() - 1) == Ended("time")


def test_a_stop_file_ends_the_search_at_once(tmp_path: Path) -> None:
    stop = tmp_path / "run-1"
    stop.touch()
    began = time.perf_counter()
    assert lines_at_depth(
        "Base+MLP", MIDGAME, 9, 3, time.monotonic() + 60, stop=str(stop)
    ) == Ended("time")
    assert time.perf_counter() - began < 1.0
    stop.unlink()
    threading.Timer(0.3, stop.touch).start()  # made while depth 9 searches
    began = time.perf_counter()
    found = lines_at_depth("Base+MLP", MIDGAME, 9, 3, time.monotonic() + 60, stop=str(stop))
    assert found == Ended("time")
    assert time.perf_counter() - began < 5.0  # depth 9 takes minutes
