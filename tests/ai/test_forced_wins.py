"""Forced wins in two, from real games: every level from medium up plays a move that forces the
win, and a search narrowed by its branching limit never claims a win or a loss that is not
forced.

The positions (``tests/ai/data/win_in_two.tsv``) come from real games played on by a seeded
player, each with every move that forces the win in two, proved by brute force; they are built
by ``python -m bench.forced_wins --build``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from ai.bots import Bot
from ai.evaluation import MATE_BOUND, WIN
from ai.search import search
from ai.trace import TraceRecorder
from bench.forced_wins import forces_win_in_two, load, loses_at_once, winning_now, wins_in_two
from hive import Move

POSITIONS = load()
RATE = 0.98


def key(move: Move) -> tuple[int, int]:
    return (move.piece, move.destination)


def test_the_positions_are_many_varied_and_proved() -> None:
    assert len(POSITIONS) >= 100
    types = Counter(str(game.game_type) for game, _ in POSITIONS)
    assert len(types) >= 4, types
    assert len({(game.hash, game.last_moved) for game, _ in POSITIONS}) == len(POSITIONS)
    for game, winning in POSITIONS:
        assert not game.is_over() and not winning_now(game)
        assert winning and all(forces_win_in_two(game, move) for move in winning)
    # the recorded set is every winning move (spot checks: the brute force is slow)
    for game, winning in POSITIONS[::25]:
        assert {key(move) for move in wins_in_two(game)} == {key(move) for move in winning}


@pytest.mark.deep
@pytest.mark.parametrize("level", ["medium", "hard", "expert"])
def test_a_bot_plays_a_forced_win_in_two(level: str) -> None:
    misses = []
    for number, (game, winning) in enumerate(POSITIONS):
        move = Bot(level, seed=number).choose(game).move
        if key(move) not in {key(m) for m in winning}:
            misses.append(f"{game.game_string()}: {game.move_string(move)}")
    found = 1 - len(misses) / len(POSITIONS)
    print(f"{level}: {len(POSITIONS) - len(misses)}/{len(POSITIONS)}", *misses, sep="\n")
    assert found >= RATE, "\n".join(misses)


@pytest.mark.deep
def test_a_narrow_search_claims_only_forced_results() -> None:
    """Three plies with K = 2, every root move scored exactly (half the positions, for time):
    every move scored as a win forces the win in two, every move scored as a loss loses at
    once (both by brute force), and a win in two is always found. Before losses had to be
    proved, 44 of the 100 positions had such false claims (145 in all)."""
    wrong = []
    for game, winning in POSITIONS[::2]:
        wins = {key(move) for move in winning}
        result = search(game, depth=3, branching=2)
        for move, score in result.ranked:
            if score >= MATE_BOUND and key(move) not in wins:
                wrong.append(f"{game.game_string()}: {game.move_string(move)} is no win")
            if score <= -MATE_BOUND and not loses_at_once(game, move):
                wrong.append(f"{game.game_string()}: {game.move_string(move)} does not lose")
        best, score = result.ranked[0]
        # a win after the reply, or by it (when every reply fills the replier's own Queen)
        assert key(best) in wins, game.game_string()
        assert WIN - (game.ply + 3) <= score <= WIN - (game.ply + 2), game.game_string()
    assert not wrong, "\n".join(wrong)


def test_the_trace_shows_the_cut_replies_searched_to_prove_the_loss() -> None:
    game, winning = POSITIONS[0]
    trace = TraceRecorder(max_depth=2)
    search(game, depth=3, branching=1, trace=trace)
    root = trace.to_dict()["root"]
    wins = {game.move_string(move) for move in winning}
    proved = [child for child in root["children"] if child["move"] in wins]
    assert proved
    for node in proved:
        game.play(node["move"])
        replies: list[dict[str, Any]] = node["children"]
        # every reply searched (it loses), none cut
        assert [child["kind"] for child in replies] == ["move"] * len(game.legal_moves())
        assert all(child["score"] >= MATE_BOUND for child in replies)  # White's view: a win
        game.pop()
