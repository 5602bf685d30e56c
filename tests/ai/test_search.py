"""The evaluation and the alpha-beta search: puzzles, agreement with plain minimax, the
transposition table, deadlines, mate scores and the aggressive tie-break."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count, product
from typing import Any

import pytest

from ai.bots import LEVELS, Level
from ai.evaluation import (
    FITTED,
    HAND_SET,
    MATE_BOUND,
    TERMS,
    WEIGHTS,
    WIN,
    evaluate,
    terminal_score,
    terms,
)
from ai.search import (
    DANGER,
    FULL_DEPTH_MOVES,
    INFINITY,
    SearchResult,
    TranspositionTable,
    _Searcher,
    iterative_search,
    search,
)
from ai.trace import UNTRACED, TraceRecorder
from bench.forced_wins import load as load_wins_in_two
from bench.forced_wins import winning_now
from hive import Game, GameState, GameType, Move
from hive.board import EMPTY, HAND
from hive.game import PASS
from hive.hexes import NEIGHBORS
from hive.notation import destination
from hive.pieces import QUEENS
from tests.ai.support import fake_clock, mid_games
from tests.vectors import tsv_rows

PUZZLES = list(tsv_rows("mzinga_bestmove_puzzles.tsv"))

# Small positions for the exhaustive comparisons (a dozen or so moves each).
EARLY = (
    "Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-",
    "Base;InProgress;Black[3];wG1;bA1 wG1-;wQ \\wG1;bQ bA1-;wA1 /wQ",
    "Base+MLP;InProgress;White[3];wL;bM wL-;wQ /wL;bQ bM-",
)
# A block (2 plies) and a 3-ply forced win with few moves, for mate scores.
MATES = (PUZZLES[0], PUZZLES[8])


def key(move: Move) -> tuple[int, int]:
    return (move.piece, move.destination)


# -- reference minimax ---------------------------------------------------------------------------


def static(game: Game, threats: bool) -> int:
    """A leaf's score: the evaluation, or with ``threats`` the win the side to move has at
    once."""
    if game.state not in (GameState.IN_PROGRESS, GameState.NOT_STARTED):
        return terminal_score(game)
    if threats and winning_now(game):  # looked for whatever the Queen's empty neighbours
        return WIN - game.ply - 1
    return evaluate(game)


def minimax(
    game: Game, depth: int, branching: int | None, root: bool = False, threats: bool = False
) -> int:
    """Plain negamax without pruning, with the search's branching rule: below the root and
    with two or more plies left, only the K best children by static pre-score are searched,
    unless they all lose by force: then the others are searched too."""
    if game.state not in (GameState.IN_PROGRESS, GameState.NOT_STARTED):
        return terminal_score(game)
    if depth == 0:
        return static(game, threats)
    moves = game.legal_moves()
    rest: list[Move] = []
    if not root and depth >= 2 and len(moves) > 1:
        scored = []
        for move in moves:
            game.push(move)
            scored.append((-static(game, threats), move))
            game.pop()
        scored.sort(key=lambda pair: pair[0], reverse=True)
        moves = [move for _, move in scored]
        if branching is not None:
            moves, rest = moves[:branching], moves[branching:]
    best = -INFINITY
    for move in moves:
        game.push(move)
        best = max(best, -minimax(game, depth - 1, branching, threats=threats))
        game.pop()
    if best <= -MATE_BOUND:
        for move in rest:
            game.push(move)
            best = max(best, -minimax(game, depth - 1, branching, threats=threats))
            game.pop()
    return best


def root_scores(
    game: Game, depth: int, branching: int | None, threats: bool = False
) -> dict[tuple[int, int], int]:
    scores = {}
    for move in game.legal_moves():
        game.push(move)
        scores[key(move)] = -minimax(game, depth - 1, branching, threats=threats)
        game.pop()
    return scores


def ranked_scores(result: SearchResult) -> dict[tuple[int, int], int]:
    return {key(move): score for move, score in result.ranked}


# -- evaluation ----------------------------------------------------------------------------------


def test_terms_add_up_to_the_evaluation() -> None:
    checked = 0
    for game in mid_games(12):
        for move in game.legal_moves()[::5]:
            game.push(move)
            parts = terms(game)
            if parts:
                assert set(parts) == set(TERMS)
                assert sum(parts.values()) == evaluate(game), game.game_string()
                checked += 1
            game.pop()
    assert checked > 50


def test_evaluation_is_from_the_side_to_move() -> None:
    game = Game.from_game_string("Base;NotStarted;White[1]")
    game.play("wS1")  # Black to move, with a Spider more in hand
    assert terms(game)["in_hand"] == WEIGHTS["in_hand.spider"]
    game.play("bS1 wS1-")
    assert terms(game)["in_hand"] == 0
    # White's Ant runs round to the black Queen: good for White whoever is to move.
    for move in ("wQ -wS1", "bQ bS1-", "wA1 /wQ", "bA1 bQ-"):
        game.play(move)
    assert terms(game)["queen_attackers"] == 0
    game.play("wA1 bQ/")
    assert terms(game)["queen_attackers"] == -WEIGHTS["queen_attackers"]  # Black to move
    game.play("bA2 bA1-")
    assert terms(game)["queen_attackers"] == WEIGHTS["queen_attackers"]  # White to move


def test_terminal_scores_prefer_quick_wins() -> None:
    text, _, answer = PUZZLES[1]  # White wins in one
    game = Game.from_game_string(text)
    game.play(answer)
    assert game.state is GameState.WHITE_WINS
    # Black (to move) has lost at this ply.
    assert evaluate(game) == terminal_score(game) == -(WIN - game.ply)
    assert terms(game) == {}


# -- puzzles -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "depth", "expected"),
    [
        pytest.param(*p, id=f"{i}-ply{p[1]}", marks=[pytest.mark.deep] if p[1] == "5" else [])
        for i, p in enumerate(PUZZLES)
    ],
)
def test_solves_puzzle_at_its_depth(text: str, depth: str, expected: str) -> None:
    game = Game.from_game_string(text)
    before = game.game_string(), game.hash
    result = search(game, depth=int(depth), branching=None, exact_top=1)
    assert (game.game_string(), game.hash) == before
    assert result.completed and result.depth == int(depth)
    best = result.ranked[0][0]
    assert key(best) == destination(game.board, expected), (
        f"played {game.move_string(best)}, expected {expected}"
    )


@pytest.mark.deep
def test_the_experts_branching_limit_solves_them_too() -> None:
    branching = LEVELS["expert"].branching
    assert branching is not None
    missed = []
    for text, depth, expected in PUZZLES:
        game = Game.from_game_string(text)
        best = search(game, depth=int(depth), branching=branching, exact_top=1).ranked[0][0]
        if key(best) != destination(game.board, expected):
            missed.append(f"{text} (depth {depth}): {game.move_string(best)}, not {expected}")
    assert not missed, "\n".join(missed)


def test_a_forced_win_scores_as_a_win_at_its_ply() -> None:
    text, depth, expected = PUZZLES[8]  # wins in 3 plies (the opponent's Queen at ply + 3)
    game = Game.from_game_string(text)
    result = search(game, depth=int(depth))
    move, score = result.ranked[0]
    assert key(move) == destination(game.board, expected)
    assert score == WIN - (game.ply + 3)
    assert result.ranked[1][1] < MATE_BOUND


# -- alpha-beta against minimax ------------------------------------------------------------------


@pytest.mark.parametrize("text", EARLY)
@pytest.mark.parametrize(("depth", "branching"), [(2, None), (3, None), (4, 3)])
def test_alpha_beta_scores_equal_minimax(text: str, depth: int, branching: int | None) -> None:
    game = Game.from_game_string(text)
    expected = root_scores(game, depth, branching)
    result = search(game, depth=depth, branching=branching)
    assert ranked_scores(result) == expected
    scores = [score for _, score in result.ranked]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.deep
def test_late_quiet_moves_are_searched_a_ply_shallower_first() -> None:
    """Late-move reductions, as the trace shows them. A node of 3 plies or more searches its
    first ``FULL_DEPTH_MOVES`` children a ply less deep; a later one may be searched two plies
    less (reduced, and it stays so when it fails low there), but never one onto the enemy
    Queen's ring, nor any while the mover's own Queen has at most ``DANGER`` empty
    neighbours; a reduced child searched again shows its full depth. Below 3 plies nothing is
    reduced. (The comparisons with minimax search too shallow or too narrow to reduce.)"""
    counts = {"reduced": 0, "pressing": 0, "guarded": 0, "again": 0}

    def walk(game: Game, node: dict[str, Any]) -> None:
        children = [child for child in node.get("children", []) if child["kind"] == "move"]
        if not children or node["depth"] < 1:
            return
        by_name = {game.move_string(move): move for move in game.legal_moves()}
        board = game.board
        me = game.ply & 1
        enemy_queen = board.hex_of[QUEENS[1 - me]]
        ring = NEIGHBORS[enemy_queen] if enemy_queen != HAND else ()
        own_queen = board.hex_of[QUEENS[me]]
        free = sum(board.top[n] == EMPTY for n in NEIGHBORS[own_queen]) if own_queen != HAND else 6
        for i, child in enumerate(children):
            move = by_name[child["move"]]
            on_ring = move.destination in ring
            if child["depth"] == node["depth"] - 2:
                counts["reduced"] += 1
                assert node["depth"] >= 3, (node["move"], child["move"])
                assert i >= FULL_DEPTH_MOVES, (node["move"], child["move"])
                assert not on_ring, (node["move"], child["move"])
                assert free > DANGER, (node["move"], child["move"])
            else:
                assert child["depth"] == node["depth"] - 1, (node["move"], child)
                if node["depth"] >= 3 and i >= FULL_DEPTH_MOVES:
                    counts["pressing"] += on_ring
                    counts["guarded"] += free <= DANGER
                    counts["again"] += not on_ring and free > DANGER
            game.push(move)
            walk(game, child)
            game.pop()

    for game, depth in product(mid_games(2), (4, 5)):  # nodes of 2, 3 and 4 plies
        trace = TraceRecorder(max_depth=3)
        search(game, depth=depth, branching=10, exact_top=1, trace=trace)
        root = trace.to_dict()["root"]
        for child in root["children"]:
            if child["kind"] == "move":
                move = next(m for m in game.legal_moves() if game.move_string(m) == child["move"])
                game.push(move)
                walk(game, child)
                game.pop()
    # Each rule was met, and reduced moves were searched again.
    assert all(counts.values()), counts


@pytest.mark.parametrize("branching", [None, 1])
@pytest.mark.parametrize("row", MATES, ids=["block", "win-in-3"])
def test_alpha_beta_mate_scores_equal_minimax(row: list[str], branching: int | None) -> None:
    game = Game.from_game_string(row[0])
    depth = int(row[1])
    expected = root_scores(game, depth, branching)
    assert ranked_scores(search(game, depth=depth, branching=branching)) == expected


# Forced wins in two (``bench.forced_wins``): the enemy Queen surrounded on the third ply.
WINS_IN_TWO = load_wins_in_two()[::10]


@pytest.mark.parametrize("number", range(len(WINS_IN_TWO)))
def test_threats_let_two_plies_see_a_win_in_two(number: int) -> None:
    """With ``threats``, a leaf whose side to move surrounds the enemy Queen at once scores as
    that win: two plies then see the win that takes three."""
    game, winning = WINS_IN_TWO[number]
    plain = search(game, depth=2, exact_top=1).ranked[0]
    assert abs(plain[1]) < MATE_BOUND  # two plies alone see no result
    move, score = search(game, depth=2, exact_top=1, threats=True).ranked[0]
    assert score == WIN - (game.ply + 3)
    assert key(move) in {key(m) for m in winning}


@pytest.mark.parametrize("branching", [None, 2])
@pytest.mark.parametrize("number", [0, 4])
def test_alpha_beta_with_threats_scores_equal_minimax(number: int, branching: int | None) -> None:
    game, _ = WINS_IN_TWO[number]
    expected = root_scores(game, 2, branching, threats=True)
    assert any(score >= MATE_BOUND for score in expected.values())  # seen through a threat
    result = search(game, depth=2, branching=branching, threats=True)
    assert ranked_scores(result) == expected


@pytest.mark.parametrize("setting", ["threats", "null_move"])
def test_a_table_is_cleared_when_threats_or_null_moves_change(setting: str) -> None:
    game, _ = WINS_IN_TWO[0]
    table = TranspositionTable()
    threats, null_move = setting == "threats", setting == "null_move"
    search(game, depth=3, table=table, threats=threats, null_move=null_move)
    assert getattr(table, setting) and len(table) > 0
    assert ranked_scores(search(game, depth=3, table=table)) == ranked_scores(search(game, depth=3))
    assert not getattr(table, setting)


def test_a_null_move_cuts_nodes_where_a_pass_still_holds_beta() -> None:
    game = next(mid_games(1))
    plain = search(game, depth=4, branching=20, exact_top=1)
    assert plain.nulls == 0  # off unless asked for
    nulls = search(game, depth=4, branching=20, exact_top=1, null_move=True)
    assert nulls.nulls > 0 and nulls.nodes < plain.nodes


def safe(game: Game, side: int) -> bool:
    """Whether ``side``'s Queen is on the board with more than ``DANGER`` empty neighbours."""
    where = game.board.hex_of[QUEENS[side]]
    free = sum(game.board.top[n] == EMPTY for n in NEIGHBORS[where]) if where != HAND else 0
    return free > DANGER


