"""Arenas: the statistics, real games between bots, and external engines, good and bad."""

import math
import re
import shlex
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ai.arena import GameRecord, Player, play_game, run_arena
from ai.bots import LEVELS, Bot
from ai.cli import uhp_time
from ai.stats import elo_difference, expected_score, sprt, summarize
from ai.symmetry import position_at
from ai.uhpclient import EngineStartError, UhpClient
from hive import Game, GameState, GameType

BASE = GameType()
MID_GAME = (
    "Base;InProgress;White[6];wB1;bA1 wB1-;wA1 \\wB1;bA2 bA1-;wA2 -wB1;bA3 bA1/;wQ -wA1;"
    "bQ bA3-;wA1 bQ-;bA2 -wQ"
)
"""A position of turn 6, out of every book, with 45 moves."""


@pytest.mark.parametrize(
    ("scores", "confidence", "expected"),
    [  # as computed with scipy's logit and norm.ppf, before the standard library took over
        ([1.0, 0.0, 0.5, 0.5], 0.95, (0.0, -296.57529006388694, 296.575290063887)),
        (
            [1.0, 1.0, 1.0, 0.0] * 25,
            0.95,
            (190.84850188786496, 119.21295230875272, 281.51580162793283),
        ),
        ([1.0] * 9 + [0.0], 0.95, (381.6970037757299, 158.98518507251032, math.inf)),
        ([0.5] * 3 + [1.0] * 2, 0.95, (147.19071411783773, -10.21984391773015, 412.1392005107824)),
        ([0.0] * 3 + [0.5], 0.95, (-338.0392160057027, -math.inf, -117.41948490597021)),
        (
            [1.0, 1.0, 0.0, 0.5, 1.0, 0.5, 0.0, 1.0],
            0.9,
            (88.73949984654254, -82.1697355810745, 324.30784022493407),
        ),
    ],
)
def test_elo_interval_keeps_its_known_values(
    scores: list[float], confidence: float, expected: tuple[float, float, float]
) -> None:
    assert elo_difference(scores, confidence) == pytest.approx(expected, rel=1e-9)


def test_elo_of_an_even_match_is_zero() -> None:
    elo, low, high = elo_difference([1.0, 0.0, 0.5, 0.5])
    assert elo == pytest.approx(0.0)
    assert low < 0 < high


def test_elo_of_three_quarters_is_the_logistic_value() -> None:
    elo, low, high = elo_difference([1.0, 1.0, 1.0, 0.0] * 25)
    assert elo == pytest.approx(400 * math.log10(3))  # 190.8
    assert low < elo < high


def test_elo_interval_narrows_with_more_games() -> None:
    _, low_few, high_few = elo_difference([1.0, 0.0] * 5)
    _, low_many, high_many = elo_difference([1.0, 0.0] * 500)
    assert high_many - low_many < (high_few - low_few) / 5


def test_elo_of_a_clean_sweep_is_infinite() -> None:
    elo, _, high = elo_difference([1.0] * 10)
    assert elo == math.inf and high == math.inf


def test_elo_needs_games() -> None:
    with pytest.raises(ValueError, match="no games"):
        elo_difference([])


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown level 'grandmaster'"):
        Player.bot("grandmaster")


def _check_record(record: GameRecord) -> None:
    game = Game.from_game_string(record.game_string, repetition_draw=True)
    assert game.ply == record.plies
    white_score = {GameState.WHITE_WINS: 1.0, GameState.BLACK_WINS: 0.0}.get(game.state, 0.5)
    assert record.score == (white_score if record.a_white else 1 - white_score)
    assert len(record.a_seconds) + len(record.b_seconds) == record.plies


def test_a_game_between_bots_replays_and_scores_right() -> None:
    record = play_game(Player.bot("beginner"), Player.bot("beginner"), 0, game_type=BASE, seed=1)
    assert record.a_white
    _check_record(record)
    assert record.shape in {"C", "I", "L", "Z", "X"}
    assert record.opening == ";".join(record.game_string.split(";")[3:7])


def test_long_games_are_adjudicated_draws() -> None:
    record = play_game(
        Player.bot("beginner"), Player.bot("beginner"), 1, game_type=BASE, seed=2, max_plies=6
    )
    assert (record.plies, record.score, record.end, record.a_white) == (
        6,
        0.5,
        "adjudicated",
        False,
    )


