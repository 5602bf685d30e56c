"""The evaluation against a plain count of each term, written from the terms' definitions and
compared over random games of every expansion: ``terms`` gives each term weighted (side to move
minus opponent), ``evaluate`` their sum, with or without a cache of articulation points."""

from __future__ import annotations

import random

from ai.evaluation import BUG_VALUE, DANGER, WEIGHTS, evaluate, terms
from hive import Game
from hive.board import EMPTY, HAND
from hive.hexes import NEIGHBORS
from hive.pieces import BUG_OF, COLOR_OF, NUM_PIECES, QUEENS, Bug

GAME_TYPES = ("Base", "Base+M", "Base+L", "Base+P", "Base+MLP")


def plain_terms(game: Game) -> dict[str, int]:
    """Each term counted per side, piece by piece, then weighted: the reference."""
    board = game.board
    pinned = board.articulation_points()
    count = {name: [0, 0] for name in WEIGHTS}
    count["tempo"][game.ply & 1] = 1
    rings: dict[int, tuple[int, ...]] = {}
    for color in (0, 1):
        h = board.hex_of[QUEENS[color]]
        if h == HAND:
            continue
        rings[color] = NEIGHBORS[h]
        free = sum(1 for n in NEIGHBORS[h] if board.top[n] == EMPTY)
        count["queen_liberties"][color] = free
        count["queen_danger"][color] = -DANGER[6 - free]
        for piece in board.stack(h):
            if COLOR_OF[piece] != color:
                count["queen_beetles"][1 - color] += 1
        guards = (Bug.PILLBUG, Bug.MOSQUITO) if game.game_type.pillbug else ()
        for n in NEIGHBORS[h]:
            top = board.top[n]
            alone = board.height[n] == 1  # not under a Beetle, not on top of the hive
            if top != EMPTY and alone and COLOR_OF[top] == color and BUG_OF[top] in guards:
                count["queen_guard"][color] = 1
    for piece in range(NUM_PIECES):
        if not game.game_type.has_piece(piece):
            continue
        color, h = COLOR_OF[piece], board.hex_of[piece]
        if h == HAND:
            count["in_hand"][color] += 1
            continue
        if h in rings.get(1 - color, ()):
            count["queen_attackers"][color] += 1
        if board.top[h] != piece:
            count["covered"][color] += 1
        elif board.height[h] == 1 and h in pinned:
            count["pinned"][color] += 1
        elif color in rings:  # free to move once its Queen is down
            bug = BUG_OF[piece]
            if bug == Bug.MOSQUITO:
                if board.height[h] > 1:
                    bug = Bug.BEETLE
                else:
                    near = [board.top[n] for n in NEIGHBORS[h] if board.top[n] != EMPTY]
                    bug = max((BUG_OF[p] for p in near), key=BUG_VALUE.__getitem__)
            count["mobility"][color] += BUG_VALUE[bug]
    me = game.ply & 1
    return {name: WEIGHTS[name] * (c[me] - c[1 - me]) for name, c in count.items()}


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


def test_terms_match_a_plain_count_of_each() -> None:
    positions = random_positions(7, 60)
    assert len(positions) > 1000
    in_progress = 0
    for game in positions:
        if game.is_over():
            assert terms(game) == {}
            continue
        in_progress += 1
        parts = terms(game)
        assert parts == plain_terms(game), game.game_string()
        assert list(parts) == list(WEIGHTS)
        assert sum(parts.values()) == evaluate(game)
    assert in_progress > 1000