def test_a_null_move_is_not_tried_after_a_pass_near_a_result_or_with_the_queen_in_danger() -> None:
    # both Queens safe: after the pass only the pass itself keeps the null move from being tried
    game = next(g for g in mid_games(20) if safe(g, 0) and safe(g, 1))
    searcher = _Searcher(
        game, branching=None, deadline=None, clock=None, table=None, trace=None, null_move=True
    )
    assert searcher._null_cutoff(3, -MATE_BOUND + 1)  # the usual case: cut, after a search
    assert searcher.nodes > 0
    for beta in (MATE_BOUND, -MATE_BOUND, searcher.leaf() + 1):  # results, or below beta
        nodes = searcher.nodes
        assert not searcher._null_cutoff(3, beta)
        assert searcher.nodes == nodes  # nothing searched
    game.push(PASS)  # after a pass
    nodes = searcher.nodes
    assert not searcher._null_cutoff(3, -MATE_BOUND + 1)
    assert searcher.nodes == nodes
    game.pop()
    # the side to move's Queen with at most DANGER empty neighbours
    danger = next(
        g
        for g in (Game.from_game_string(text) for text, _, _ in PUZZLES)
        if g.state is GameState.IN_PROGRESS
        and g.board.hex_of[QUEENS[g.ply & 1]] != HAND
        and not safe(g, g.ply & 1)
    )
    searcher = _Searcher(
        danger, branching=None, deadline=None, clock=None, table=None, trace=None, null_move=True
    )
    assert not searcher._null_cutoff(3, -MATE_BOUND + 1)
    assert searcher.nodes == 0


