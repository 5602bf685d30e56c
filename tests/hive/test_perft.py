"""Perft: move-sequence counts from Mzinga's published tables and nokamute's oracle.

Every row of the eight Mzinga tables up to depth 4 (depth 5 for Base) is run. Deeper rows are
not generated at all (depth 5 of the seven expansions takes ~15 s), so nothing is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hive import Game
from hive.pieces import ALL_GAME_TYPES
from tests.hive.support import legal_keys, slug
from tests.vectors import VECTORS, tsv_rows

PERFT_DIR = VECTORS / "mzinga_perft"
PERFT_FILES = sorted(PERFT_DIR.glob("Board_*_PerftTest.tsv"))
MAX_DEPTH = 4
MAX_DEPTH_BASE = 5
MIDGAME_MAX_COUNT = 50_000
"""Oracle mid-game depths are run while their count stays at or under this (~0.05 s each)."""


def mzinga_table(path: Path) -> list[tuple[str, int, int]]:
    """``(GameString, depth, count)`` for each row of one Mzinga perft table."""
    rows = tsv_rows(str(path.relative_to(VECTORS)))
    return [(game_string, int(depth), int(count)) for game_string, depth, count in rows]


def game_type_of(game_string: str) -> str:
    return game_string.split(";", 1)[0]


def max_depth(game_type: str) -> int:
    return MAX_DEPTH_BASE if game_type == "Base" else MAX_DEPTH


def mzinga_cases() -> list[Any]:
    return [
        pytest.param(game_string, depth, count, id=f"{game_type_of(game_string)}-d{depth}")
        for path in PERFT_FILES
        for game_string, depth, count in mzinga_table(path)
        if depth <= max_depth(game_type_of(game_string))
    ]


MZINGA_CASES = mzinga_cases()
START_ORACLE = json.loads((VECTORS / "oracle_nokamute_perft_start.json").read_text())
MIDGAME_ORACLE = json.loads((VECTORS / "oracle_nokamute_midgame_perft.json").read_text())


def position_id(name: str) -> str:
    """``"nokamute uhp_tests: Beetle gate"`` -> ``"uhp-beetle-gate"``; ``"beetle_gate (nokamute
    perft.rs ...)"`` -> ``"perft-rs-beetle-gate"``."""
    if name.startswith("nokamute uhp_tests:"):
        return "uhp-" + slug(name.removeprefix("nokamute uhp_tests:"))
    return "perft-rs-" + slug(name.split(" (")[0])


def midgame_cases() -> list[Any]:
    return [
        pytest.param(
            position["gamestring"], depth, count, id=f"{position_id(position['name'])}-d{depth}"
        )
        for position in MIDGAME_ORACLE["positions"]
        for depth, count in enumerate(position["perft"])
        if count <= MIDGAME_MAX_COUNT
    ]


@pytest.mark.parametrize(("game_string", "depth", "count"), MZINGA_CASES)
def test_mzinga_perft(game_string: str, depth: int, count: int) -> None:
    assert Game.from_game_string(game_string).perft(depth) == count


def test_mzinga_tables_cover_every_game_type_to_the_chosen_depth() -> None:
    """Guards the selection above: 8 tables, each game type at depths 0-4, Base also at 5."""
    assert len(PERFT_FILES) == 8
    chosen = {(game_type_of(case.values[0]), case.values[1]) for case in MZINGA_CASES}
    wanted = {(str(gt), d) for gt in ALL_GAME_TYPES for d in range(MAX_DEPTH + 1)}
    assert chosen == wanted | {("Base", MAX_DEPTH_BASE)}
    for path in PERFT_FILES:
        (game_string,) = {row[0] for row in mzinga_table(path)}
        assert path.name == f"Board_{game_type_of(game_string).replace('+', '')}_PerftTest.tsv"
        assert game_string.endswith(";NotStarted;White[1]")


@pytest.mark.parametrize("path", PERFT_FILES, ids=lambda p: p.stem)
def test_nokamute_start_oracle_agrees_with_mzinga(path: Path) -> None:
    """Data sanity: the two engines' start-position counts agree wherever both exist."""
    table = mzinga_table(path)
    oracle = START_ORACLE["results"][game_type_of(table[0][0])]
    assert len(table) == 9  # depths 0..8
    for _, depth, count in table:
        entry = oracle[str(depth)]
        assert entry["count"] == count, f"depth {depth}"
        assert entry["mzinga_published"] == count, f"depth {depth}"
        assert entry["match"] is True


def test_nokamute_start_oracle_covers_all_game_types() -> None:
    assert set(START_ORACLE["results"]) == {str(gt) for gt in ALL_GAME_TYPES}


@pytest.mark.parametrize(("game_string", "depth", "count"), midgame_cases())
def test_nokamute_midgame_perft(game_string: str, depth: int, count: int) -> None:
    """Regression numbers from one engine (nokamute, repetition draws off)."""
    assert Game.from_game_string(game_string).perft(depth) == count


def test_midgame_oracle_depth_one_matches_the_uhp_test_move_lists() -> None:
    """Data sanity: perft(1) of each uhp_tests position is the size of its expected move list."""
    blocks = (VECTORS / "nokamute_uhp_tests.txt").read_text().split("\n\n")
    expected = {}
    for block in blocks:
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        if len(lines) == 2:
            expected[lines[0].strip()] = len(lines[1].split(";"))
    checked = 0
    for position in MIDGAME_ORACLE["positions"]:
        if position["gamestring"] in expected:
            assert position["perft"][1] == expected[position["gamestring"]], position["name"]
            game = Game.from_game_string(position["gamestring"])
            assert len(legal_keys(game)) == position["perft"][1]
            checked += 1
    assert checked == len(MIDGAME_ORACLE["positions"]) - 1  # all but beetle_gate
