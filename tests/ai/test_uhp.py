"""The UHP engine: the pure ``Engine`` in process, ``serve`` on byte streams, and conversations
with the real ``hive-engine`` process."""

from __future__ import annotations

import dataclasses
import io
import itertools
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai.bots import LEVELS, OPENING_TURNS, Bot
from ai.uhp import MAX_LINE_BYTES, OPTIONS, Engine, Option, engine_version, serve
from hive import Game, GameType
from hive.notation import destination
from hive.pieces import ALL_GAME_TYPES
from tests.vectors import ROOT, tsv_rows

WHITE_WINS = (
    "Base;WhiteWins;Black[8];wS1;bS1 wS1-;wQ -wS1;bQ bS1/;wG1 -wQ;bG1 \\bQ;wG1 bQ\\;bG2 bQ/;"
    "wA1 wQ\\;bA1 bG2/;wA1 bG2\\;bA1 \\bG2;wQ \\wS1;bA1 bG2/;wQ /bG1"
)
REPETITION = (
    "Base;Draw;White[7];wS1;bB1 wS1-;wQ \\wS1;bQ bB1\\;wQ -wS1;bQ bB1-;wQ \\wS1;bQ bB1\\;"
    "wQ -wS1;bQ bB1-;wQ \\wS1;bQ bB1\\"
)
ONLY_PASS = (
    "Base;InProgress;White[7];wA1;bS1 wA1-;wQ -wA1;bQ bS1/;wQ \\wA1;bA1 bS1\\;wQ -wA1;"
    "bA2 bQ\\;wQ \\wA1;bA1 \\wQ;wG1 /wQ;bA2 /wG1"
)
DEFAULT_OPTIONS = [
    "RepetitionDraw;bool;False;False",
    "Level;enum;expert;expert;beginner;easy;medium;hard;expert",
    "Quotient;int;0;0;0;100",
    "Randomness;bool;True;True",
    "Branching;int;0;0;0;1000",
    "Seed;int;-1;-1;-1;2147483647",
    "Book;bool;True;True",
]
DEFAULT_VALUES = {o.name: o.default for o in OPTIONS}
BANNER = [f"id HiveArena v{engine_version()}", "Mosquito;Ladybug;Pillbug"]
PERFT_LINE = re.compile(r"perft\((\d+)\) = (\d+) in \d+\.\d{3} s \((\d+|inf) leaves/s\)")
TIMEOUT = 20.0  # seconds: a guard against a hung engine, never a way to wait for one
# The engine must flush by itself: a PYTHONUNBUFFERED in the caller's environment would hide it.
ENGINE_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}


def moves_of(game_string: str) -> list[str]:
    return [m.strip() for m in game_string.split(";")[3:] if m.strip()]


def real_game_rows() -> list[tuple[str, str]]:
    return [(row[0], row[1]) for row in tsv_rows("mzinga_validmoves_realgames.tsv")]


def move_set(game: Game, move_strings: list[str]) -> set[tuple[int, int]]:
    """The moves as (piece, destination) pairs, the way moves are compared."""
    pairs = set()
    for text in move_strings:
        if text == "pass":
            pairs.add((-1, -1))
        else:
            piece, hex_ = destination(game.board, text)
            pairs.add((int(piece), hex_))
    return pairs


def legal_set(game: Game) -> set[tuple[int, int]]:
    return {(m.piece, m.destination) if not m.is_pass else (-1, -1) for m in game.legal_moves()}


def answer(engine: Engine, line: str) -> list[str]:
    """What ``engine`` prints for ``line``, checked to end with ``ok`` and stripped of it."""
    lines = engine.handle(line)
    assert lines[-1:] == ["ok"], lines
    return lines[:-1]


def started(game_string: str = "Base") -> Engine:
    engine = Engine()
    answer(engine, f"newgame {game_string}")
    return engine


# -- Engine, in process ------------------------------------------------------------------------


def test_info_names_the_engine_and_its_expansions():
    assert answer(Engine(), "info") == BANNER
    assert re.fullmatch(r"id HiveArena v\d+\.\d+\.\d+.*", BANNER[0])


def test_commands_ignore_case_and_surrounding_blanks():
    engine = Engine()
    assert answer(engine, "  NewGame   Base+MLP  \r\n") == ["Base+MLP;NotStarted;White[1]"]
    assert answer(engine, "PLAY   wS1") == ["Base+MLP;InProgress;Black[1];wS1"]


@pytest.mark.parametrize("game_type", ALL_GAME_TYPES, ids=str)
def test_newgame_of_each_game_type(game_type: GameType):
    engine = Engine()
    assert answer(engine, f"newgame {game_type}") == [f"{game_type};NotStarted;White[1]"]
    assert engine.game is not None and engine.game.game_type == game_type