@pytest.mark.parametrize("top", [1, 2, 4])
def test_exact_top_scores_the_best_moves_exactly_and_bounds_the_rest(top: int) -> None:
    for game in mid_games(3):
        full = search(game, depth=3, branching=6)
        quick = search(game, depth=3, branching=6, exact_top=top)
        assert full.exact == len(full.ranked)
        assert top <= quick.exact < len(quick.ranked)
        exact_scores = ranked_scores(full)
        head = quick.ranked[: quick.exact]
        # the head holds the best scores, each exact, and every move tied with the last
        assert [score for _, score in head] == [score for _, score in full.ranked[: quick.exact]]
        assert all(exact_scores[key(move)] == score for move, score in head)
        assert full.ranked[quick.exact][1] < head[-1][1]
        # the others are upper bounds of their exact scores, and below the head
        assert all(score >= exact_scores[key(move)] for move, score in quick.ranked[quick.exact :])
        assert all(score < head[-1][1] for _, score in quick.ranked[quick.exact :])
        if top == 1:
            assert quick.nodes < full.nodes


def test_exact_top_must_be_positive() -> None:
    game = Game.from_game_string(EARLY[0])
    with pytest.raises(ValueError, match="exact_top"):
        search(game, depth=2, exact_top=0)


# -- transposition table -------------------------------------------------------------------------


