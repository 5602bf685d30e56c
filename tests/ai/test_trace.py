"""Search traces: real traces validate against the schema in docs/search-trace.md, keep their
invariants, respect the depth cap, and agree with the search they record."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from ai.bots import Bot, Level
from ai.evaluation import FITTED, evaluate
from ai.search import TranspositionTable, iterative_search, search
from ai.trace import TraceRecorder
from hive import Game
from tests.vectors import ROOT, tsv_rows

DOC = ROOT / "docs" / "search-trace.md"
POSITIONS = [row[0] for row in tsv_rows("mzinga_validmoves_realgames.tsv")][60::45][:3]


def doc_blocks() -> list[Any]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)]


SCHEMA = next(block for block in doc_blocks() if "$schema" in block)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def validate(document: dict[str, Any]) -> None:
    """Schema and invariants; raises on the first violation."""
    # JSON-serialisable, and unchanged by a round trip.
    assert json.loads(json.dumps(document)) == document
    VALIDATOR.validate(document)
    root = document["root"]
    if root is None:
        return
    for node, parent in walk(root, None):
        assert node["ply"] <= document["max_depth"]
        if parent is None:
            continue
        assert node["ply"] == parent["ply"] + 1
        if node["kind"] == "move":
            assert node["maximizing"] != parent["maximizing"]
            if parent["kind"] == "root":
                assert node["player"] == parent["player"]
            else:
                assert node["player"] != parent["player"]
            if node["terms"]:
                assert sum(node["terms"].values()) == node["prescore"]
            else:
                assert "terminal" in node


def walk(
    node: dict[str, Any], parent: dict[str, Any] | None
) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    yield node, parent
    for child in node.get("children", ()):
        yield from walk(child, node)


def test_schema_is_a_valid_schema_and_the_example_validates() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    examples = [block for block in doc_blocks() if "$schema" not in block]
    assert len(examples) == 1
    validate(examples[0])


def test_schema_rejects_what_it_should() -> None:
    game = Game.from_game_string(POSITIONS[0])
    trace = TraceRecorder(max_depth=1)
    search(game, depth=2, branching=3, trace=trace)
    document = trace.to_dict()
    validate(document)
    bad = json.loads(json.dumps(document))
    bad["root"]["children"][0]["score"] = "high"
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(bad)
    bad = json.loads(json.dumps(document))
    bad["root"]["children"].append({"kind": "pruned", "ply": 1})
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(bad)


@pytest.mark.parametrize("cap", [0, 1, 2, 3])
def test_real_traces_validate_and_respect_the_cap(cap: int) -> None:
    # Stored leaves make big documents (and jsonschema is slow on them): at the cap of 3, only
    # the position with fewest moves.
    for text in POSITIONS if cap < 3 else POSITIONS[1:2]:
        game = Game.from_game_string(text)
        trace = TraceRecorder(max_depth=cap)
        result = search(game, depth=3, branching=3, trace=trace)
        document = trace.to_dict()
        validate(document)
        root = document["root"]
        assert max(node["ply"] for node, _ in walk(root, None)) == min(cap, 3)
        assert root["depth"] == result.depth == 3
        assert document["run"]["nodes"] == result.nodes
        if cap == 0:
            # every position of the 3-ply search, less the 1-ply pre-scoring done first
            assert root["hidden"] == result.nodes - len(game.legal_moves())
            assert root["children"] == []
        else:
            # the root's children are the ranking, best first, with exact scores
            ranked = [(game.move_string(move), score) for move, score in result.ranked]
            listed = [(child["move"], child["score"]) for child in root["children"]]
            assert listed == ranked
            assert all(child["bound"] == "exact" for child in root["children"])
        for node, _ in walk(root, None):
            if node["kind"] in ("root", "move") and node["ply"] == cap:
                assert node["children"] == []
                if node["depth"] > 0 and "table" not in node and "terminal" not in node:
                    assert node["hidden"] > 0


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_trace_given_shallower_is_the_one_recorded_so(level: str) -> None:
    """``to_dict(depth)`` of a deep recording is what a recorder capped at ``depth`` records
    of the same search: a node at the new cap counts in ``hidden`` every position searched
    below it (pre-scoring included), as the search reported it."""
    text = POSITIONS[0]
    recorded = {}
    for cap in (0, 1, 2):
        trace = TraceRecorder(max_depth=cap)
        Bot(level, seed=3).choose(Game.from_game_string(text), trace=trace)
        recorded[cap] = trace
    for cap in (0, 1):
        shallower = recorded[2].to_dict(cap)
        direct = recorded[cap].to_dict()
        for document in (shallower, direct):
            document["run"].pop("seconds")
        assert shallower == direct
        validate(shallower)
    assert recorded[2].to_dict(2) == recorded[2].to_dict()
    with pytest.raises(ValueError, match="max_depth"):
        recorded[1].to_dict(2)


def test_children_account_for_every_legal_move() -> None:
    """Below the root, searched children + pruned + cut = the legal moves of the position, and
    the searched ones are the best pre-scored."""
    game = Game.from_game_string(POSITIONS[1])
    trace = TraceRecorder(max_depth=3)
    search(game, depth=3, branching=2, trace=trace)
    document = trace.to_dict()
    validate(document)
    kinds: set[str] = set()
    limited: list[str] = []

    def check(node: dict[str, Any]) -> None:
        children = node["children"]
        if node["ply"] < 3 and node["depth"] > 0 and "terminal" not in node:
            searched = [child for child in children if child["kind"] == "move"]
            groups = {child["kind"]: child["count"] for child in children if "count" in child}
            kinds.update(groups)
            assert len(searched) + sum(groups.values()) == len(game.legal_moves())
            if node["depth"] == 1:
                assert "cut" not in groups  # every frontier child is a scored leaf
                assert all(child["score"] == child["prescore"] for child in searched)
            if "cut" in groups:
                limited.append(node["move"])
                # the mover's view of each child's pre-score
                sign = 1 if node["maximizing"] else -1
                chosen = {child["move"]: sign * child["prescore"] for child in searched}
                others = []
                for move in game.legal_moves():
                    text = game.move_string(move)
                    game.push(move)
                    if text not in chosen:
                        others.append(-evaluate(game))
                    game.pop()
                assert min(chosen.values()) >= max(others)
        for child in children:
            if child["kind"] == "move":
                game.play(child["move"])
                check(child)
                game.pop()

    check(document["root"])
    assert kinds == {"pruned", "cut"}
    assert limited


def test_depth_one_and_iterative_traces() -> None:
    game = Game.from_game_string(POSITIONS[2])
    trace = TraceRecorder(max_depth=2)
    search(game, depth=1, trace=trace)
    document = trace.to_dict()
    validate(document)
    assert len(document["root"]["children"]) == len(game.legal_moves())
    assert all(child["children"] == [] for child in document["root"]["children"])

    trace = TraceRecorder(max_depth=1)
    ticks = iter(range(10**9))
    result = iterative_search(
        game,
        max_depth=3,
        branching=3,
        deadline=10**9,
        clock=lambda: next(ticks) * 1e-6,
        trace=trace,
    )
    document = trace.to_dict()
    validate(document)
    assert document["root"]["depth"] == result.depth == document["run"]["depth"] == 3


def test_bot_trace_records_the_choice() -> None:
    game = Game.from_game_string(POSITIONS[0])
    level = Level("traced", depth=2, seconds=None, branching=5, quotient=3, table=True)
    bot = Bot(level, seed=5, use_book=False)
    indexes = set()
    for _ in range(12):
        trace = TraceRecorder(max_depth=1)
        choice = bot.choose(game, trace=trace)
        document = trace.to_dict()
        validate(document)
        run = document["run"]
        assert run["source"] == "search" and run["level"] == "traced"
        assert run["quotient"] == 3 and run["chosen_index"] == choice.index
        assert run["chosen"] == game.move_string(choice.move)
        children = document["root"]["children"]
        assert children[choice.index]["move"] == run["chosen"]
        assert run["skipped_best"] == (children[choice.index]["score"] < children[0]["score"])
        assert document["position"] == game.game_string()
        indexes.add(choice.index)
    assert 0 in indexes and len(indexes) > 1  # the randomness chose below the best too


def test_a_trace_shows_the_terms_of_the_weights_searched_with() -> None:
    game = Game.from_game_string(POSITIONS[0])
    level = Level(
        "fitted", depth=2, seconds=None, branching=5, quotient=None, table=True, weights=FITTED
    )
    trace = TraceRecorder(max_depth=1)
    Bot(level, use_book=False).choose(game, trace=trace)
    children = trace.to_dict()["root"]["children"]
    assert len(children) == len(game.legal_moves())
    for child in children:
        game.play(child["move"])
        if not game.is_over():
            assert child["prescore"] == -evaluate(game, FITTED)
            assert sum(child["terms"].values()) == child["prescore"]
        game.undo()


def test_recorder_rejects_a_negative_cap_and_starts_empty() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        TraceRecorder(max_depth=-1)
    document = TraceRecorder().to_dict()
    assert document["root"] is None
    VALIDATOR.validate(document)


def check_searched_once(game: Game, node: dict[str, Any]) -> None:
    """Each move below ``node`` is listed once, searched and unsearched children add up to the
    legal moves, and a node the table answered has no children and no ``hidden``."""
    children = node["children"]
    moves = [child["move"] for child in children if child["kind"] == "move"]
    assert len(moves) == len(set(moves))
    if children:
        unsearched = sum(child["count"] for child in children if "count" in child)
        assert len(moves) + unsearched == len(game.legal_moves())
    if "table" in node:
        assert children == [] and "hidden" not in node
    for child in children:
        if child["kind"] == "move":
            game.play(child["move"])
            check_searched_once(game, child)
            game.pop()


@pytest.mark.parametrize("exact_top", [1, None])
def test_a_node_searched_again_keeps_only_its_last_search(exact_top: int | None) -> None:
    """A node searched again with a wider window (a root move that beats the best, a PVS
    re-search below) keeps nothing of its first search."""
    for text in POSITIONS:
        game = Game.from_game_string(text)
        trace = TraceRecorder(max_depth=2)
        table = TranspositionTable()
        search(game, depth=3, branching=5, exact_top=exact_top, table=table, trace=trace)
        document = trace.to_dict()
        validate(document)
        check_searched_once(game, document["root"])


@pytest.mark.parametrize("cap", [0, 2])
def test_tracing_changes_nothing_in_the_search(cap: int) -> None:
    """The trace evaluates its nodes itself (with the search's cache): the search finds the
    same ranking with the same counts, traced or not."""
    game = Game.from_game_string(POSITIONS[0])
    before = game.game_string()
    for depth, exact_top, use_table in ((3, 1, True), (3, None, False), (2, None, True)):
        results = []
        for trace in (None, TraceRecorder(max_depth=cap)):
            table = TranspositionTable() if use_table else None
            result = search(
                game, depth=depth, branching=4, exact_top=exact_top, table=table, trace=trace
            )
            assert game.game_string() == before
            results.append(
                (result.ranked, result.nodes, result.prunes, result.cut, result.table_hits)
            )
        assert results[0] == results[1]