def test_newgame_without_argument_is_base():
    assert answer(Engine(), "newgame") == ["Base;NotStarted;White[1]"]


def test_newgame_loads_a_game_string_and_answers_it_canonically():
    engine = Engine()
    # The vector spells the moves its own way; the answer is the engine's canonical GameString.
    assert answer(engine, f"newgame {WHITE_WINS}") == [
        Game.from_game_string(WHITE_WINS).game_string()
    ]
    assert answer(engine, f"newgame {WHITE_WINS}")[0].startswith("Base;WhiteWins;Black[8];wS1;")


def test_play_and_pass_answer_the_new_game_string():
    engine = started()
    assert answer(engine, "play wS1") == ["Base;InProgress;Black[1];wS1"]
    assert answer(engine, "play bS1 wS1-") == ["Base;InProgress;White[2];wS1;bS1 wS1-"]
    engine = started(ONLY_PASS)
    replay = Game.from_game_string(ONLY_PASS)
    replay.play("pass")
    assert answer(engine, "validmoves") == ["pass"]
    assert answer(engine, "pass") == [replay.game_string()]
    assert replay.game_string().startswith("Base;InProgress;Black[7];")
    engine = started(ONLY_PASS)
    assert answer(engine, "play pass")[0].endswith(";pass")


def test_play_reads_any_spelling_and_answers_the_canonical_one():
    engine = started("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    # North-west of wS1 is north-east of wQ: the answer names it the canonical way.
    (line,) = answer(engine, "play wS2 \\wS1")
    assert line == "Base;InProgress;Black[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wS2 wQ/"


@pytest.mark.parametrize(
    ("setup", "move", "reason"),
    [
        ("Base", "play wX1", "unknown piece 'wX1'"),
        ("Base", "play bS1", "it is White's turn"),
        ("Base", "play wQ", "the Queen may not be placed on a player's first turn"),
        ("Base", "play wS1 wS1-", "reference piece wS1 is not in play"),
        ("Base", "play wS1 -=bogus=-", "unreadable MoveString"),
        ("Base", "pass", "passing is allowed only with no other move"),
        ("Base;InProgress;Black[1];wS1", "play bS1", "needs a reference piece"),
        (WHITE_WINS, "play bQ -wQ", "the game is over (WhiteWins)"),
        (WHITE_WINS, "pass", "the game is over (WhiteWins)"),
    ],
)
def test_bad_moves_are_invalidmove_with_the_reason(setup: str, move: str, reason: str):
    engine = started(setup)
    before = engine.game.game_string() if engine.game else ""
    (line,) = answer(engine, move)
    assert line.startswith("invalidmove ") and reason in line, line
    assert engine.game is not None and engine.game.game_string() == before


def test_validmoves_are_the_legal_moves_in_every_real_game_position():
    engine = Engine()
    for game_string, expected in real_game_rows():
        answer(engine, f"newgame {game_string}")
        game = engine.game
        assert game is not None
        (line,) = answer(engine, "validmoves")
        listed = line.split(";")
        assert len(listed) == len(set(listed)), game_string  # each move once
        assert move_set(game, listed) == legal_set(game) == move_set(game, expected.split(";"))
        assert sorted(listed) == sorted(map(game.move_string, game.legal_moves()))  # canonical


def test_undo_takes_back_moves_and_refuses_more_than_were_played():
    engine = started()
    for move in ("wS1", "bS1 wS1-", "wQ -wS1"):
        answer(engine, f"play {move}")
    assert answer(engine, "undo") == ["Base;InProgress;White[2];wS1;bS1 wS1-"]
    assert answer(engine, "undo 3") == ["err cannot undo 3 moves: 2 played"]
    assert answer(engine, "undo 0") == ["err cannot undo 0 moves: 2 played"]
    assert answer(engine, "undo -1") == ["err cannot undo -1 moves: 2 played"]
    assert answer(engine, "undo two") == ["err undo takes a whole number, not 'two'"]
    assert answer(engine, "undo 2") == ["Base;NotStarted;White[1]"]
    assert answer(engine, "undo") == ["err cannot undo 1 moves: 0 played"]


def test_undo_reopens_a_finished_game():
    engine = started(WHITE_WINS)
    (line,) = answer(engine, "undo")
    assert line.startswith("Base;InProgress;White[8];")
    assert answer(engine, "play wQ /bG1")[0].startswith("Base;WhiteWins;Black[8];")


def test_options_list_get_and_set():
    engine = Engine()
    assert answer(engine, "options") == DEFAULT_OPTIONS
    assert answer(engine, "options get RepetitionDraw") == ["RepetitionDraw;bool;False;False"]
    assert answer(engine, "options set repetitiondraw TRUE") == ["RepetitionDraw;bool;True;False"]
    assert engine.option_values == {**DEFAULT_VALUES, "RepetitionDraw": True}
    assert answer(engine, "options")[0] == "RepetitionDraw;bool;True;False"
    assert answer(engine, "options set level MEDIUM") == [
        "Level;enum;medium;expert;beginner;easy;medium;hard;expert"
    ]
    assert answer(engine, "options set RepetitionDraw false") == ["RepetitionDraw;bool;False;False"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("options get Nope", "unknown option 'Nope'"),
        ("options set Nope 1", "unknown option 'Nope'"),
        ("options set RepetitionDraw 1", "RepetitionDraw is True or False, not '1'"),
        ("options get", "usage: options"),
        ("options set RepetitionDraw", "usage: options"),
        ("options set RepetitionDraw True extra", "usage: options"),
        ("options frobnicate", "usage: options"),
        ("options set Level grandmaster", "Level is one of beginner, easy, medium, hard, expert"),
        ("options set Seed -2", "Seed must lie in [-1, 2147483647]"),
        ("options set Quotient 101", "Quotient must lie in [0, 100]"),
    ],
)
def test_bad_options_commands_are_err_and_change_nothing(line: str, message: str):
    engine = Engine()
    (answered,) = answer(engine, line)
    assert answered.startswith("err ") and message in answered
    assert engine.option_values == DEFAULT_VALUES


