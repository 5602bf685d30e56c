"""``hive-ai``: the real console script, as a person or a script would run it."""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hive import Game
from tests.ai.support import FINISHED, HIVE_AI, MIDGAME, run


def test_bestmove_prints_one_legal_move() -> None:
    done = run("bestmove", MIDGAME, "--level", "easy", "--seed", "1")
    assert done.returncode == 0, done.stderr
    game = Game.from_game_string(MIDGAME)
    assert game.parse_move(done.stdout.strip()) in game.legal_moves()
    assert done.stdout.count("\n") == 1


def test_bestmove_with_a_seed_is_reproducible() -> None:
    first = run("bestmove", MIDGAME, "--level", "medium", "--seed", "5")
    second = run("bestmove", MIDGAME, "--level", "medium", "--seed", "5")
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout


def test_bestmove_writes_a_trace(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    done = run("bestmove", MIDGAME, "--level", "easy", "--seed", "2", "--trace", str(trace))
    assert done.returncode == 0, done.stderr
    document = json.loads(trace.read_text())
    assert document["format"] == "hive-arena-search-trace"
    assert document["root"]["children"], "the root's children are traced"
    assert document["run"]["chosen"] == done.stdout.strip()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bestmove", "Base;InProgress;White[1]"], "invalid GameString 'Base;InProgress;White[1]'"),
        (["bestmove", "Base;NotStarted;White[1];wQ"], "'wQ': the Queen may not be placed"),
        (["bestmove", FINISHED], "the game is over (WhiteWins)"),
        (["bestmove", "Base;NotStarted;White[1]", "--level", "grandmaster"], "invalid choice"),
        (["arena", "beginner", "easy", "--uhp", "x"], "name one level and --uhp"),
        (["arena", "grandmaster"], "unknown level 'grandmaster'"),
        (["arena", "beginner", "--games", "0"], "--games and --parallel must be at least 1"),
        (["arena", "beginner", "--game-type", "Base+Q"], "invalid GameTypeString 'Base+Q'"),
        (["arena", "beginner", "--sprt", "10", "0"], "elo0 (10) must be below its elo1 (0)"),
        (["puzzles", "--game-types", "Base,Base+Q"], "invalid GameTypeString 'Base+Q'"),
        (["puzzles", "--games", "0"], "--games and --parallel must be at least 1"),
        (["arena", "beginner", "--seconds", "0"], "a time budget must be positive, not 0 s"),
        (
            ["arena", "beginner", "--uhp", "x", "--seconds", "0.5"],
            "a UHP engine's time is whole seconds (hh:mm:ss), not 0.5",
        ),
    ],
)
def test_bad_input_is_a_clear_error(args: list[str], message: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("/nonexistent/engine", "cannot start the engine '/nonexistent/engine': No such file"),
        (
            f"{sys.executable} -c pass",
            "did not start as a UHP engine: the engine exited (status 0)",
        ),
        ("'unclosed", "cannot read the --uhp command"),
    ],
)
def test_an_engine_that_fails_at_start_is_a_one_line_error(command: str, message: str) -> None:
    done = run("arena", "beginner", "--uhp", command, "--games", "2", "--game-type", "Base")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()  # no traceback, no progress bar
    assert line.startswith("hive-ai: error: ") and message in line, line
    assert done.stdout == ""


def test_levels_are_listed() -> None:
    done = run("levels")
    assert done.returncode == 0
    names = [line.split("'")[1] for line in done.stdout.splitlines()]
    assert names == ["beginner", "easy", "medium", "hard", "expert", "greedy"]
    assert done.stdout.splitlines()[-1].endswith("(arena baseline)")


def test_arena_between_levels_reports_saves_and_shows_progress(tmp_path: Path) -> None:
    saved = tmp_path / "games.txt"
    done = run(
        "arena", "beginner", "easy", "--games", "2", "--parallel", "2", "--game-type", "Base",
        "--max-plies", "40", "--seed", "7", "--save", str(saved),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "beginner vs easy: 2 games" in done.stdout
    assert "Elo difference" in done.stdout and "distinct openings" in done.stdout
    assert "2/2" in done.stderr  # the progress bar reached the end
    games = saved.read_text().splitlines()
    assert len(games) == 2
    for game_string in games:
        assert Game.from_game_string(game_string, repetition_draw=True).ply <= 40


def test_arena_against_an_external_uhp_engine() -> None:
    done = run(
        "arena", "beginner", "--uhp", f"{sys.executable} -m ai.uhp", "--uhp-search", "depth 1",
        "--games", "2", "--game-type", "Base", "--max-plies", "30", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"beginner vs {sys.executable} -m ai.uhp: 2 games" in done.stdout
    assert "forfeit" not in done.stdout


def test_ctrl_c_stops_an_arena_and_reports_the_finished_games(tmp_path: Path) -> None:
    saved = tmp_path / "games.txt"
    process = subprocess.Popen(
        [HIVE_AI, "arena", "beginner", "--games", "10000", "--parallel", "2",
         "--game-type", "Base", "--max-plies", "40", "--save", str(saved)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        progress = b""
        while b"A scored" not in progress:  # the bar's note after a game ends
            chunk = os.read(process.stderr.fileno(), 4096)
            assert chunk, "the arena ended before any game did"
            progress += chunk
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:  # an arena that did not stop must not play its 10,000 games beside other tests
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    match = re.search(rb"interrupted: (\d+) of 10000 games finished", progress + err)
    assert match is not None, err
    finished = int(match.group(1))
    assert 1 <= finished < 10000
    assert f"beginner vs beginner: {finished} games".encode() in out
    assert len(saved.read_text().splitlines()) == finished


def test_an_arena_with_an_sprt_stops_once_it_has_decided() -> None:
    """easy is hundreds of Elo above beginner: the test accepts "beginner is at most +0"
    long before 400 games, and says so."""
    done = run(
        "arena", "beginner", "easy", "--games", "400", "--sprt", "0", "50", "--parallel", "2",
        "--game-type", "Base", "--max-plies", "60", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    played = int(re.search(r"beginner vs easy: (\d+) games", done.stdout)[1])  # type: ignore[index]
    assert played < 60
    line = done.stdout.splitlines()[-1]
    assert line.startswith("  SPRT elo0 +0 elo1 +50 (alpha = beta = 0.05): LLR -")
    assert line.endswith("H0 accepted: A is at most +0 Elo"), line
    assert "SPRT elo0 +0 elo1 +50" in done.stderr  # the banner


def test_puzzles_are_found_in_the_bots_games_and_written_as_json_lines(tmp_path: Path) -> None:
    out = tmp_path / "puzzles.jsonl"
    done = run(
        "puzzles", "--games", "2", "--game-types", "Base", "--out", str(out), "--quiet",
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    puzzles = [json.loads(line) for line in out.read_text().splitlines()]
    assert puzzles and re.match(rf"{len(puzzles)} puzzles from 2 games in ", done.stdout)
    for puzzle in puzzles:
        assert puzzle["theme"] in {"win1", "win2", "win3", "defend"}
        assert puzzle["source"].startswith("Base#0.")
        game = Game.from_game_string(puzzle["game_string"])
        for text in puzzle["solution"]:
            game.play(text)  # legal, every one
        assert game.is_over() == (puzzle["theme"] != "defend")