def test_a_table_does_not_change_three_ply_scores() -> None:
    """No position recurs within three plies, so a table, fresh or filled by the same search,
    leaves every score as it was. (Deeper, a position that recurs may be answered from a
    deeper search of it, which can change a score: the table then knows more.)"""
    for game in mid_games(3):
        plain = search(game, depth=3, branching=8)
        table = TranspositionTable()
        first = search(game, depth=3, branching=8, table=table)
        again = search(game, depth=3, branching=8, table=table)
        assert first.ranked == plain.ranked
        assert ranked_scores(again) == ranked_scores(plain)
        assert len(table) > 0 and again.table_hits > 0
        assert again.nodes < first.nodes


@pytest.mark.deep
def test_mate_scores_survive_the_table() -> None:
    """Mate scores are stored relative to the position: the puzzles searched twice on one
    table (K = 8) keep their table-free exact scores, mate distances included."""
    changed = []
    for text, depth, _ in PUZZLES:
        game = Game.from_game_string(text)
        plain = ranked_scores(search(game, depth=int(depth), branching=8, exact_top=1))
        table = TranspositionTable()
        search(game, depth=int(depth), branching=8, table=table, exact_top=1)
        again = search(game, depth=int(depth), branching=8, table=table, exact_top=1)
        assert again.table_hits > 0 or int(depth) == 1
        for move, score in again.ranked[: again.exact]:
            if score != plain[key(move)]:
                changed.append(f"{text}: {game.move_string(move)} {score}, not {plain[key(move)]}")
    assert not changed, "\n".join(changed)