def test_parallel_arena_alternates_colours_and_keeps_order() -> None:
    seen: list[int] = []
    records = run_arena(
        Player.bot("beginner"),
        Player.bot("easy"),
        4,
        parallel=2,
        game_type=BASE,
        seed=3,
        max_plies=40,
        on_game=lambda r: seen.append(r.index),
    )
    assert [r.index for r in records] == [0, 1, 2, 3]
    assert sorted(seen) == [0, 1, 2, 3]
    assert [r.a_white for r in records] == [True, False, True, False]
    for record in records:
        _check_record(record)
    summary = summarize(records)
    assert summary.games == 4 and summary.wins + summary.draws + summary.losses == 4
    assert summary.distinct_games == len({r.game_string for r in records})


def _interrupted_after_two(parallel: int) -> tuple[list[GameRecord], list[int]]:
    """An arena of 50 short games, interrupted as the second ends: the games returned, and
    the indices ``on_game`` was called with, in order."""
    seen: list[int] = []

    def stop_after_two(record: GameRecord) -> None:
        seen.append(record.index)
        if len(seen) == 2:
            raise KeyboardInterrupt  # as Ctrl-C would, while the arena runs

    beginner = Player.bot("beginner")
    records = run_arena(
        beginner,
        beginner,
        50,
        parallel=parallel,
        game_type=BASE,
        seed=4,
        max_plies=20,
        on_game=stop_after_two,
    )
    for record in records:
        _check_record(record)
    return records, seen


def test_an_interrupted_arena_returns_the_games_that_finished() -> None:
    records, seen = _interrupted_after_two(parallel=1)
    assert [r.index for r in records] == [0, 1] == seen


def test_seeded_arena_is_reproducible() -> None:
    def play() -> list[str]:
        records = run_arena(
            Player.bot("medium"), Player.bot("beginner"), 2, game_type=BASE, seed=9, max_plies=16
        )
        return [r.game_string for r in records]

    assert play() == play()


# An engine that greets properly and then answers every command with an error.
BROKEN_ENGINE = (
    "import sys\n"
    "print('id Broken v0'); print('ok'); sys.stdout.flush()\n"
    "for line in sys.stdin:\n"
    "    print('err I cannot do that'); print('ok'); sys.stdout.flush()\n"
)


def test_an_engine_that_errs_forfeits() -> None:
    broken = Player.engine(f'{sys.executable} -c "{BROKEN_ENGINE}"')
    record = play_game(Player.bot("beginner"), broken, 1, game_type=BASE, seed=4)
    assert record.end.startswith("forfeit by B")
    assert "I cannot do that" in record.end
    assert record.score == 1.0


def test_an_engine_that_dies_forfeits() -> None:
    silent = Player.engine(f"{sys.executable} -c \"print('id Quitter v0'); print('ok')\"")
    record = play_game(silent, Player.bot("beginner"), 0, game_type=BASE, seed=5)
    assert record.end.startswith("forfeit by A")
    assert "exited" in record.end
    assert record.score == 0.0


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("/nonexistent/engine", "cannot start the engine '/nonexistent/engine'"),
        (
            f"{sys.executable} -c pass",
            "did not start as a UHP engine: the engine exited (status 0)",
        ),
        (
            f"{sys.executable} -c 'import sys; sys.exit(3)'",
            "did not start as a UHP engine: the engine exited (status 3)",
        ),
    ],
)
def test_an_engine_that_cannot_start_is_an_engine_start_error(command: str, message: str) -> None:
    with pytest.raises(EngineStartError, match=re.escape(message)):
        UhpClient(command, "depth 1")
    with pytest.raises(EngineStartError, match=re.escape(message)):
        play_game(Player.bot("beginner"), Player.engine(command), 0, game_type=BASE, seed=1)
    with pytest.raises(EngineStartError, match=re.escape(message)):
        run_arena(Player.bot("beginner"), Player.engine(command), 4, parallel=2, game_type=BASE)


# Our engine, writing every command it is sent to the file named by its argument.
LOGGING_ENGINE = (
    "import sys\n"
    "from ai.uhp import Engine, serve\n"
    "class Logged(Engine):\n"
    "    def handle(self, line):\n"
    "        with open(sys.argv[1], 'a') as log:\n"
    "            log.write(line.strip() + '\\n')\n"
    "        return super().handle(line)\n"
    "sys.exit(serve(sys.stdin.buffer, sys.stdout.buffer, Logged()))\n"
)


