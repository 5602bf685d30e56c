"""The transposition table's keys and stored scores."""

from __future__ import annotations

from ai.evaluation import WIN
from ai.table import STUN_KEYS, from_table, position_key, to_table
from hive import Game
from hive.hashing import BLACK_KEY, HEX_KEYS, LEVEL_KEYS, game_type_key
from hive.pieces import ALL_GAME_TYPES, NUM_PIECES

OPENING = ("wS1", "bP wS1-", "wQ -wS1", "bQ bP-")


def test_stun_keys_are_distinct_and_none_is_a_zobrist_key() -> None:
    assert len(STUN_KEYS) == NUM_PIECES + 1  # every piece, and -1 for none
    zobrist = {*HEX_KEYS, *LEVEL_KEYS, BLACK_KEY, *map(game_type_key, ALL_GAME_TYPES)}
    assert len(set(STUN_KEYS)) == len(STUN_KEYS)
    assert not zobrist & set(STUN_KEYS)


def test_the_stunned_piece_is_part_of_the_key_with_pillbugs_only() -> None:
    for game_type, stunning in (("Base+MLP", True), ("Base+M", False)):
        game = Game(game_type)
        for move in OPENING if stunning else ("wS1", "bM wS1-", "wQ -wS1", "bQ bM-"):
            game.play(move)
        other = game.copy()
        other.last_moved = -1  # the same position, nothing stunned
        assert game.hash == other.hash
        assert (position_key(game) != position_key(other)) == stunning
        if not stunning:
            assert position_key(game) == game.hash


def test_mate_scores_are_stored_from_the_position() -> None:
    win_at_ply_10 = WIN - 10
    assert to_table(win_at_ply_10, 4) == WIN - 6  # six plies from the position at ply 4
    assert from_table(to_table(win_at_ply_10, 4), 4) == win_at_ply_10
    assert from_table(to_table(win_at_ply_10, 4), 6) == WIN - 12  # the same win, two plies on
    assert from_table(to_table(-win_at_ply_10, 4), 6) == -(WIN - 12)
    assert to_table(1234, 4) == from_table(1234, 4) == 1234  # not a mate: as it is