def test_repetition_draw_applies_from_the_next_newgame():
    moves = moves_of(REPETITION)
    engine = started()
    answer(engine, "options set RepetitionDraw True")
    for move in moves:  # the game in progress keeps the rule it started with
        (line,) = answer(engine, f"play {move}")
    assert line.startswith("Base;InProgress;White[7];")
    answer(engine, "newgame")
    for move in moves:
        (line,) = answer(engine, f"play {move}")
    assert line.startswith("Base;Draw;White[7];")
    assert answer(engine, f"play {moves[4]}")[0].startswith("invalidmove ")
    answer(engine, "options set RepetitionDraw False")
    in_progress = REPETITION.replace(";Draw;", ";InProgress;")
    assert answer(engine, f"newgame {in_progress}") == [in_progress]  # not a draw without it
    assert answer(engine, "validmoves")[0].count(";") > 0


def test_a_record_of_a_repetition_draw_loads_as_a_draw_whatever_the_option():
    """A GameString that says Draw where its moves repeat a position three times (the server
    records its repetition draws so) loads as that draw with RepetitionDraw False too: the
    record's result stands, and the game keeps the rule it was played under (issue 33)."""
    engine = started()
    assert engine.option_values["RepetitionDraw"] is False
    assert answer(engine, f"newgame {REPETITION}") == [REPETITION]
    assert answer(engine, "validmoves")[0].startswith("err the game is over (Draw)")
    (line,) = answer(engine, "undo")
    assert line.startswith("Base;InProgress;Black[6];")
    assert answer(engine, f"play {moves_of(REPETITION)[-1]}") == [REPETITION]  # a draw again
    assert answer(engine, "options get RepetitionDraw") == ["RepetitionDraw;bool;False;False"]
    # A Draw that no repetition gives is refused as before, with the error of the rules set.
    early = REPETITION.replace("White[7]", "Black[6]").rsplit(";", 1)[0]
    (line,) = answer(engine, f"newgame {early}")
    assert line.startswith("err invalid GameString") and "its moves give InProgress" in line
    assert answer(engine, "validmoves")[0].startswith("err the game is over (Draw)")  # kept


def test_the_options_table_takes_numbers_with_bounds():
    options = (
        Option("Depth", "int", 3, 1, 6, help="strength"),
        Option("Ratio", "double", 0.5, 0.0, 1.0, help="randomness"),
    )
    engine = Engine(options)
    assert answer(engine, "options") == ["Depth;int;3;3;1;6", "Ratio;double;0.5;0.5;0.0;1.0"]
    assert answer(engine, "options set Depth 6") == ["Depth;int;6;3;1;6"]
    assert answer(engine, "options set Ratio 0.25") == ["Ratio;double;0.25;0.5;0.0;1.0"]
    for bad in ("Depth 7", "Depth 0", "Depth 2.5", "Ratio nan", "Ratio 1.5", "Ratio x"):
        assert answer(engine, f"options set {bad}")[0].startswith("err option ")
    assert engine.option_values == {"Depth": 6, "Ratio": 0.25}


def test_perft_counts_the_start_position_with_timings():
    expected = {
        int(depth): int(count)
        for _, depth, count in tsv_rows("mzinga_perft/Board_Base_PerftTest.tsv")
    }
    ticks = itertools.count(0.0, 0.5)
    engine = Engine(clock=lambda: next(ticks))
    answer(engine, "newgame")
    lines = answer(engine, "perft 3")
    assert lines == [
        f"perft({d}) = {expected[d]} in 0.500 s ({expected[d] * 2} leaves/s)" for d in (1, 2, 3)
    ]
    assert answer(engine, "perft 0") == ["perft(0) = 1 in 0.500 s (2 leaves/s)"]
    assert engine.game is not None and engine.game.game_string() == "Base;NotStarted;White[1]"