# Moves of a real game (Base+MLP), up to a position with White to move.
_STUN_MOVES = (
    "wG1;bL /wG1;wM wG1/;bM /bL;wA1 wM\\;bQ bL\\;wQ \\wM;bP /bQ;wP -wM;bA1 -bP;wM bQ\\;bM wA1\\;"
    "wB1 wQ\\;bA2 /bP;wB2 wM-;bA1 wB2\\;wB1 wG1;bA2 wQ-;wB1 bL;bB1 bA2/;bP -bA1;bB1 wQ/;wL -wG1;"
    "bA1 -wL;wG2 -wQ;bA2 -wG2;wG3 wA1/;bM wG3-;wA2 wB2-;bA1 wA2/;wL /wA1;bP /wA2;wS1 -wG1;"
    "bA3 bM/;wS1 -wM;bP /wB2;wB1 bQ;bB1 wQ;bP wL\\;bL -wG1;wM bP;bS1 /bL;wA3 -wB2;bG1 \\bA1;"
    "wB1 -wL;bL wG2/;wL -bQ;bA3 bB1-"
)


def _replay(*moves: str) -> Game:
    game = Game(GameType.parse("Base+MLP"))
    for move in (*_STUN_MOVES.split(";"), *moves):
        game.play(move)
    return game


def test_the_stunned_piece_keeps_positions_apart_in_the_table() -> None:
    """The same board, with the white Mosquito moved last in one position and the white
    Ladybug in the other (a stunned piece may neither move nor be thrown): a search of one
    must not answer for the other."""
    mosquito_last = _replay("wL /wA1", "bB2 \\bS1", "wM bQ")
    before = _replay("wM bQ", "bB2 \\bS1")  # White to play wL /wA1: the Ladybug moves last
    ladybug_last = _replay("wM bQ", "bB2 \\bS1", "wL /wA1")
    assert mosquito_last.hash == ladybug_last.hash  # the same board
    assert mosquito_last.last_moved != ladybug_last.last_moved
    fresh = ranked_scores(search(before, depth=3))
    table = TranspositionTable()
    search(mosquito_last, depth=2, table=table)
    assert ranked_scores(search(before, depth=3, table=table)) == fresh
    # the table is used: with the Ladybug's own entry, the search after it is answered
    table = TranspositionTable()
    search(ladybug_last, depth=2, table=table)
    assert search(before, depth=3, table=table).table_hits > 0


def test_table_is_cleared_for_another_branching_limit() -> None:
    game = next(mid_games(1))
    table = TranspositionTable()
    search(game, depth=2, branching=4, table=table)
    assert table.branching == 4 and len(table) > 0
    narrow = search(game, depth=3, branching=2, table=table)
    assert table.branching == 2
    assert ranked_scores(narrow) == ranked_scores(search(game, depth=3, branching=2))


