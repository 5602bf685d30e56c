"""The search-tree visualizer at /visualizer, on a trace written by ``hive-ai bestmove --trace``:
the tree from the root with the run's figures, a node opened by a click (its children, with
the cut and pruned ones as single nodes), the evaluation terms on hover, and the node's
position on the small board (positions asked of the server)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, expect

from hive import Game
from tests.client.support import POSITION, Person, layout_of, wait_until, write_trace
from tests.server.conftest import Running

pytestmark = pytest.mark.browser


def label(node: dict[str, Any]) -> str:
    return node["move"] if node["kind"] == "move" else f"{node['count']}"


async def test_the_visualizer_draws_a_trace_opens_nodes_and_shows_terms(
    srv: Running, browser: Browser, tmp_path: Path, artifacts: Path
) -> None:
    trace = await write_trace(tmp_path / "trace.json")
    root = trace["root"]
    viz = await Person.open(browser, srv.http_url, "viz", "/visualizer", online=False)
    page = viz.page
    await page.get_by_test_id("trace-file").set_input_files(tmp_path / "trace.json")

    # the root and its children, best first; the run's figures
    await expect(page.locator('.node[data-node="0"]')).to_contain_text("root")
    children = page.locator('[data-testid=tree] .node[data-node^="0."]')
    await expect(children).to_have_count(len(root["children"]))
    for i, child in enumerate(root["children"][:5]):
        await expect(page.locator(f'.node[data-node="0.{i}"]')).to_contain_text(label(child))
    run = page.get_by_test_id("run")
    await expect(run.locator('[data-figure="level"]')).to_have_text("medium")
    await expect(run.locator('[data-figure="chosen"]')).to_have_text(trace["run"]["chosen"])
    await expect(run.locator('[data-figure="nodes"]')).to_have_text(f"{trace['run']['nodes']:,}")

    # a click opens a node: its children appear, the cut and pruned ones as one node each
    first = root["children"][0]
    await page.locator('.node[data-node="0.0"]').click()
    grandchildren = page.locator('[data-testid=tree] .node[data-node^="0.0."]')
    await expect(grandchildren).to_have_count(len(first["children"]))
    for i, child in enumerate(first["children"]):
        node = page.locator(f'.node[data-node="0.0.{i}"]')
        await expect(node).to_contain_text(label(child))
        if child["kind"] in ("cut", "pruned"):
            await expect(node).to_have_attribute("data-kind", child["kind"])
    assert any(c["kind"] in ("cut", "pruned") for c in first["children"])

    # its position on the small board, from the server
    game = Game.from_game_string(POSITION)
    game.play(first["move"])
    await expect(page.locator("[data-slot=board]")).to_have_attribute("data-node", "0.0")
    assert await viz.pieces("[data-slot=board]") == layout_of(game)

    # hovering a move shows its pre-score broken down by term
    reply = first["children"][0]
    await page.locator('.node[data-node="0.0.0"]').hover()
    tip = page.get_by_test_id("tip")
    await expect(tip).to_be_visible()
    await expect(tip).to_contain_text(reply["move"])
    rows = tip.locator("[data-testid=terms] tr[data-term]")
    await expect(rows).to_have_count(len(reply["terms"]))
    shown = await rows.evaluate_all("rows => rows.map(r => [r.dataset.term, +r.dataset.value])")
    assert dict(shown) == reply["terms"]
    await viz.page.screenshot(path=str(artifacts / "visualizer.png"))
    # a click on an open node closes it
    await page.locator('.node[data-node="0.0"]').click()
    await expect(grandchildren).to_have_count(0)
    assert viz.errors == []


async def test_a_pasted_trace_colours_its_levels_and_the_view_zooms_and_pans(
    srv: Running, browser: Browser, tmp_path: Path
) -> None:
    trace = await write_trace(tmp_path / "trace.json")
    viz = await Person.open(browser, srv.http_url, "viz", "/visualizer", online=False)
    page = viz.page
    # not JSON: said so, nothing drawn
    await page.get_by_text("…or paste its JSON").click()
    paste = page.locator("form[data-form=paste]")
    await paste.locator("textarea").fill("{not json")
    await paste.get_by_role("button", name="Show").click()
    await expect(page.locator("[data-slot=error]")).to_contain_text("Not JSON")
    await expect(page.locator('.node[data-node="0"]')).to_have_count(0)
    # the trace pasted
    await paste.locator("textarea").fill(json.dumps(trace))
    await paste.get_by_role("button", name="Show").click()
    await expect(page.locator('.node[data-node="0"]')).to_contain_text("root")
    await expect(page.locator("[data-slot=error]")).to_have_text("")

    # each level in its colour: the root's, then the maximising and minimising sides alternate
    first = trace["root"]["children"][0]
    await page.locator('.node[data-node="0.0"]').click()
    fills = {}
    for node_id, node in (("0.0", first), ("0.0.0", first["children"][0])):
        shown = page.locator(f'.node[data-node="{node_id}"]')
        side = "max" if node["maximizing"] else "min"
        await expect(shown).to_have_class(re.compile(rf"\b{side}\b"))
        fills[side] = await shown.locator("rect").evaluate("r => getComputedStyle(r).fill")
    root_fill = await page.locator('.node[data-node="0"] rect').evaluate(
        "r => getComputedStyle(r).fill"
    )
    assert len({*fills.values(), root_fill}) == 3, fills

    # the wheel zooms about the pointer; a drag pans
    node = page.locator('.node[data-node="0.0"]')
    before = await node.bounding_box()
    assert before is not None
    await page.mouse.move(before["x"] + 5, before["y"] + 5)
    await page.mouse.wheel(0, -300)
    await wait_until(
        page,
        "([sel, w]) => document.querySelector(sel).getBoundingClientRect().width > w",
        ['.node[data-node="0.0"]', before["width"] * 1.2],
    )
    zoomed = await node.bounding_box()
    assert zoomed is not None
    tree = await page.get_by_test_id("tree").bounding_box()
    assert tree is not None
    start = (tree["x"] + tree["width"] - 40, tree["y"] + tree["height"] - 40)  # empty canvas
    await page.mouse.move(*start)
    await page.mouse.down()
    await page.mouse.move(start[0] - 100, start[1] - 60, steps=8)
    await page.mouse.up()
    moved = await node.bounding_box()
    assert moved is not None
    assert moved["x"] - zoomed["x"] == pytest.approx(-100, abs=2)
    assert moved["y"] - zoomed["y"] == pytest.approx(-60, abs=2)
    await expect(page.locator('.node[data-node^="0.0."]').first).to_be_visible()  # still open
    assert viz.errors == []