def test_perft_with_the_real_clock_and_a_zero_time():
    engine = started()
    assert [PERFT_LINE.fullmatch(line) is not None for line in answer(engine, "perft 2")] == [
        True,
        True,
    ]
    frozen = Engine(clock=lambda: 1.0)
    answer(frozen, "newgame")
    assert answer(frozen, "perft 1") == ["perft(1) = 4 in 0.000 s (inf leaves/s)"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("perft 9", "err perft depth 9 is not in 0..8"),
        ("perft -1", "err perft depth -1 is not in 0..8"),
        ("perft", "err perft needs a depth from 0 to 8"),
        ("perft deep", "err perft takes a whole number, not 'deep'"),
        ("perft 1 2", "err perft takes a whole number, not '1 2'"),
    ],
)
def test_perft_rejects_bad_depths(line: str, message: str):
    assert answer(started(), line) == [message]


def test_validmoves_and_bestmove_of_a_finished_game_are_err():
    engine = started(WHITE_WINS)
    assert answer(engine, "validmoves") == [
        "err the game is over (WhiteWins); start a new one with newgame"
    ]
    assert answer(engine, "bestmove")[0].startswith("err ")


def bestmove(engine: Engine, command: str = "bestmove") -> str:
    """The move ``engine`` answers, checked to be legal and to leave the game as it was."""
    assert engine.game is not None
    before = engine.game.game_string()
    (move,) = answer(engine, command)
    assert engine.game.game_string() == before
    assert engine.game.parse_move(move) in engine.game.legal_moves()
    return move


MIDGAME = real_game_rows()[60][0]


@pytest.mark.parametrize("command", ["bestmove", "bestmove depth 1", "bestmove depth 2"])
def test_bestmove_answers_a_legal_move(command: str):
    engine = started(MIDGAME)
    answer(engine, "options set Level beginner")
    bestmove(engine, command)


class TickingClock:
    """A fake clock: every reading is ``tick`` seconds after the one before."""

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


@pytest.mark.parametrize("level", ["medium", "hard", "expert"])
def test_bestmove_time_answers_within_the_limit_and_deepens_while_time_allows(level: str):
    clock = TickingClock(0.05)  # the search looks at the clock every 1024 nodes
    engine = Engine(clock=clock)
    answer(engine, f"newgame {MIDGAME}")
    answer(engine, f"options set Level {level}")
    begun = clock.now
    bestmove(engine, "bestmove time 00:00:01")
    assert clock.now - begun <= 1.0 + 3 * clock.tick  # the last look, the tie-break's, the end's
    choice = engine.last_choice
    assert choice is not None and choice.result is not None
    assert choice.result.depth >= 2


def test_bestmove_time_is_a_limit_even_below_the_levels_floor_of_plies():
    """Expert starts 4 plies for a plain bestmove whatever its first depths predict; with a
    time limit it stops when the time is up, after 1 ply if need be."""
    assert LEVELS["expert"].min_depth == 4
    clock = TickingClock(0.3)  # a machine so busy that a second is gone in a few readings
    engine = Engine(clock=clock)
    answer(engine, f"newgame {MIDGAME}")
    begun = clock.now
    bestmove(engine, "bestmove time 00:00:01")
    assert clock.now - begun <= 1.0 + 3 * clock.tick
    choice = engine.last_choice
    assert choice is not None and choice.result is not None
    assert choice.result.depth == 1


PUZZLES = list(tsv_rows("mzinga_bestmove_puzzles.tsv"))[:3]


@pytest.mark.parametrize(("game_string", "depth", "expected"), PUZZLES)
def test_bestmove_without_randomness_solves_puzzles(game_string: str, depth: str, expected: str):
    engine = started(game_string)
    answer(engine, "options set Randomness False")
    move = bestmove(engine, f"bestmove depth {depth}")
    assert engine.game is not None
    assert move_set(engine.game, [move]) == move_set(engine.game, [expected])


def test_a_seed_makes_bestmove_reproducible_and_seeds_vary_it():
    def first_moves(seed: int) -> list[str]:
        engine = started("Base+MLP")
        answer(engine, f"options set Seed {seed}")
        answer(engine, "options set Level beginner")
        moves = []
        for _ in range(6):
            moves.append(bestmove(engine))
            answer(engine, f"play {moves[-1]}")
        return moves

    assert first_moves(11) == first_moves(11)
    assert len({tuple(first_moves(seed)) for seed in range(8)}) > 1