def test_the_engine_keeps_its_game_from_move_to_move(tmp_path: Path) -> None:
    """One ``newgame`` per game, then ``play`` for the moves since the last ``bestmove``: the
    engine keeps its game, and so its bot (random stream and table)."""
    log = tmp_path / "commands.txt"
    command = shlex.join([sys.executable, "-c", LOGGING_ENGINE, str(log)])
    engine = Player.engine(command, "depth 1")
    record = play_game(Player.bot("beginner"), engine, 1, game_type=BASE, seed=6, max_plies=14)
    _check_record(record)
    assert record.end == "adjudicated" and record.plies == 14
    commands = [line.split()[0] for line in log.read_text().splitlines()]
    assert commands[:2] == ["info", "newgame"]
    assert commands.count("newgame") == 1
    assert commands.count("bestmove") == len(record.b_seconds) == 7
    assert commands.count("play") == 14 - 2  # all but the engine's last move and the reply
    played = Game(BASE)
    for line in log.read_text().splitlines():
        if line.startswith("play "):
            played.play(line.removeprefix("play "))
    replay = Game.from_game_string(record.game_string, repetition_draw=True)
    assert played.moves == replay.moves[:12]


CLAIMING_ENGINE = str(Path(__file__).parents[1] / "engines" / "claiming_engine.py")
"""Our engine, holding the game drawn once its opponent's move has reached ply N (its first
argument), as nokamute does by its own repetition rule where ours plays on; or won."""


@pytest.mark.parametrize("a_white", [True, False])
def test_an_engine_that_holds_the_game_drawn_by_its_own_rules_ends_it_as_a_draw(
    a_white: bool,
) -> None:
    claiming = Player.engine(shlex.join([sys.executable, CLAIMING_ENGINE, "9", "Draw"]))
    bot = Player.bot("beginner")
    a, b = (bot, claiming) if a_white else (claiming, bot)
    record = play_game(a, b, 0 if a_white else 1, game_type=BASE, seed=7)
    side = "B" if a_white else "A"
    assert record.end.startswith(f"draw claimed by {side}: ")
    assert record.end.endswith("the engine holds the game drawn after 9 plies")
    assert record.score == 0.5
    assert summarize([record]).ends == {f"draw claimed by {side}": 1}
    game = Game.from_game_string(record.game_string, repetition_draw=True)
    # the claim comes at the engine's turn: after the opponent's 9th ply, or its own and a reply
    assert game.state is GameState.IN_PROGRESS and record.plies in (9, 10)


def test_an_engine_that_holds_a_game_won_that_goes_on_forfeits() -> None:
    claiming = Player.engine(shlex.join([sys.executable, CLAIMING_ENGINE, "9", "BlackWins"]))
    record = play_game(Player.bot("beginner"), claiming, 0, game_type=BASE, seed=7)
    assert record.end.startswith("forfeit by B: the engine holds the game over (BlackWins)")
    assert record.score == 1.0


def test_uhp_client_talks_to_our_engine() -> None:
    client = UhpClient(f"{sys.executable} -m ai.uhp", "depth 1")
    try:
        game = Game(BASE)
        game.play("wS1")
        move = client.best_move(game)
        assert game.parse_move(move) in game.legal_moves()
    finally:
        client.close()
    assert client.process.returncode == 0


I_EAST = "Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-"
I_NORTHEAST = "Base;InProgress;White[3];wS1;bS1 wS1/;wQ /wS1;bQ bS1/"
C_LEFT = "Base;InProgress;White[3];wS1;bS1 wS1-;wQ \\wS1;bQ bS1/"
C_RIGHT = "Base;InProgress;White[3];wS1;bS1 wS1-;wQ /wS1;bQ bS1\\"
I_GRASSHOPPER = "Base;InProgress;White[3];wG1;bS1 wG1-;wQ -wG1;bQ bS1-"


def test_positions_are_equal_up_to_rotation_and_reflection() -> None:
    assert position_at(I_EAST, 4) == position_at(I_NORTHEAST, 4)  # rotated
    assert position_at(C_LEFT, 4) == position_at(C_RIGHT, 4)  # mirrored
    assert position_at(I_EAST, 4) != position_at(C_LEFT, 4)  # another shape
    assert position_at(I_EAST, 4) != position_at(I_GRASSHOPPER, 4)  # another bug
    assert position_at(I_EAST, 3) != position_at(I_EAST, 4)
    assert position_at(I_EAST, 5) is None


def test_greedy_baseline_plays_without_randomness() -> None:
    def games(level: str) -> set[str]:
        player = Player.bot(level)
        return {
            play_game(player, player, 0, game_type=BASE, seed=seed, max_plies=10).game_string
            for seed in range(4)
        }

    assert len(games("greedy")) == 1  # whatever the seed
    assert len(games("beginner")) > 1  # while a level with a quotient varies with it