def test_a_search_scores_with_its_weights_and_its_table_keeps_to_one_set() -> None:
    game = next(mid_games(1))
    for weights in (HAND_SET, FITTED):
        for move, score in search(game, depth=1, weights=weights).ranked:
            game.push(move)
            assert score == -evaluate(game, weights)
            game.pop()
    fitted = ranked_scores(search(game, depth=3, weights=FITTED))
    assert fitted != ranked_scores(search(game, depth=3))  # the default: the hand-set weights
    table = TranspositionTable()
    search(game, depth=2, table=table)
    assert table.weights is HAND_SET and len(table) > 0
    assert ranked_scores(search(game, depth=3, table=table, weights=FITTED)) == fitted
    assert table.weights is FITTED


# -- deadlines and the game left as it was -------------------------------------------------------


def test_deadline_falls_back_to_one_ply_and_restores_the_game() -> None:
    game = next(mid_games(1))
    before = game.game_string(), game.hash, len(game.moves)
    clock = fake_clock(0.1)  # the deadline passes at the fifth look, a few thousand nodes in
    result = search(game, depth=5, branching=10, deadline=0.5, clock=clock)
    assert (game.game_string(), game.hash, len(game.moves)) == before
    assert not result.completed and result.depth == 1
    assert result.ranked == search(game, depth=1).ranked


def test_iterative_search_returns_the_last_completed_depth() -> None:
    game = next(mid_games(1))
    before = game.game_string(), game.hash
    # The clock is read every thousand nodes or so: the deadline comes some 50 000 nodes in.
    result = iterative_search(
        game, max_depth=None, branching=4, deadline=1.0, clock=fake_clock(0.02)
    )
    assert (game.game_string(), game.hash) == before
    assert result.depth >= 2
    fixed = search(game, depth=result.depth, branching=4)
    assert ranked_scores(result) == ranked_scores(fixed)


def test_iterative_search_stops_at_max_depth_and_depth_one_always_completes() -> None:
    game = next(mid_games(1))
    done = iterative_search(
        game, max_depth=2, branching=5, deadline=10**9, clock=fake_clock(), table=None
    )
    assert done.depth == 2 and done.completed
    late = iterative_search(game, max_depth=4, branching=5, deadline=-1.0, clock=fake_clock())
    assert late.depth == 1 and len(late.ranked) == len(game.legal_moves())


def test_the_deadline_ends_an_iterative_search_below_its_floor() -> None:
    """A budget is a wall-clock promise: past the deadline, the floor of plies gives way (the
    move comes from the last depth completed)."""
    game = next(mid_games(1))
    late = iterative_search(
        game, max_depth=4, min_depth=4, branching=5, deadline=-1.0, clock=fake_clock()
    )
    assert late.depth < 4 and not late.completed
    fixed = search(game, depth=late.depth, branching=5)
    assert ranked_scores(late) == ranked_scores(fixed)


def test_an_iterative_search_starts_its_floor_whatever_the_last_depth_predicts() -> None:
    """Depth 1 seems to take the whole budget (the clock jumps by a second once), so the
    prediction alone would stop there; up to ``min_depth`` the depths are still started, and
    complete while the deadline has not passed."""
    game = next(mid_games(1))
    readings = count()

    def jumping() -> float:
        return 0.0 if next(readings) == 0 else 1.0

    guessed = iterative_search(game, max_depth=3, branching=5, deadline=2.0, clock=jumping)
    assert guessed.depth == 1
    readings = count()
    floor = iterative_search(
        game, max_depth=3, min_depth=3, branching=5, deadline=2.0, clock=jumping
    )
    assert floor.depth == 3 and floor.completed
    assert ranked_scores(floor) == ranked_scores(search(game, depth=3, branching=5))


def cut_after(readings: int) -> Callable[[], float]:
    """A clock at 0.0 for its first ``readings`` readings, then at 10.0."""
    seen = count(1)
    return lambda: 0.0 if next(seen) <= readings else 10.0