def test_the_engine_keeps_one_bot_per_game_and_its_random_stream():
    """A seeded game played by ``bestmove`` is the game one seeded bot plays: the random index
    is drawn afresh at each move, not the seed's first draw again and again."""
    engine = started("Base+MLP")
    answer(engine, "options set Seed 2")
    answer(engine, "options set Level medium")
    assert engine.game is not None
    mirror, game = Bot("medium", seed=2), Game(GameType.parse("Base+MLP"))
    level = dataclasses.replace(LEVELS["medium"], depth=1, seconds=None)
    indices = []
    for _ in range(20):
        answered = engine.game.parse_move(bestmove(engine, "bestmove depth 1"))
        choice = mirror.choose(game, level=level)
        assert answered == choice.move
        assert engine.last_choice is not None and engine.last_choice.index == choice.index
        if choice.source == "search" and game.turn_number > OPENING_TURNS:
            indices.append(choice.index)
        answer(engine, f"play {game.move_string(choice.move)}")
        game.push(choice.move)
    assert len(indices) > 10 and len(set(indices)) > 1


def bot_of(engine: Engine) -> Bot | None:
    """The engine's bot (a function, so that type checkers do not hold on to a narrowing)."""
    return engine.bot


def test_the_engine_keeps_the_bots_table_until_newgame_or_an_option_changes():
    engine = started(MIDGAME)
    answer(engine, "options set Level hard")
    assert LEVELS["hard"].table and bot_of(engine) is None
    bestmove(engine, "bestmove depth 2")
    bot = bot_of(engine)
    assert bot is not None and bot.table is not None and len(bot.table) > 0
    bestmove(engine, "bestmove depth 2")  # the same position again: the table answers
    assert bot_of(engine) is bot
    assert engine.last_choice is not None and engine.last_choice.result is not None
    assert engine.last_choice.result.table_hits > 0
    answer(engine, f"play {bestmove(engine, 'bestmove depth 1')}")
    answer(engine, "undo")
    assert bot_of(engine) is bot  # play and undo keep it
    answer(engine, "options set Seed 7")
    assert bot_of(engine) is None
    bestmove(engine, "bestmove depth 1")
    assert bot_of(engine) not in (None, bot)
    answer(engine, f"newgame {MIDGAME}")
    assert bot_of(engine) is None


def test_the_book_option_switches_the_opening_book():
    def opening(seed: int, book: bool) -> str:
        engine = started("Base")
        answer(engine, f"options set Seed {seed}")
        answer(engine, f"options set Book {book}")
        answer(engine, "options set Randomness False")
        return bestmove(engine, "bestmove depth 1")

    assert len({opening(seed, book=True) for seed in range(12)}) > 1  # the book varies
    assert len({opening(seed, book=False) for seed in range(12)}) == 1  # the search does not


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("bestmove depth 0", "err bestmove depth 0 is not in 1..12"),
        ("bestmove depth 13", "err bestmove depth 13 is not in 1..12"),
        ("bestmove depth two", "err bestmove depth takes a whole number, not 'two'"),
        ("bestmove time 5", "err bestmove time takes hh:mm:ss, not '5'"),
        ("bestmove time 00:00:00", "err bestmove time must be at least 00:00:01, not '00:00:00'"),
        ("bestmove fast", "err usage: bestmove | bestmove depth N | bestmove time hh:mm:ss"),
        ("bestmove depth", "err usage: bestmove | bestmove depth N | bestmove time hh:mm:ss"),
    ],
)
def test_bad_bestmove_commands_are_err(line: str, message: str):
    engine = started(MIDGAME)
    assert answer(engine, line) == [message]


def test_a_quotient_of_one_is_refused_by_bestmove():
    engine = started(MIDGAME)
    answer(engine, "options set Quotient 1")
    assert answer(engine, "bestmove depth 1") == [
        "err level 'expert': the quotient must be at least 2"
    ]


@pytest.mark.parametrize(
    "line", ["play wS1", "pass", "validmoves", "undo", "undo 2", "bestmove", "perft 1"]
)
def test_game_commands_before_newgame_are_err(line: str):
    assert answer(Engine(), line) == ["err no game in progress; start one with newgame"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("frobnicate", "err unknown command 'frobnicate'; try help"),
        ("\x00\x07 \ufffd", "err unknown command '\\x00\\x07'; try help"),
        ("play", "err play needs a MoveString, as in: play wS1"),
        ("info please", "err info takes no arguments, not 'please'"),
        ("validmoves now", "err validmoves takes no arguments, not 'now'"),
        ("pass twice", "err pass takes no arguments, not 'twice'"),
        ("help me", "err help takes no arguments, not 'me'"),
        ("exit now", "err exit takes no arguments, not 'now'"),
        ("newgame Base+Q", "err invalid GameTypeString 'Base+Q'"),
        ("newgame Base;Whenever;White[1]", "err invalid GameStateString 'Whenever'"),
        ("newgame Base;InProgress;White[1];wS1", "err invalid GameString"),
        ("newgame Base;InProgress;Black[1];wQ", "err invalid GameString"),
        ("newgame ;;", "err invalid GameTypeString ''"),
    ],
)
def test_other_bad_commands_are_err_and_keep_the_game(line: str, message: str):
    engine = started("Base;InProgress;Black[1];wS1")
    (answered,) = answer(engine, line)
    assert answered.startswith(message), answered
    assert answer(engine, "validmoves")[0].startswith("bS1 ")  # the game is still there
    assert not engine.exit_requested