def test_a_level_named_best_plays_its_best_move_with_its_own_book() -> None:
    best = Player.bot("beginner:best")
    assert (best.name, best.level, best.best) == ("beginner:best", "beginner", True)
    assert best.level_played() == replace(LEVELS["beginner"], quotient=None)  # its book's name
    assert Player.bot("expert:best", 1.0).level_played().quotient is None
    with pytest.raises(ValueError, match="unknown level 'grandmaster'"):
        Player.bot("grandmaster:best")
    game = Game.from_game_string(MID_GAME)

    def chosen(player: Player) -> set[str]:
        level = player.level_played()
        return {game.move_string(Bot(level, seed=seed).choose(game).move) for seed in range(12)}

    assert len(chosen(best)) == 1  # whatever the seed
    assert len(chosen(Player.bot("beginner"))) > 1  # the level itself varies with it


def test_the_sprt_keeps_its_known_value_near_its_hypotheses() -> None:
    """30 wins, 40 draws, 30 losses for H0 0 against H1 10 Elo: the normal approximation,
    by hand, n (s1 - s0) (2m - s0 - s1) / 2v = 100 * 0.014391 * -0.014391 / 0.3 = -0.06904
    (m 0.5, v 0.15); the exact GSPRT agrees near its hypotheses."""
    test = sprt([1.0] * 30 + [0.5] * 40 + [0.0] * 30, 0, 10)
    assert test.llr == pytest.approx(-0.06904, abs=2e-4)
    assert (test.lower, test.upper) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert test.decision is None
    assert expected_score(10) == pytest.approx(0.514388, abs=1e-6)


def test_the_sprt_decides_for_a_clear_winner_and_for_an_even_match() -> None:
    assert sprt([], 0, 10).llr == 0.0
    assert sprt([1.0] * 11, 0, 100).decision is None  # one game's ratio is bounded
    assert sprt([1.0] * 12, 0, 100).decision == "H1"
    assert sprt([1.0, 0.0] * 1000, 0, 20).decision == "H0"
    assert sprt([1.0, 0.0] * 1000, -20, 0).decision == "H1"  # at least -20: so it is
    assert sprt([0.0] * 12, -100, 0).decision == "H0"
    more = sprt([1.0] * 150 + [0.0] * 50, 0, 10).llr
    assert 0 < sprt([1.0] * 75 + [0.0] * 25, 0, 10).llr < more  # more games, more sure


def test_the_sprt_refuses_hypotheses_out_of_order_and_bad_error_rates() -> None:
    with pytest.raises(ValueError, match="must be below"):
        sprt([1.0], 10, 10)
    with pytest.raises(ValueError, match="error rates"):
        sprt([1.0], 0, 10, alpha=0.5)


def test_an_arena_stops_when_told_and_keeps_the_games_being_played() -> None:
    def after_three(records: list[GameRecord]) -> bool:
        return len(records) >= 3

    beginner = Player.bot("beginner")
    alone = run_arena(beginner, beginner, 50, game_type=BASE, max_plies=20, stop=after_three)
    assert [r.index for r in alone] == [0, 1, 2]
    both = run_arena(
        beginner, beginner, 50, parallel=2, game_type=BASE, max_plies=20, stop=after_three
    )
    assert 3 <= len(both) <= 4  # the third, and the one being played beside it


def test_an_interrupted_parallel_arena_finishes_only_the_games_being_played() -> None:
    records, seen = _interrupted_after_two(parallel=2)
    assert 2 <= len(records) <= 3 and sorted(seen) == [r.index for r in records]


def test_a_time_budget_replaces_the_level_s_and_keeps_its_deepest() -> None:
    hard = Player.bot("hard", 0.5).level_played()
    assert (hard.seconds, hard.depth, hard.min_depth) == (0.5, 4, 1)
    expert = Player.bot("expert", 1.0).level_played()
    assert (expert.seconds, expert.depth, expert.min_depth) == (1.0, None, 4)
    assert Player.bot("expert").level_played().seconds == 2.0  # its own
    with pytest.raises(ValueError, match="must be positive"):
        Player.bot("hard", -1)


def test_a_uhp_engine_is_given_whole_seconds() -> None:
    assert uhp_time(1) == "time 00:00:01"
    assert uhp_time(3725) == "time 01:02:05"
    with pytest.raises(ValueError, match="whole seconds"):
        uhp_time(1.5)