def test_a_depth_cut_short_is_led_by_a_move_it_proved_better_than_the_last_best() -> None:
    """Whatever the reading at which the deadline cuts depth 2 or 3 short: when that depth has
    scored a move above the one it searched first (the last complete depth's best), that move
    leads, with its score at that depth, which the whole depth confirms above that best's;
    otherwise the last complete ranking stands as it was."""
    game = list(mid_games(6))[2]
    full = {d: search(game, depth=d, branching=6).ranked for d in (1, 2, 3)}
    led = kept = 0
    for readings in count(2):
        cut = iterative_search(
            game, max_depth=3, min_depth=3, branching=6, deadline=1.0, clock=cut_after(readings)
        )
        if cut.completed:
            break
        deeper = dict(full[cut.depth + 1])
        if cut.deeper:
            led += 1
            (move, score), (best, _) = cut.ranked[:2]
            assert score == deeper[move] > deeper[best] and cut.exact == 1
            rest = {key(m): s for m, s in full[cut.depth] if m != move}
            assert {key(m): s for m, s in cut.ranked[1:]} == rest
        else:
            kept += 1
            assert ranked_scores(cut) == {key(m): s for m, s in full[cut.depth]}
    assert led > 10 and kept > 10


def test_a_level_floor_lies_within_its_depth() -> None:
    for depth, floor in ((2, 3), (None, 0)):
        with pytest.raises(ValueError, match="min_depth"):
            Level("odd", depth, 1.0, branching=None, quotient=None, table=False, min_depth=floor)


def test_a_deadline_needs_a_clock() -> None:
    with pytest.raises(ValueError, match="clock"):
        search(next(mid_games(1)), depth=2, deadline=1.0)


def test_a_frontier_cutoff_move_is_tried_first_at_its_siblings() -> None:
    """The killer heuristic: the move that cut off at a frontier node comes first at the next
    frontier node of the same ply, where it is legal too (after the table's move)."""
    game = next(mid_games(1))
    searcher = _Searcher(game, branching=None, deadline=None, clock=None, table=None, trace=None)
    moves = game.legal_moves()
    ordered = searcher._frontier_order(list(moves), None)
    killer = ordered[len(ordered) // 2]
    # a window that any child beats: it cuts off, and is remembered
    searcher._frontier([killer], -INFINITY, -INFINITY + 1, UNTRACED)
    assert searcher.prunes == 1
    again = searcher._frontier_order(list(moves), None)
    assert again[0] == killer != ordered[0]
    assert sorted(again) == sorted(moves)
    table_move = moves[-1]
    assert searcher._frontier_order(list(moves), table_move)[:2] == [table_move, killer]


# -- special positions ---------------------------------------------------------------------------


def test_finished_game_has_no_moves_and_a_pass_is_searched() -> None:
    text, _, answer = PUZZLES[1]
    game = Game.from_game_string(text)
    game.play(answer)
    assert search(game, depth=2).ranked == []
    # Black has only a pass here (from a Mzinga puzzle's game).
    text = next(row[0] for row in PUZZLES if row[0].startswith("Base+L;"))
    assert text.endswith(";pass")
    game = Game(GameType.parse("Base+L"))
    for move in text.split(";")[3:-1]:
        game.play(move)
    assert game.legal_moves() == [PASS]
    result = search(game, depth=3)
    assert [move for move, _ in result.ranked] == [PASS]


def test_aggressive_tie_break_prefers_fewest_holding_replies() -> None:
    # From a real game: two of Black's moves tie for best, one leaving White fewer replies.
    text = (
        "Base+MLP;InProgress;Black[8];wB1;bG1 -wB1;wQ wB1\\;bL -bG1;wQ bG1\\;bQ /bL;wB1 bG1;"
        "bM \\bQ;wA1 wB1/;bA1 \\bL;wA1 bQ\\;bA1 wQ-;wM /wA1;bM /wQ;wM -bQ"
    )
    game = Game.from_game_string(text)
    result = search(game, depth=2, aggressive=True)
    top = result.ranked[0][1]
    tied = [move for move, score in result.ranked if score == top]
    assert len(tied) > 1 and set(result.replies) == set(tied)
    counts = [result.replies[move] for move in tied]
    assert len(set(counts)) > 1 and counts == sorted(counts)
    # Each count is what it claims: replies whose static score keeps the opponent's value.
    for move in tied:
        game.push(move)
        holding = 0
        for reply in game.legal_moves():
            game.push(reply)
            holding += -evaluate(game) >= -top
            game.pop()
        game.pop()
        assert holding == result.replies[move]
    plain = search(game, depth=2)
    assert sorted(plain.ranked, key=lambda pair: key(pair[0])) == sorted(
        result.ranked, key=lambda pair: key(pair[0])
    )