def test_error_messages_stay_on_one_short_line():
    engine = started()
    (line,) = answer(engine, "play " + "wS1" * 10_000)
    assert line.startswith("invalidmove unknown piece 'wS1wS1")
    assert line.endswith("...") and len(line) < 400
    (line,) = answer(engine, "x" * 10_000)
    assert line.startswith("err unknown command 'xxx") and len(line) < 400


def test_help_lists_every_command():
    listed = {line.split()[0] for line in answer(Engine(), "help")}
    assert listed == {
        "info", "newgame", "play", "pass", "validmoves", "bestmove", "undo", "options", "perft",
        "help", "exit",
    }  # fmt: skip


def test_blank_lines_get_no_answer_and_exit_none_either():
    engine = Engine()
    assert engine.handle("") == engine.handle("  \t \r\n") == []
    assert engine.handle("exit") == []
    assert engine.exit_requested


def test_an_internal_failure_is_err_and_the_engine_goes_on():
    def broken_clock() -> float:
        raise RuntimeError("clock stopped")

    engine = Engine(clock=broken_clock)
    answer(engine, "newgame")
    assert answer(engine, "perft 1") == ["err internal error: RuntimeError: clock stopped"]
    assert answer(engine, "play wS1") == ["Base;InProgress;Black[1];wS1"]


