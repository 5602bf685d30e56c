"""The evaluation against a plain count of each feature, written from the features' definitions
and compared over random games of every expansion: ``features`` gives each count (side to move
minus opponent), ``terms`` each term weighted, ``evaluate`` their sum, with either set of
weights (the hand-set and the fitted ones)."""

from __future__ import annotations

import pickle
import random

import pytest

from ai.evaluation import (
    FITTED,
    FITTED_WEIGHTS,
    HAND_SET,
    TERMS,
    WEIGHTS,
    Weights,
    evaluate,
    features,
    terms,
)
from hive import Game
from hive.board import EMPTY, HAND
from hive.hexes import NEIGHBORS
from hive.movegen import _slides
from hive.pieces import BUG_OF, COLOR_OF, NUM_PIECES, QUEENS, Bug, Piece

GAME_TYPES = ("Base", "Base+M", "Base+L", "Base+P", "Base+MLP")
CRAWLERS = (Bug.QUEEN, Bug.SPIDER, Bug.ANT, Bug.PILLBUG)


def plain_features(game: Game, weights: dict[str, int] = WEIGHTS) -> dict[str, int]:
    """Each feature counted per side, piece by piece: the reference (``weights`` say which
    neighbour a Mosquito moves as)."""
    board = game.board
    top = board.top
    pinned = board.articulation_points()
    count = {name: [0, 0] for name in WEIGHTS}
    queens = [board.hex_of[QUEENS[color]] for color in (0, 1)]
    rings = [set(NEIGHBORS[h]) if h != HAND else set() for h in queens]
    for piece in range(NUM_PIECES):
        if not game.game_type.has_piece(piece):
            continue
        color, h, bug = COLOR_OF[piece], board.hex_of[piece], BUG_OF[piece]
        if h == HAND:
            count[f"in_hand.{name(bug)}"][color] += 1
            continue
        if top[h] != piece:
            continue  # under a stack
        on_top = board.height[h] > 1
        near = [BUG_OF[top[n]] for n in NEIGHBORS[h] if top[n] != EMPTY]
        moves_as: int | None = bug
        crawls = bug in CRAWLERS
        throws = bug == Bug.PILLBUG
        if bug == Bug.MOSQUITO:
            if on_top:
                moves_as = Bug.BEETLE
            else:  # the neighbour whose mobility weighs most, never a Queen
                mimics = [b for b in near if b != Bug.QUEEN]
                moves_as = max(mimics, key=lambda b: weights[f"mobility.{name(b)}"], default=None)
                crawls = all(b in CRAWLERS for b in near)
                throws = Bug.PILLBUG in near
        stuck = not on_top and (h in pinned or (crawls and not _slides(top, h)))
        if h in rings[color]:
            count["queen_blockers" if stuck else "queen_neighbours"][color] += 1
            queen = queens[color]
            if throws and game.game_type.pillbug and board.height[queen] == 1:
                room = [
                    sum(1 for m in NEIGHBORS[n] if m == queen or top[m] == EMPTY)
                    for n in NEIGHBORS[h]
                    if top[n] == EMPTY
                ]
                count["pillbug_defense"][color] = int(max(room, default=0) > 2)
        if h in rings[1 - color]:
            count["queen_attackers"][color] += 1
        elif not stuck and moves_as is not None:
            count[f"mobility.{name(moves_as)}"][color] += 2 if on_top else 1
    if game.game_type.pillbug:
        for color in (0, 1):
            queen = queens[color]
            pillbug = board.hex_of[Piece.parse("wb"[color] + "P")]
            if queen == HAND or board.height[queen] != 1 or pillbug != HAND:
                continue
            count["pillbug_reserve"][color] = int(
                any(
                    top[n] == EMPTY
                    and all(top[m] == EMPTY or COLOR_OF[top[m]] == color for m in NEIGHBORS[n])
                    for n in NEIGHBORS[queen]
                )
            )
    me = game.ply & 1
    return {feature: c[me] - c[1 - me] for feature, c in count.items()}


def name(bug: int) -> str:
    return Bug(bug).name.lower()


def random_positions(seed: int, games: int) -> list[Game]:
    rng = random.Random(seed)
    positions = []
    for number in range(games):
        game = Game(GAME_TYPES[number % len(GAME_TYPES)])
        for _ in range(rng.randrange(4, 80)):
            moves = game.legal_moves()
            if not moves:
                break
            game.push(rng.choice(moves))
            positions.append(game.copy())
    return positions


@pytest.mark.parametrize(
    ("weights", "by_feature"), [(HAND_SET, WEIGHTS), (FITTED, FITTED_WEIGHTS)], ids=["hand", "fit"]
)
def test_terms_match_a_plain_count_of_each(weights: Weights, by_feature: dict[str, int]) -> None:
    positions = random_positions(7, 60)
    assert len(positions) > 1000
    in_progress = 0
    for game in positions:
        if game.is_over():
            assert terms(game, weights) == {}
            continue
        in_progress += 1
        counts = features(game, weights)
        assert counts == plain_features(game, by_feature), game.game_string()
        parts = terms(game, weights)
        assert list(parts) == list(TERMS)
        for term, value in parts.items():
            assert value == sum(
                by_feature[f] * c for f, c in counts.items() if f.split(".")[0] == term
            )
        assert sum(parts.values()) == evaluate(game, weights)
    assert in_progress > 1000


def test_the_default_weights_are_the_hand_set_ones_and_the_two_sets_score_apart() -> None:
    positions = [game for game in random_positions(3, 20) if not game.is_over()]
    assert all(evaluate(game) == evaluate(game, HAND_SET) for game in positions)
    apart = sum(1 for game in positions if evaluate(game, FITTED) != evaluate(game, HAND_SET))
    assert apart > len(positions) // 2


def test_a_mosquito_moves_as_the_neighbour_its_weights_value_most() -> None:
    # White's Mosquito beside its Spider and its Beetle, free to move: the hand-set weights
    # value a free Beetle more (12 to 4), a set that values the Spider more counts it as one.
    game = Game("Base+M")
    for move in ("wS1", "bS1 -wS1", "wB1 wS1-", "bQ -bS1", "wM wS1/", "bA1 \\bS1"):
        game.play(move)
    assert game.ply & 1 == 0  # White to move: White's counts are added
    hand = features(game)
    as_spider = features(game, Weights({**WEIGHTS, "mobility.spider": 30}))
    assert as_spider["mobility.spider"] - hand["mobility.spider"] == 1
    assert hand["mobility.beetle"] - as_spider["mobility.beetle"] == 1


@pytest.mark.parametrize(
    ("by_feature", "message"),
    [
        (
            {k: v for k, v in WEIGHTS.items() if k != "queen_attackers"},
            "missing ['queen_attackers']",
        ),
        ({**WEIGHTS, "queen_lovers": 3}, "unknown ['queen_lovers']"),
    ],
)
def test_a_set_of_weights_names_every_feature_and_nothing_else(
    by_feature: dict[str, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Weights(by_feature)


def test_weights_cross_to_another_process() -> None:
    copy = pickle.loads(pickle.dumps(FITTED))
    assert copy.by_feature == FITTED_WEIGHTS and copy.vector == FITTED.vector
    assert copy.mimic == FITTED.mimic