def doc_conversations() -> list[str]:
    text = (ROOT / "docs" / "uhp.md").read_text()
    return re.findall(r"```text\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.parametrize("block", doc_conversations())
def test_the_examples_in_docs_uhp_md_are_what_the_engine_answers(block: str):
    """Each example conversation, replayed on a fresh engine (perft timings aside)."""
    engine = Engine()
    expected = [line for line in block.splitlines() if not line.startswith("> ")]
    printed = [] if block.startswith("> ") else engine.handle("info")  # a session: the banner
    for line in block.splitlines():
        if line.startswith("> "):
            printed += engine.handle(line[2:])
    timing = re.compile(r" in \d+\.\d{3} s \((\d+|inf) leaves/s\)$")
    assert [timing.sub("", line) for line in printed] == [timing.sub("", line) for line in expected]


# -- serve, on byte streams --------------------------------------------------------------------


def serve_bytes(data: bytes) -> tuple[int, list[list[str]]]:
    """Run ``serve`` on ``data``; the exit status and the answers (each without its ``ok``)."""
    out = io.BytesIO()
    status = serve(io.BytesIO(data), out)
    return status, split_answers(out.getvalue().decode("utf-8").splitlines())


def split_answers(lines: list[str]) -> list[list[str]]:
    answers: list[list[str]] = [[]]
    for line in lines:
        if line == "ok":
            answers.append([])
        else:
            answers[-1].append(line)
    assert answers[-1] == [], f"output does not end with ok: {lines}"
    return answers[:-1]


def test_serve_greets_and_stops_at_end_of_input():
    assert serve_bytes(b"") == (0, [BANNER])
    assert serve_bytes(b"newgame\nplay wS1") == (  # a last line without its newline counts
        0,
        [BANNER, ["Base;NotStarted;White[1]"], ["Base;InProgress;Black[1];wS1"]],
    )


def test_serve_skips_lines_longer_than_the_limit():
    at_limit = b"info" + b" " * (MAX_LINE_BYTES - 4) + b"\n"  # just fits, newline aside
    over = b"newgame" + b" " * MAX_LINE_BYTES + b"\n"
    huge = b"y" * (3 * MAX_LINE_BYTES + 7) + b"\r\n"
    status, answers = serve_bytes(at_limit + over + huge + b"newgame\n")
    too_long = [f"err line longer than {MAX_LINE_BYTES} bytes; ignored"]
    assert status == 0
    assert answers == [BANNER, BANNER, too_long, too_long, ["Base;NotStarted;White[1]"]]
    status, answers = serve_bytes(b"x" * (MAX_LINE_BYTES + 1))  # at end of input
    assert answers == [BANNER, too_long]


def test_serve_reads_bytes_that_are_not_utf8():
    status, answers = serve_bytes(b"\xff\xfeinfo\nnewgame\nplay wS1\xc3\n\xe9\n")
    assert status == 0
    assert answers[1] == ["err unknown command '\ufffd\ufffdinfo'; try help"]
    assert answers[3][0].startswith("invalidmove unreadable MoveString 'wS1\ufffd'")
    assert answers[4] == ["err unknown command '\ufffd'; try help"]


def test_serve_stops_at_exit_without_reading_on():
    stdin = io.BytesIO(b"newgame\n\n\nexit\ninfo\n")
    out = io.BytesIO()
    assert serve(stdin, out) == 0
    assert split_answers(out.getvalue().decode().splitlines()) == [
        BANNER,
        ["Base;NotStarted;White[1]"],
    ]
    assert stdin.read() == b"info\n"


# -- the real process --------------------------------------------------------------------------


class EngineProcess:
    """A running ``hive-engine``: send lines, read answers up to their ``ok``."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=ENGINE_ENV,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self._lines.put(raw.decode("utf-8").rstrip("\n"))
        self._lines.put(None)

    def send(self, data: bytes | str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data if isinstance(data, bytes) else f"{data}\n".encode())
        self.process.stdin.flush()

    def answer(self) -> list[str]:
        """The next answer, without its ``ok``; it must arrive (flushed) while stdin is open."""
        lines: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=TIMEOUT)
            except queue.Empty:
                pytest.fail(f"no ok within {TIMEOUT} s (unflushed?); the answer so far: {lines}")
            if line == "ok":
                return lines
            assert line is not None, f"the engine stopped; it had answered {lines}"
            lines.append(line)

    def ask(self, data: bytes | str) -> list[str]:
        self.send(data)
        return self.answer()

    def finish(self) -> tuple[int, list[str], str]:
        """Close stdin; the exit status, the lines printed after the last answer, and stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        status = self.process.wait(timeout=TIMEOUT)
        self._reader.join(timeout=TIMEOUT)
        rest = []
        while (line := self._lines.get(timeout=TIMEOUT)) is not None:
            rest.append(line)
        return status, rest, self.process.stderr.read().decode()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=TIMEOUT)
        self._reader.join(timeout=TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def hive_engine() -> Iterator[EngineProcess]:
    process = EngineProcess([sys.executable, "-m", "ai.uhp"])
    try:
        assert process.answer() == BANNER
        yield process
    finally:
        process.close()


def test_the_console_script_greets_and_exits_0_at_end_of_input():
    script = Path(sys.executable).with_name("hive-engine")
    assert script.is_file(), f"{script} is missing: run make test (it installs the package)"
    completed = subprocess.run(
        [script], input=b"", env=ENGINE_ENV, capture_output=True, timeout=TIMEOUT, check=False
    )
    assert (completed.returncode, completed.stdout.decode(), completed.stderr) == (
        0,
        "".join(f"{line}\n" for line in [*BANNER, "ok"]),
        b"",
    )


def test_a_whole_game_to_a_win(hive_engine: EngineProcess):
    assert hive_engine.ask("newgame Base") == ["Base;NotStarted;White[1]"]
    moves = moves_of(WHITE_WINS)
    replay = Game()
    for number, move in enumerate(moves, 1):
        replay.play(move)
        (game_string,) = hive_engine.ask(f"play {move}")
        assert game_string == replay.game_string()
        state = game_string.split(";")[1]
        assert state == ("WhiteWins" if number == len(moves) else "InProgress"), game_string
    assert game_string.startswith("Base;WhiteWins;Black[8];wS1;bS1 wS1-;")
    (line,) = hive_engine.ask("play bQ -wQ")
    assert line == "invalidmove 'bQ -wQ': the game is over (WhiteWins)"
    assert hive_engine.ask("pass")[0].startswith("invalidmove ")
    assert hive_engine.ask("validmoves")[0].startswith("err the game is over")
    assert hive_engine.ask("undo 1")[0].startswith("Base;InProgress;White[8];")
    assert hive_engine.ask("newgame Base+M") == ["Base+M;NotStarted;White[1]"]
    assert hive_engine.finish()[:2] == (0, [])


def test_validmoves_match_the_rules_engine(hive_engine: EngineProcess):
    rows = real_game_rows()
    for game_string, expected in (rows[0], rows[1], rows[len(rows) // 2], rows[-1]):
        game = Game.from_game_string(game_string)
        assert hive_engine.ask(f"newgame {game_string}") == [game.game_string()]
        (line,) = hive_engine.ask("validmoves")
        assert (
            move_set(game, line.split(";"))
            == legal_set(game)
            == move_set(game, expected.split(";"))
        )
    hive_engine.ask(f"newgame {ONLY_PASS}")
    assert hive_engine.ask("validmoves") == ["pass"]


def test_undo_options_and_perft(hive_engine: EngineProcess):
    assert hive_engine.ask("newgame") == ["Base;NotStarted;White[1]"]
    hive_engine.ask("play wG1")
    hive_engine.ask("play bG1 wG1-")
    assert hive_engine.ask("undo") == ["Base;InProgress;Black[1];wG1"]
    assert hive_engine.ask("undo 2") == ["err cannot undo 2 moves: 1 played"]
    assert hive_engine.ask("undo 1") == ["Base;NotStarted;White[1]"]
    assert hive_engine.ask("options") == DEFAULT_OPTIONS
    assert hive_engine.ask("options set RepetitionDraw True") == ["RepetitionDraw;bool;True;False"]
    assert hive_engine.ask("options get RepetitionDraw") == ["RepetitionDraw;bool;True;False"]
    hive_engine.ask("newgame")
    for move in moves_of(REPETITION):
        (line,) = hive_engine.ask(f"play {move}")
    assert line.startswith("Base;Draw;White[7];")
    hive_engine.ask("newgame Base")
    counts = [PERFT_LINE.fullmatch(line) for line in hive_engine.ask("perft 3")]
    assert [(m[1], m[2]) if m else None for m in counts] == [("1", "4"), ("2", "96"), ("3", "1440")]
    assert hive_engine.finish()[:2] == (0, [])


def test_bad_input_of_every_kind_leaves_the_engine_answering(hive_engine: EngineProcess):
    for line in ("play wS1", "pass", "validmoves", "undo", "bestmove", "perft 1"):
        assert hive_engine.ask(line) == ["err no game in progress; start one with newgame"]
    hive_engine.send(b"\n")  # blank lines get no answer: the next answer is info's
    hive_engine.send(b"   \t\r\n")
    assert hive_engine.ask("info") == BANNER
    assert hive_engine.ask(b"\x00garbage\x01 !!\n") == [
        "err unknown command '\\x00garbage\\x01'; try help"
    ]
    assert hive_engine.ask(b"\xff\xfe\xfd\n") == [
        "err unknown command '\ufffd\ufffd\ufffd'; try help"
    ]
    too_long = [f"err line longer than {MAX_LINE_BYTES} bytes; ignored"]
    assert hive_engine.ask(b"z" * (2 * MAX_LINE_BYTES) + b"\n") == too_long
    assert hive_engine.ask(b"play " + b"wS1 " * MAX_LINE_BYTES + b"\n") == too_long
    assert hive_engine.ask("newgame Base+Z")[0].startswith("err invalid GameTypeString")
    assert hive_engine.ask("newgame") == ["Base;NotStarted;White[1]"]
    assert hive_engine.ask(b"play wS1\xff\n")[0].startswith("invalidmove unreadable MoveString")
    assert hive_engine.ask("play wQ")[0].startswith("invalidmove ")
    assert hive_engine.ask("play") == ["err play needs a MoveString, as in: play wS1"]
    assert hive_engine.ask("validmoves please")[0].startswith("err validmoves takes no arguments")
    assert hive_engine.ask("options set") == [
        "err usage: options | options get Name | options set Name Value"
    ]
    assert hive_engine.ask("undo 1")[0] == "err cannot undo 1 moves: 0 played"
    assert hive_engine.ask("perft 99") == ["err perft depth 99 is not in 0..8"]
    assert hive_engine.ask("newgame Base;InProgress;White[9]")[0].startswith(
        "err invalid GameString"
    )
    assert hive_engine.ask("dance") == ["err unknown command 'dance'; try help"]
    assert hive_engine.ask(f"newgame {WHITE_WINS}")[0].startswith("Base;WhiteWins;")
    assert hive_engine.ask("play wA1 bQ-")[0].startswith("invalidmove ")
    assert hive_engine.ask("bestmove")[0].startswith("err ")
    # After all that, it still plays correctly, and ends cleanly with nothing on stderr.
    assert hive_engine.ask("newgame Base+MLP") == ["Base+MLP;NotStarted;White[1]"]
    assert hive_engine.ask("play wP") == ["Base+MLP;InProgress;Black[1];wP"]
    assert hive_engine.finish() == (0, [], "")


def test_ctrl_c_ends_the_process_quietly_with_status_130(hive_engine: EngineProcess):
    hive_engine.process.send_signal(signal.SIGINT)  # the banner came: the loop is waiting
    assert hive_engine.process.wait(timeout=TIMEOUT) == 130
    assert hive_engine.finish() == (130, [], "")


def test_exit_ends_the_process_with_status_0(hive_engine: EngineProcess):
    hive_engine.send("newgame")
    assert hive_engine.answer() == ["Base;NotStarted;White[1]"]
    hive_engine.send("exit\ninfo")  # nothing after exit is read
    status, rest, errors = hive_engine.finish()
    assert (status, rest, errors) == (0, [], "")
